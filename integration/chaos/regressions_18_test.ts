/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 18; the newest are in
 * `regressions_test.ts`).
 */
import { clean } from "./regressions_kit.ts";

/**
 * I9, the checker's (seed 234980077, `--committed-deleted-share 1
 * --shared-conflict-share 1 --marker-race-share 1 --shared-cache-share 1`,
 * shrunk to 5 operations; third-party locks, a v2 index): c1's user edited
 * notes/shared-0.md by hand, never synced here, and c0 pushed an edit of it.
 * c1's sync took its conflict records in (none), and right then a second
 * process over c1's cache resolved `--merged`: finding no conflict, it
 * pulled, met c0's version as a conflict with the copy here (set aside,
 * recorded with c0's version as theirs), and published its merge over that
 * version, which it had seen. The second process's command runs in the own
 * process's place while that one waits, and the checker took the writer's
 * view from the own process's service, whose records and synced files
 * predate that pull: it named c0's edit lost. The writer's view is now the
 * second process's service while its command runs there.
 */
Deno.test("chaos regression: a second process's resolution over a version its own pull recorded as theirs loses nothing (I9, the checker's, seed 234980077)", async () => {
  await clean(
    '{"seed":234980077,"clones":2,"absentOnError":true,"v2":true,"ops":[{"id":57,"kind":"edit","clone":1,"file":3,"how":"hand"},{"id":62,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":63,"kind":"tick","n":2,"pick":868448743},{"id":64,"kind":"resolve","clone":1,"pick":2,"how":"merged","second":true,"aimed":true},{"id":65,"kind":"sync","clone":1}]}',
  );
});
