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
