/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 13 of the older ones,
 * oldest first; the newest are in `regressions_test.ts`).
 */
import { clean } from "./regressions_kit.ts";

/**
 * I33 (seed 227600075, `--parallel-share 1 --structural-share 1
 * --shared-cache-share 1`, shrunk to 21 operations; a v2 index): c0's
 * config edit of config/settings-1.yaml wrote the unpartitioned shard and
 * its meta bump met an outage, so the shard named the file under a meta
 * that said nothing changed. c1's next run pulled the model's data alone:
 * that pull read the whole index under that same meta, the new shard
 * included, and took in nothing outside data/, while the memo kept the
 * shard versions it read. The run's commit, on the meta c1's token named,
 * took them for the index the cache reflects and kept its new token as
 * current; its bump published c0's entry, and every pull of c1 after it,
 * the final sync's included, passed over the index as unchanged: c1 never
 * held the file. A pull of some prefixes that finds the shards under its
 * token's meta at other versions than the cache reflects now drops the
 * token, so that the next whole pull reads the index.
 */
Deno.test("chaos regression: a peer's shard write cut off before its meta bump, read by a run's pull of its data, is fetched by the next whole pull (I33, seed 227600075)", async () => {
  await clean(
    '{"seed":227600075,"clones":3,"v2":true,"setAsideFlaky":true,"ops":[{"id":99,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":101,"kind":"tick","n":9,"pick":1023903046},{"id":102,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":104,"kind":"sync","clone":1},{"id":85,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":88,"kind":"tick","n":56,"pick":2132688838},{"id":62,"kind":"sync","clone":1},{"id":13,"kind":"marker","clone":1,"model":0,"data":1,"back":true,"how":"push"},{"id":73,"kind":"marker","clone":0,"model":0,"data":1,"back":false,"how":"push"},{"id":14,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":15,"kind":"flaky","call":"head","count":1,"afterEffect":true},{"id":16,"kind":"tick","n":13,"pick":753236270},{"id":18,"kind":"outage","on":true},{"id":21,"kind":"tick","n":6,"pick":1649102032},{"id":22,"kind":"outage","on":false},{"id":25,"kind":"config","clone":0,"file":1},{"id":26,"kind":"tick","n":6,"pick":224170697},{"id":28,"kind":"outage","on":true},{"id":29,"kind":"tick","n":2,"pick":109890568},{"id":32,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":33,"kind":"sync","clone":0}]}',
  );
});
