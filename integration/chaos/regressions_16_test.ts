/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 16; the newest are in
 * `regressions_test.ts`).
 */
import { clean } from "./regressions_kit.ts";

/**
 * I30, the checker's (seed 230980192, row m: `--committed-deleted-share 1
 * --shared-conflict-share 1 --marker-race-share 1 --shared-cache-share 1`,
 * the moves from the default mix, shrunk to 8 operations): c0 pushed three
 * edits of notes/shared-2.lock, its manifest log two lines under the base.
 * Line 1 (the record of v7, not the latest) was damaged on disk and c0's
 * process restarted; its open told line 1 (`state_unreadable`). Its core
 * sync, stalled before its save, was still under way when a `damaged` move
 * with `open` found line 1 the only line before the last, so it turned
 * that garbage into other garbage, another process writing a line ahead
 * after it. The sync's save took the log in (the same file, line 1 already
 * found, so not told twice: nothing more was lost on it) and wrote a base,
 * and the lockfile change after it read a fresh log. I30 held that lockfile
 * change to tell line 1 anew. A line already unreadable before the move
 * now leaves the process nothing new to tell.
 */
Deno.test("chaos regression: a damaged line of the manifest log damaged again, the process open since before having told it at its open, holds no record and has nothing new to tell (I30, seed 230980192)", async () => {
  await clean(
    '{"seed":230980192,"clones":4,"kinds":["core","api","core-single-phase","api"],"indexFirst":true,"ops":[{"id":79,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":82,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":86,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":87,"kind":"tick","n":1,"pick":1301568869},{"id":56,"kind":"damaged","clone":0,"file":2,"pick":953962479},{"id":25,"kind":"stall","clone":0,"on":true},{"id":69,"kind":"sync","clone":0},{"id":72,"kind":"damaged","clone":0,"file":5,"pick":805539726,"open":true}]}',
  );
});
