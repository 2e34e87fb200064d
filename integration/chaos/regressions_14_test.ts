/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 14; the newest are in
 * `regressions_test.ts`).
 */
import { clean } from "./regressions_kit.ts";

/**
 * I7, I8 (seed 227900160, `--put-back-lost-share 1 --shared-cache-share 1`,
 * shrunk to 13 operations; a v2 index, old clients, every Sluice commit
 * under the global lock): c3's run committed m0's `out` version 1 and its
 * marker. c1's run of that data uploaded version 2 and its marker over the
 * committed one; its commit wrote the version's shard and c1 died as that
 * write landed, before the marker's shard. c1's user deleted version 2's
 * files and pushed: the marker here, naming version 2, was held, and the
 * commit put the committed marker back over c1's upload (recorded as synced
 * at the copy), c1 dying again before the index write naming it. The index
 * named the version the copy replaced, and no later push named the copy:
 * the marker stayed held, and the store held c1's own object at the version
 * synced there, so the hold saw no stranded upload. After the final sync
 * the index named a version the store no longer held (I7), and a fresh
 * clone's pull skipped the marker as not yet committed (I8). A push holding
 * the marker now names such a copy in place of that version.
 */
Deno.test("chaos regression: a put-back of the committed marker whose process died before its index write is named by the next push holding the marker (I7, I8, seed 227900160)", async () => {
  await clean(
    '{"seed":227900160,"clones":4,"v2":true,"kinds":["core","api","core","api"],"oldClients":true,"ops":[{"id":74,"kind":"run","clone":2,"model":1,"data":0,"workMs":0},{"id":76,"kind":"lockless","run":74,"pick":1337067736,"indexed":true},{"id":77,"kind":"oldpush","clone":1,"window":2},{"id":78,"kind":"tick","n":48,"pick":869766920},{"id":47,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":53,"kind":"tick","n":53,"pick":1040790944},{"id":58,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":59,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":60,"kind":"tick","n":46,"pick":1895636682},{"id":61,"kind":"delete","clone":1,"file":0,"how":"push","run":59},{"id":62,"kind":"tick","n":41,"pick":1126992295},{"id":64,"kind":"tick","n":48,"pick":1272151637},{"id":0,"kind":"crash","clone":1}]}',
  );
});

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

/**
 * I7, the checker's (seed 229200020, default mix, found with 7757afe; a v2
 * index): c0's run of m0's `out` stopped once its uploads landed; c1's
 * same run took its lock, met those uploads (the same bytes), and died as
 * its shard write naming them landed, before the meta listed that shard.
 * c0's run went on, refused, and its erasure kept the uploads (the
 * unlisted shard names them); c0's run of m0's `log` wrote that shard and
 * listed it, and c0 synced, its check (`listed`) looking at every file the
 * index names under m0's `out`. The history's outage began between that
 * sync's push and its check, and the check's HEADs, made through the
 * in-memory target's faulted store, failed and were taken for objects
 * gone: the store held both throughout. The marker naming of 7757afe only
 * read the index here, which moved the outage ahead of the check. The
 * checks read past injected faults now.
 */
Deno.test("chaos regression: a check made during an outage takes no object the store holds for gone (I7, the checker's, seed 229200020)", async () => {
  await clean(
    '{"seed":229200020,"clones":2,"v2":true,"ops":[{"id":56,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":58,"kind":"crash","clone":0,"at":"answer","queued":true},{"id":59,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":60,"kind":"tick","n":29,"pick":1002947254},{"id":61,"kind":"delete","clone":0,"file":0,"how":"push","run":59},{"id":37,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":41,"kind":"stall","clone":0,"on":true,"at":"commit","run":37,"pick":220232811},{"id":44,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":45,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":47,"kind":"tick","n":65,"pick":281755077},{"id":48,"kind":"stall","clone":0,"on":false},{"id":49,"kind":"tick","n":16,"pick":1347720529},{"id":50,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":51,"kind":"tick","n":47,"pick":429842359},{"id":52,"kind":"sync","clone":0,"listed":{"model":0,"data":0}},{"id":53,"kind":"tick","n":20,"pick":2138817338},{"id":25,"kind":"tick","n":36,"pick":2035477266},{"id":26,"kind":"outage","on":true},{"id":20,"kind":"tick","n":1,"pick":1147674809}]}',
  );
});
