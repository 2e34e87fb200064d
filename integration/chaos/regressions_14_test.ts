/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 14; the newest are in
 * `regressions_test.ts`).
 */
import { clean } from "./regressions_kit.ts";

/**
 * I18 (seed 228900022, `--put-back-lost-share 1 --shared-cache-share 1`,
 * shrunk to 13 operations; third-party locks): another tool put m1's `out`
 * version 1 and its `latest` marker ("1") before any index. c1's run
 * published version 2 and moved the marker to "2"; another tool deleted
 * version 2's files. c2's run of that data was refused (`version_exists`),
 * leaving a conflict at the marker, and its resolution with --mine wrote
 * its "1" over the marker, c2 dying before the index update. The index
 * named "2" and the store held "1", the same bytes as the tool's: the
 * checker took c2's uncommitted write for the tool's object. Sluice lost
 * nothing (the tool's object was replaced by c1's committed run; c2's
 * conflict stays open until resolved). I18 now holds only the object at
 * the version the tool's put made, with no writer's id on it.
 */
Deno.test("chaos regression: the same bytes as another tool's marker written again by a resolution cut off before its index update are not the tool's object (I18, seed 228900022)", async () => {
  await clean(
    '{"seed":228900022,"clones":4,"absentOnError":true,"kinds":["api","api","core","api"],"reusedLocks":true,"ops":[{"id":41,"kind":"foreign","what":"version","model":1,"data":0,"version":1,"marker":true},{"id":48,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":49,"kind":"tick","n":43,"pick":1839085536},{"id":50,"kind":"vanish","file":0,"run":48,"whole":true},{"id":51,"kind":"run","clone":2,"model":1,"data":0,"workMs":0},{"id":58,"kind":"tick","n":24,"pick":654971400},{"id":60,"kind":"run","clone":2,"model":1,"data":0,"workMs":0},{"id":1,"kind":"tick","n":6,"pick":1408804595},{"id":2,"kind":"flaky","call":"put","count":2,"afterEffect":false},{"id":3,"kind":"tick","n":9,"pick":151177996},{"id":8,"kind":"crash","clone":2,"at":"commit"},{"id":12,"kind":"resolve","clone":2,"pick":2,"how":"mine"},{"id":16,"kind":"tick","n":2,"pick":973830829}]}',
  );
});
