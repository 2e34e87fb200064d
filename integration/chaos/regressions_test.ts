/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed.
 */
import assert from "node:assert/strict";
import { formatHistory, generateHistory, parseHistory } from "./history.ts";
import { runHistory } from "./workload.ts";

async function clean(...jsons: string[]): Promise<void> {
  for (const json of jsons) {
    const r = await runHistory(parseHistory(json));
    assert.deepEqual(
      r.violations.map((v) => `${v.invariant}: ${v.message}`),
      [],
      formatHistory(r.history),
    );
  }
}

/**
 * I7/I8: a clone's own write of a latest marker lands but its index commit
 * does not (a crash armed at the commit step); the same clone then runs
 * twice more. Its compare-and-swap met its own orphaned object, which it
 * took for a peer's, and the index named a dead version for good. Fixed in
 * middleware/config_cas_writer.ts (the writer id).
 */
Deno.test("chaos regression: a clone's own orphaned marker write is replaced, not a conflict (I7, I8)", async () => {
  await clean(
    '{"seed":127,"clones":2,"ops":[{"id":12,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":33,"kind":"crash","clone":0,"at":"commit"},{"id":39,"kind":"tick","n":1,"pick":1496073696},{"id":40,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":41,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":42,"kind":"tick","n":35,"pick":2051754468}]}',
  );
});

/**
 * I7/I8: a clone's delete of a shared file lands but its index update fails
 * (flaky puts); its next edit of that path met "deleted remotely" against a
 * deletion nobody committed, became a conflict, and the index kept naming
 * the deleted object. Fixed in middleware/config_cas_writer.ts (a path gone
 * from the store while the index still names the synced version is created
 * again).
 */
Deno.test("chaos regression: an edit over this clone's own uncommitted deletion is published (I7, I8)", async () => {
  await clean(
    '{"seed":1403,"clones":2,"absentOnError":true,"ops":[{"id":3,"kind":"config","clone":1,"file":0},{"id":7,"kind":"tick","n":6,"pick":1137798375},{"id":8,"kind":"flaky","call":"put","count":3,"afterEffect":false},{"id":10,"kind":"delete","clone":1,"file":1,"how":"push"},{"id":16,"kind":"edit","clone":1,"file":0,"how":"mark"},{"id":19,"kind":"tick","n":5,"pick":120980570}]}',
  );
});

/**
 * I7/I8 (seed 1420, shrunk, single-phase core-driven clones on a v2 bucket):
 * a core run's push wrote its latest marker, then its index update failed in
 * an outage. The push had already recorded the marker as synced in memory;
 * a later pull saved that to the manifest, so the next push of the marked
 * data-name directory found the marker "unchanged" and never committed it.
 * Fixed in sync/service/push.ts: the manifest records a written path only once the
 * index names it.
 */
Deno.test("chaos regression: a write whose index update failed is written and committed again (I7, I8)", async () => {
  await clean(
    '{"seed":1420,"clones":3,"v2":true,"kinds":["core-single-phase","core-single-phase","api"],"ops":[{"id":0,"kind":"sync","clone":1},{"id":2,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":4,"kind":"sync","clone":2},{"id":6,"kind":"run","clone":1,"model":0,"data":0,"workMs":1000},{"id":8,"kind":"tick","n":7,"pick":545132978},{"id":10,"kind":"breakglass","model":0},{"id":11,"kind":"tick","n":1,"pick":1564366731},{"id":14,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":15,"kind":"tick","n":19,"pick":1018046693},{"id":16,"kind":"tick","n":16,"pick":1571089059},{"id":17,"kind":"run","clone":1,"model":1,"data":0,"workMs":15000},{"id":20,"kind":"breakglass","model":1},{"id":21,"kind":"tick","n":5,"pick":1552472390},{"id":23,"kind":"tick","n":39,"pick":692095477},{"id":40,"kind":"outage","on":true},{"id":43,"kind":"tick","n":2,"pick":1281461786}]}',
  );
});

/**
 * I7/I8 (seed 6823): a clone's own marker write outside a run lands, the
 * clone crashes before the index update, and its next run is refused after a
 * breakglass. The refused-run eraser put the marker back to the committed
 * version and cleaned it, so nothing ever wrote over the orphaned object.
 * Fixed in middleware/erasure.ts: a recomputed marker stays dirty while the
 * store holds this cache's own uncommitted marker object.
 */
Deno.test("chaos regression: an erased run's marker replaces this clone's own orphaned marker (I7, I8)", async () => {
  await clean(
    '{"seed":6823,"clones":2,"kinds":["api","core"],"ops":[{"id":1,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":3,"kind":"tick","n":12,"pick":2104960471},{"id":5,"kind":"crash","clone":1,"at":"commit"},{"id":6,"kind":"marker","clone":1,"model":0,"data":0,"back":false},{"id":14,"kind":"tick","n":12,"pick":539467344},{"id":15,"kind":"breakglass","model":0},{"id":19,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":20,"kind":"tick","n":2,"pick":338268834}]}',
  );
});

/**
 * I7/I8 (seed 9307, v2 bucket): a clone's config edit lands and the clone
 * crashes before the index update; a peer's push met that orphan, took it for
 * a committed change ("theirs"), and the peer's resolution wrote over it, so
 * neither writer could ever repair the index. Fixed in
 * middleware/config_cas_writer.ts: an object the index does not name is
 * waited for (kept dirty, no conflict) until its writer commits it.
 */
Deno.test("chaos regression: a peer's uncommitted config write is waited for, not resolved against (I7, I8)", async () => {
  await clean(
    '{"seed":9307,"clones":3,"v2":true,"kinds":["api","core","core"],"ops":[{"id":4,"kind":"config","clone":1,"file":2},{"id":8,"kind":"tick","n":1,"pick":864268955},{"id":11,"kind":"crash","clone":2,"at":"commit"},{"id":12,"kind":"resolve","clone":2,"pick":5,"how":"merged"},{"id":15,"kind":"tick","n":8,"pick":1523231527},{"id":16,"kind":"config","clone":2,"file":2},{"id":21,"kind":"config","clone":1,"file":2},{"id":33,"kind":"tick","n":1,"pick":727569628},{"id":34,"kind":"resolve","clone":1,"pick":2,"how":"merged"},{"id":35,"kind":"flaky","call":"head","count":2,"afterEffect":false},{"id":37,"kind":"tick","n":7,"pick":1971659744},{"id":41,"kind":"resolve","clone":1,"pick":7,"how":"theirs"}]}',
  );
});

/**
 * I8 (seed 354, the index move's catch-up switched off): a config push
 * commits to the v1 index after the move read it; the move then wrote the
 * shards from its older read, and the v2 index missed the commit. Kept by
 * the move's catch-up (sync/transfer/migrate_index.ts).
 */
Deno.test("chaos regression: a v1 commit racing the move to v2 is in the v2 index (I8)", async () => {
  await clean(
    '{"seed":354,"clones":5,"kinds":["api","api","core","core-single-phase","api"],"ops":[{"id":0,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":3,"kind":"edit","clone":1,"file":1,"how":"hand-tick"},{"id":11,"kind":"tick","n":20,"pick":188314697},{"id":12,"kind":"breakglass","model":0},{"id":13,"kind":"migrate","clone":3},{"id":14,"kind":"resolve","clone":1,"pick":4,"how":"mine"},{"id":15,"kind":"config","clone":4,"file":1},{"id":17,"kind":"tick","n":7,"pick":712038812},{"id":20,"kind":"tick","n":15,"pick":872339666}]}',
  );
});

/**
 * I7/I8 (seed 572, v2 bucket): a clone's config edit lands but its index
 * update does not (an outage); it then deletes the file by hand. Its next
 * push's delete, conditional on the synced version, met its own uncommitted
 * object and recorded a conflict against it, and the index named the old
 * version for good. Fixed in sync/service/push_delete.ts (this cache's own
 * uncommitted object is deleted over its version).
 */
Deno.test("chaos regression: a deletion over this clone's own uncommitted edit deletes it (I7, I8)", async () => {
  await clean(
    '{"seed":572,"clones":3,"v2":true,"ops":[{"id":2,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":3,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":8,"kind":"config","clone":0,"file":2},{"id":9,"kind":"tick","n":14,"pick":698279936},{"id":10,"kind":"config","clone":0,"file":2},{"id":11,"kind":"tick","n":2,"pick":1027675877},{"id":14,"kind":"outage","on":true},{"id":19,"kind":"tick","n":4,"pick":579115627},{"id":21,"kind":"delete","clone":0,"file":3,"how":"hand"}]}',
  );
});

/**
 * I7/I8 (seed 3762): an edit's upload lands and its index update does not;
 * the same clone then deletes the file. Fixed by the same change.
 */
Deno.test("chaos regression: a deletion after this clone's own uncommitted edit is published (I7, I8)", async () => {
  await clean(
    '{"seed":3762,"clones":5,"kinds":["api","api","api","api","core"],"ops":[{"id":0,"kind":"config","clone":2,"file":0},{"id":1,"kind":"tick","n":1,"pick":892805711},{"id":2,"kind":"lockfile","clone":3,"set":"@chaos/ext-2"},{"id":6,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":8,"kind":"delete","clone":2,"file":2,"how":"push"},{"id":9,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":12,"kind":"tick","n":1,"pick":1402416259},{"id":13,"kind":"tick","n":13,"pick":1078591933},{"id":16,"kind":"outage","on":true},{"id":17,"kind":"tick","n":4,"pick":1014829163}]}',
  );
});

/**
 * I7/I8 (seed 3937): a lockfile transaction whose holder lost the global
 * lock (latency, then a stale takeover) recorded its publish in the index
 * after a peer's later publish, naming the older version. Fixed in
 * sync/locks/lockfile_txn.ts (the index update is conditional on the
 * version the publish was based on).
 */
Deno.test("chaos regression: a lockfile publish recorded late never names an older version than a peer's (I7, I8)", async () => {
  await clean(
    '{"seed":3937,"clones":4,"kinds":["core-single-phase","api","api","core"],"ops":[{"id":2,"kind":"lockfile","clone":3,"set":"@chaos/ext-2"},{"id":3,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":5,"kind":"breakglass","model":0},{"id":6,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":7,"kind":"resolve","clone":2,"pick":2,"how":"merged"},{"id":8,"kind":"latency","ms":3000},{"id":12,"kind":"breakglass","model":0},{"id":13,"kind":"wait","ms":31000},{"id":14,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":15,"kind":"lockfile","clone":1,"set":"@chaos/ext-15"},{"id":16,"kind":"tick","n":6,"pick":184146768},{"id":17,"kind":"tick","n":31,"pick":1034754271}]}',
  );
});

/**
 * I1 (seed 518131, shrunk): the move to v2 read a bucket without a v1 index,
 * a v1 commit then created the index object, and the move wrote a meta
 * listing no shard; its catch-up ran only when it had read an index object,
 * and the commit's own meta write (refused: the meta existed by then) was a
 * companion whose failure was ignored. The run's entries were in no listed
 * shard, so every final pull removed its files.
 */
Deno.test("chaos regression: a v1 commit that creates the index while it moves to v2 is in the v2 index (I1)", async () => {
  await clean(
    '{"seed":518131,"clones":2,"absentOnError":true,"ops":[{"id":0,"kind":"breakglass","model":0},{"id":1,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":2,"kind":"migrate","clone":1},{"id":3,"kind":"resolve","clone":0,"pick":2,"how":"merged"},{"id":4,"kind":"resolve","clone":0,"pick":5,"how":"mine"},{"id":5,"kind":"run","clone":0,"model":0,"data":0,"workMs":15000},{"id":6,"kind":"tick","n":29,"pick":1310640474},{"id":7,"kind":"breakglass","model":0},{"id":8,"kind":"crash","clone":1},{"id":9,"kind":"flaky","call":"get","count":1,"afterEffect":true},{"id":13,"kind":"tick","n":3,"pick":201224017}]}',
  );
});

/**
 * I1 (seed 510516, shrunk): a clone crashed while erasing a refused run's
 * version (after removing its directory, before its journal was rewritten);
 * booted again, it ran the model and wrote the same version number anew; its
 * push first completed the journaled erasure, which removed the new run's
 * files, and the run reported success with nothing pushed.
 */
Deno.test("chaos regression: completing an interrupted erasure never removes a later run's files (I1)", async () => {
  await clean(
    '{"seed":510516,"clones":5,"v2":true,"kinds":["api","api","core","core","api"],"ops":[{"id":2,"kind":"run","clone":4,"model":0,"data":0,"workMs":1000},{"id":8,"kind":"run","clone":4,"model":0,"data":0,"workMs":45000},{"id":9,"kind":"run","clone":1,"model":0,"data":0,"workMs":15000},{"id":10,"kind":"run","clone":3,"model":0,"data":0,"workMs":45000},{"id":12,"kind":"run","clone":4,"model":0,"data":0,"workMs":0},{"id":13,"kind":"tick","n":3,"pick":2101666360},{"id":14,"kind":"tick","n":2,"pick":1049540052},{"id":15,"kind":"breakglass","model":0},{"id":24,"kind":"tick","n":22,"pick":974287800},{"id":25,"kind":"breakglass","model":0},{"id":27,"kind":"tick","n":38,"pick":1299687678},{"id":28,"kind":"breakglass","model":0},{"id":32,"kind":"tick","n":8,"pick":470449739},{"id":36,"kind":"crash","clone":4}]}',
  );
});

/**
 * I7/I8 (seed 728103, shrunk): a v1 commit of `notes/shared-1.md` landed
 * after the move to v2 read the index object; once the move's meta was
 * written, the same clone deleted the file (object and v2 entry). The move's
 * catch-up then replayed the older commit and put the entry back, naming a
 * deleted object. Now the catch-up applies an entry only while its object is
 * in the store (sync/transfer/migrate_index.ts).
 */
Deno.test("chaos regression: the move's catch-up never names an object a later commit deleted (I7, I8)", async () => {
  await clean(
    '{"seed":728103,"clones":3,"kinds":["api","api","core"],"ops":[{"id":2,"kind":"bulk","clone":2},{"id":3,"kind":"tick","n":4,"pick":625601839},{"id":10,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":13,"kind":"migrate","clone":0},{"id":14,"kind":"delete","clone":2,"file":1,"how":"push"}]}',
  );
});

/**
 * I1 (seed 727675, shrunk): a v1 commit of c1's run landed after the move to
 * v2 read the index object, and left the v1 meta as it was (its shard list
 * had not changed). The move's v2 meta was then accepted, and the move
 * crashed before its catch-up: the v2 index never named the run's files. Now
 * the move marks the meta before reading the index, and a commit that finds
 * the mark rewrites the meta, so the move starts over
 * (sync/transfer/migrate_index.ts).
 */
Deno.test("chaos regression: a v1 commit racing a move that crashes before its catch-up is in v2 (I1)", async () => {
  await clean(
    '{"seed":727675,"clones":2,"ops":[{"id":1,"kind":"breakglass","model":0},{"id":2,"kind":"sync","clone":1},{"id":3,"kind":"latency","ms":3000},{"id":4,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":6,"kind":"lockfile","clone":1,"set":"@chaos/ext-6"},{"id":7,"kind":"tick","n":27,"pick":902070387},{"id":8,"kind":"edit","clone":0,"file":2,"how":"push"},{"id":9,"kind":"run","clone":1,"model":0,"data":1,"workMs":15000},{"id":10,"kind":"run","clone":1,"model":1,"data":0,"workMs":15000},{"id":11,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":12,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":13,"kind":"breakglass","model":null},{"id":14,"kind":"breakglass","model":1},{"id":15,"kind":"crash","clone":0},{"id":16,"kind":"breakglass","model":1},{"id":17,"kind":"tick","n":33,"pick":1382506451},{"id":18,"kind":"tick","n":36,"pick":1528908966},{"id":19,"kind":"tick","n":9,"pick":861248560},{"id":20,"kind":"migrate","clone":0},{"id":24,"kind":"tick","n":1,"pick":170502997},{"id":25,"kind":"tick","n":22,"pick":1659621197},{"id":26,"kind":"crash","clone":0}]}',
  );
});

/**
 * I9 (seed 900291, shrunk): two clones each took a new config file over
 * while the other's write of it was uploaded but not committed. The first
 * write's commit then landed, and the second wrote over a committed edit it
 * had never seen. Taking over now adopts the stranded object (publishes it
 * as its writer's change) instead of writing over it, and the local copy
 * meets it as a conflict (sync/transfer/adopt.ts).
 */
Deno.test("chaos regression: adopting a slow writer's uncommitted object never loses its edit (I9)", async () => {
  await clean(
    '{"seed":900291,"clones":5,"ops":[{"id":2,"kind":"run","clone":1,"model":0,"data":1,"workMs":45000},{"id":3,"kind":"adopt","clone":4,"file":2},{"id":6,"kind":"adopt","clone":3,"file":2},{"id":9,"kind":"tick","n":10,"pick":723476831}]}',
  );
});

/**
 * I7/I8 (seed 804340, shrunk): an attempt of the move to v2 wrote the shard
 * of unpartitioned files from its read of the index object; a v1 commit then
 * deleted the only such file, and the move started over from the new index,
 * which had no such partition, so it left the earlier shard in place. v2
 * readers read that shard listed or not, and the index named a deleted
 * object. Now each attempt deletes the shards the index it read has no
 * partition for (sync/transfer/migrate_index.ts).
 */
Deno.test("chaos regression: a shard an earlier attempt of the move wrote is not left stale (I7, I8)", async () => {
  await clean(
    '{"seed":804340,"clones":5,"kinds":["api","core-single-phase","api","core-single-phase","api"],"ops":[{"id":1,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":11,"kind":"tick","n":21,"pick":1483328334},{"id":16,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":17,"kind":"migrate","clone":4},{"id":25,"kind":"delete","clone":1,"file":1,"how":"push"}]}',
  );
});

/**
 * I7/I8 (seed 805756, shrunk): a core-driven run's push marked the data's
 * directory dirty; its marker was written in the commit, whose index update
 * failed (an outage). The next push of that clone failed on another file,
 * so its commit-step writes were held back, yet the directory's mark was
 * cleaned: the marker was never pushed again, and the index kept naming the
 * old one while the store held the new. Now a directory stays dirty while a
 * commit-step write under it was held back or deferred to a commit that has
 * not run (sync/service/push.ts).
 */
Deno.test("chaos regression: a marker held back by a failed push stays dirty under its directory mark (I7, I8)", async () => {
  await clean(
    '{"seed":805756,"clones":4,"v2":true,"kinds":["api","core","core","core"],"ops":[{"id":3,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":4,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":5,"kind":"run","clone":1,"model":0,"data":1,"workMs":45000},{"id":6,"kind":"flaky","call":"get","count":3,"afterEffect":false},{"id":7,"kind":"sync","clone":1},{"id":8,"kind":"resolve","clone":0,"pick":1,"how":"merged"},{"id":10,"kind":"breakglass","model":0},{"id":11,"kind":"resolve","clone":3,"pick":2,"how":"theirs"},{"id":12,"kind":"tick","n":22,"pick":179296534},{"id":15,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":16,"kind":"resolve","clone":3,"pick":6,"how":"mine"},{"id":19,"kind":"tick","n":30,"pick":117791297},{"id":27,"kind":"tick","n":4,"pick":1289513117},{"id":29,"kind":"flaky","call":"put","count":2,"afterEffect":false},{"id":32,"kind":"config","clone":1,"file":1},{"id":34,"kind":"flaky","call":"put","count":3,"afterEffect":false},{"id":35,"kind":"tick","n":7,"pick":518618694}]}',
  );
});

/**
 * I7 (seed 798, shrunk): a push wrote its shard, but its meta bump failed
 * (an outage), so it failed while readers already saw its new file. A peer
 * pulled the file and deleted it; the writer's next push had found its own
 * bytes there ("identical") just before, and its commit named the deleted
 * object. Now a write that found its bytes already there is committed only
 * while the store holds them (`IndexChange.check`).
 */
Deno.test("chaos regression: a re-push of bytes a peer saw and deleted never names the deleted object (I7)", async () => {
  await clean(
    '{"seed":798,"clones":5,"v2":true,"kinds":["core","api","api","api","core"],"ops":[{"id":0,"kind":"lockfile","clone":3,"set":"@chaos/ext-0"},{"id":1,"kind":"tick","n":8,"pick":1984871215},{"id":2,"kind":"run","clone":3,"model":0,"data":0,"workMs":15000},{"id":5,"kind":"sync","clone":4},{"id":6,"kind":"breakglass","model":0},{"id":7,"kind":"adopt","clone":1,"file":4},{"id":8,"kind":"tick","n":15,"pick":113757854},{"id":14,"kind":"outage","on":true},{"id":17,"kind":"tick","n":7,"pick":1580730702},{"id":18,"kind":"outage","on":false},{"id":20,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":22,"kind":"flaky","call":"get","count":2,"afterEffect":true},{"id":28,"kind":"resolve","clone":0,"pick":1,"how":"mine"},{"id":29,"kind":"lockfile","clone":0,"set":"@chaos/ext-29"},{"id":30,"kind":"run","clone":0,"model":0,"data":1,"workMs":45000},{"id":31,"kind":"sync","clone":4},{"id":32,"kind":"tick","n":31,"pick":165249489},{"id":33,"kind":"outage","on":true},{"id":34,"kind":"tick","n":6,"pick":1442136812},{"id":35,"kind":"bulk","clone":1},{"id":37,"kind":"delete","clone":0,"file":2,"how":"push"}]}',
  );
});

/**
 * I1 (seed 6753, shrunk): the move to v2 marked the meta of a bucket with no
 * index yet; a v1 commit then created the index object, read the marked
 * meta, and failed to write its companion shard (an outage), a failure it
 * ignored, so it never rewrote the meta: the move's v2 meta landed without
 * the commit, the move failed before its catch-up, and the run's files were
 * in no v2 shard. Now a commit that finds the mark rewrites the meta first,
 * and a failure to do so fails the commit (sync/transfer/remote_index.ts).
 */
Deno.test("chaos regression: a v1 commit that finds the move's mark rewrites the meta before its shards (I1)", async () => {
  await clean(
    '{"seed":6753,"clones":4,"kinds":["api","api","core","api"],"ops":[{"id":0,"kind":"run","clone":3,"model":0,"data":1,"workMs":15000},{"id":1,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":2,"kind":"tick","n":18,"pick":1677654142},{"id":4,"kind":"tick","n":2,"pick":1575724132},{"id":5,"kind":"migrate","clone":2},{"id":9,"kind":"tick","n":19,"pick":369055250},{"id":14,"kind":"outage","on":true},{"id":19,"kind":"tick","n":4,"pick":2113161446}]}',
  );
});

/**
 * I10 (seed 36, shrunk): a push created the shard of unpartitioned files; a
 * peer that read it removed its only entry, deleted the emptied shard and
 * dropped it from the meta; the push's meta write, refused, was retried and
 * listed the shard again, so every reader refused the index as corrupt (the
 * meta listed a missing shard). Found once the checker counted a
 * `corrupt_download` as a violation (I10). Now a retried meta write lists
 * a shard this change wrote only while it exists (sync/transfer/remote_index.ts).
 */
Deno.test("chaos regression: a retried meta write never lists a shard a peer emptied and deleted (I10)", async () => {
  await clean(
    '{"seed":36,"clones":5,"absentOnError":true,"v2":true,"ops":[{"id":0,"kind":"edit","clone":4,"file":3,"how":"push"},{"id":1,"kind":"sync","clone":1},{"id":2,"kind":"breakglass","model":null},{"id":3,"kind":"resolve","clone":0,"pick":7,"how":"merged"},{"id":4,"kind":"delete","clone":1,"file":5,"how":"push"},{"id":6,"kind":"breakglass","model":0},{"id":7,"kind":"breakglass","model":0},{"id":8,"kind":"tick","n":14,"pick":358881497}]}',
  );
});

/**
 * I10 (seed 804462, shrunk): a writer that emptied the shard of
 * unpartitioned files deleted it and then dropped it from the meta; a reader
 * in between found the listed shard missing and refused the index as
 * corrupt. Now a reader that finds a listed shard missing reads the meta
 * again (a few times) before refusing (sync/transfer/remote_index.ts).
 */
Deno.test("chaos regression: a listed shard missing while its writer drops it is read again, not refused (I10)", async () => {
  await clean(
    '{"seed":804462,"clones":4,"v2":true,"kinds":["core-single-phase","api","api","core-single-phase"],"ops":[{"id":6,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":9,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":13,"kind":"delete","clone":1,"file":4,"how":"push"},{"id":17,"kind":"sync","clone":0}]}',
  );
});

/**
 * I10 (seed 809235, shrunk): a writer that emptied the shard of
 * unpartitioned files deleted it, its meta write was refused, and it crashed
 * before writing the meta again: the meta listed a missing shard, and every
 * reader refused the index until that writer came back. Now an emptied
 * shard is written empty, not deleted, before it is dropped from the meta
 * (sync/transfer/remote_index.ts).
 */
Deno.test("chaos regression: a crash after emptying a shard never leaves the meta listing a missing one (I10)", async () => {
  await clean(
    '{"seed":809235,"clones":4,"absentOnError":true,"kinds":["api","api","core-single-phase","api"],"ops":[{"id":2,"kind":"migrate","clone":0},{"id":3,"kind":"tick","n":7,"pick":541657339},{"id":4,"kind":"crash","clone":1,"at":"commit"},{"id":5,"kind":"sync","clone":1},{"id":6,"kind":"adopt","clone":1,"file":4},{"id":7,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":9,"kind":"tick","n":25,"pick":1966977106},{"id":11,"kind":"delete","clone":1,"file":5,"how":"push"},{"id":16,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":17,"kind":"tick","n":9,"pick":608179772}]}',
  );
});

/**
 * I7/I8, found by the stall move (a clone's process stops, then goes on): a
 * clone's v1 commit stopped before writing its companion shards while the
 * index moved to v2 and a peer committed a newer latest marker to v2; going
 * on, it wrote its older view of the marker's shard over that commit, and
 * the index named a version the store no longer held. Fixed in
 * sync/transfer/index_companions.ts (a shard is written only over the
 * version read before the meta).
 */
Deno.test("chaos regression: a v1 commit stopped before its companion shards never writes over a v2 commit (I7, I8)", async () => {
  await clean(
    '{"seed":3000469,"clones":3,"ops":[{"id":0,"kind":"tick","n":33,"pick":1602300866},{"id":1,"kind":"resolve","clone":2,"pick":0,"how":"merged"},{"id":2,"kind":"flaky","call":"delete","count":2,"afterEffect":false},{"id":3,"kind":"run","clone":2,"model":0,"data":0,"workMs":15000},{"id":4,"kind":"tick","n":19,"pick":706773832},{"id":5,"kind":"breakglass","model":0},{"id":6,"kind":"run","clone":0,"model":0,"data":0,"workMs":45000},{"id":7,"kind":"lockfile","clone":1,"set":"@chaos/ext-7"},{"id":8,"kind":"migrate","clone":0},{"id":34,"kind":"stall","clone":2,"on":true},{"id":9,"kind":"tick","n":34,"pick":1897229690},{"id":10,"kind":"tick","n":17,"pick":1552459860},{"id":11,"kind":"resolve","clone":2,"pick":1,"how":"merged"},{"id":12,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":13,"kind":"tick","n":17,"pick":1931753149},{"id":14,"kind":"tick","n":16,"pick":1085637755},{"id":15,"kind":"resolve","clone":2,"pick":2,"how":"mine"},{"id":16,"kind":"tick","n":30,"pick":2122581349},{"id":33,"kind":"stall","clone":2,"on":false},{"id":17,"kind":"delete","clone":1,"file":2,"how":"push"},{"id":18,"kind":"tick","n":11,"pick":998541339},{"id":19,"kind":"tick","n":30,"pick":700479003},{"id":20,"kind":"resolve","clone":2,"pick":3,"how":"theirs"},{"id":21,"kind":"run","clone":2,"model":0,"data":1,"workMs":1000},{"id":22,"kind":"wait","ms":65000},{"id":23,"kind":"latency","ms":500},{"id":24,"kind":"lockfile","clone":1,"set":"@chaos/ext-24"},{"id":25,"kind":"tick","n":22,"pick":530520303},{"id":26,"kind":"tick","n":15,"pick":238752820},{"id":27,"kind":"outage","on":true},{"id":28,"kind":"tick","n":32,"pick":1369314414},{"id":29,"kind":"tick","n":7,"pick":1939892985},{"id":30,"kind":"tick","n":26,"pick":303133469},{"id":35,"kind":"stall","clone":0,"on":true},{"id":31,"kind":"outage","on":false},{"id":32,"kind":"tick","n":1,"pick":147329529}]}',
  );
});

/**
 * I7/I8: a push skipped a latest marker whose bytes were back to what this
 * cache last synced, taking it for unchanged, while the store held this
 * clone's own later write of it, uploaded before a crash and never
 * committed: the index kept naming the version that write had replaced.
 * Found the same day the skip was written (it was never released). A path
 * is now skipped only while the store still holds the synced version
 * (sync/service/push.ts, storeHolds).
 */
Deno.test("chaos regression: an unchanged path is skipped only while the store holds the synced version (I7, I8)", async () => {
  await clean(
    '{"seed":1404232,"clones":2,"v2":true,"kinds":["core","api"],"ops":[{"id":3,"kind":"lockfile","clone":1,"set":"@chaos/ext-3"},{"id":4,"kind":"run","clone":0,"model":0,"data":0,"workMs":45000},{"id":5,"kind":"run","clone":0,"model":1,"data":0,"workMs":15000},{"id":7,"kind":"run","clone":0,"model":1,"data":0,"workMs":45000},{"id":9,"kind":"tick","n":27,"pick":1964587118},{"id":10,"kind":"tick","n":15,"pick":236473599},{"id":12,"kind":"tick","n":23,"pick":208831985},{"id":16,"kind":"sync","clone":1},{"id":26,"kind":"adopt","clone":1,"file":3},{"id":31,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":33,"kind":"tick","n":16,"pick":1133486691},{"id":35,"kind":"tick","n":26,"pick":1868727986},{"id":39,"kind":"breakglass","model":1},{"id":40,"kind":"tick","n":37,"pick":347656315},{"id":41,"kind":"crash","clone":1},{"id":42,"kind":"marker","clone":1,"model":1,"data":0,"back":true}]}',
  );
});

/**
 * I7/I8: a clone uploaded a file it had never synced, crashed before the
 * index update, and its user deleted the file by hand; its push then had
 * nothing to do, and the upload stayed in the store for good, unnamed by
 * the index, so a peer's pending deletion of the path waited on it forever.
 * Failing at 22decf4 too. Fixed in sync/service/push_delete.ts
 * (`dropOwnStranded`: a path marked dirty, absent here and never synced,
 * has this cache's own stranded upload of it deleted).
 */
Deno.test("chaos regression: an own upload stranded by a crash is deleted once its file is gone here (I7, I8)", async () => {
  await clean(
    '{"seed":1800801,"clones":4,"kinds":["api","api","core","core"],"ops":[{"id":0,"kind":"crash","clone":1,"at":"commit"},{"id":5,"kind":"config","clone":3,"file":2},{"id":6,"kind":"tick","n":5,"pick":2101897706},{"id":7,"kind":"crash","clone":3,"at":"commit"},{"id":11,"kind":"delete","clone":3,"file":2,"how":"push"},{"id":15,"kind":"adopt","clone":1,"file":2},{"id":27,"kind":"tick","n":3,"pick":303308735},{"id":32,"kind":"delete","clone":1,"file":2,"how":"hand"}]}',
  );
});

/**
 * Seed 2402941: a marker write repeated the number a peer had just published
 * ("1"), a peer then moved the marker on, and the pull took its bytes. Nothing
 * was lost (the store held those bytes when the edit was made), but I6 said
 * so: the checker now counts bytes the store already held as published.
 */
Deno.test("chaos regression: a marker that repeats a peer's published number is not a lost edit (I6)", async () => {
  await clean(
    '{"seed":2402941,"clones":4,"v2":true,"kinds":["core","core","core-single-phase","core"],"ops":[{"id":1,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":2,"kind":"sync","clone":2},{"id":4,"kind":"tick","n":12,"pick":851116035},{"id":5,"kind":"outage","on":true},{"id":8,"kind":"tick","n":2,"pick":1897354722},{"id":9,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":10,"kind":"outage","on":false},{"id":11,"kind":"breakglass","model":0},{"id":13,"kind":"tick","n":20,"pick":2080882241},{"id":23,"kind":"marker","clone":1,"model":0,"data":0,"back":false},{"id":25,"kind":"resolve","clone":1,"pick":5,"how":"merged"},{"id":29,"kind":"run","clone":2,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I7/I8: a v1 commit stopped right after its index write (the armed stall
 * move), while the bucket turned v2 and a peer deleted the file it had
 * written; going on, it replayed its change into the v2 index unchecked,
 * naming the deleted object. Built with the armed stall, which was taught
 * this move after a review found the bug; failing before 58d3591 (the
 * replay is verified against the store path by path).
 */
Deno.test("chaos regression: a v1 commit stopped after its index write while the bucket turned v2 names no deleted object (I7, I8)", async () => {
  await clean(
    '{"seed":7,"clones":2,"ops":[{"id":1,"kind":"stall","clone":0,"on":true,"at":"companions"},{"id":2,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":3,"kind":"tick","n":40,"pick":11},{"id":4,"kind":"migrate","clone":1},{"id":5,"kind":"tick","n":40,"pick":12},{"id":6,"kind":"sync","clone":1},{"id":7,"kind":"tick","n":40,"pick":13},{"id":8,"kind":"delete","clone":1,"file":0,"how":"push"},{"id":9,"kind":"tick","n":40,"pick":14},{"id":10,"kind":"stall","clone":0,"on":false}]}',
  );
});

/**
 * I2: a push that first completed an erasure left over from an earlier
 * refused run (its remote deletions had failed) refreshed the model's data
 * before its own run was decided. The pull met that run's new version, never
 * synced and differing from a peer's, and set it aside as a conflict; the
 * run was then refused, and its bytes stayed in the set-aside area. Found
 * by a scratch weighting of the generator (moves to v2 and stalls favoured).
 */
Deno.test("chaos regression: a refused run's version is not set aside by the refresh of an earlier erasure (I2)", async () => {
  await clean(
    '{"seed":6100380,"clones":2,"kinds":["core","api"],"ops":[{"id":3,"kind":"run","clone":0,"model":0,"data":0,"workMs":45000},{"id":4,"kind":"tick","n":3,"pick":1081846361},{"id":9,"kind":"edit","clone":0,"file":1,"how":"push"},{"id":10,"kind":"breakglass","model":0},{"id":13,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":14,"kind":"tick","n":19,"pick":4011658},{"id":16,"kind":"flaky","call":"delete","count":3,"afterEffect":true},{"id":18,"kind":"breakglass","model":0},{"id":19,"kind":"tick","n":11,"pick":1572507265},{"id":23,"kind":"run","clone":0,"model":0,"data":0,"workMs":15000},{"id":24,"kind":"tick","n":5,"pick":690098643},{"id":28,"kind":"breakglass","model":0},{"id":30,"kind":"run","clone":1,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * Seed 2503153 (a false report): a marker write repeated the number the
 * index named while another writer's crashed, uncommitted marker object
 * waited over it; that writer later committed its marker, based on the
 * same number, and the pull took it. The checker now counts bytes the index
 * names when the edit is made as published.
 */
Deno.test("chaos regression: a marker that repeats the committed number under an uncommitted one is not a lost edit (I6)", async () => {
  await clean(
    '{"seed":2503153,"clones":5,"kinds":["core","api","core","core","api"],"ops":[{"id":2,"kind":"run","clone":1,"model":0,"data":1,"workMs":45000},{"id":9,"kind":"tick","n":18,"pick":1561945875},{"id":11,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":12,"kind":"bulk","clone":2},{"id":13,"kind":"config","clone":2,"file":2},{"id":16,"kind":"tick","n":27,"pick":1485136035},{"id":17,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":18,"kind":"marker","clone":4,"model":0,"data":1,"back":true},{"id":20,"kind":"crash","clone":3,"at":"commit"},{"id":28,"kind":"tick","n":13,"pick":2048925668},{"id":30,"kind":"sync","clone":4}]}',
  );
});

/**
 * I7/I8: found with the armed stall. A first v1 commit's index write landed
 * but its answer was lost, so the commit took its retry's refusal for a
 * conflict and went round again; meanwhile a peer that had read the landed
 * index deleted the file and its entry. The next round found no entry and
 * set it again, naming the deleted object. A round after a refusal now
 * checks a path it sets that has no entry against the store.
 */
Deno.test("chaos regression: a v1 commit whose landed index write lost its answer never puts back an entry a peer removed since (I7, I8)", async () => {
  await clean(
    '{"seed":2501751,"clones":4,"kinds":["core","core-single-phase","core-single-phase","core-single-phase"],"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":1,"workMs":15000},{"id":26,"kind":"stall","clone":1,"on":true,"at":"companions"},{"id":25,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":2,"kind":"tick","n":8,"pick":640725921},{"id":6,"kind":"flaky","call":"put","count":1,"afterEffect":true},{"id":22,"kind":"sync","clone":2},{"id":23,"kind":"delete","clone":2,"file":2,"how":"push"},{"id":21,"kind":"tick","n":9,"pick":1757396924}]}',
  );
});

/**
 * Seed 7102555 (a false report): a clone deleted by hand a file a peer had
 * already deleted in the store; another peer then created the file anew, and
 * the pull brought it. The deletion was already in effect when it was made;
 * the checker now counts that as published.
 */
Deno.test("chaos regression: a deletion of a file a peer had deleted already is not undone by a later creation (I6)", async () => {
  await clean(
    '{"seed":7102555,"clones":4,"v2":true,"kinds":["api","api","core","api"],"ops":[{"id":2,"kind":"config","clone":3,"file":0},{"id":15,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":21,"kind":"tick","n":2,"pick":612606258},{"id":22,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":23,"kind":"resolve","clone":2,"pick":7,"how":"theirs"},{"id":25,"kind":"config","clone":1,"file":0},{"id":26,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":27,"kind":"tick","n":2,"pick":678941081},{"id":31,"kind":"delete","clone":3,"file":0,"how":"push"},{"id":32,"kind":"delete","clone":2,"file":2,"how":"hand"},{"id":44,"kind":"resolve","clone":2,"pick":2,"how":"mine"}]}',
  );
});

/**
 * I1/I7/I8 (built by hand with the armed move stall, after seed 6301929's
 * I10, whose found history no longer failed by the time it was fixed): a
 * move to v2 stopped after reading the v1 index until its global lock was
 * taken over; a second move ran, and model runs committed on v2. The first
 * mover then went on and wrote its shards over theirs: both runs were lost
 * from the index. Fixed in sync/transfer/migrate_index.ts (a move writes
 * shards only over the versions it listed after its mark).
 */
Deno.test("chaos regression: a move that goes on after another move never writes over the v2 commits after it (I1, I7, I8)", async () => {
  await clean(
    '{"seed":11,"clones":3,"ops":[{"id":1,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":2,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":3,"kind":"tick","n":60,"pick":5},{"id":4,"kind":"stall","clone":0,"on":true,"at":"move"},{"id":5,"kind":"migrate","clone":0},{"id":6,"kind":"tick","n":30,"pick":6},{"id":7,"kind":"migrate","clone":1},{"id":8,"kind":"wait","ms":31000},{"id":9,"kind":"tick","n":60,"pick":7},{"id":10,"kind":"run","clone":2,"model":1,"data":0,"workMs":0},{"id":11,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":12,"kind":"tick","n":60,"pick":8},{"id":13,"kind":"stall","clone":0,"on":false},{"id":14,"kind":"tick","n":60,"pick":9}]}',
  );
});

Deno.test("chaos regression: the same, the movers and runs driven through the swamp extension (I1, I7, I8)", async () => {
  await clean(
    '{"seed":11,"clones":3,"ops":[{"id":1,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":2,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":3,"kind":"tick","n":60,"pick":5},{"id":4,"kind":"stall","clone":0,"on":true,"at":"move"},{"id":5,"kind":"migrate","clone":0},{"id":6,"kind":"tick","n":30,"pick":6},{"id":7,"kind":"migrate","clone":1},{"id":8,"kind":"wait","ms":31000},{"id":9,"kind":"tick","n":60,"pick":7},{"id":10,"kind":"run","clone":2,"model":1,"data":0,"workMs":0},{"id":11,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":12,"kind":"tick","n":60,"pick":8},{"id":13,"kind":"stall","clone":0,"on":false},{"id":14,"kind":"tick","n":60,"pick":9}],"kinds":["core","api","core-single-phase"]}',
  );
});

/**
 * Seed 8000811 (a false report, once the move's shard writes became
 * conditional): a clone's deletion of a shared file landed, and the clone
 * crashed before its index update; a move to v2 then copied the v1 index,
 * which still named the deleted object, into a shard. The checker took that
 * conditional shard write for a commit naming a gone edit; a move's writes
 * restate the v1 index, like a companion's plain writes, and are not commits.
 */
Deno.test("chaos regression: a move copying a v1 entry whose object a crashed deletion removed is not a commit (I7)", async () => {
  await clean(
    '{"seed":8000811,"clones":5,"kinds":["core","api","api","api","api"],"ops":[{"id":0,"kind":"config","clone":1,"file":1},{"id":1,"kind":"delete","clone":2,"file":3,"how":"hand"},{"id":2,"kind":"run","clone":1,"model":0,"data":1,"workMs":1000},{"id":3,"kind":"sync","clone":0},{"id":4,"kind":"tick","n":26,"pick":659939509},{"id":18,"kind":"stall","clone":0,"on":true,"at":"companions"},{"id":5,"kind":"edit","clone":2,"file":0,"how":"hand-tick"},{"id":6,"kind":"breakglass","model":0},{"id":22,"kind":"stall","clone":0,"on":true,"at":"companions"},{"id":7,"kind":"delete","clone":3,"file":1,"how":"hand"},{"id":8,"kind":"crash","clone":1,"at":"commit"},{"id":9,"kind":"tick","n":17,"pick":369943481},{"id":10,"kind":"run","clone":0,"model":0,"data":1,"workMs":1000},{"id":11,"kind":"delete","clone":1,"file":1,"how":"push"},{"id":12,"kind":"run","clone":1,"model":1,"data":0,"workMs":15000},{"id":13,"kind":"adopt","clone":3,"file":2},{"id":14,"kind":"migrate","clone":1},{"id":17,"kind":"stall","clone":0,"on":false},{"id":21,"kind":"migrate","clone":2},{"id":20,"kind":"tick","n":50,"pick":1411668035},{"id":19,"kind":"stall","clone":0,"on":false},{"id":15,"kind":"edit","clone":2,"file":3,"how":"hand-tick"},{"id":16,"kind":"sync","clone":1}]}',
  );
});

/**
 * I7/I8 (seed 8000056, shrunk; failing before this fix on every earlier
 * commit tried): a clone's commit wrote its `_unpartitioned` shard (which
 * readers read, listed or not) and crashed before its meta; after a restart
 * it wrote a new edit of the same file over that object (its own) and
 * crashed again before the index. Its next pull took its own edit over its
 * own published entry for a conflict, and `resolve --theirs` then set the
 * edit aside for a version the store no longer held: the index named a dead
 * version for good. Fixed in sync/service/pull.ts (this cache's own
 * uncommitted write over the entry's version is kept for the push).
 */
Deno.test("chaos regression: a clone's own uncommitted edit over its own published entry is pushed, not a conflict (I7, I8)", async () => {
  await clean(
    '{"seed":8000056,"clones":2,"v2":true,"ops":[{"id":1,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":2,"kind":"tick","n":1,"pick":504377597},{"id":3,"kind":"edit","clone":0,"file":4,"how":"mark"},{"id":4,"kind":"resolve","clone":0,"pick":7,"how":"mine"},{"id":7,"kind":"crash","clone":0,"at":"commit"},{"id":11,"kind":"tick","n":10,"pick":1500456700},{"id":12,"kind":"config","clone":0,"file":2},{"id":16,"kind":"run","clone":0,"model":0,"data":0,"workMs":15000},{"id":17,"kind":"tick","n":19,"pick":1386138542},{"id":19,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":23,"kind":"run","clone":1,"model":0,"data":0,"workMs":45000},{"id":24,"kind":"breakglass","model":0},{"id":25,"kind":"tick","n":24,"pick":1713577452},{"id":29,"kind":"crash","clone":0},{"id":37,"kind":"resolve","clone":0,"pick":5,"how":"theirs"}]}',
  );
});

/**
 * I10 (seed 8200486, shrunk; found by a weighted run on the move's new
 * fencing, 2cd3088): a move's v2 meta write landed with its answer lost, its
 * retry was refused, and the move took that for a refusal and deleted the
 * shard it had created, which its landed meta listed. Fixed in
 * sync/transfer/migrate_index.ts (a shard a v2 meta lists is never deleted
 * as an attempt's leftover, and a meta found as written counts as landed).
 */
Deno.test("chaos regression: a move whose meta landed with its answer lost keeps the shards it lists (I10)", async () => {
  await clean(
    '{"seed":8200486,"clones":4,"kinds":["core","core","core","core"],"ops":[{"id":0,"kind":"lockfile","clone":3,"set":"@chaos/ext-0"},{"id":1,"kind":"tick","n":10,"pick":1010889079},{"id":4,"kind":"migrate","clone":2},{"id":5,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":6,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":10,"kind":"breakglass","model":0},{"id":14,"kind":"breakglass","model":0},{"id":16,"kind":"breakglass","model":0},{"id":17,"kind":"tick","n":20,"pick":1030368176},{"id":20,"kind":"flaky","call":"put","count":2,"afterEffect":true},{"id":21,"kind":"tick","n":1,"pick":176553814}]}',
  );
});

/**
 * Seed 8104115 (a false report): a clone adopted a peer's stranded object of
 * a shared file, and that peer wrote its own newer edit over it before the
 * adoption's index write landed (the peer commits its new version next).
 * The checker took the adoption's entry for a commit naming a gone edit; an
 * object replaced by its own writer is a push in flight.
 */
Deno.test("chaos regression: an adoption whose object its writer replaced meanwhile is not a lost edit (I7)", async () => {
  await clean(
    '{"seed":8104115,"clones":5,"ops":[{"id":1,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":2,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":4,"kind":"tick","n":15,"pick":1196806201},{"id":5,"kind":"tick","n":1,"pick":292353203},{"id":6,"kind":"adopt","clone":3,"file":1},{"id":7,"kind":"adopt","clone":1,"file":1},{"id":8,"kind":"resolve","clone":0,"pick":3,"how":"merged"},{"id":9,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":11,"kind":"tick","n":8,"pick":1647111677},{"id":13,"kind":"edit","clone":1,"file":1,"how":"mark"},{"id":14,"kind":"outage","on":true},{"id":15,"kind":"tick","n":7,"pick":109573990},{"id":19,"kind":"run","clone":1,"model":1,"data":1,"workMs":0}]}',
  );
});

/**
 * I1 (seed 8202253, shrunk; failing on every earlier commit tried): a v2
 * commit's meta bump also published a peer's shard write whose own bump it
 * overtook; the committing clone took the new meta for an index it
 * reflected, and its later pulls never read the peer's run. Fixed in
 * sync/transfer/index_v2.ts, sync/service/push_commit.ts and pull.ts (a
 * commit's view of the shards is checked by one listing at the next pull).
 */
Deno.test("chaos regression: a v2 meta bump that publishes a peer's shard write leaves the committer's next pull reading it (I1)", async () => {
  await clean(
    '{"seed":8202253,"clones":5,"kinds":["api","core-single-phase","api","core-single-phase","api"],"ops":[{"id":17,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":24,"kind":"tick","n":22,"pick":405307706},{"id":25,"kind":"run","clone":2,"model":0,"data":1,"workMs":5000},{"id":27,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":33,"kind":"tick","n":33,"pick":1728130186},{"id":41,"kind":"migrate","clone":1},{"id":43,"kind":"tick","n":41,"pick":633502169},{"id":44,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":45,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":46,"kind":"sync","clone":1},{"id":47,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":48,"kind":"tick","n":48,"pick":674657384},{"id":50,"kind":"tick","n":24,"pick":1783375137}]}',
  );
});

/**
 * I6 (seed 8904925, shrunk; failing on every earlier commit tried): a core
 * run was refused (its model lock broken) and the clone crashed in the
 * middle of erasing it; after the restart, the clone set the model's
 * `latest` marker to the highest version in its cache, the refused run's,
 * not yet erased. The push then completed the erasure and recomputed the
 * marker, dropping the edit without a word. A marker naming a version still
 * in the cache is now left as set, and one naming the erased version is
 * reset with a `latest_reset` warning naming it (the checker counts an edit
 * so reported as discarded, not lost).
 */
Deno.test("chaos regression: a marker set after a refused run, naming its version, is reset with a warning, not silently (I6)", async () => {
  await clean(
    '{"seed":8904925,"clones":4,"v2":true,"kinds":["api","api","api","core"],"ops":[{"id":0,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":1,"kind":"tick","n":19,"pick":647208506},{"id":3,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":4,"kind":"latency","ms":3000},{"id":11,"kind":"run","clone":3,"model":1,"data":1,"workMs":45000},{"id":12,"kind":"tick","n":21,"pick":1183369354},{"id":15,"kind":"marker","clone":3,"model":1,"data":1,"back":false},{"id":16,"kind":"tick","n":14,"pick":899555994},{"id":18,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":19,"kind":"tick","n":26,"pick":1624310679},{"id":20,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":22,"kind":"breakglass","model":1},{"id":23,"kind":"tick","n":6,"pick":1737097612},{"id":24,"kind":"crash","clone":3}]}',
  );
});

/**
 * Seed 9803355 (a false report): a pull set a clone's never-synced copy of a
 * config file aside (a conflict) and took the peer's; the clone deleted that
 * working copy, then resolved the conflict with --mine, which publishes the
 * set-aside copy (the working copy is neither side). The checker took the
 * deletion for undone; the clone chose the set-aside copy over it.
 */
Deno.test("chaos regression: resolve --mine of a set-aside copy after deleting the working copy is the clone's choice (I6)", async () => {
  await clean(
    '{"seed":9803355,"clones":2,"ops":[{"id":0,"kind":"edit","clone":0,"file":0,"how":"hand"},{"id":4,"kind":"sync","clone":0},{"id":5,"kind":"edit","clone":1,"file":0,"how":"push"},{"id":12,"kind":"sync","clone":0},{"id":14,"kind":"tick","n":5,"pick":5422585},{"id":31,"kind":"delete","clone":0,"file":5,"how":"push"},{"id":39,"kind":"resolve","clone":0,"pick":7,"how":"mine"}]}',
  );
});

/**
 * I6 (seed 9904228, shrunk; failing on every earlier commit tried): a pull
 * fetched a config file, then failed in an outage before it saved what it
 * had fetched; the clone deleted that file by hand and crashed. After the
 * restart the file counted as never synced, and the next pull fetched it
 * again. Fixed in sync/service/pull.ts (a failed fetch keeps its progress:
 * the files written are recorded as synced, and the conflicts found).
 */
Deno.test("chaos regression: a hand deletion of a file a failed pull fetched stands after a restart (I6)", async () => {
  await clean(
    '{"seed":9904228,"clones":5,"kinds":["core","core","api","api","core"],"ops":[{"id":9,"kind":"edit","clone":2,"file":1,"how":"mark"},{"id":44,"kind":"stall","clone":2,"on":true,"at":"companions"},{"id":18,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":52,"kind":"tick","n":21,"pick":304505572},{"id":53,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":58,"kind":"tick","n":24,"pick":1160880644},{"id":20,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":21,"kind":"breakglass","model":0},{"id":24,"kind":"resolve","clone":4,"pick":4,"how":"mine"},{"id":45,"kind":"stall","clone":2,"on":false},{"id":29,"kind":"marker","clone":2,"model":0,"data":0,"back":false},{"id":30,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":31,"kind":"tick","n":21,"pick":1661072729},{"id":34,"kind":"delete","clone":4,"file":3,"how":"hand"},{"id":35,"kind":"outage","on":true},{"id":36,"kind":"tick","n":6,"pick":2118620176},{"id":41,"kind":"crash","clone":4}]}',
  );
});

/**
 * I7/I8 (seed 10103837, shrunk; failing on every earlier commit tried): a
 * first v1 commit's index write landed with its answer lost, and the clone
 * stopped; the bucket moved to v2, and a peer synced and deleted the file.
 * The commit's next round went to the v2 index without the check a round
 * after a refused write makes, and named the deleted object again. Fixed in
 * sync/transfer/remote_index.ts and index_v2.ts (the refusal is carried
 * into the v2 round).
 */
Deno.test("chaos regression: a v1 commit whose landed write lost its answer never names a file deleted on v2 since (I7, I8)", async () => {
  await clean(
    '{"seed":10103837,"clones":5,"absentOnError":true,"kinds":["api","api","core","api","api"],"ops":[{"id":38,"kind":"stall","clone":3,"on":true,"at":"companions"},{"id":37,"kind":"edit","clone":3,"file":1,"how":"push"},{"id":3,"kind":"tick","n":1,"pick":542861161},{"id":4,"kind":"flaky","call":"put","count":2,"afterEffect":true},{"id":7,"kind":"run","clone":4,"model":1,"data":0,"workMs":0},{"id":36,"kind":"migrate","clone":0},{"id":34,"kind":"sync","clone":0},{"id":35,"kind":"delete","clone":0,"file":1,"how":"push"},{"id":33,"kind":"tick","n":22,"pick":275594392}]}',
  );
});

/**
 * I7/I8 (seed 10503501, shrunk; failing from 2cd3088 on, which moved the
 * interleaving): a clone replaced its own uncommitted write of a config file
 * (adopting nothing); the replacement landed with its answer lost, and its
 * retry was refused by itself. The clone took its own object for another
 * checkout's change and recorded a conflict; nothing ever committed it, and
 * the index named the replaced version for good. Fixed in
 * middleware/config_cas_writer.ts (after a refused replacement, an object
 * holding this write's bytes is this write, done).
 */
Deno.test("chaos regression: a replacement of its own write that landed with its answer lost is not a conflict (I7, I8)", async () => {
  await clean(
    '{"seed":10503501,"clones":4,"kinds":["api","core","core-single-phase","api"],"ops":[{"id":6,"kind":"bulk","clone":0},{"id":11,"kind":"config","clone":3,"file":1},{"id":12,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":19,"kind":"tick","n":23,"pick":601768294},{"id":20,"kind":"edit","clone":3,"file":4,"how":"push"},{"id":21,"kind":"tick","n":13,"pick":142619693},{"id":22,"kind":"bulk","clone":0},{"id":24,"kind":"tick","n":23,"pick":656942980},{"id":48,"kind":"stall","clone":1,"on":true,"at":"companions"},{"id":47,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":27,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":46,"kind":"migrate","clone":2},{"id":44,"kind":"sync","clone":2},{"id":45,"kind":"edit","clone":2,"file":1,"how":"push"},{"id":43,"kind":"tick","n":43,"pick":15937432},{"id":30,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":33,"kind":"outage","on":true},{"id":34,"kind":"tick","n":1,"pick":639029824},{"id":35,"kind":"adopt","clone":2,"file":1},{"id":36,"kind":"outage","on":false},{"id":38,"kind":"tick","n":4,"pick":987487162}]}',
  );
});

/**
 * I7/I8 (seed 10501958, shrunk; failing at 2fb2294 and at e73666c): a
 * walk push uploaded a hand edit of a config file over the synced version
 * and failed in an outage before its index update; the file was then
 * deleted by hand. The next walk listed the local deletion and left its own
 * upload unnamed by the index for good, so readers skipped the file. Fixed
 * in sync/service/state.ts, plan.ts and push_delete.ts (a walk records its
 * uploads before making them; a later walk settles those it no longer plans).
 */
Deno.test("chaos regression: a walk's upload whose commit failed is settled after the file is deleted here (I7, I8)", async () => {
  await clean(
    '{"seed":10501958,"clones":4,"absentOnError":true,"kinds":["api","core","api","api"],"ops":[{"id":2,"kind":"migrate","clone":1},{"id":3,"kind":"config","clone":1,"file":0},{"id":6,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":7,"kind":"tick","n":17,"pick":1719689276},{"id":11,"kind":"tick","n":18,"pick":528179110},{"id":12,"kind":"edit","clone":1,"file":0,"how":"hand"},{"id":13,"kind":"bulk","clone":1},{"id":18,"kind":"sync","clone":2},{"id":21,"kind":"tick","n":5,"pick":2066832877},{"id":23,"kind":"sync","clone":0},{"id":24,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":25,"kind":"tick","n":16,"pick":690679176},{"id":26,"kind":"outage","on":true},{"id":27,"kind":"tick","n":13,"pick":1172706545},{"id":46,"kind":"delete","clone":1,"file":5,"how":"hand"}]}',
  );
});

/**
 * I7/I8, the same with the file put back as it was synced instead of
 * deleted (seed 10501958's shrunk history with its last move replaced by the
 * `revert` edit, taught to the checker for it; failing at e73666c): the next
 * walk found the file unchanged and planned nothing, so its own upload stayed
 * unnamed. Fixed with the case above (a walk writes the file back over it).
 */
Deno.test("chaos regression: a walk's upload whose commit failed is settled after the file is put back as synced (I7, I8)", async () => {
  await clean(
    '{"seed":10501958,"clones":4,"absentOnError":true,"kinds":["api","core","api","api"],"ops":[{"id":2,"kind":"migrate","clone":1},{"id":3,"kind":"config","clone":1,"file":0},{"id":6,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":7,"kind":"tick","n":17,"pick":1719689276},{"id":11,"kind":"tick","n":18,"pick":528179110},{"id":12,"kind":"edit","clone":1,"file":0,"how":"hand"},{"id":13,"kind":"bulk","clone":1},{"id":18,"kind":"sync","clone":2},{"id":21,"kind":"tick","n":5,"pick":2066832877},{"id":23,"kind":"sync","clone":0},{"id":24,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":25,"kind":"tick","n":16,"pick":690679176},{"id":26,"kind":"outage","on":true},{"id":27,"kind":"tick","n":13,"pick":1172706545},{"id":46,"kind":"edit","clone":1,"file":0,"how":"revert"}]}',
  );
});

/**
 * I7/I8 (built by hand with the marker move's `hand` and `revert` forms,
 * taught for it; failing at 3f21d39): a walk wrote a latest marker edited by
 * hand in its commit step and crashed before its index update; the marker
 * was then put back as synced. The walk had recorded only its uploads, not
 * its commit-step writes, so nothing settled the marker's landed write.
 * Fixed in sync/service/push.ts (a walk records its commit-step writes too).
 */
Deno.test("chaos regression: a walk's marker write whose commit never came is settled after the marker is put back (I7, I8)", async () => {
  await clean(
    '{"seed":1,"clones":2,"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":2,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":3,"kind":"marker","clone":0,"model":0,"data":0,"back":true,"how":"hand"},{"id":7,"kind":"tick","n":40,"pick":1},{"id":4,"kind":"crash","clone":0,"at":"commit"},{"id":5,"kind":"bulk","clone":0},{"id":8,"kind":"tick","n":40,"pick":1},{"id":6,"kind":"marker","clone":0,"model":0,"data":0,"back":false,"how":"revert"}]}',
  );
});

/**
 * I7/I8 (seeds 25303158 and 25401650, shrunk; found at f2f9b22 by the
 * marker move's `revert` form): a core run's push wrote its latest marker
 * and stopped before its index update (a crash, an outage); the marker was
 * then put back by hand as synced. The run had marked its directories, not
 * the marker by name, and the next push's expansion of those directories
 * skipped the unchanged marker, so its landed write stayed unnamed for good.
 * Fixed in sync/service/push.ts and plan.ts (writes under a marked directory
 * are recorded too, and a push expanding that directory settles them).
 */
Deno.test("chaos regression: a run's marker write whose commit never came is settled after the marker is put back (I7, I8)", async () => {
  await clean(
    '{"seed":25303158,"clones":2,"v2":true,"kinds":["api","core"],"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":3,"kind":"tick","n":15,"pick":1717361852},{"id":4,"kind":"bulk","clone":1},{"id":5,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":6,"kind":"breakglass","model":0},{"id":7,"kind":"tick","n":18,"pick":1997702618},{"id":8,"kind":"tick","n":6,"pick":349976775},{"id":9,"kind":"breakglass","model":0},{"id":10,"kind":"config","clone":0,"file":0},{"id":12,"kind":"tick","n":7,"pick":520663118},{"id":14,"kind":"marker","clone":1,"model":0,"data":0,"back":true,"how":"revert"},{"id":17,"kind":"outage","on":true},{"id":32,"kind":"tick","n":6,"pick":1629143936}]}',
    '{"seed":25401650,"clones":3,"kinds":["core-single-phase","core-single-phase","api"],"ops":[{"id":4,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":7,"kind":"crash","clone":0,"at":"commit"},{"id":27,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":29,"kind":"tick","n":9,"pick":1522809991},{"id":30,"kind":"tick","n":31,"pick":644767173},{"id":39,"kind":"marker","clone":0,"model":0,"data":1,"back":false,"how":"revert"}]}',
  );
});

/**
 * I11 and I7/I8, found at e73666c by the checker once it had I11 and this
 * round's moves (seeds 27600881, 27600411, 27500649, 27500560, shrunk):
 * writes whose commit never came, left for good. The first two (a walk's
 * upload of a file never synced, then deleted by hand) fail at e73666c and
 * pass from be6734b; the third (a core run's marker put back by hand) fails
 * at be6734b and passes at 9085595; the fourth (a path named dirty, absent
 * and never synced, whose check a failing write of its push skipped) fails
 * at 9085595 and passes from 7abdc94.
 */
Deno.test("chaos regression: no write whose commit never came is left in the store for good (I11, I7, I8)", async () => {
  await clean(
    '{"seed":27600881,"clones":2,"absentOnError":true,"kinds":["core-single-phase","api"],"ops":[{"id":1,"kind":"crash","clone":1,"at":"commit"},{"id":10,"kind":"edit","clone":1,"file":5,"how":"hand"},{"id":34,"kind":"bulk","clone":1},{"id":40,"kind":"tick","n":4,"pick":1367644939},{"id":41,"kind":"delete","clone":1,"file":5,"how":"hand"}]}',
    '{"seed":27600411,"clones":5,"kinds":["core-single-phase","api","api","core-single-phase","core"],"ops":[{"id":3,"kind":"edit","clone":3,"file":0,"how":"push"},{"id":6,"kind":"edit","clone":3,"file":3,"how":"hand"},{"id":7,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":8,"kind":"bulk","clone":3},{"id":9,"kind":"breakglass","model":0},{"id":10,"kind":"run","clone":1,"model":0,"data":1,"workMs":45000},{"id":11,"kind":"delete","clone":3,"file":2,"how":"hand"},{"id":12,"kind":"breakglass","model":0},{"id":13,"kind":"tick","n":2,"pick":580995202},{"id":15,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":21,"kind":"tick","n":25,"pick":1273313532},{"id":22,"kind":"outage","on":true},{"id":25,"kind":"tick","n":4,"pick":355847132}]}',
  );
  await clean(
    '{"seed":27500649,"clones":4,"absentOnError":true,"kinds":["core","api","core-single-phase","core"],"ops":[{"id":0,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":1,"kind":"tick","n":13,"pick":411690916},{"id":2,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":6,"kind":"bulk","clone":1},{"id":7,"kind":"tick","n":1,"pick":283187598},{"id":16,"kind":"tick","n":36,"pick":1303344402},{"id":17,"kind":"outage","on":true},{"id":24,"kind":"tick","n":2,"pick":1596639101},{"id":33,"kind":"marker","clone":3,"model":0,"data":1,"back":false,"how":"revert"}]}',
    '{"seed":27500560,"clones":2,"kinds":["api","core-single-phase"],"ops":[{"id":11,"kind":"sync","clone":1},{"id":12,"kind":"resolve","clone":1,"pick":4,"how":"theirs"},{"id":13,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":17,"kind":"edit","clone":0,"file":4,"how":"mark"},{"id":18,"kind":"breakglass","model":1},{"id":19,"kind":"run","clone":0,"model":1,"data":1,"workMs":45000},{"id":22,"kind":"crash","clone":1},{"id":23,"kind":"breakglass","model":1},{"id":24,"kind":"tick","n":30,"pick":780945510},{"id":25,"kind":"delete","clone":0,"file":1,"how":"push"},{"id":35,"kind":"outage","on":true},{"id":37,"kind":"tick","n":4,"pick":525398504}]}',
  );
});

/**
 * I11 (seeds 27801423 and 27802496, shrunk; failing at e73666c and at
 * 05b905d): two clones wrote the same data version with no lock between
 * them, and each won one of its files, so the version was left half named
 * with the loser's other file in the store, named by no index. Fixed in
 * middleware/create_only_writer.ts (the writer that loses a version deletes
 * what it created of it that no index names).
 */
Deno.test("chaos regression: the writer that loses a data version leaves nothing of it behind (I11)", async () => {
  await clean(
    '{"seed":27801423,"clones":5,"kinds":["api","api","api","api","core"],"ops":[{"id":7,"kind":"crash","clone":0,"at":"commit"},{"id":11,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":12,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":19,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":20,"kind":"adopt","clone":3,"file":4},{"id":21,"kind":"run","clone":0,"model":0,"data":0,"workMs":15000},{"id":22,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":23,"kind":"tick","n":14,"pick":1267477487},{"id":24,"kind":"breakglass","model":0},{"id":25,"kind":"breakglass","model":0},{"id":32,"kind":"adopt","clone":0,"file":3},{"id":33,"kind":"outage","on":true},{"id":34,"kind":"tick","n":8,"pick":1015957096},{"id":35,"kind":"tick","n":7,"pick":1386261287},{"id":37,"kind":"outage","on":false},{"id":39,"kind":"tick","n":2,"pick":527435817},{"id":40,"kind":"run","clone":1,"model":0,"data":0,"workMs":0}]}',
    '{"seed":27802496,"clones":5,"kinds":["api","api","core","api","api"],"ops":[{"id":0,"kind":"run","clone":4,"model":0,"data":0,"workMs":0},{"id":1,"kind":"tick","n":22,"pick":1338208020},{"id":4,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":5,"kind":"breakglass","model":0},{"id":6,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":8,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":9,"kind":"breakglass","model":0},{"id":10,"kind":"run","clone":4,"model":1,"data":0,"workMs":0},{"id":11,"kind":"tick","n":28,"pick":915010260},{"id":12,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":13,"kind":"lockfile","clone":3,"set":"@chaos/ext-13"},{"id":14,"kind":"flaky","call":"get","count":3,"afterEffect":false},{"id":15,"kind":"outage","on":true},{"id":16,"kind":"adopt","clone":3,"file":1},{"id":17,"kind":"config","clone":2,"file":2},{"id":18,"kind":"breakglass","model":1},{"id":19,"kind":"resolve","clone":4,"pick":5,"how":"merged"},{"id":22,"kind":"tick","n":21,"pick":301436074},{"id":23,"kind":"outage","on":false},{"id":26,"kind":"tick","n":3,"pick":1547157826},{"id":36,"kind":"run","clone":3,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I11 (seed 30000016, shrunk; found with `--old-share 1 --disable
 * global-lock`): an old client's push (under the global lock, an
 * unconditional read-modify-write of the index) and a Sluice push of a
 * config file ran side by side; Sluice's commit landed between the old
 * client's read of the index and its write, which dropped it: the object
 * stayed in the store, named by no index, and the next pull removed the
 * clone's copy as a remote deletion. In a mixed fleet Sluice commits under
 * the global lock (`pushUnderGlobalLock`), so nothing is dropped; without
 * it, the entry is dropped, and a pull now sees that the store still holds
 * the version it synced, keeps the file and the next push publishes it
 * again (`dropped_entries.ts`). (A first commit by another clone writes the
 * index before them: on a bucket with no index yet, the first commit lists
 * the bucket first, which moves the race.)
 */
Deno.test("chaos regression: beside an old client, a Sluice commit under the global lock is not dropped; a dropped one is published again (I11)", async () => {
  const json =
    '{"seed":30000016,"clones":5,"kinds":["api","core","api","core-single-phase","core-single-phase"],"oldClients":true,"ops":[{"id":2,"kind":"config","clone":2,"file":1},{"id":3,"kind":"tick","n":30,"pick":1},{"id":18,"kind":"oldpush","clone":0},{"id":16,"kind":"config","clone":1,"file":0}]}';
  const locked = await runHistory(parseHistory(json));
  assert.deepEqual(locked.violations, [], formatHistory(locked.history));
  assert.equal(locked.stats.warnings.index_entry_dropped, undefined);
  const unlocked = await runHistory(parseHistory(json), { disable: ["global-lock"] });
  assert.deepEqual(unlocked.violations, [], formatHistory(unlocked.history));
  assert.equal(unlocked.stats.warnings.index_entry_dropped, 1);
});

/**
 * I7, I8 (seeds 33000053 and 33000165, shrunk; found with `--old-share 1`
 * once old clients edit and delete shared files): an old client replaced
 * (or deleted) a Sluice push's upload between its write and its commit,
 * never having seen it, and the commit named the Sluice version anyway:
 * the store held the old client's bytes (or nothing), every Sluice reader
 * skipped the path as uncommitted, and the Sluice edit was gone. The commit
 * now checks a path under another client's entry (and, beside old clients,
 * each create), leaves it out, keeps it dirty, and warns
 * `overwritten_before_commit`; the next push meets the old client's change
 * as a conflict (`sync/service/old_client_overwrite_test.ts`).
 */
Deno.test("chaos regression: a Sluice upload an old client replaced or deleted before the commit is not named (I7, I8)", async () => {
  for (
    const json of [
      '{"seed":33000053,"clones":3,"kinds":["core","api","api"],"oldClients":true,"ops":[{"id":25,"kind":"oldpush","clone":2,"file":0},{"id":17,"kind":"edit","clone":0,"file":0,"how":"push"}]}',
      '{"seed":33000165,"clones":3,"absentOnError":true,"oldClients":true,"ops":[{"id":3,"kind":"edit","clone":0,"file":2,"how":"revert"},{"id":4,"kind":"bulk","clone":0},{"id":25,"kind":"oldpush","clone":2,"file":2,"del":true}]}',
    ]
  ) {
    const r = await runHistory(parseHistory(json));
    assert.deepEqual(r.violations, [], formatHistory(r.history));
    assert.equal(r.stats.warnings.overwritten_before_commit, 1);
  }
});

/**
 * I13, I8 (seed 33800255, shrunk): a resolution of a conflict with an old
 * client's edit stopped (a crash) after its upload over the old client's
 * bytes and before its index write; a later pull found the conflict again,
 * against the old client's entry (no object version), and `resolve --mine`
 * then took the clone's own uncommitted upload for a newer version of
 * theirs: a new conflict at every attempt, and the index kept naming the
 * old client's bytes, which the store no longer held. The resolution now
 * goes on from its own upload (`versionedTheirs` in `sync/service/resolve.ts`).
 */
Deno.test("chaos regression: a resolution stopped after its upload over an old client's edit goes on from that upload (I13, I8)", async () => {
  const r = await runHistory(parseHistory(
    '{"seed":33800255,"clones":4,"oldClients":true,"ops":[{"id":35,"kind":"oldpush","clone":1,"file":0},{"id":3,"kind":"edit","clone":3,"file":0,"how":"push"},{"id":4,"kind":"resolve","clone":3,"pick":3,"how":"merged"},{"id":33,"kind":"oldpush","clone":2},{"id":36,"kind":"oldpush","clone":1,"file":3},{"id":8,"kind":"tick","n":33,"pick":238953758},{"id":9,"kind":"tick","n":10,"pick":1364817910},{"id":17,"kind":"resolve","clone":3,"pick":1,"how":"merged"},{"id":23,"kind":"crash","clone":3}]}',
  ));
  assert.deepEqual(r.violations, [], formatHistory(r.history));
});

/**
 * I7 (seed 36000957, shrunk): beside old clients, an old client's push
 * overwrote a clone's upload of a shared config file and stopped (a crash)
 * before its index write, while the clone's push waited for the global lock
 * to commit. The index entry was still the clone's own base, so nothing
 * showed another writer, and the commit named the clone's version over the
 * old client's bytes. Beside old clients every conditional write is now
 * checked at its commit (`apply` in `sync/transfer/index_apply.ts`).
 */
Deno.test("chaos regression: beside old clients, an old client's overwrite not yet in the index is not named over (I7)", async () => {
  const r = await runHistory(parseHistory(
    '{"seed":36000957,"clones":2,"kinds":["api","core"],"oldClients":true,"ops":[{"id":0,"kind":"run","clone":1,"model":0,"data":0,"workMs":15000},{"id":1,"kind":"adopt","clone":1,"file":0},{"id":2,"kind":"run","clone":0,"model":0,"data":0,"workMs":15000},{"id":3,"kind":"lockfile","clone":0,"set":"@chaos/ext-3"},{"id":4,"kind":"tick","n":33,"pick":1401130952},{"id":5,"kind":"tick","n":13,"pick":226611075},{"id":6,"kind":"run","clone":0,"model":0,"data":1,"workMs":5000},{"id":7,"kind":"resolve","clone":1,"pick":6,"how":"merged"},{"id":8,"kind":"tick","n":8,"pick":856807726},{"id":9,"kind":"tick","n":14,"pick":1250835243},{"id":10,"kind":"config","clone":1,"file":2},{"id":11,"kind":"tick","n":33,"pick":958727770},{"id":12,"kind":"edit","clone":0,"file":2,"how":"push"},{"id":16,"kind":"tick","n":30,"pick":489149232},{"id":20,"kind":"run","clone":1,"model":0,"data":1,"workMs":15000},{"id":21,"kind":"edit","clone":0,"file":2,"how":"push"},{"id":22,"kind":"tick","n":6,"pick":447095861},{"id":23,"kind":"edit","clone":1,"file":0,"how":"push"},{"id":24,"kind":"tick","n":17,"pick":1578835904},{"id":25,"kind":"tick","n":17,"pick":1943237062},{"id":26,"kind":"tick","n":36,"pick":1551957270},{"id":43,"kind":"oldpush","clone":0,"file":0},{"id":35,"kind":"crash","clone":0,"at":"commit"},{"id":36,"kind":"tick","n":29,"pick":2073230754}]}',
  ));
  assert.deepEqual(r.violations, [], formatHistory(r.history));
});

/**
 * I7, I8 (seed 36200167, shrunk; found with `--old-share 1`, though old
 * clients play no part in it): a core-driven clone's first write of a
 * `latest` marker stopped before its index write, and a peer adopted it;
 * the clone's next write of it, over that adopted version, stopped before
 * its index write too. The marker is written under the data directory the
 * core marks dirty, so no mark names it, and the next pull took the local
 * copy for one this cache never synced: it was set aside and a conflict
 * recorded, while the store kept the clone's upload over the version the
 * index named (every reader skipped the marker as uncommitted) until
 * `resolve`. The pull now keeps such a copy for the push
 * (`sync/service/recommit_test.ts`).
 */
Deno.test("chaos regression: a core-driven clone's own stopped write over an adopted marker is pushed, not a conflict (I7, I8)", async () => {
  const r = await runHistory(parseHistory(
    '{"seed":36200167,"clones":3,"kinds":["core-single-phase","api","api"],"oldClients":true,"ops":[{"id":5,"kind":"breakglass","model":0},{"id":6,"kind":"lockfile","clone":2,"set":"@chaos/ext-6"},{"id":30,"kind":"oldpush","clone":1},{"id":8,"kind":"crash","clone":0,"at":"commit"},{"id":9,"kind":"run","clone":0,"model":0,"data":0,"workMs":1000},{"id":10,"kind":"tick","n":39,"pick":1217022702},{"id":12,"kind":"tick","n":8,"pick":1722588244},{"id":13,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":14,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":15,"kind":"tick","n":20,"pick":1302890020},{"id":16,"kind":"tick","n":32,"pick":960925697},{"id":18,"kind":"tick","n":18,"pick":1202743833},{"id":19,"kind":"crash","clone":0,"at":"commit"},{"id":20,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":21,"kind":"tick","n":38,"pick":918390368},{"id":22,"kind":"breakglass","model":0},{"id":23,"kind":"adopt","clone":1,"file":3},{"id":24,"kind":"tick","n":12,"pick":205583583},{"id":25,"kind":"tick","n":37,"pick":299249945}]}',
  ));
  assert.deepEqual(r.violations, [], formatHistory(r.history));
  assert.equal(r.stats.warnings.pull_conflict, undefined, "no conflict");
});

/**
 * I9, deletion (hand-built; the random histories had not met it): a clone's
 * push of a deletion removed the object, a peer's push of its edit of the
 * same file found the object gone while the index still named the version
 * both had synced and created it again, and the deletion's index commit
 * landed before the edit's. The edit's commit then named the file again: the
 * acknowledged deletion was undone, with a conflict on neither side. A
 * commit over a version whose entry is gone is now the editor's conflict
 * (`apply` in `sync/transfer/index_apply.ts`; `sync/service/delete_edit_race_test.ts`).
 */
Deno.test("chaos regression: an edit racing a deletion's push never undoes the committed deletion (I9)", async () => {
  await clean(
    '{"seed":1,"clones":2,"kinds":["api","api"],"oldClients":false,"ops":[{"id":1,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":2,"kind":"tick","n":40,"pick":1},{"id":3,"kind":"sync","clone":1},{"id":4,"kind":"tick","n":40,"pick":2},{"id":5,"kind":"delete","clone":1,"file":0,"how":"push"},{"id":6,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":7,"kind":"tick","n":60,"pick":1}]}',
    '{"seed":1,"clones":2,"kinds":["api","api"],"oldClients":false,"ops":[{"id":1,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":2,"kind":"tick","n":40,"pick":1},{"id":3,"kind":"sync","clone":1},{"id":4,"kind":"tick","n":40,"pick":2},{"id":5,"kind":"delete","clone":1,"file":0,"how":"push"},{"id":6,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":7,"kind":"tick","n":60,"pick":4}]}',
  );
});

/**
 * I1 (hand-built from the moves that find it: a deterministic run, its
 * process stopped in its push while its lock is broken, and the lock's new
 * holder running the same method): the new holder's run wrote the same
 * version with the same bytes, its create-only writes met the stopped run's
 * uncommitted objects with equal bytes, and it committed them as its own.
 * The stopped run, going on, was refused, and its erasure deleted "its"
 * uploads: the new holder's acknowledged version was gone from the store.
 * The erasure now keeps an upload the remote index names
 * (`deleteUploads` in `middleware/erasure_steps.ts`).
 */
Deno.test("chaos regression: a refused run's erasure keeps its uploads a peer's same-output run committed (I1)", async () => {
  await clean(
    '{"seed":2,"clones":2,"kinds":["core","api"],"oldClients":false,"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":2,"kind":"tick","n":60,"pick":1},{"id":3,"kind":"sync","clone":1},{"id":4,"kind":"tick","n":60,"pick":2},{"id":5,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":6,"kind":"tick","n":8,"pick":3},{"id":10,"kind":"stall","clone":0,"on":true},{"id":7,"kind":"breakglass","model":0},{"id":8,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":9,"kind":"tick","n":80,"pick":4},{"id":11,"kind":"stall","clone":0,"on":false},{"id":12,"kind":"tick","n":80,"pick":5}]}',
    '{"seed":2,"clones":2,"kinds":["api","api"],"oldClients":false,"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":2,"kind":"tick","n":60,"pick":1},{"id":3,"kind":"sync","clone":1},{"id":4,"kind":"tick","n":60,"pick":2},{"id":5,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":6,"kind":"tick","n":7,"pick":3},{"id":10,"kind":"stall","clone":0,"on":true},{"id":7,"kind":"breakglass","model":0},{"id":8,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":9,"kind":"tick","n":80,"pick":4},{"id":11,"kind":"stall","clone":0,"on":false},{"id":12,"kind":"tick","n":80,"pick":5}]}',
  );
});

/**
 * I14 (from the move that finds it: the stopped run goes on at once, beside
 * the new holder's same-output run). The new holder's writes met the
 * stopped run's uploads of the same bytes and took them as they were; the
 * stopped run, refused, erased them while the new holder's commit was on its
 * way. The commit's check found them gone and left them out, but committed
 * the `latest` marker naming them: readers were pointed at a version the
 * index did not list. A marker naming files left unpublished is now held
 * back with them (`apply` in `sync/transfer/index_apply.ts`; on v2, `updateV2`
 * in `index_v2.ts` writes a marker's shard after its files' shards).
 */
Deno.test("chaos regression: a same-output run beside the refused run it replaces publishes no marker before its files (I14)", async () => {
  await clean(
    '{"seed":2,"clones":2,"kinds":["core","api"],"oldClients":false,"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":2,"kind":"tick","n":60,"pick":1},{"id":3,"kind":"sync","clone":1},{"id":4,"kind":"tick","n":60,"pick":2},{"id":5,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":6,"kind":"tick","n":6,"pick":3},{"id":10,"kind":"stall","clone":0,"on":true},{"id":7,"kind":"breakglass","model":0},{"id":8,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":11,"kind":"stall","clone":0,"on":false},{"id":9,"kind":"tick","n":80,"pick":8},{"id":12,"kind":"tick","n":80,"pick":5}]}',
  );
});

/**
 * I14 (seed 41000934, shrunk): a run lost its version to another writer's
 * uncommitted upload of it (`version_exists`, its files set aside), and its
 * clone's next push published its `latest` marker, naming that version,
 * while the other writer (crashed before its index update) had not committed
 * the files. The marker of a version set aside is now reset as a refused
 * run's is (`resetMarker` in `middleware/lost_version.ts`).
 */
Deno.test("chaos regression: a run that lost its version publishes no marker naming it (I14)", async () => {
  await clean(
    '{"seed":41000934,"clones":5,"absentOnError":true,"kinds":["api","api","api","core","core-single-phase"],"ops":[{"id":3,"kind":"crash","clone":0,"at":"commit"},{"id":12,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":13,"kind":"tick","n":4,"pick":190079453},{"id":14,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":15,"kind":"tick","n":39,"pick":1786284984},{"id":17,"kind":"sync","clone":1},{"id":18,"kind":"tick","n":31,"pick":1832091404}]}',
  );
});

/**
 * I1 (from the move that finds it: the stopped run goes on at once, beside
 * the new holder's same-output run, on a v2 bucket). The new holder's commit
 * checked that the stopped run's uploads it had met were there, then wrote
 * the index; the stopped run, refused, had read the index before that write
 * and deleted the objects after that check. The index named objects that
 * were gone; a pull removed the entries, and the clones then dropped the new
 * holder's acknowledged files as deleted. Now each side looks again after
 * its write: the commit heads what it found in place (`commitPrepared`: gone,
 * it is not published and stays dirty), and the erasure reads the index
 * after its deletes and puts back what a commit named (`deleteUploads`).
 * Either look alone passes these two histories; together one of them sees
 * the other whatever the order.
 */
Deno.test("chaos regression: a refused run's erasure crossing a same-output peer's commit loses none of its files (I1)", async () => {
  await clean(
    '{"seed":2,"clones":2,"kinds":["core","api"],"oldClients":false,"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":2,"kind":"tick","n":60,"pick":1},{"id":3,"kind":"sync","clone":1},{"id":4,"kind":"tick","n":60,"pick":2},{"id":5,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":6,"kind":"tick","n":7,"pick":3},{"id":10,"kind":"stall","clone":0,"on":true},{"id":7,"kind":"breakglass","model":0},{"id":8,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":11,"kind":"stall","clone":0,"on":false},{"id":9,"kind":"tick","n":80,"pick":22},{"id":12,"kind":"tick","n":80,"pick":5}],"v2":true}',
    '{"seed":2,"clones":2,"kinds":["api","api"],"oldClients":false,"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":2,"kind":"tick","n":60,"pick":1},{"id":3,"kind":"sync","clone":1},{"id":4,"kind":"tick","n":60,"pick":2},{"id":5,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":6,"kind":"tick","n":6,"pick":3},{"id":10,"kind":"stall","clone":0,"on":true},{"id":7,"kind":"breakglass","model":0},{"id":8,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":11,"kind":"stall","clone":0,"on":false},{"id":9,"kind":"tick","n":80,"pick":22},{"id":12,"kind":"tick","n":80,"pick":5}],"v2":true}',
  );
});

/**
 * I14 (seed 41600315, shrunk; found once I14 ran on v2 buckets too): the
 * first version of a new model writes its files into a shard of their own,
 * new, and its `latest` marker into its type's shard, listed already. A
 * commit cut off (here by an outage) after the marker's shard and before the
 * meta bump that lists the new shard showed the marker naming files no
 * listed shard named. The meta now lists a created shard before the
 * markers' shards are written (`updateV2` in `sync/transfer/index_v2.ts`).
 */
Deno.test("chaos regression: a new model's first commit cut off before its meta bump shows no marker before its files (I14)", async () => {
  await clean(
    '{"seed":41600315,"clones":3,"v2":true,"ops":[{"id":11,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":14,"kind":"tick","n":11,"pick":1393522592},{"id":15,"kind":"run","clone":1,"model":1,"data":0,"workMs":5000},{"id":16,"kind":"bulk","clone":2},{"id":18,"kind":"tick","n":31,"pick":206972920},{"id":19,"kind":"outage","on":true},{"id":32,"kind":"tick","n":4,"pick":1697304546}]}',
  );
});

/**
 * I1 (seeds 41600895 and 41600969, shrunk; old clients in both, so Sluice
 * commits check every create): a same-output run met the refused run's
 * uploads in place, and they were erased before its commit. Beside old
 * clients the commit took that for another writer's replacement (a
 * conflict: 41600895), or, once told apart, left the files unpublished and
 * dirty for a later push (41600969); either way the run was acknowledged,
 * and another writer's run then took the same version number with other
 * output, so the acknowledged run's version was set aside. Bytes found in
 * place and gone with no entry naming the path are now unpublished, not a
 * conflict (`apply` in `sync/transfer/index_apply.ts`), and a push writes such
 * paths again at once in a second pass, as its own (`pushChanged` and
 * `commitPush` in `sync/service/service.ts`), under the run's locks.
 */
Deno.test("chaos regression: a same-output run whose found files were erased before its commit publishes them itself (I1)", async () => {
  await clean(
    '{"seed":41600895,"clones":4,"kinds":["api","api","core","core"],"oldClients":true,"ops":[{"id":0,"kind":"lockfile","clone":0,"set":"@chaos/ext-0"},{"id":3,"kind":"edit","clone":3,"file":1,"how":"push"},{"id":4,"kind":"lockfile","clone":3,"set":"@chaos/ext-4"},{"id":7,"kind":"sync","clone":3},{"id":8,"kind":"tick","n":26,"pick":1982402615},{"id":9,"kind":"run","clone":1,"model":0,"data":0,"workMs":5000,"same":true},{"id":10,"kind":"tick","n":12,"pick":1088001111},{"id":12,"kind":"breakglass","model":0},{"id":13,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":14,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":16,"kind":"wait","ms":2031},{"id":17,"kind":"tick","n":29,"pick":1662328151},{"id":18,"kind":"config","clone":3,"file":0},{"id":19,"kind":"run","clone":3,"model":0,"data":1,"workMs":15000,"same":true},{"id":21,"kind":"tick","n":26,"pick":138396092},{"id":22,"kind":"tick","n":29,"pick":1681468669},{"id":24,"kind":"breakglass","model":0},{"id":26,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"same":true},{"id":38,"kind":"oldpush","clone":0},{"id":31,"kind":"tick","n":10,"pick":1115805204},{"id":32,"kind":"resolve","clone":2,"pick":1,"how":"merged"},{"id":35,"kind":"tick","n":25,"pick":974805920}]}',
    '{"seed":41600969,"clones":5,"kinds":["api","core","api","core","core"],"oldClients":true,"ops":[{"id":0,"kind":"bulk","clone":0},{"id":8,"kind":"tick","n":10,"pick":2138956671},{"id":37,"kind":"oldpush","clone":4},{"id":10,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":12,"kind":"tick","n":21,"pick":336571787},{"id":13,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":14,"kind":"resolve","clone":3,"pick":6,"how":"merged"},{"id":16,"kind":"breakglass","model":0},{"id":17,"kind":"run","clone":2,"model":0,"data":0,"workMs":0,"same":true},{"id":19,"kind":"breakglass","model":0},{"id":21,"kind":"adopt","clone":3,"file":2},{"id":22,"kind":"tick","n":18,"pick":883053203},{"id":23,"kind":"breakglass","model":0},{"id":26,"kind":"bulk","clone":1},{"id":27,"kind":"tick","n":3,"pick":1874160207},{"id":28,"kind":"breakglass","model":0},{"id":29,"kind":"tick","n":4,"pick":1350652077},{"id":31,"kind":"tick","n":11,"pick":553931721},{"id":33,"kind":"tick","n":20,"pick":1410523858},{"id":34,"kind":"run","clone":3,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I13 (seed 41800916, shrunk; old clients in all): an old client's edit of
 * a config file, stopped before its index write while the bucket turned v2,
 * left an object no index will name (old clients give a v2 bucket's config
 * files no shard). A clone's `resolve --mine` of its conflict on that file
 * was held back by that uncommitted write, rightly; its warning names the
 * way out when the writer is gone for good (`push --adopt-uncommitted`,
 * then resolve again), which the checker now takes as a user does.
 */
Deno.test("chaos regression: a resolution held back by a writer gone for good gets out by adopting its object (I13)", async () => {
  await clean(
    '{"seed":41800916,"clones":3,"kinds":["api","core","core-single-phase"],"oldClients":true,"ops":[{"id":5,"kind":"run","clone":2,"model":0,"data":1,"workMs":15000},{"id":6,"kind":"adopt","clone":1,"file":0},{"id":7,"kind":"sync","clone":0},{"id":8,"kind":"crash","clone":0,"at":"commit"},{"id":9,"kind":"migrate","clone":2},{"id":34,"kind":"oldpush","clone":0,"file":0},{"id":12,"kind":"breakglass","model":0},{"id":14,"kind":"tick","n":5,"pick":291808905},{"id":24,"kind":"tick","n":22,"pick":803462257},{"id":31,"kind":"adopt","clone":0,"file":0}]}',
  );
});

/**
 * I11 (seed 42200555, shrunk; found in this round, after the second pass
 * came in): a same-output run's first pass found its files in place and
 * erased before its commit, and held back the `latest` marker it had
 * created; its second pass was then refused (its lock broken meanwhile),
 * and the erasure did not know of the first pass's marker upload, which no
 * index would ever name. The second pass now starts with what the first
 * uploaded, and a refused run's erasure deletes a marker it created
 * (`refusedUploads` in `middleware/erasure_attribution.ts`).
 */
Deno.test("chaos regression: a second pass refused for a lost lock leaves no marker the first pass created (I11)", async () => {
  await clean(
    '{"seed":42200555,"clones":2,"kinds":["core-single-phase","api"],"ops":[{"id":40,"kind":"migrate","clone":0},{"id":43,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":44,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":47,"kind":"tick","n":58,"pick":29309884},{"id":3,"kind":"sync","clone":1},{"id":4,"kind":"run","clone":1,"model":0,"data":1,"workMs":15000,"same":true},{"id":5,"kind":"breakglass","model":0},{"id":6,"kind":"tick","n":21,"pick":1388204078},{"id":7,"kind":"flaky","call":"put","count":2,"afterEffect":false},{"id":8,"kind":"sync","clone":0},{"id":9,"kind":"breakglass","model":0},{"id":10,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":11,"kind":"tick","n":1,"pick":1506835727},{"id":14,"kind":"tick","n":1,"pick":665610239},{"id":16,"kind":"tick","n":22,"pick":238415738},{"id":19,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I7, I8 (seed 43300989, shrunk; found once pulls left dangling entries for
 * 15 minutes): a run lost its data version to another writer's upload
 * (`version_exists`), and its deletion of the sibling it had uploaded landed
 * with its answer lost; its commit then named that sibling, an object gone.
 * A pull used to remove such an entry at once, which hid it. The files of a
 * lost version are now withdrawn from the push's commit whatever their
 * deletion reports (`PushContext.withdrawn`, set in
 * `middleware/lost_version.ts`).
 */
Deno.test("chaos regression: a lost version's sibling whose deletion reported a failure is never named (I7, I8)", async () => {
  await clean(
    '{"seed":43300989,"clones":4,"kinds":["core","api","api","core-single-phase"],"ops":[{"id":9,"kind":"lockfile","clone":3,"set":"@chaos/ext-9"},{"id":10,"kind":"flaky","call":"put","count":1,"afterEffect":true},{"id":22,"kind":"tick","n":1,"pick":1723505106},{"id":24,"kind":"flaky","call":"delete","count":3,"afterEffect":true},{"id":25,"kind":"wait","ms":32500},{"id":28,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":29,"kind":"run","clone":1,"model":0,"data":0,"workMs":15000,"same":true},{"id":31,"kind":"tick","n":16,"pick":2031258709},{"id":34,"kind":"wait","ms":15500},{"id":35,"kind":"breakglass","model":0},{"id":38,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":40,"kind":"flaky","call":"delete","count":1,"afterEffect":false},{"id":41,"kind":"tick","n":23,"pick":1196717430}]}',
  );
});

/**
 * I6 (seeds 45000016, 45000050 and 45000069, shrunk; found once the
 * checker made edits by hand while the clone's own sync was parked on that
 * file's download or look): a pull checked the local copy, then wrote the
 * datastore's copy over an edit saved meanwhile, or removed it. The pull now
 * writes or removes a file only while it is what the pull looked at
 * (`sync/transfer/file_identity.ts`); an edit saved in between is kept, as
 * a conflict.
 */
Deno.test("chaos regression: an edit saved while the clone's own pull fetches or removes the file is kept (I6)", async () => {
  await clean(
    '{"seed":45000016,"clones":4,"v2":true,"kinds":["api","core-single-phase","api","core"],"ops":[{"id":1,"kind":"lockfile","clone":3,"set":"@chaos/ext-1"},{"id":7,"kind":"adopt","clone":0,"file":4},{"id":19,"kind":"sync","clone":3},{"id":20,"kind":"edit","clone":3,"file":0,"how":"during","pick":1495818722}]}',
    '{"seed":45000050,"clones":5,"kinds":["api","api","core","api","api"],"ops":[{"id":7,"kind":"config","clone":2,"file":0},{"id":8,"kind":"tick","n":1,"pick":1952651092},{"id":13,"kind":"sync","clone":4},{"id":14,"kind":"edit","clone":4,"file":1,"how":"during","pick":2054066021}]}',
    '{"seed":45000069,"clones":3,"absentOnError":true,"v2":true,"kinds":["core","core","core"],"ops":[{"id":12,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":13,"kind":"tick","n":1,"pick":1032936260},{"id":14,"kind":"tick","n":9,"pick":453079854},{"id":15,"kind":"config","clone":2,"file":1},{"id":16,"kind":"sync","clone":0},{"id":17,"kind":"edit","clone":0,"file":1,"how":"during","pick":1871344653}]}',
  );
});

/**
 * I7, I8 (seed 45200526, shrunk): a clone removed notes/ by hand and pushed
 * the directory; one object delete landed and the index update was cut off
 * by an outage; the user then put the file back as it was synced, and the
 * next push passed it over as unchanged, so the index named an object the
 * store no longer held. Deletions under a marked directory are now recorded
 * as attempted before they are made, like its writes, and a file put back as
 * synced is written again where the store holds nothing (through the gates:
 * a deletion a peer committed meanwhile stands).
 */
Deno.test("chaos regression: a deletion cut off before its commit and undone by hand is written again (I7, I8)", async () => {
  await clean(
    '{"seed":45200526,"clones":2,"absentOnError":true,"v2":true,"kinds":["api","core-single-phase"],"ops":[{"id":0,"kind":"adopt","clone":0,"file":3},{"id":3,"kind":"run","clone":0,"model":0,"data":1,"workMs":45000},{"id":9,"kind":"resolve","clone":0,"pick":0,"how":"mine"},{"id":12,"kind":"bulk","clone":1},{"id":13,"kind":"tick","n":11,"pick":1449813216},{"id":15,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":16,"kind":"delete","clone":0,"file":4,"how":"dir"},{"id":17,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":18,"kind":"breakglass","model":0},{"id":20,"kind":"tick","n":4,"pick":660841727},{"id":21,"kind":"breakglass","model":0},{"id":22,"kind":"tick","n":36,"pick":1067718856},{"id":24,"kind":"edit","clone":0,"file":3,"how":"revert"},{"id":26,"kind":"outage","on":true},{"id":27,"kind":"tick","n":4,"pick":1494590410}]}',
  );
});

/**
 * I6 (seed 47000128, shrunk; found once the checker asked that every copy a
 * pull set aside stay named by a conflict record until its clone resolves
 * the path): a clone's run crashed after writing version 1 of a data name,
 * a peer published its own version 1, and the clone's pull set the crashed
 * run's files aside as conflicts. The clone's resolution (`--mine`) then lost
 * to the published version (`version_exists`), and the push that settled
 * that loss dropped the records naming the copies set aside before: they
 * stayed in the set-aside area, shown by nothing. A push's own settling now
 * keeps a record that names a set-aside copy; only a resolution drops it.
 */
Deno.test("chaos regression: a copy a pull set aside stays named after a push settles a lost data version (I6)", async () => {
  await clean(
    '{"seed":47000128,"clones":5,"v2":true,"kinds":["core-single-phase","core-single-phase","api","core-single-phase","core"],"ops":[{"id":0,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":1,"kind":"run","clone":3,"model":0,"data":0,"workMs":15000},{"id":9,"kind":"run","clone":4,"model":0,"data":0,"workMs":0},{"id":10,"kind":"breakglass","model":0},{"id":12,"kind":"tick","n":27,"pick":285049595},{"id":20,"kind":"crash","clone":3},{"id":36,"kind":"resolve","clone":3,"pick":4,"how":"mine"}]}',
  );
});

/**
 * I6 (seed 47100209, shrunk): a clone's pull, run by a resolution to see
 * what conflicts, set the clone's never-synced copy of a config file aside
 * and the clone crashed at the download, before the pull saved the conflict
 * record: the copy stayed in the set-aside area, named by nothing. A pull now
 * writes the conflict into the copy's `REASON.json` before moving it, and
 * loading the records names such a copy again until a resolution resolves
 * its path (`sync/service/conflicts.ts`).
 */
Deno.test("chaos regression: a copy set aside by a pull that crashed before recording it is named again (I6)", async () => {
  await clean(
    '{"seed":47100209,"clones":2,"v2":true,"kinds":["core","api"],"ops":[{"id":2,"kind":"adopt","clone":1,"file":2},{"id":9,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":10,"kind":"edit","clone":0,"file":2,"how":"hand"},{"id":11,"kind":"tick","n":17,"pick":1896051895},{"id":18,"kind":"resolve","clone":0,"pick":1,"how":"merged"},{"id":20,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":27,"kind":"tick","n":6,"pick":1954705597},{"id":28,"kind":"crash","clone":0}]}',
  );
});

/**
 * I11 (seed 47101896, shrunk; old clients in all, so the run's commit
 * held the global lock): a same-output run's first pass found its
 * metadata in place and erased before its commit (the other run's,
 * refused), committed its other file and held back the `latest` marker it
 * had created; a second breakglass then refused its second pass, and as
 * its version held a file the first pass had synced, it was held
 * (`erasure_refused`) with all it had uploaded left in place, the marker
 * too, named by no index and holding off every peer's write of that marker
 * until the user resolved the run, for good once discarded. A held run's
 * refusal now deletes a marker its push created, while still its own and
 * named by no index (`middleware/refused_run_eraser.ts`); the cache keeps
 * its copy, held.
 */
Deno.test("chaos regression: a second pass refused into held versions leaves no marker the first pass created (I11)", async () => {
  await clean(
    '{"seed":47101896,"clones":4,"kinds":["api","core-single-phase","api","core-single-phase"],"oldClients":true,"ops":[{"id":42,"kind":"oldpush","clone":3},{"id":14,"kind":"run","clone":0,"model":0,"data":0,"workMs":15000,"same":true},{"id":40,"kind":"oldpush","clone":1},{"id":16,"kind":"tick","n":34,"pick":1473325950},{"id":18,"kind":"breakglass","model":0},{"id":19,"kind":"run","clone":2,"model":0,"data":0,"workMs":0,"same":true},{"id":22,"kind":"tick","n":28,"pick":978631374},{"id":24,"kind":"tick","n":14,"pick":541293680},{"id":26,"kind":"breakglass","model":0}]}',
  );
});

/**
 * Discovery beside an old client (seed 48600393, shrunk): an old client's
 * push put its object into a bucket with no index and stopped before its
 * index write; a Sluice commit, the bucket's first, found the object by a
 * listing and named it by its size (no version, no hash: as old clients
 * name theirs). The checker took that entry for a version the store did not
 * hold (I7); an entry named by its bytes holds while the store's bytes are
 * of its size.
 */
Deno.test("chaos regression: a Sluice commit into a bucket with no index names an old client's object by its bytes (I7)", async () => {
  const r = await runHistory(parseHistory(
    '{"seed":48600393,"clones":5,"kinds":["api","core","core","core","core-single-phase"],"oldClients":true,"ops":[{"id":35,"kind":"oldpush","clone":4,"file":1},{"id":4,"kind":"tick","n":3,"pick":769442097},{"id":5,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":6,"kind":"crash","clone":4}]}',
  ));
  assert.deepEqual(r.violations, [], formatHistory(r.history));
  assert.equal(r.stats.warnings.index_discovered, 1);
});

/**
 * I15 (seed 49000409, shrunk; found with d8cb120's fix reverted, once the
 * checker replaced files by directories of their name and back): a clone
 * edited `notes/shared-2.md` and pushed it, then replaced it by a directory
 * of that name holding a new file and pushed that name; a peer synced the
 * directory, replaced it by a plain file again and pushed it by its name.
 * The push published the file and left the directory's synced file on the
 * datastore beside it, and exited 0: the datastore held both
 * `notes/shared-2.md` and `notes/shared-2.md/part-34.md`, and every pull
 * left one of them out (`path_blocked`). The plan now names the deletion of
 * a replaced directory's synced files with the file that replaced it
 * (`sync/service/plan.ts`).
 */
Deno.test("chaos regression: a file that replaced a synced directory, pushed by its name, leaves no file of the directory (I15)", async () => {
  await clean(
    '{"seed":49000409,"clones":4,"kinds":["api","api","api","core-single-phase"],"ops":[{"id":33,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":34,"kind":"reshape","clone":1,"file":5,"how":"push"},{"id":12,"kind":"tick","n":9,"pick":757093985},{"id":35,"kind":"sync","clone":2},{"id":36,"kind":"reshape","clone":2,"file":5,"how":"push"}]}',
  );
});

/**
 * I1, I8 (seed 49000012, shrunk, with reshapes in every history
 * (`--reshape-share 1`)): two clones created `notes/shared-2.md`, one of
 * them after the other's push (a conflict), and that one replaced its copy
 * by a directory of the name and pushed it: the datastore held both the
 * file and a file under it. Each pull that met the directory's file after
 * the file (fetched in a stream, being larger than the stream threshold)
 * failed as a whole with an untyped "File exists" from its mkdir, instead of
 * leaving that path out as blocked: a peer's pulls, a fresh clone's too,
 * never got a run's files. A streamed write under a file is now a path
 * blocked, as a whole write is (`sync/transfer/cache_stream.ts`).
 */
Deno.test("chaos regression: a streamed fetch under a file in the cache is left out as blocked, the pull goes on (I1, I8)", async () => {
  await clean(
    '{"seed":49000012,"clones":4,"kinds":["api","api","core","core"],"ops":[{"id":18,"kind":"edit","clone":3,"file":5,"how":"push"},{"id":20,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":28,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":29,"kind":"reshape","clone":2,"file":5,"how":"push"}]}',
  );
});

/**
 * I11 (seed 49000606, shrunk; with d8cb120's fix in): a clone replaced a
 * file it had pushed by a directory of its name and pushed that name; the
 * push uploaded the directory's file and failed the file's deletion
 * (flaky deletes), then the clone replaced the directory by a file again
 * and pushed it by its name. That push settled nothing under the name: the
 * directory's upload stayed on the store, named by no index, for good (and
 * where the failed push had committed it, the index named both the file and
 * the directory's file). A file that replaced a directory now stands for
 * the deletion of the directory's synced files also where the file was
 * synced beside them, and for the writes an earlier push of this cache made
 * under it without committing them (`sync/service/plan.ts`).
 */
Deno.test("chaos regression: a file that replaced a directory settles the directory's writes a failed push left (I11)", async () => {
  await clean(
    '{"seed":49000606,"clones":4,"kinds":["core","api","core","api"],"ops":[{"id":5,"kind":"flaky","call":"delete","count":3,"afterEffect":false},{"id":6,"kind":"adopt","clone":3,"file":5},{"id":8,"kind":"migrate","clone":0},{"id":35,"kind":"edit","clone":3,"file":4,"how":"push"},{"id":36,"kind":"reshape","clone":3,"file":4,"how":"push"},{"id":37,"kind":"reshape","clone":3,"file":4,"how":"push"},{"id":10,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":13,"kind":"crash","clone":3},{"id":15,"kind":"tick","n":28,"pick":516199353},{"id":17,"kind":"breakglass","model":0},{"id":18,"kind":"flaky","call":"put","count":2,"afterEffect":false},{"id":24,"kind":"tick","n":8,"pick":1280375212}]}',
  );
});

/**
 * I11 (seed 49000468, shrunk; seeds 49001158 and 49001446 found the same):
 * a clone's push of a new file `notes/shared-2.md` wrote its object and
 * crashed before the index update; the user then replaced the file by a
 * directory of that name, and the push of that name published the
 * directory's file. Its own upload at `notes/shared-2.md` stayed on the
 * store, named by no index, for good (a file removed instead is checked and
 * its upload deleted: a marked directory that replaced a never-synced file
 * was not). A push now records its never-synced named writes before making
 * them, and a marked directory at such a name checks it
 * (`sync/service/plan.ts`).
 */
Deno.test("chaos regression: a never-synced file's stranded upload is settled when a directory of its name replaced it (I11)", async () => {
  await clean(
    '{"seed":49000468,"clones":4,"kinds":["api","api","core-single-phase","api"],"ops":[{"id":15,"kind":"crash","clone":3,"at":"commit"},{"id":21,"kind":"edit","clone":3,"file":5,"how":"push"},{"id":22,"kind":"reshape","clone":3,"file":5,"how":"hand"},{"id":16,"kind":"tick","n":1,"pick":280399466}]}',
  );
});

/**
 * I16 (seed 49001587, shrunk): a pull found a local copy never synced that
 * differed from the datastore's, and the user deleted it by hand between
 * the pull's look and its move into the set-aside area: the pull failed
 * with a raw `NotFound` from the rename, no stable code, and left the
 * copy's `REASON.json` behind. The checker now flags any command that ends
 * in an error with no stable code; the pull takes such a path as one with
 * nothing here (`sync/transfer/cache_state.ts`, `sync/service/pull.ts`).
 */
Deno.test("chaos regression: a copy deleted by hand as the pull sets it aside fails nothing (I16)", async () => {
  await clean(
    '{"seed":49001587,"clones":5,"kinds":["api","core-single-phase","api","core","core-single-phase"],"ops":[{"id":9,"kind":"bulk","clone":0},{"id":11,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":14,"kind":"edit","clone":0,"file":2,"how":"revert"},{"id":27,"kind":"sync","clone":0},{"id":28,"kind":"delete","clone":0,"file":2,"how":"during","pick":877420312}]}',
  );
});

/**
 * I7/I8 (seed 52400079, shrunk): a clone's push of a new shared file wrote
 * its object and stopped before its commit; its user deleted the file, and
 * its next push deleted that upload as its own, while a peer, told to adopt
 * it (`push --adopt-uncommitted`), committed it into the index between that
 * push's look at the index and its delete. The index named an object the
 * store no longer held. Now the writer reads the index again after such a
 * delete and the adopter looks at the object again after its commit; the
 * one that sees the other's step takes the entry out
 * (`sync/service/push_delete.ts`, `sync/transfer/adopt.ts`).
 */
Deno.test("chaos regression: an adoption crossing its writer's delete of the same upload leaves no entry naming nothing (I7)", async () => {
  await clean(
    '{"seed":52400079,"clones":4,"kinds":["core","core","api","api"],"ops":[{"id":5,"kind":"config","clone":1,"file":2},{"id":7,"kind":"adopt","clone":3,"file":5},{"id":49,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":9,"kind":"crash","clone":1},{"id":12,"kind":"sync","clone":3},{"id":13,"kind":"delete","clone":3,"file":4,"how":"during","pick":1305392239},{"id":14,"kind":"adopt","clone":0,"file":5},{"id":15,"kind":"crash","clone":3}]}',
  );
});

/**
 * A checker fix (seed 52500790, shrunk): a clone's `resolve --merged` wrote
 * its copy over the version the index names and crashed before its index
 * update; the conflict stays open on that clone, whose pushes skip the path
 * until the resolution is run again. The checker took that pending write
 * for a lost one (I7: the index names a version the store no longer holds;
 * I8: a fresh clone skips the path as uncommitted). It is the clone's
 * pending change, as I11 already held for a created path; I13's final
 * `resolve --mine` publishes it.
 */
Deno.test("chaos regression: a resolution cut off before its index update is pending, and resolving again publishes it (I7, I8, I13)", async () => {
  await clean(
    '{"seed":52500790,"clones":2,"ops":[{"id":9,"kind":"edit","clone":1,"file":5,"how":"revert"},{"id":20,"kind":"crash","clone":1,"at":"commit"},{"id":21,"kind":"adopt","clone":0,"file":5},{"id":25,"kind":"tick","n":4,"pick":1016079439},{"id":26,"kind":"resolve","clone":1,"pick":7,"how":"merged"},{"id":28,"kind":"tick","n":12,"pick":447954742}]}',
  );
});

/**
 * I15 (seed 52500756, shrunk): a clone replaced a synced directory by a file
 * of its name and pushed that name; the file's write landed and the
 * deletion of the directory's file failed (an outage). The push committed
 * the file and, the file being handled, cleaned the mark of its name, which
 * also stood for the directory's deletion: no later push deleted it (a walk
 * never deletes), and the index named both shapes for good. A name whose
 * directory part failed, stays dirty or waits now keeps its mark
 * (`sync/service/push.ts`).
 */
Deno.test("chaos regression: a file that replaced a directory keeps its mark while the directory's deletion failed (I15)", async () => {
  await clean(
    '{"seed":52500756,"clones":2,"absentOnError":true,"kinds":["api","core-single-phase"],"ops":[{"id":7,"kind":"resolve","clone":1,"pick":4,"how":"merged"},{"id":32,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":33,"kind":"reshape","clone":0,"file":3,"how":"hand"},{"id":34,"kind":"sync","clone":1},{"id":35,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":17,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":18,"kind":"crash","clone":0},{"id":19,"kind":"config","clone":0,"file":1},{"id":22,"kind":"crash","clone":0},{"id":23,"kind":"flaky","call":"delete","count":3,"afterEffect":false},{"id":27,"kind":"tick","n":27,"pick":1405037787}]}',
  );
});

/**
 * I11 (seed 53300126, shrunk; seed 53301249 found the same): a clone
 * replaced a synced directory by a file of its name and pushed it; the
 * file's upload and the directory file's deletion landed, and the clone
 * crashed before the index update. Its user then deleted the file, and the
 * next push completed the directory's deletion but never checked the file's
 * name: its upload stayed on the store, named by no index. A removed name
 * that an earlier push wrote as a never-synced file is now checked as any
 * (`sync/service/plan.ts`).
 */
Deno.test("chaos regression: a file that replaced a directory, cut off before its commit and then deleted, leaves no upload (I11)", async () => {
  await clean(
    '{"seed":53300126,"clones":2,"kinds":["api","core"],"ops":[{"id":42,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":43,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":0,"kind":"tick","n":9,"pick":1180802517},{"id":2,"kind":"crash","clone":1,"at":"commit"},{"id":44,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":10,"kind":"tick","n":7,"pick":1232178963},{"id":15,"kind":"delete","clone":1,"file":0,"how":"push"}]}',
  );
});

/**
 * I11 (seed 53700570, shrunk): a clone replaced a file by a directory of its
 * name and pushed it; the directory's upload landed and an outage cut the
 * push off before its commit. Its user then resolved the path's conflict
 * with --theirs, which cleaned the mark of the path: the upload under it
 * was covered by no mark any more and stayed, named by no index. A push of
 * everything pending now settles every record of a never-synced path that
 * no mark covers (`sync/service/plan.ts`).
 */
Deno.test("chaos regression: a directory's upload cut off before its commit is still checked after the path's conflict is resolved --theirs (I11)", async () => {
  await clean(
    '{"seed":53700570,"clones":5,"absentOnError":true,"kinds":["api","api","core","api","core"],"ops":[{"id":15,"kind":"adopt","clone":3,"file":5},{"id":43,"kind":"edit","clone":4,"file":5,"how":"push"},{"id":44,"kind":"reshape","clone":4,"file":5,"how":"push"},{"id":21,"kind":"breakglass","model":0},{"id":22,"kind":"tick","n":17,"pick":1764692528},{"id":28,"kind":"outage","on":true},{"id":29,"kind":"tick","n":4,"pick":759071015},{"id":36,"kind":"resolve","clone":4,"pick":0,"how":"merged"}]}',
  );
});

/**
 * I11 (seed 53700780, shrunk; failing at 8c49b3e too): a run's `latest`
 * marker, created before an outage cut its push off, stayed on the store
 * named by no index: the clone's next run was refused, and its erasure reset
 * the marker here and cleaned its mark, so no push covered the write any
 * more. A push of everything pending now settles such a record
 * (`sync/service/plan.ts`).
 */
Deno.test("chaos regression: a cut-off run's latest marker is settled after the clone's next run is refused (I11)", async () => {
  await clean(
    '{"seed":53700780,"clones":5,"kinds":["core","api","core","api","api"],"ops":[{"id":0,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":1,"kind":"tick","n":13,"pick":1776948473},{"id":4,"kind":"config","clone":4,"file":2},{"id":7,"kind":"outage","on":true},{"id":8,"kind":"tick","n":5,"pick":1816767492},{"id":11,"kind":"outage","on":false},{"id":12,"kind":"run","clone":4,"model":0,"data":1,"workMs":0,"same":true},{"id":13,"kind":"breakglass","model":0},{"id":14,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":17,"kind":"tick","n":39,"pick":1386983543},{"id":18,"kind":"tick","n":22,"pick":459949488},{"id":19,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I17 (seed 54300007, shrunk; the checker's clock-skew move): a clone whose
 * clock ran 65 s ahead of the store's found another clone's live model lock
 * and took its store stamp plus TTL, behind its own clock, for stale: it
 * broke the lock while its holder renewed it (that run was refused). The
 * stale check now reads the store's clock from the store's stamp on a write
 * of its own (`sync/locks/store_clock.ts`, `sync/locks/lock_engine.ts`).
 */
Deno.test("chaos regression: a clone whose clock runs ahead of the store's breaks no live lock (I17)", async () => {
  await clean(
    '{"seed":54300007,"clones":4,"v2":true,"kinds":["api","core","api","api"],"skewMs":[0,0,65469,0],"ops":[{"id":3,"kind":"run","clone":3,"model":0,"data":0,"workMs":0,"same":true},{"id":9,"kind":"run","clone":2,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I17 (seed 54600706, shrunk; found by the clock-skew move once the stale
 * check read the store's clock): a clone whose clock ran 63 s ahead found
 * the global lock held while its writes failed (a flaky store): its clock
 * probe failed, and the stale check fell back on its own clock and broke the
 * live lock. A probe that does not get through now takes nothing over until
 * one does; only a store that refuses the probe leaves this machine's clock
 * to judge (`sync/locks/lock_engine.ts`).
 */
Deno.test("chaos regression: a clock probe that fails takes no live lock over (I17)", async () => {
  await clean(
    '{"seed":54600706,"clones":4,"kinds":["api","api","core","api"],"oldClients":true,"skewMs":[0,0,62981,0],"ops":[{"id":10,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":17,"kind":"resolve","clone":2,"pick":3,"how":"mine"},{"id":44,"kind":"oldpush","clone":0,"file":0},{"id":45,"kind":"oldpush","clone":2,"file":4,"del":true},{"id":23,"kind":"tick","n":10,"pick":122321706}]}',
  );
});

/**
 * I11/I18 (seeds 56000007 and 56000000, shrunk; the checker's move of
 * another tool writing into a bucket with no index): the bucket's first
 * commit was a lockfile transaction, whose index write named its lockfile
 * alone: the other tool's objects stayed named by no index for good. Any
 * commit that creates the index now names what is there
 * (`sync/transfer/remote_index.ts`, `sync/locks/lockfile_txn.ts`).
 */
Deno.test("chaos regression: a lockfile transaction that makes the first index names another tool's objects (I11, I18)", async () => {
  await clean(
    '{"seed":56000007,"clones":3,"kinds":["api","core","core"],"skewMs":[0,0,110428],"ops":[{"id":42,"kind":"foreign","what":"shared","file":2},{"id":5,"kind":"lockfile","clone":1,"set":"@chaos/ext-5"}]}',
    '{"seed":56000000,"clones":3,"kinds":["api","core","core"],"skewMs":[0,0,51668],"indexFirst":true,"ops":[{"id":22,"kind":"foreign","what":"version","model":1,"data":1,"version":1,"marker":true},{"id":2,"kind":"lockfile","clone":1,"set":"@chaos/ext-2"}]}',
  );
});

/**
 * I11/I18 (seed 56000003, shrunk): a move to v2 of a bucket with no index
 * wrote a v2 meta naming nothing, through the extension (core's
 * migrate-index) and through Sluice's API alike: the other tool's objects
 * were named by no index, and no later commit looked for them. The move now
 * names them in its shards (`sync/transfer/migrate_index.ts`).
 */
Deno.test("chaos regression: a move to v2 of a bucket with no index names another tool's objects (I11, I18)", async () => {
  await clean(
    '{"seed":56000003,"clones":3,"kinds":["core","api","core"],"ops":[{"id":31,"kind":"foreign","what":"file"},{"id":4,"kind":"migrate","clone":2}]}',
    '{"seed":56000003,"clones":3,"ops":[{"id":31,"kind":"foreign","what":"file"},{"id":4,"kind":"migrate","clone":0}]}',
  );
});

/**
 * I11/I18 (seed 56100006, shrunk; the review's finding of 3c294b7, found by
 * the checker once it had the move, with that fix taken out): a first push
 * that makes the index first named what its listing found but at the push's
 * own paths; its edit of a shared file the other tool wrote first did not
 * land there (a conflict), and the other tool's file stayed named by no
 * index (`sync/service/push_first_index.ts`).
 */
Deno.test("chaos regression: a first push's early index names another tool's object at a path the push writes too (I11, I18)", async () => {
  await clean(
    '{"seed":56100006,"clones":2,"kinds":["api","core"],"indexFirst":true,"ops":[{"id":22,"kind":"foreign","what":"shared","file":5},{"id":15,"kind":"edit","clone":0,"file":5,"how":"push"}]}',
  );
});

/**
 * I11/I18 (seed 56600148, shrunk; found once the checker's move of another
 * tool's writes could be followed by a move to v2 cut off by a crash and run
 * again, a case a review of febb9c5 pointed at): the first move wrote some
 * shards and died; the second found shards and no index object, so it
 * listed those shards in its v2 meta and looked no further: the other
 * tool's objects in the shards never written stayed named by no index. The
 * move now makes the index from the shards it finds and what a listing
 * finds besides them (`sync/transfer/migrate_index.ts`).
 */
Deno.test("chaos regression: a move to v2 cut off by a crash and run again names another tool's objects (I11, I18)", async () => {
  await clean(
    '{"seed":56600148,"clones":2,"skewMs":[58712,0],"ops":[{"id":44,"kind":"foreign","what":"version","model":0,"data":0,"version":1,"marker":true},{"id":45,"kind":"foreign","what":"file"},{"id":47,"kind":"migrate","clone":1},{"id":48,"kind":"tick","n":16,"pick":1319498037},{"id":49,"kind":"crash","clone":1},{"id":51,"kind":"migrate","clone":0}]}',
  );
});

/**
 * I6 (seed 57700162): a clone's pull fetched a file, its user deleted it by
 * hand while the pull fetched the next one, and the process died before the
 * pull ended. The pull made its records of the files it fetched durable
 * only when it ended or failed, so the next pull fetched the file back and
 * the deletion was undone. Each fetched file's record is now written to the
 * manifest's log before the pull goes on (`SyncState.noteSynced`).
 */
Deno.test("chaos regression: a file fetched by a pull whose process died, then deleted by hand, stays deleted (I6)", async () => {
  await clean(
    '{"seed":57700162,"clones":2,"absentOnError":true,"kinds":["core","core"],"ops":[{"id":24,"kind":"foreign","what":"shared","file":1},{"id":25,"kind":"foreign","what":"shared","file":0},{"id":26,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":1,"kind":"migrate","clone":1},{"id":2,"kind":"resolve","clone":1,"pick":7,"how":"merged"},{"id":3,"kind":"lockfile","clone":0,"set":"@chaos/ext-3"},{"id":4,"kind":"tick","n":1,"pick":958385397},{"id":5,"kind":"tick","n":32,"pick":416652242},{"id":20,"kind":"delete","clone":1,"file":1,"how":"during","pick":1713124186},{"id":21,"kind":"crash","clone":1}]}',
  );
});

/**
 * I19 (seeds 58100131 and 58100193, found by the first runs of the move in
 * which another tool deletes a shared file's object): a clone's push
 * uploaded a file, another tool deleted the object, and the push's index
 * write was refused by a peer's commit; the second round found its own
 * object gone, named nothing, and reported the file pushed. The clone's
 * next pull took the missing entry for a peer's deletion and removed the
 * last copy. The push now records a conflict and keeps the copy.
 */
for (
  const history of [
    '{"seed":58100131,"clones":4,"v2":true,"kinds":["api","core","api","core"],"skewMs":[96218,0,0,0],"ops":[{"id":4,"kind":"lockfile","clone":2,"set":"@chaos/ext-4"},{"id":5,"kind":"config","clone":1,"file":2},{"id":30,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":31,"kind":"tick","n":5,"pick":478785350},{"id":32,"kind":"vanish","file":4},{"id":34,"kind":"tick","n":10,"pick":1689987810}]}',
    '{"seed":58100193,"clones":2,"indexFirst":true,"ops":[{"id":1,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":28,"kind":"tick","n":32,"pick":802558946},{"id":7,"kind":"breakglass","model":0},{"id":29,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":32,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":33,"kind":"tick","n":10,"pick":919012192},{"id":34,"kind":"vanish","file":1}]}',
  ]
) {
  Deno.test(`chaos regression: a push whose upload another tool deleted before its commit's second round keeps the copy (I19, seed ${JSON.parse(history).seed})`, async () => {
    await clean(history);
  });
}

/**
 * I19 over a run's output (the move taught afterwards: another tool deletes
 * the raw output of a version a run pushed): the running clone holds the
 * last copy, and the other clone's second pull, past the grace, removes the
 * entry naming nothing. The holder must keep its copy (a conflict, which
 * the final `resolve --mine` publishes). With the record of lost files
 * taken out of the pull, this history ends with the copy removed.
 */
Deno.test("chaos regression: a run's raw output another tool deleted is kept by the clone holding it (I19)", async () => {
  await clean(
    '{"seed":5,"clones":2,"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":2,"kind":"tick","n":150,"pick":7},{"id":3,"kind":"vanish","file":0,"run":1},{"id":4,"kind":"sync","clone":1},{"id":5,"kind":"tick","n":20,"pick":0},{"id":6,"kind":"wait","ms":80000},{"id":7,"kind":"tick","n":20,"pick":1},{"id":8,"kind":"wait","ms":80000},{"id":9,"kind":"tick","n":20,"pick":2},{"id":10,"kind":"wait","ms":80000},{"id":11,"kind":"tick","n":20,"pick":3},{"id":12,"kind":"wait","ms":80000},{"id":13,"kind":"tick","n":20,"pick":4},{"id":14,"kind":"wait","ms":80000},{"id":15,"kind":"tick","n":20,"pick":5},{"id":16,"kind":"wait","ms":80000},{"id":17,"kind":"tick","n":20,"pick":6},{"id":18,"kind":"wait","ms":80000},{"id":19,"kind":"tick","n":20,"pick":7},{"id":20,"kind":"wait","ms":80000},{"id":21,"kind":"tick","n":20,"pick":8},{"id":22,"kind":"wait","ms":80000},{"id":23,"kind":"tick","n":20,"pick":9},{"id":24,"kind":"wait","ms":80000},{"id":25,"kind":"tick","n":20,"pick":10},{"id":26,"kind":"wait","ms":80000},{"id":27,"kind":"tick","n":20,"pick":11},{"id":28,"kind":"wait","ms":80000},{"id":29,"kind":"sync","clone":1},{"id":30,"kind":"sync","clone":0}]}',
  );
});

/**
 * I19, the checker's own gap (seed 60000136, shrunk): a clone pushed its
 * edit of a shared file, then replaced the file by a directory by hand, and
 * another tool deleted the pushed object before that clone pushed the
 * change. The clone's push of its directory (a user's deletion of the
 * file) then removed the file everywhere, as it should; I19 now spares a
 * path whose synced file a clone had deleted (here: replaced by a directory) and not pushed yet when the object went.
 */
Deno.test("chaos regression: a user's change made before another tool's deletion and pushed after it is not a loss (I19, seed 60000136)", async () => {
  await clean(
    '{"seed":60000136,"clones":5,"kinds":["api","core","core-single-phase","core","core"],"skewMs":[43137,0,0,0,0],"ops":[{"id":5,"kind":"breakglass","model":0},{"id":7,"kind":"sync","clone":2},{"id":24,"kind":"edit","clone":4,"file":4,"how":"push"},{"id":25,"kind":"reshape","clone":4,"file":4,"how":"hand"},{"id":11,"kind":"tick","n":17,"pick":818059963},{"id":31,"kind":"vanish","file":4}]}',
  );
});

/**
 * I19 (seed 60300148, found by the run-output move's first 1,000 histories,
 * on a shared file): a clone's push made the index first and committed its
 * edit to the v1 index while another clone's move to v2 ran, and another
 * tool deleted the upload just after. Carried into v2 (by the push's own
 * companion step and by the move's catch-up), the edit was left out for
 * naming nothing, and neither told anyone: the push reported it published,
 * and its next pull took the missing entry for a peer's deletion and
 * removed the last copy. The push now keeps it as a conflict, and the move
 * records such a write as lost.
 */
Deno.test("chaos regression: a write carried into v2 whose upload another tool deleted is neither taken as published nor forgotten (I19, seed 60300148)", async () => {
  await clean(
    '{"seed":60300148,"clones":5,"absentOnError":true,"kinds":["core","api","api","api","api"],"indexFirst":true,"ops":[{"id":4,"kind":"migrate","clone":4},{"id":21,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":22,"kind":"tick","n":25,"pick":216021924},{"id":23,"kind":"vanish","file":4}]}',
  );
});

/**
 * I7/I8 (seed 60701182, found by 2,000 histories at defaults): another
 * tool's object named by the first index without an object version; a
 * clone that synced it replaced the file by a directory and pushed, and
 * stopped after deleting the object, before its index commit; back as a
 * file, its next push took the gone object for a peer's deletion (the
 * version it synced is not what such an entry names) and kept a conflict,
 * leaving the index naming nothing there. It now creates the file again
 * over its own uncommitted deletion.
 */
Deno.test("chaos regression: a file named without an object version is created again over this clone's own uncommitted deletion (I7, I8, seed 60701182)", async () => {
  await clean(
    '{"seed":60701182,"clones":3,"absentOnError":true,"kinds":["api","core-single-phase","api"],"skewMs":[55163,0,0],"ops":[{"id":48,"kind":"foreign","what":"shared","file":4},{"id":1,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":2,"kind":"resolve","clone":2,"pick":1,"how":"mine"},{"id":3,"kind":"sync","clone":0},{"id":39,"kind":"tick","n":14,"pick":474823189},{"id":45,"kind":"tick","n":10,"pick":467156641},{"id":17,"kind":"reshape","clone":0,"file":4,"how":"push"},{"id":18,"kind":"reshape","clone":0,"file":4,"how":"push"},{"id":4,"kind":"tick","n":12,"pick":1115406249},{"id":7,"kind":"crash","clone":0}]}',
  );
});

/**
 * I4 (seed 61200136, found by 1,000 histories with another tool's
 * deletions in all, and shrunk to a history without one): under a store
 * latency of 3 s, four clones' commits to the v1 index refused each
 * other's compare-and-swap; one run's commit took five rounds and ended
 * (published) at 985 s, past the 900 s budget. The checker releases store
 * calls one at a time, where a store serves them side by side, so that
 * run's fake time was mostly the latency of others' calls. A command's
 * budget now counts the latency of its own calls alone.
 */
Deno.test("chaos regression: a command slowed by the latency of other commands' calls is not a hang (I4, seed 61200136)", async () => {
  await clean(
    '{"seed":61200136,"clones":4,"absentOnError":true,"kinds":["core","api","api","api"],"ops":[{"id":8,"kind":"lockfile","clone":2,"remove":"@chaos/ext-3"},{"id":10,"kind":"run","clone":1,"model":0,"data":1,"workMs":1000,"same":true},{"id":11,"kind":"breakglass","model":0},{"id":14,"kind":"lockfile","clone":1,"set":"@chaos/ext-14"},{"id":54,"kind":"stall","clone":3,"on":true,"at":"companions"},{"id":53,"kind":"edit","clone":3,"file":5,"how":"push"},{"id":16,"kind":"run","clone":1,"model":0,"data":1,"workMs":5000},{"id":17,"kind":"tick","n":11,"pick":1196144429},{"id":20,"kind":"run","clone":2,"model":1,"data":0,"workMs":15000},{"id":21,"kind":"latency","ms":3000},{"id":25,"kind":"run","clone":3,"model":1,"data":1,"workMs":15000},{"id":29,"kind":"breakglass","model":1},{"id":31,"kind":"breakglass","model":1},{"id":32,"kind":"breakglass","model":null},{"id":33,"kind":"resolve","clone":3,"pick":2,"how":"theirs"},{"id":34,"kind":"run","clone":1,"model":1,"data":1,"workMs":1000},{"id":46,"kind":"stall","clone":3,"on":false},{"id":35,"kind":"run","clone":0,"model":1,"data":0,"workMs":45000},{"id":36,"kind":"config","clone":0,"file":0},{"id":59,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":60,"kind":"tick","n":30,"pick":1508474983},{"id":63,"kind":"tick","n":20,"pick":1216065934},{"id":64,"kind":"wait","ms":80000},{"id":65,"kind":"tick","n":20,"pick":127468635},{"id":66,"kind":"wait","ms":80000},{"id":67,"kind":"tick","n":20,"pick":468246631},{"id":68,"kind":"wait","ms":80000},{"id":69,"kind":"tick","n":20,"pick":332833956},{"id":70,"kind":"wait","ms":80000},{"id":71,"kind":"tick","n":20,"pick":1106100551},{"id":72,"kind":"wait","ms":80000},{"id":75,"kind":"tick","n":20,"pick":2043029025},{"id":76,"kind":"wait","ms":80000},{"id":77,"kind":"tick","n":20,"pick":912759827},{"id":78,"kind":"wait","ms":80000},{"id":79,"kind":"tick","n":20,"pick":68375626}]}',
  );
});

/**
 * I7/I8 (seed 62300291, found by 1,000 histories at defaults, failing the
 * same at d817d0a): the first index named another tool's file; a clone's
 * push replaced it with its edit, and the tool deleted that upload before
 * the commit, which then left the path out (a conflict of the clone's). The
 * index named the first object, gone with the same deletion, and the
 * checker spared only an entry naming the deleted object itself. An entry
 * naming what the index named there when the object went is spared too.
 */
Deno.test("chaos regression: an entry left dangling by another tool's deletion of an uncommitted write over it is that deletion's (I7, I8, seed 62300291)", async () => {
  await clean(
    '{"seed":62300291,"clones":2,"kinds":["api","core"],"ops":[{"id":62,"kind":"foreign","what":"shared","file":4},{"id":21,"kind":"bulk","clone":1},{"id":22,"kind":"tick","n":9,"pick":1461628055},{"id":24,"kind":"resolve","clone":1,"pick":6,"how":"mine"},{"id":27,"kind":"breakglass","model":1},{"id":33,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":34,"kind":"tick","n":7,"pick":557982722},{"id":35,"kind":"vanish","file":4}]}',
  );
});

/**
 * I7 (seed 64900841, found by 1,000 histories at defaults): beside old
 * clients, a clone deleted a shared file (its synced version) and, before
 * its commit, another clone's create of the path landed (uploaded, not
 * committed). The deletion's commit, checking what the store held there,
 * took that create for an old client's change and left the entry naming
 * the deleted version; the other clone then withdrew its create (its file
 * became a directory), and the entry named a missing object. An entry that
 * still names the version a removal was based on goes, whatever another
 * writer put there since (its writer names it when it commits).
 */
Deno.test("chaos regression: a deletion's commit removes the entry of the version it deleted, though another writer's create stands there uncommitted (I7, seed 64900841)", async () => {
  await clean(
    '{"seed":64900841,"clones":4,"v2":true,"oldClients":true,"ops":[{"id":12,"kind":"adopt","clone":0,"file":3},{"id":14,"kind":"tick","n":4,"pick":1050490809},{"id":16,"kind":"resolve","clone":2,"pick":6,"how":"merged"},{"id":20,"kind":"tick","n":4,"pick":1472819752},{"id":36,"kind":"delete","clone":2,"file":2,"how":"push"},{"id":37,"kind":"edit","clone":0,"file":2,"how":"push"},{"id":49,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":50,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":41,"kind":"edit","clone":0,"file":1,"how":"during","pick":857865023},{"id":44,"kind":"wait","ms":65000}]}',
  );
});

/**
 * I4 (seed 65500077, found by 1,000 histories at defaults, failing the same
 * at 3666e35): a core-driven clone's move to v2 stopped (a stall) after its
 * first read; its global lock was taken over as stale by another clone's
 * move. Resumed, the first move went on, and the two marked the meta over
 * each other, each mark starting the other's attempt over, until neither
 * ended within the budget. A move whose lock was lost now stops
 * (`global_lock_lost`), leaving the bucket to the one holding the lock.
 */
Deno.test("chaos regression: a move to v2 whose global lock was taken over stops instead of marking over the move that took it (I4, seed 65500077)", async () => {
  await clean(
    '{"seed":65500077,"clones":2,"kinds":["core","api"],"ops":[{"id":1,"kind":"sync","clone":1},{"id":2,"kind":"sync","clone":1},{"id":3,"kind":"run","clone":1,"model":0,"data":1,"workMs":15000,"same":true},{"id":4,"kind":"crash","clone":1,"at":"commit"},{"id":8,"kind":"tick","n":28,"pick":241611845},{"id":9,"kind":"run","clone":0,"model":0,"data":1,"workMs":45000},{"id":10,"kind":"bulk","clone":0},{"id":11,"kind":"lockfile","clone":0,"set":"@chaos/ext-11"},{"id":12,"kind":"run","clone":1,"model":0,"data":1,"workMs":5000,"same":true},{"id":13,"kind":"wait","ms":31000},{"id":39,"kind":"stall","clone":0,"on":true,"at":"move"},{"id":40,"kind":"migrate","clone":0},{"id":41,"kind":"tick","n":26,"pick":1551066058},{"id":42,"kind":"migrate","clone":1},{"id":43,"kind":"wait","ms":31000},{"id":44,"kind":"tick","n":65,"pick":1535618797},{"id":46,"kind":"tick","n":40,"pick":743456396},{"id":47,"kind":"stall","clone":0,"on":false},{"id":48,"kind":"tick","n":42,"pick":115088459},{"id":53,"kind":"tick","n":17,"pick":1080485765},{"id":54,"kind":"wait","ms":80000},{"id":55,"kind":"tick","n":8,"pick":201663434},{"id":56,"kind":"wait","ms":80000},{"id":57,"kind":"tick","n":20,"pick":941128276},{"id":58,"kind":"wait","ms":80000},{"id":62,"kind":"wait","ms":80000},{"id":68,"kind":"wait","ms":80000},{"id":69,"kind":"tick","n":10,"pick":1302528102},{"id":70,"kind":"wait","ms":80000},{"id":71,"kind":"tick","n":16,"pick":1329252685},{"id":72,"kind":"wait","ms":80000},{"id":73,"kind":"tick","n":19,"pick":1485565130},{"id":74,"kind":"wait","ms":80000},{"id":76,"kind":"wait","ms":80000}]}',
  );
});

/**
 * I15 (seed 67500945, found by 1,000 histories with reshapes in all, once
 * the checker counted a writer its pull had told of the other shape): a
 * clone's pull could not place a shared file's directory of parts, its own
 * file of that name being in the way (a file the datastore no longer held),
 * and its next push published that file beside them, a clash every other
 * cache then pulls one path short. The pull now records the paths it left
 * out, and the push holds back the file in their way.
 */
Deno.test("chaos regression: a push holds back a file its pull found in the way of the datastore's directory of that name (I15, seed 67500945)", async () => {
  await clean(
    '{"seed":67500945,"clones":4,"absentOnError":true,"oldClients":true,"skewMs":[-56838,0,0,0],"indexFirst":true,"ops":[{"id":0,"kind":"run","clone":0,"model":0,"data":0,"workMs":5000,"same":true},{"id":2,"kind":"breakglass","model":0},{"id":3,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":26,"kind":"edit","clone":3,"file":3,"how":"push"},{"id":27,"kind":"reshape","clone":3,"file":3,"how":"push"},{"id":6,"kind":"breakglass","model":0},{"id":21,"kind":"oldpush","clone":0,"file":0},{"id":22,"kind":"oldpush","clone":2,"file":1,"del":true},{"id":9,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":10,"kind":"tick","n":39,"pick":2017160918},{"id":11,"kind":"sync","clone":0},{"id":12,"kind":"tick","n":4,"pick":867975313},{"id":15,"kind":"wait","ms":1250},{"id":16,"kind":"sync","clone":1},{"id":17,"kind":"lockfile","clone":1,"set":"@chaos/ext-17"},{"id":18,"kind":"tick","n":33,"pick":259743239},{"id":20,"kind":"tick","n":30,"pick":181003759}]}',
  );
});

/**
 * I11 (seed 68800841, found by 1,000 histories with reshapes and walks
 * weighted up): a clone's push of its edit of a shared file failed after
 * the upload; another clone then replaced the file by a directory of its
 * name. The first clone's next pull could not place that directory (its
 * edited file in the way), and its push holds the file back: its own
 * upload waits at the path until the way is clear, a pending change the
 * checker spares as it spares one of an open conflict.
 */
Deno.test("chaos regression: a clone's own upload waits at a path its push holds back in the way of the other shape (I11, seed 68800841)", async () => {
  await clean(
    '{"seed":68800841,"clones":4,"absentOnError":true,"kinds":["api","core-single-phase","api","api"],"ops":[{"id":14,"kind":"edit","clone":2,"file":5,"how":"mark"},{"id":15,"kind":"bulk","clone":3},{"id":20,"kind":"tick","n":7,"pick":122642418},{"id":21,"kind":"flaky","call":"get","count":3,"afterEffect":true},{"id":22,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":23,"kind":"tick","n":5,"pick":490505935},{"id":37,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":38,"kind":"reshape","clone":0,"file":5,"how":"push"},{"id":32,"kind":"tick","n":10,"pick":1433577356},{"id":34,"kind":"sync","clone":2}]}',
  );
});

/**
 * I15 (seed 69500120, found by 300 histories with reshapes in all, once the
 * checker looked at the end of each walk push): a clone replaced a shared
 * file it had synced by a directory of its name, by hand, and pushed the
 * whole cache. A walk never deletes, so the file stayed on the datastore,
 * and the walk published the directory's file beside it. A walk now holds
 * such files back until a push of the name makes the deletion with them.
 */
Deno.test("chaos regression: a walk push holds back the files of a directory that replaced a synced file it leaves on the datastore (I15, seed 69500120)", async () => {
  await clean(
    '{"seed":69500120,"clones":3,"kinds":["core","api","api"],"ops":[{"id":0,"kind":"flaky","call":"put","count":3,"afterEffect":false},{"id":1,"kind":"sync","clone":1},{"id":2,"kind":"wait","ms":5000},{"id":3,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":4,"kind":"sync","clone":1},{"id":5,"kind":"tick","n":29,"pick":1288810904},{"id":6,"kind":"lockfile","clone":0,"set":"@chaos/ext-6"},{"id":7,"kind":"crash","clone":0},{"id":8,"kind":"edit","clone":2,"file":4,"how":"hand-tick"},{"id":9,"kind":"sync","clone":1},{"id":10,"kind":"run","clone":1,"model":0,"data":1,"workMs":45000},{"id":11,"kind":"adopt","clone":2,"file":5},{"id":20,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":21,"kind":"reshape","clone":0,"file":4,"how":"hand"},{"id":12,"kind":"wait","ms":1000},{"id":22,"kind":"sync","clone":2},{"id":23,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":13,"kind":"edit","clone":2,"file":1,"how":"push"},{"id":14,"kind":"bulk","clone":0},{"id":15,"kind":"breakglass","model":0},{"id":16,"kind":"adopt","clone":0,"file":5},{"id":17,"kind":"run","clone":1,"model":1,"data":0,"workMs":1000,"same":true},{"id":18,"kind":"sync","clone":1},{"id":19,"kind":"delete","clone":1,"file":2,"how":"during","pick":404972233}]}',
  );
});

/**
 * I13 (seed 69000200, found by 1,000 histories at defaults, failing the
 * same at dc68025; the checker's own): a clone's run was refused for losing
 * its model lock after a breakglass, and its `latest` marker, naming the
 * refused version, met a peer's as a conflict. `--mine` is left out (a
 * refused run's marker is never published) and, as a user does, the
 * checker then takes theirs, which settles it.
 */
Deno.test("chaos regression: a conflict on a refused run's marker is left by taking theirs (I13, seed 69000200)", async () => {
  await clean(
    '{"seed":69000200,"clones":3,"absentOnError":true,"kinds":["api","api","core"],"skewMs":[0,0,49094],"ops":[{"id":1,"kind":"run","clone":1,"model":1,"data":1,"workMs":45000},{"id":2,"kind":"tick","n":8,"pick":1264796344},{"id":3,"kind":"sync","clone":1},{"id":5,"kind":"run","clone":0,"model":1,"data":1,"workMs":45000},{"id":6,"kind":"breakglass","model":1},{"id":10,"kind":"tick","n":3,"pick":1984161630},{"id":11,"kind":"tick","n":26,"pick":275146820},{"id":12,"kind":"flaky","call":"put","count":1,"afterEffect":true},{"id":13,"kind":"tick","n":34,"pick":1963540339},{"id":14,"kind":"outage","on":true},{"id":15,"kind":"tick","n":7,"pick":60641561},{"id":43,"kind":"run","clone":1,"model":1,"data":1,"workMs":0}]}',
  );
});

/**
 * I23 (seed 70700740, found by 2,000 histories with reshapes in all and
 * deletions, walks, syncs and edits weighted up, with the first hold-back's
 * mark put back): a walk that held a clone's own file back marked the
 * file's name; once a directory of theirs took that name here and a file
 * under it was removed by hand, a later walk took the stale mark for the
 * user's and deleted that file on the datastore. A held walk now keeps the
 * walk's mark instead, and a walk never deletes.
 */
Deno.test("chaos regression: a walk that held a file back leaves no mark of its name for a later walk to delete under (I23, seed 70700740)", async () => {
  await clean(
    '{"seed":70700740,"clones":3,"kinds":["api","core","api"],"ops":[{"id":0,"kind":"sync","clone":1},{"id":1,"kind":"tick","n":11,"pick":149718961},{"id":43,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":44,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":2,"kind":"tick","n":39,"pick":410251119},{"id":3,"kind":"run","clone":0,"model":1,"data":1,"workMs":45000},{"id":4,"kind":"run","clone":2,"model":1,"data":1,"workMs":45000},{"id":45,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":5,"kind":"sync","clone":2},{"id":6,"kind":"edit","clone":2,"file":5,"how":"during","pick":1025657454},{"id":7,"kind":"sync","clone":1},{"id":8,"kind":"run","clone":2,"model":0,"data":1,"workMs":5000},{"id":9,"kind":"bulk","clone":2},{"id":10,"kind":"run","clone":2,"model":0,"data":1,"workMs":5000},{"id":11,"kind":"crash","clone":0},{"id":12,"kind":"config","clone":2,"file":1},{"id":13,"kind":"wait","ms":31000},{"id":14,"kind":"tick","n":27,"pick":944980293},{"id":15,"kind":"run","clone":1,"model":0,"data":1,"workMs":1000},{"id":46,"kind":"reshape","clone":2,"file":3,"how":"push"},{"id":16,"kind":"tick","n":16,"pick":1096000751},{"id":17,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":18,"kind":"tick","n":37,"pick":1277465285},{"id":47,"kind":"sync","clone":0},{"id":48,"kind":"reshape","clone":0,"file":3,"how":"hand"},{"id":19,"kind":"edit","clone":2,"file":1,"how":"hand-tick"},{"id":20,"kind":"delete","clone":2,"file":1,"how":"push"},{"id":21,"kind":"tick","n":26,"pick":311925377},{"id":22,"kind":"outage","on":true},{"id":23,"kind":"bulk","clone":0},{"id":24,"kind":"outage","on":false},{"id":25,"kind":"migrate","clone":2},{"id":26,"kind":"run","clone":0,"model":0,"data":0,"workMs":1000},{"id":27,"kind":"run","clone":2,"model":0,"data":1,"workMs":1000},{"id":28,"kind":"adopt","clone":0,"file":1},{"id":29,"kind":"crash","clone":2},{"id":30,"kind":"breakglass","model":0},{"id":31,"kind":"breakglass","model":null},{"id":32,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":33,"kind":"adopt","clone":1,"file":3},{"id":34,"kind":"tick","n":34,"pick":1883402459},{"id":35,"kind":"delete","clone":2,"file":5,"how":"push"},{"id":36,"kind":"sync","clone":2},{"id":37,"kind":"bulk","clone":1},{"id":38,"kind":"wait","ms":11000},{"id":39,"kind":"wait","ms":1000},{"id":40,"kind":"lockfile","clone":2,"set":"@chaos/ext-40"},{"id":41,"kind":"run","clone":1,"model":1,"data":1,"workMs":5000},{"id":42,"kind":"delete","clone":1,"file":3,"how":"hand"}]}',
  );
});

/**
 * I15 (seed 71900943, found by 1,000 histories with reshapes in all, once
 * the check no longer spared a clash beside an open conflict): a clone
 * replaced a synced file by a directory of its name and pushed it while a
 * peer's edit of the file had landed; its deletion met the edit as a
 * conflict, but the directory's file was published all the same, so the
 * datastore held a file and a file under a directory of one name. The
 * deletion now goes first, and the writes beside a deletion that is not
 * made are held back (`replacedFirst` in push_clash.ts).
 */
Deno.test("chaos regression: a directory's files wait for the deletion of the file it replaces, and are held back when it meets a conflict (I15, seed 71900943)", async () => {
  await clean(
    '{"seed":71900943,"clones":4,"absentOnError":true,"kinds":["core","api","core","api"],"ops":[{"id":30,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":17,"kind":"run","clone":2,"model":0,"data":0,"workMs":5000},{"id":34,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":25,"kind":"tick","n":34,"pick":1440557177},{"id":36,"kind":"sync","clone":0},{"id":58,"kind":"tick","n":4,"pick":1705196581},{"id":37,"kind":"reshape","clone":0,"file":3,"how":"push"}]}',
  );
});

/**
 * I13 (seed 70300786, left open in an earlier round, failing the same at
 * dc68025): a clone whose file became a directory by hand, with a conflict
 * on that file, could not resolve it: `--mine` of its deletion was refused
 * while the directory was there. A deletion of yours with a directory of
 * its name here is now resolved by deleting the file on the datastore, as
 * a push of the name does.
 */
Deno.test("chaos regression: resolve --mine of a deletion whose path is now a directory here deletes the file on the datastore (I13, seed 70300786)", async () => {
  await clean(
    '{"seed":70300786,"clones":5,"v2":true,"kinds":["api","api","core","api","core-single-phase"],"indexFirst":true,"ops":[{"id":5,"kind":"edit","clone":3,"file":4,"how":"push"},{"id":39,"kind":"stall","clone":4,"on":true},{"id":40,"kind":"edit","clone":4,"file":4,"how":"push"},{"id":41,"kind":"reshape","clone":4,"file":4,"how":"hand"},{"id":44,"kind":"tick","n":2,"pick":2072119315},{"id":45,"kind":"vanish","file":4},{"id":71,"kind":"sync","clone":2},{"id":72,"kind":"sync","clone":4},{"id":27,"kind":"resolve","clone":1,"pick":5,"how":"merged"},{"id":38,"kind":"stall","clone":4,"on":false},{"id":32,"kind":"tick","n":8,"pick":1806127962},{"id":33,"kind":"crash","clone":4}]}',
  );
});

/**
 * I7 (seed 71400023, found by 1,000 histories with reshapes and stalls in
 * all, failing the same at 59d98ff): an old client's file, synced by a
 * clone, was deleted by that clone's push of a directory of its name; before
 * the commit another clone's upload of its edit landed at the path (then was
 * withdrawn by its writer), so the commit kept the old client's entry, which
 * names no version, though it named the very copy the deletion removed: the
 * index named a missing object. The commit now compares such an entry's
 * bytes with the copy the deletion was based on (`baseHash`).
 */
Deno.test("chaos regression: a deletion's commit removes another client's entry naming the copy it deleted, with a Sluice writer's upload there now (I7, seed 71400023)", async () => {
  await clean(
    '{"seed":71400023,"clones":2,"kinds":["api","core"],"oldClients":true,"skewMs":[0,82236],"ops":[{"id":0,"kind":"sync","clone":1},{"id":1,"kind":"lockfile","clone":1,"set":"@chaos/ext-1"},{"id":2,"kind":"run","clone":0,"model":0,"data":0,"workMs":1000},{"id":26,"kind":"oldpush","clone":1,"file":4},{"id":3,"kind":"tick","n":36,"pick":3977877},{"id":4,"kind":"config","clone":1,"file":2},{"id":5,"kind":"tick","n":15,"pick":1439828736},{"id":21,"kind":"oldpush","clone":0},{"id":6,"kind":"tick","n":17,"pick":1601449972},{"id":7,"kind":"migrate","clone":1},{"id":27,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":28,"kind":"reshape","clone":1,"file":4,"how":"hand"},{"id":9,"kind":"tick","n":32,"pick":442679524},{"id":29,"kind":"sync","clone":0},{"id":30,"kind":"reshape","clone":0,"file":4,"how":"push"},{"id":11,"kind":"tick","n":15,"pick":1273341455},{"id":13,"kind":"tick","n":26,"pick":104668864},{"id":17,"kind":"crash","clone":1}]}',
  );
});

/**
 * I13 (seed 72400900, found by 1,000 histories with reshapes in all once an
 * edit of a file replaced by a directory edited the file in it; the
 * checker's own): a clone whose directory became a file again had two open
 * conflicts, the file's and a synced file's under the directory it
 * replaced; `--mine` of the file is held back until the other is resolved,
 * as its reason says, and the checker resolved them in the other order
 * only once. It now tries such a conflict again once the rest are
 * resolved, as a user following the reason does.
 */
Deno.test("chaos regression: a resolution held back by another open conflict of the other shape goes through once that one is resolved (I13, seed 72400900)", async () => {
  await clean(
    '{"seed":72400900,"clones":3,"kinds":["core","core","core-single-phase"],"ops":[{"id":29,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":30,"kind":"reshape","clone":2,"file":5,"how":"push"},{"id":26,"kind":"tick","n":11,"pick":1862832403},{"id":17,"kind":"adopt","clone":2,"file":1},{"id":31,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":32,"kind":"reshape","clone":2,"file":5,"how":"hand"},{"id":33,"kind":"sync","clone":0},{"id":34,"kind":"reshape","clone":0,"file":5,"how":"push"}]}',
  );
});

/**
 * I13 (seed 72800061, found by 1,000 histories with reshapes in all; the
 * checker's own): a clone's --mine of a file under a directory was refused
 * on a file of that name its last pull recorded in the way, which another
 * clone's resolution had deleted since; the refusal says to pull and try
 * again, and the checker now does, as a user does.
 */
Deno.test("chaos regression: a resolution refused on a path in the way that is gone since goes through after a pull, as the refusal says (I13, seed 72800061)", async () => {
  await clean(
    '{"seed":72800061,"clones":3,"absentOnError":true,"kinds":["api","core","core-single-phase"],"ops":[{"id":56,"kind":"foreign","what":"file"},{"id":59,"kind":"foreign","what":"shared","file":4},{"id":58,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":1,"kind":"tick","n":3,"pick":1960573106},{"id":2,"kind":"edit","clone":2,"file":2,"how":"push"},{"id":3,"kind":"sync","clone":0},{"id":4,"kind":"tick","n":8,"pick":927202510},{"id":5,"kind":"edit","clone":1,"file":0,"how":"mark"},{"id":19,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":20,"kind":"reshape","clone":2,"file":3,"how":"push"},{"id":6,"kind":"tick","n":3,"pick":2135014970},{"id":23,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":24,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":7,"kind":"tick","n":12,"pick":257215679},{"id":26,"kind":"reshape","clone":0,"file":3,"how":"push"},{"id":28,"kind":"tick","n":15,"pick":1838311824},{"id":37,"kind":"tick","n":15,"pick":1368651927},{"id":55,"kind":"sync","clone":1},{"id":21,"kind":"sync","clone":1},{"id":22,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":16,"kind":"edit","clone":2,"file":3,"how":"hand"}]}',
  );
});

/**
 * I11 (seed 75100138, found by 300 histories with reshapes in all): an old
 * client published a file `notes/shared-1.md` beside files under a
 * directory of that name; a clone's file under that directory was then held
 * back at every commit (the commit took the old client's file for a new
 * clash), while the pull kept no hold-back for a name the datastore already
 * holds both shapes of: the clone's upload stayed unnamed for good. Such a
 * file is now published with the rest of the directory.
 */
Deno.test("chaos regression: a file under a directory whose name the datastore holds both shapes of already is published, not held for good (I11, seed 75100138)", async () => {
  await clean(
    '{"seed":75100138,"clones":2,"absentOnError":true,"kinds":["core","api"],"oldClients":true,"ops":[{"id":46,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":47,"kind":"reshape","clone":0,"file":4,"how":"push"},{"id":18,"kind":"tick","n":16,"pick":142974993},{"id":42,"kind":"oldpush","clone":1,"file":4},{"id":31,"kind":"tick","n":14,"pick":2118327083},{"id":44,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":45,"kind":"reshape","clone":1,"file":4,"how":"hand"},{"id":34,"kind":"outage","on":true},{"id":38,"kind":"tick","n":3,"pick":573638220}]}',
  );
});

/**
 * I7, I8 (seed 75200719, found by 1,000 histories with reshapes and old
 * clients in all): a v2 commit's shard write landed and its meta write
 * failed, and the clone stopped there (a crash), its state never learning of
 * the commit; its next edit's upload replaced that committed version (taken
 * for its own uncommitted write) and its commit was cut off by an outage;
 * then the file was deleted and pushed: the push withdrew the upload, and
 * the index kept naming the version the upload had replaced, gone from the
 * store. The withdrawal now takes that entry out too.
 */
Deno.test("chaos regression: withdrawing an own upload that replaced a version its own lost commit named takes that entry out (I7, I8, seed 75200719)", async () => {
  await clean(
    '{"seed":75200719,"clones":2,"v2":true,"oldClients":true,"ops":[{"id":3,"kind":"crash","clone":1,"at":"commit"},{"id":11,"kind":"bulk","clone":1},{"id":19,"kind":"lockfile","clone":1,"set":"@chaos/ext-19"},{"id":26,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":41,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":27,"kind":"tick","n":16,"pick":1901238301},{"id":28,"kind":"tick","n":16,"pick":792444394},{"id":29,"kind":"outage","on":true},{"id":30,"kind":"tick","n":2,"pick":571602530},{"id":31,"kind":"delete","clone":1,"file":3,"how":"dir"}]}',
  );
});

/**
 * I9 (seed 76900011, found once the checker learnt the move and the check
 * below; a review had found the bug first): another tool deleted a clone's
 * committed object; a clone that never pulled the file wrote it (a create:
 * nothing was there), its push cut off after the upload, then deleted it and
 * pushed: the withdrawal took the first clone's entry out of the index with
 * no record of the loss, and that clone's next pull deleted its copy. The
 * checker now holds every index write that takes out another clone's
 * committed edit its writer never saw to a record of the loss first.
 */
Deno.test("chaos regression: withdrawing an upload where another tool deleted a peer's committed object keeps the peer's copy (I9, seed 76900011)", async () => {
  await clean(
    '{"seed":76900011,"clones":4,"kinds":["core","core","api","api"],"ops":[{"id":26,"kind":"edit","clone":1,"file":0,"how":"push"},{"id":27,"kind":"tick","n":3,"pick":832672286},{"id":28,"kind":"vanish","file":0},{"id":55,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":56,"kind":"edit","clone":3,"file":0,"how":"push"},{"id":57,"kind":"delete","clone":3,"file":0,"how":"push"},{"id":30,"kind":"tick","n":4,"pick":1768612790}]}',
  );
});

/**
 * I13 (seed 76900508, the checker's own): a clone deleted its copy in
 * conflict by hand, so its final resolution is --theirs, which a pull could
 * not take while another clone's upload there waited for that clone's own
 * resolution to withdraw it; the checker now tries such a resolution again
 * once the others were made, as a user does after the pull's note.
 */
Deno.test("chaos regression: a --theirs held by another clone's pending upload goes through once that clone resolved (I13, seed 76900508)", async () => {
  await clean(
    '{"seed":76900508,"clones":4,"kinds":["api","api","core-single-phase","api"],"ops":[{"id":3,"kind":"config","clone":0,"file":1},{"id":5,"kind":"tick","n":6,"pick":55022202},{"id":22,"kind":"edit","clone":2,"file":1,"how":"push"},{"id":23,"kind":"tick","n":4,"pick":2064598311},{"id":24,"kind":"vanish","file":1},{"id":52,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":53,"kind":"edit","clone":3,"file":1,"how":"push"},{"id":54,"kind":"delete","clone":3,"file":1,"how":"push"},{"id":26,"kind":"tick","n":8,"pick":33077914},{"id":50,"kind":"sync","clone":3},{"id":12,"kind":"delete","clone":2,"file":4,"how":"push"}]}',
  );
});

/**
 * I22 (seed 79000482, shrunk; found once the checker looked at failed
 * resolutions): a `resolve --mine` cleared its conflict before its push,
 * which the outage then cut off; the conflict was gone, `status` showed
 * none, and the same resolution, run again, was refused (`not_found`). The
 * record is now put back when the resolution's push or pull fails.
 */
Deno.test("chaos regression: a resolution cut off by an outage leaves its conflict open (I22, seed 79000482)", async () => {
  await clean(
    '{"seed":79000482,"clones":2,"absentOnError":true,"kinds":["api","core-single-phase"],"ops":[{"id":1,"kind":"config","clone":1,"file":1},{"id":7,"kind":"config","clone":0,"file":1},{"id":27,"kind":"tick","n":7,"pick":591148664},{"id":28,"kind":"tick","n":3,"pick":122061161},{"id":34,"kind":"resolve","clone":0,"pick":3,"how":"mine"},{"id":35,"kind":"outage","on":true},{"id":38,"kind":"tick","n":4,"pick":509884094}]}',
  );
});

/**
 * I24 (seed 79100001, shrunk to one run; found once the checker streamed a
 * core-driven run's output, as the tool's data writer does): another step's
 * flush of the same service published the run's `raw` part way, create-only;
 * the run's own flush of the finished version was then refused
 * (`version_exists`, its copy set aside) and the datastore kept the
 * truncated `raw`. The swamp extension now holds a version whose
 * `metadata.yaml` is not written yet (unfinished-version-holder).
 */
Deno.test("chaos regression: a version still being written is not published by another step's flush (I24, seed 79100001)", async () => {
  await clean(
    '{"seed":79100001,"clones":2,"absentOnError":true,"kinds":["core-single-phase","core-single-phase"],"ops":[{"id":29,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"streamed":true}]}',
  );
});

/**
 * I9 (seed 79200706, shrunk; the checker's own): another tool deleted a
 * clone's committed config file; a second clone's pull, 15 minutes on,
 * recorded the loss and removed the entry, while the editing clone deleted
 * the file itself, which dropped the record first. The checker took the
 * removal for a lost edit; an edit its own writer deleted since is no loss.
 */
Deno.test("chaos regression: an entry removed after its own editor deleted the file is no lost edit (I9, seed 79200706)", async () => {
  await clean(
    '{"seed":79200706,"clones":2,"kinds":["core","core"],"ops":[{"id":20,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":21,"kind":"tick","n":1,"pick":1545400921},{"id":22,"kind":"vanish","file":1},{"id":23,"kind":"sync","clone":0},{"id":24,"kind":"tick","n":15,"pick":1345577837},{"id":25,"kind":"wait","ms":20000},{"id":27,"kind":"wait","ms":80000},{"id":29,"kind":"wait","ms":80000},{"id":31,"kind":"wait","ms":80000},{"id":33,"kind":"wait","ms":80000},{"id":35,"kind":"wait","ms":80000},{"id":37,"kind":"wait","ms":80000},{"id":39,"kind":"wait","ms":80000},{"id":41,"kind":"wait","ms":80000},{"id":43,"kind":"wait","ms":80000},{"id":45,"kind":"wait","ms":80000},{"id":47,"kind":"wait","ms":80000},{"id":4,"kind":"sync","clone":0},{"id":5,"kind":"edit","clone":0,"file":4,"how":"during","pick":1855963949},{"id":6,"kind":"delete","clone":1,"file":5,"how":"push"}]}',
  );
});

/**
 * I9 (seed 79700547, shrunk; found with `--vanish-share 1`): another tool
 * deleted a clone's committed edit of a shared file; a second clone, which
 * had synced an older version, deleted its copy and pushed: its delete found
 * nothing there and its commit took out the first clone's entry, which it
 * never saw, recording no loss. A removal whose delete found the object gone
 * now leaves an entry naming another version than its base.
 */
Deno.test("chaos regression: a deletion that finds the object gone leaves a peer's later entry (I9, seed 79700547)", async () => {
  await clean(
    '{"seed":79700547,"clones":2,"ops":[{"id":39,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":38,"kind":"migrate","clone":0},{"id":36,"kind":"sync","clone":0},{"id":35,"kind":"tick","n":31,"pick":692387859},{"id":41,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":42,"kind":"tick","n":2,"pick":2022410118},{"id":43,"kind":"vanish","file":5},{"id":72,"kind":"delete","clone":0,"file":5,"how":"push"}]}',
  );
});

/**
 * I2 (seed 80200556, shrunk; found with stalls in all once runs stream
 * their output): another step's flush was refused for a streamed run's lost
 * lock and erased its version, still being written; the refresh then pulled
 * the new holder's copy of that version into the same directory, and the
 * run's writer went on appending into it. The refresh now leaves such a
 * directory empty (the writer fails there, as the tool's does).
 */
Deno.test("chaos regression: a refused run's version still being written is left empty by the refresh (I2, seed 80200556)", async () => {
  await clean(
    '{"seed":80200556,"clones":2,"kinds":["api","core"],"ops":[{"id":0,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"streamed":true},{"id":2,"kind":"breakglass","model":0},{"id":4,"kind":"breakglass","model":0},{"id":5,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":8,"kind":"tick","n":1,"pick":1719960211},{"id":10,"kind":"delete","clone":0,"file":2,"how":"during","pick":991693033}]}',
  );
});

/**
 * I13 (seed 80600338, shrunk; found with streamed runs in all, left open a
 * round before): a `--merged` whose upload landed over theirs and whose
 * commit was cut off, its file then deleted by hand. `--mine` was refused
 * (no copy here) and `--theirs` could not take theirs, which the upload had
 * replaced: a conflict with no way out. `--theirs` now takes what the
 * datastore holds, this cache's own upload, and finishes publishing it.
 */
Deno.test("chaos regression: a --theirs that meets this cache's own cut-off upload over theirs takes it and commits it (I13, seed 80600338)", async () => {
  await clean(
    '{"seed":80600338,"clones":2,"kinds":["api","core"],"indexFirst":true,"ops":[{"id":25,"kind":"foreign","what":"shared","file":2},{"id":1,"kind":"edit","clone":0,"file":0,"how":"mark"},{"id":2,"kind":"edit","clone":1,"file":0,"how":"push"},{"id":21,"kind":"stall","clone":0,"on":true},{"id":4,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"streamed":true},{"id":5,"kind":"resolve","clone":0,"pick":6,"how":"merged"},{"id":6,"kind":"tick","n":14,"pick":1314278759},{"id":22,"kind":"stall","clone":0,"on":false},{"id":8,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":9,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":15,"kind":"tick","n":8,"pick":1128217899},{"id":17,"kind":"flaky","call":"put","count":2,"afterEffect":false},{"id":19,"kind":"delete","clone":0,"file":0,"how":"during","pick":494510510}]}',
  );
});

/**
 * I7, I8 (seed 80600802, shrunk; found with streamed runs in all, left open
 * a round before, failing the same at e0d7a02): another tool's object, named
 * by a listing's entry (no hash), deleted by a clone while a second clone's
 * create of the same path landed before the first's commit. The commit took
 * that upload for another writer's and left the entry, naming the object it
 * had itself deleted. Such an entry is now matched by the deleted copy's
 * size, as one with a hash is by its hash.
 */
Deno.test("chaos regression: a deletion of a listed object whose entry records no hash takes its entry out beside a peer's upload in flight (I7, I8, seed 80600802)", async () => {
  await clean(
    '{"seed":80600802,"clones":4,"absentOnError":true,"kinds":["core-single-phase","core","core-single-phase","api"],"ops":[{"id":68,"kind":"foreign","what":"shared","file":0},{"id":69,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":2,"kind":"run","clone":0,"model":0,"data":1,"workMs":45000},{"id":4,"kind":"tick","n":19,"pick":1725858073},{"id":5,"kind":"run","clone":2,"model":0,"data":0,"workMs":0,"streamed":true},{"id":6,"kind":"config","clone":0,"file":1},{"id":8,"kind":"tick","n":13,"pick":591214376},{"id":9,"kind":"tick","n":22,"pick":109797811},{"id":10,"kind":"breakglass","model":0},{"id":12,"kind":"delete","clone":0,"file":0,"how":"push"},{"id":13,"kind":"edit","clone":3,"file":0,"how":"push"},{"id":14,"kind":"resolve","clone":1,"pick":7,"how":"theirs"},{"id":15,"kind":"tick","n":27,"pick":1471351008},{"id":17,"kind":"delete","clone":1,"file":1,"how":"push"},{"id":20,"kind":"bulk","clone":1},{"id":21,"kind":"tick","n":11,"pick":1269167813},{"id":26,"kind":"outage","on":true},{"id":40,"kind":"tick","n":7,"pick":673864010}]}',
  );
});

/**
 * I19 (seed 83000012, shrunk; found by the rewrite move once it was taught:
 * 59 of 300 histories with rewrites in all failed before the fix, 0 after).
 * Another client of the layout published a run's version again with other
 * bytes (an existing extension whose fast path had skipped the commit that
 * published it numbers its own run the same): the pull of every clone that
 * held the version wrote over the copy published first, the last one left.
 * A pull now sets such a copy aside and records a conflict
 * (`version_rewritten`).
 */
Deno.test("chaos regression: a data version published again with other bytes is kept by the clone that held it (I19, seed 83000012)", async () => {
  await clean(
    '{"seed":83000012,"clones":3,"kinds":["core","core","core"],"indexFirst":true,"ops":[{"id":30,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":31,"kind":"tick","n":37,"pick":1033800679},{"id":32,"kind":"vanish","file":4,"run":30,"rewrite":true}]}',
  );
});

/**
 * I22 (seed 83000278, shrunk; the checker's own): a `--merged` held back by
 * another writer's upload in flight leaves the merge dirty, rebased on
 * theirs, for the next push, as a `--mine` does; the checker had spared
 * only `--mine`.
 */
Deno.test("chaos regression: a --merged held back by another writer's upload in flight stays a change to push (I22, seed 83000278)", async () => {
  await clean(
    '{"seed":83000278,"clones":5,"kinds":["api","api","api","core","core-single-phase"],"indexFirst":true,"ops":[{"id":2,"kind":"adopt","clone":2,"file":4},{"id":23,"kind":"edit","clone":3,"file":4,"how":"push"},{"id":24,"kind":"tick","n":14,"pick":266520265},{"id":25,"kind":"vanish","file":4},{"id":52,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":53,"kind":"edit","clone":4,"file":4,"how":"push"},{"id":41,"kind":"tick","n":7,"pick":1807215368},{"id":15,"kind":"resolve","clone":2,"pick":6,"how":"merged"}]}',
  );
});

/**
 * I25 (seed 85000277, shrunk; found by the `unwritten` move once it was
 * taught, after a newcomer driving the swamp extension met it): the tool
 * marked a path before writing it and the write never came; a peer then
 * published a file there, and the pull took the mark for a deletion here,
 * a conflict whose `--mine` deleted the peer's file. Such a mark, on a path
 * never synced with nothing here, is no local change now.
 */
Deno.test("chaos regression: a mark whose write never came is no deletion here (I25, seed 85000277)", async () => {
  await clean(
    '{"seed":85000277,"clones":4,"absentOnError":true,"v2":true,"kinds":["core","api","api","core"],"skewMs":[0,0,0,115630],"indexFirst":true,"ops":[{"id":13,"kind":"config","clone":0,"file":2},{"id":26,"kind":"tick","n":2,"pick":1880466807},{"id":45,"kind":"unwritten","clone":3,"file":2},{"id":38,"kind":"sync","clone":3}]}',
  );
});

/**
 * I26 (seed 86000026, shrunk; found by the other-step move once it was
 * taught, after a newcomer driving the extension as the tool's parallel
 * steps met it: 9 of 300 histories with streamed runs in all failed before
 * the fix, 0 after): a step's flush, scoped to its own model, was refused
 * because another step's model lock had been broken, and its own version
 * erased or held. A lost lock of another model now leaves the fence, and
 * the versions written under it stay out of the push, for that step's own
 * flush (refused, it erases them).
 */
Deno.test("chaos regression: a step's flush is not refused for another step's broken lock (I26, seed 86000026)", async () => {
  await clean(
    '{"seed":86000026,"clones":5,"absentOnError":true,"v2":true,"kinds":["api","core-single-phase","core","api","core"],"ops":[{"id":1,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"streamed":true},{"id":2,"kind":"run","clone":4,"model":0,"data":1,"workMs":0,"streamed":true},{"id":4,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"streamed":true},{"id":6,"kind":"breakglass","model":0},{"id":9,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":11,"kind":"tick","n":4,"pick":1526156731}]}',
  );
});

/**
 * I27 (seed 87000082, shrunk; found once the checker was taught that a run
 * refused with `version_exists` must have lost to a published version, after
 * a newcomer met it through the extension: 1 of 1,000 histories at defaults
 * failed before the fix, 0 after): the lock's new holder met the fenced-out
 * run's upload of the same version, not committed, and was refused with
 * `version_exists`; that upload was then erased, and the version was left to
 * nobody, the new holder's copy only in its set-aside area. Such a version
 * now waits, dirty, and the run's push fails with `sync_incomplete`.
 */
Deno.test("chaos regression: a version another writer's uncommitted upload is in the way of waits, never lost to it (I27, seed 87000082)", async () => {
  await clean(
    '{"seed":87000082,"clones":4,"absentOnError":true,"ops":[{"id":1,"kind":"lockfile","clone":1,"set":"@chaos/ext-1"},{"id":2,"kind":"run","clone":2,"model":0,"data":1,"workMs":45000},{"id":3,"kind":"tick","n":1,"pick":1081267422},{"id":7,"kind":"tick","n":23,"pick":1738732923},{"id":9,"kind":"run","clone":0,"model":0,"data":1,"workMs":15000,"same":true},{"id":10,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":11,"kind":"tick","n":20,"pick":1373416786},{"id":12,"kind":"breakglass","model":0},{"id":15,"kind":"edit","clone":3,"file":5,"how":"during","pick":750560521},{"id":17,"kind":"flaky","call":"get","count":2,"afterEffect":false},{"id":21,"kind":"tick","n":2,"pick":1360491065}]}',
  );
});

/**
 * I11 (seed 88100847, shrunk; found by the old-client pull move in 1,000
 * histories with reshapes in all, left open in the README's rows at 07e43f3):
 * an old client's pull wrote back the index it read over a lockfile
 * transaction's commit, and the managed lockfile's entry, dropped, was never
 * named again (every push leaves the lockfile out). Its writer's next pull
 * marks it to be published again, and the push names it, uploading nothing.
 */
Deno.test("chaos regression: the managed lockfile's entry an old client's pull dropped is named again (I11, seed 88100847)", async () => {
  await clean(
    '{"seed":88100847,"clones":5,"kinds":["core","core-single-phase","core","api","core"],"oldClients":true,"skewMs":[-62030,0,0,0,0],"ops":[{"id":32,"kind":"oldpush","clone":4},{"id":4,"kind":"run","clone":2,"model":0,"data":1,"workMs":45000},{"id":34,"kind":"oldpush","clone":1,"file":2},{"id":5,"kind":"tick","n":23,"pick":1876151309},{"id":18,"kind":"edit","clone":3,"file":1,"how":"push"},{"id":20,"kind":"tick","n":30,"pick":282263931},{"id":21,"kind":"tick","n":20,"pick":1107304568},{"id":22,"kind":"delete","clone":3,"file":5,"how":"push"},{"id":39,"kind":"oldpull","clone":1},{"id":23,"kind":"lockfile","clone":4,"set":"@chaos/ext-23"}]}',
  );
});

/**
 * I2 (seed 89000521, shrunk; 1,000 histories at defaults from 89,000,000,
 * after the step's-flush change of this round): a streamed run's lock and its
 * other step's were both lost to failed renewals in an outage; the other
 * step's flush, refused for its own lock, reset what counts as written under
 * every held lock, the run's (left out of that flush) included, so the run's
 * own refusal erased nothing and a later push published its version. A
 * refusal now resets only the locks of the push it refused.
 */
Deno.test("chaos regression: another step's refusal never makes a lost run's version look preexisting (I2, seed 89000521)", async () => {
  await clean(
    '{"seed":89000521,"clones":5,"absentOnError":true,"kinds":["api","api","api","core","core"],"indexFirst":true,"ops":[{"id":44,"kind":"foreign","what":"file"},{"id":45,"kind":"foreign","what":"version","model":1,"data":0,"version":1},{"id":2,"kind":"adopt","clone":0,"file":1},{"id":4,"kind":"tick","n":4,"pick":839325509},{"id":5,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"streamed":true},{"id":6,"kind":"run","clone":4,"model":1,"data":0,"workMs":0,"streamed":true},{"id":9,"kind":"config","clone":0,"file":0},{"id":15,"kind":"tick","n":27,"pick":617565645},{"id":17,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":18,"kind":"lockfile","clone":3,"set":"@chaos/ext-18"},{"id":19,"kind":"breakglass","model":1},{"id":20,"kind":"tick","n":3,"pick":6275030},{"id":22,"kind":"outage","on":true},{"id":25,"kind":"tick","n":25,"pick":773565234}]}',
  );
});

/**
 * I13 (seed 90100905, shrunk; the reshapes row, `--reshape-share 1`, left
 * open in the README's rows at 7fe923a), a checker bug: c2 edited
 * `notes/shared-1.md/part-35.md` while c1 replaced the directory by a file
 * `notes/shared-1.md` and pushed it, and another tool then deleted that
 * file's object (its index entry stays, dangling). c2's conflict (changed
 * here, deleted there) is refused `--mine` (`unsafe_path`): the index names
 * a file above it, and publishing it would leave both shapes of the name on
 * the datastore. `--theirs` resolves it (the copy set aside), but the
 * checker took that way out only where the store held an object of the
 * other shape, not an index entry whose object was gone, and reported the
 * refusal itself. It now looks at the index too (`holdsOtherShape`).
 */
Deno.test("chaos regression: --mine refused beside a file the index still names, its object deleted, is left by --theirs (I13, seed 90100905)", async () => {
  await clean(
    '{"seed":90100905,"clones":3,"absentOnError":true,"kinds":["core","core-single-phase","core"],"ops":[{"id":34,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":35,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":0,"kind":"crash","clone":2},{"id":36,"kind":"sync","clone":1},{"id":37,"kind":"reshape","clone":1,"file":4,"how":"push"},{"id":42,"kind":"tick","n":21,"pick":1906338541},{"id":43,"kind":"vanish","file":4},{"id":71,"kind":"edit","clone":2,"file":4,"how":"push"}]}',
  );
});

/**
 * I9 (seed 96100441, the reshapes row at 88f7cc0; failing the same at
 * 2689d95): c2's upload of a shared file stood uncommitted when c4's push,
 * told to adopt it, met it; another tool then deleted the object, and c2's
 * commit named it. c4's adoption found the entry naming nothing after its
 * commit and took it out as its writer's own withdrawal, unrecorded: c2's
 * pull then took the removal for a deletion, and c2's committed edit was
 * gone everywhere. An adopter's removal of an entry naming nothing now
 * records it as lost first, as a pull does for a dangling entry.
 */
Deno.test("chaos regression: an adoption that takes out an entry naming nothing records it as lost (I9, seed 96100441)", async () => {
  await clean(
    '{"seed":96100441,"clones":5,"absentOnError":true,"kinds":["core","api","api","api","api"],"ops":[{"id":1,"kind":"adopt","clone":4,"file":0},{"id":34,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":35,"kind":"tick","n":6,"pick":1228119019},{"id":36,"kind":"vanish","file":0}]}',
  );
});

/**
 * I8 (seed 97300339, the old-clients row at 6a871e4; failing the same at
 * 2689d95): an old client's pull read the index, then c3's edit of a file
 * an old client had written committed, and that pull wrote back the index
 * it read (another object was missing): the index named the old client's
 * bytes again while the store held c3's, and every fresh clone skipped the
 * file as uncommitted, for good. A pull that meets another client's entry
 * naming other bytes while the store still holds the version it synced now
 * keeps its copy, as for a dropped entry, and its next push names it again.
 */
Deno.test("chaos regression: an entry an old client wrote back stale over a Sluice commit is named again by its writer (I8, seed 97300339)", async () => {
  await clean(
    '{"seed":97300339,"clones":5,"absentOnError":true,"kinds":["api","core-single-phase","api","api","core"],"oldClients":true,"ops":[{"id":0,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":1,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":8,"kind":"tick","n":26,"pick":581796175},{"id":9,"kind":"tick","n":33,"pick":2041283130},{"id":10,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":45,"kind":"oldpush","clone":1,"file":3},{"id":41,"kind":"oldpush","clone":4,"file":4},{"id":12,"kind":"config","clone":3,"file":0},{"id":13,"kind":"flaky","call":"head","count":2,"afterEffect":false},{"id":14,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":15,"kind":"tick","n":16,"pick":230546472},{"id":16,"kind":"tick","n":2,"pick":647124469},{"id":17,"kind":"lockfile","clone":0,"set":"@chaos/ext-17"},{"id":19,"kind":"tick","n":18,"pick":815842840},{"id":20,"kind":"sync","clone":2},{"id":44,"kind":"oldpush","clone":4,"file":5},{"id":21,"kind":"delete","clone":2,"file":3,"how":"dir"},{"id":47,"kind":"oldpull","clone":0},{"id":22,"kind":"edit","clone":3,"file":3,"how":"push"},{"id":23,"kind":"run","clone":4,"model":0,"data":1,"workMs":0,"same":true},{"id":24,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":25,"kind":"tick","n":13,"pick":36850518},{"id":28,"kind":"tick","n":14,"pick":1198591158},{"id":29,"kind":"crash","clone":4},{"id":30,"kind":"tick","n":13,"pick":618645887},{"id":32,"kind":"tick","n":30,"pick":731922069},{"id":33,"kind":"wait","ms":11000},{"id":38,"kind":"tick","n":34,"pick":1672898908}]}',
  );
});

/**
 * I13 (seed 98000661, 1,000 histories at defaults at 2347338), the
 * checker's own, after marker-after-version: another tool's version 2 and
 * its marker, then c4's marker moved "one back", to version 1, which exists
 * nowhere (c1's run wrote version 3). Such a marker is never published; the
 * checker's way out is now the one its reason gives (--theirs), not a
 * violation.
 */
Deno.test("chaos regression: a marker moved back to a version that exists nowhere is left by --theirs (I13, seed 98000661)", async () => {
  await clean(
    '{"seed":98000661,"clones":5,"kinds":["api","api","core-single-phase","api","api"],"skewMs":[-102613,0,0,0,0],"ops":[{"id":29,"kind":"foreign","what":"version","model":0,"data":0,"version":2,"marker":true},{"id":0,"kind":"sync","clone":4},{"id":9,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":10,"kind":"marker","clone":4,"model":0,"data":0,"back":true,"how":"push"}]}',
  );
});

/**
 * I28 (seed 99500001, shrunk, `--shared-cache-share 1`; found by the
 * `sibling` move on a3e2c7e's parent): a second process over c1's cache
 * marked a version of a model of its own and died before its flush, while
 * c1's own process ran a model and committed. That commit rewrote the dirty
 * journal from its memory, erasing the second process's marks, so no later
 * process ever pushed its version. Fixed in a3e2c7e (sync/service/state.ts:
 * every write of the journal takes in what other processes appended since).
 */
Deno.test("chaos regression: a process's commit never erases marks another process over the same cache made (I28, seed 99500001)", async () => {
  await clean(
    '{"seed":99500001,"clones":2,"absentOnError":true,"v2":true,"kinds":["core-single-phase","core-single-phase"],"ops":[{"id":25,"kind":"sibling","clone":1,"how":"dies","workMs":15000},{"id":26,"kind":"run","clone":1,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I12 (seed 99500179, shrunk, `--old-share 1 --etag-share 1`; found by the
 * `oldsame` move on e04ceaf's parent): on a store whose versions are the
 * bytes' (S3 ETags), c1's deterministic run lost its model lock to a
 * breakglass, and as its erasure was about to delete its upload of
 * `metadata.yaml`, an old client wrote the same bytes there (a plain put,
 * keeping the ETag) and committed its entry. The erasure deleted the old
 * client's object by the unchanged version, and the index named nothing.
 * Fixed in e04ceaf (middleware/erasure_steps.ts: an object without this
 * cache's writer id is kept, and one an old client's entry names by its
 * hash is put back).
 */
Deno.test("chaos regression: a refused run's erasure never deletes an old client's write of the same bytes (I12, seed 99500179)", async () => {
  await clean(
    '{"seed":99500179,"clones":4,"kinds":["core-single-phase","api","api","api"],"oldClients":true,"indexFirst":true,"etag":true,"ops":[{"id":0,"kind":"bulk","clone":2},{"id":2,"kind":"run","clone":3,"model":0,"data":1,"workMs":1000},{"id":5,"kind":"tick","n":32,"pick":410750983},{"id":7,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":8,"kind":"tick","n":35,"pick":1947483586},{"id":10,"kind":"breakglass","model":0},{"id":49,"kind":"oldsame","clone":0,"run":7,"pick":162826339}]}',
  );
});

/**
 * I6 (seed 99800488, shrunk, `--shared-cache-share 1`; found by the
 * `sibling` move): a second process over c2's cache, opened before c2's own
 * sync recorded an old client's edit of a config file, saved its manifest as
 * a new base from its own memory after c2's user deleted that file by hand.
 * The record of c2's sync was gone, so the next pull took the datastore's
 * copy for a new file and brought the deleted file back. Fixed in 5cd1b89
 * (sync/service/manifest_files.ts: a save takes in another process's base
 * and log before writing over them).
 */
Deno.test("chaos regression: a second process's manifest save never drops the records of the cache's own sync (I6, seed 99800488)", async () => {
  await clean(
    '{"seed":99800488,"clones":3,"oldClients":true,"ops":[{"id":21,"kind":"oldpush","clone":1,"file":0},{"id":33,"kind":"sibling","clone":2,"how":"push","workMs":15000},{"id":34,"kind":"sync","clone":2},{"id":4,"kind":"delete","clone":2,"file":5,"how":"hand"}]}',
  );
});

/**
 * I1 (seed 101100505, default mix; found after e04ceaf): c0's run, refused
 * for its broken lock, could not look at its upload's writer (a failed
 * HEAD), so its erasure was left to c0's next push; meanwhile c1's run of
 * the same output took the upload as its own and committed it, and the
 * deferred erasure, its index read made before that commit, deleted it.
 * A look that fails no longer holds the erasure back
 * (middleware/erasure_steps.ts).
 */
Deno.test("chaos regression: a failed look at a refused run's upload does not defer its erasure past a peer's commit of the same bytes (I1, seed 101100505)", async () => {
  await clean(
    '{"seed":101100505,"clones":2,"v2":true,"kinds":["core","api"],"indexFirst":true,"ops":[{"id":0,"kind":"lockfile","clone":0,"set":"@chaos/ext-0"},{"id":1,"kind":"run","clone":1,"model":1,"data":0,"workMs":15000,"same":true},{"id":4,"kind":"breakglass","model":1},{"id":5,"kind":"run","clone":0,"model":1,"data":0,"workMs":0,"same":true},{"id":9,"kind":"bulk","clone":0},{"id":10,"kind":"flaky","call":"head","count":3,"afterEffect":true},{"id":14,"kind":"crash","clone":0},{"id":15,"kind":"tick","n":37,"pick":1524708276},{"id":16,"kind":"wait","ms":15500},{"id":17,"kind":"tick","n":9,"pick":1891445631},{"id":34,"kind":"stall","clone":0,"on":true},{"id":21,"kind":"tick","n":13,"pick":765663926}]}',
  );
});

/**
 * I2 (seed 99800112, `--shared-cache-share 1`; found by the `sibling`
 * move): a second process over a clone's cache, started while the clone's
 * own run was under way, took that run's marks over at its load and
 * published its version with its own run's push; the clone's run was then
 * refused for its broken lock, and its bytes stayed committed. A process's
 * marks are its own while it holds its owner lock (sync/service/state.ts);
 * the checker runs each process as a service of one process and counts
 * each as one (`ownersInProcess`).
 */
Deno.test("chaos regression: a process never takes over the marks of another that still runs (I2, seed 99800112)", async () => {
  await clean(
    '{"seed":99800112,"clones":5,"kinds":["core","api","api","api","core-single-phase"],"ops":[{"id":0,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":1,"kind":"run","clone":3,"model":0,"data":0,"workMs":45000},{"id":9,"kind":"lockfile","clone":1,"set":"@chaos/ext-9"},{"id":10,"kind":"tick","n":5,"pick":1301794982},{"id":11,"kind":"breakglass","model":0},{"id":23,"kind":"tick","n":15,"pick":252547036},{"id":43,"kind":"sibling","clone":3,"how":"push","workMs":5000}]}',
  );
});

/**
 * I12 at a quiet point (seed 103900098, `--shared-cache-share 1`; the
 * checker's own): between a refused run's erasure's look at its upload and
 * its delete, an old client wrote the same bytes there (an S3 ETag does not
 * tell them apart) and committed them; the erasure's delete took them, and
 * its put-back, met by an outage, stayed pending in its journal until the
 * clone's next push made it. The quiet-point check now lets a put-back
 * recorded as pending wait for that push; the final check still holds it.
 */
Deno.test("chaos regression: an old client's same-bytes write an erasure deleted is put back by the next push (I12, seed 103900098)", async () => {
  await clean(
    '{"seed":103900098,"clones":3,"kinds":["core","api","api"],"oldClients":true,"skewMs":[94841,0,0],"etag":true,"ops":[{"id":7,"kind":"run","clone":1,"model":0,"data":0,"workMs":15000,"same":true},{"id":8,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":9,"kind":"tick","n":16,"pick":782093595},{"id":10,"kind":"tick","n":11,"pick":857955861},{"id":11,"kind":"breakglass","model":0},{"id":43,"kind":"oldsame","clone":0,"run":7,"pick":226191100},{"id":13,"kind":"tick","n":1,"pick":1580016403},{"id":14,"kind":"outage","on":true},{"id":35,"kind":"tick","n":10,"pick":123720153}]}',
  );
});

/**
 * I7 at a commit (seed 101200776, `--reshape-share 1`; the checker's own):
 * c3's create of a shared file met c1's upload of it, whose commit was on
 * its way, and c3 resolved that conflict `--merged` over that upload before
 * c1's index write landed. c1's commit then named a version c3 had replaced,
 * having seen it: the user chose over it, as over a committed edit. The
 * check at each commit now spares a version replaced by a writer that had
 * seen it (lost_updates.ts).
 */
Deno.test("chaos regression: a resolution over an upload whose commit is on its way is no lost edit (I7, seed 101200776)", async () => {
  await clean(
    '{"seed":101200776,"clones":4,"absentOnError":true,"kinds":["api","api","api","core"],"ops":[{"id":34,"kind":"foreign","what":"shared","file":3},{"id":35,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":2,"kind":"edit","clone":0,"file":2,"how":"push"},{"id":7,"kind":"tick","n":14,"pick":816074159},{"id":8,"kind":"run","clone":2,"model":1,"data":0,"workMs":0},{"id":10,"kind":"breakglass","model":1},{"id":11,"kind":"run","clone":0,"model":1,"data":0,"workMs":0,"streamed":true},{"id":30,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":31,"kind":"reshape","clone":1,"file":5,"how":"hand"},{"id":12,"kind":"tick","n":15,"pick":221100013},{"id":13,"kind":"tick","n":27,"pick":864571557},{"id":14,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":32,"kind":"reshape","clone":1,"file":5,"how":"push"},{"id":16,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":18,"kind":"tick","n":14,"pick":1411796431},{"id":20,"kind":"breakglass","model":0},{"id":23,"kind":"breakglass","model":1},{"id":26,"kind":"edit","clone":3,"file":5,"how":"push"},{"id":27,"kind":"resolve","clone":3,"pick":1,"how":"merged"},{"id":28,"kind":"tick","n":11,"pick":1556258505}]}',
  );
});

/**
 * I7 and I8 after the final sync (seed 101200593, `--reshape-share 1`; the
 * checker's own): c0's resolution `--mine` of its directory over c1's file
 * of that name deleted the file, then met an outage before its own files
 * and its index update; the index named the deleted file until the
 * resolution, made again, committed the deletion, and the checks after the
 * final sync came before that. They now spare the other shape of a name a
 * clone's resolution deleted while that conflict is open (workload.ts).
 */
Deno.test("chaos regression: a resolution cut off after it deleted the other shape is finished by its next try (I7, I8, seed 101200593)", async () => {
  await clean(
    '{"seed":101200593,"clones":2,"v2":true,"kinds":["api","core"],"oldClients":true,"indexFirst":true,"etag":true,"ops":[{"id":48,"kind":"oldpush","clone":1},{"id":4,"kind":"adopt","clone":1,"file":5},{"id":6,"kind":"run","clone":0,"model":0,"data":1,"workMs":15000,"same":true},{"id":7,"kind":"latency","ms":3000},{"id":12,"kind":"tick","n":11,"pick":1338967100},{"id":14,"kind":"tick","n":35,"pick":1483432656},{"id":54,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":55,"kind":"reshape","clone":1,"file":4,"how":"hand"},{"id":16,"kind":"run","clone":1,"model":1,"data":1,"workMs":5000},{"id":17,"kind":"sync","clone":0},{"id":18,"kind":"edit","clone":0,"file":5,"how":"during","pick":433585130},{"id":20,"kind":"config","clone":0,"file":0},{"id":21,"kind":"run","clone":0,"model":1,"data":0,"workMs":1000},{"id":22,"kind":"crash","clone":0,"at":"commit"},{"id":23,"kind":"tick","n":31,"pick":442574609},{"id":51,"kind":"reshape","clone":1,"file":4,"how":"push"},{"id":24,"kind":"tick","n":29,"pick":884452775},{"id":25,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":52,"kind":"sync","clone":0},{"id":53,"kind":"reshape","clone":0,"file":4,"how":"push"},{"id":28,"kind":"sync","clone":0},{"id":29,"kind":"tick","n":3,"pick":1770524565},{"id":30,"kind":"resolve","clone":0,"pick":2,"how":"mine"},{"id":31,"kind":"breakglass","model":1},{"id":32,"kind":"tick","n":26,"pick":1238692400},{"id":35,"kind":"tick","n":19,"pick":97812892},{"id":36,"kind":"tick","n":17,"pick":825713241},{"id":39,"kind":"edit","clone":0,"file":0,"how":"during","pick":1305487020},{"id":41,"kind":"outage","on":true},{"id":43,"kind":"tick","n":13,"pick":1726570561},{"id":46,"kind":"oldpush","clone":0}]}',
  );
});

/**
 * I13 (seed 103100904, `--streamed-share 1`): c0's push of a file replaced
 * by a directory of its name committed its shard, and a failed read after
 * it cut the push off before it recorded anything as synced; an edit made
 * since then met, at the next pull, an entry naming c0's own write, which
 * the pull took for a peer's change: a conflict of c0 with itself, which
 * `--mine` could not resolve once the name was a file again. The pull now
 * knows an entry naming this cache's own write as its own
 * (sync/service/pull_plan.ts).
 */
Deno.test("chaos regression: a pull never takes an entry naming this clone's own write for a peer's change (I13, seed 103100904)", async () => {
  await clean(
    '{"seed":103100904,"clones":3,"v2":true,"kinds":["core","api","core-single-phase"],"indexFirst":true,"ops":[{"id":30,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":31,"kind":"reshape","clone":0,"file":5,"how":"push"},{"id":28,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":35,"kind":"tick","n":21,"pick":1668798631},{"id":64,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":65,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":60,"kind":"tick","n":8,"pick":712537341},{"id":32,"kind":"sync","clone":0},{"id":33,"kind":"reshape","clone":0,"file":5,"how":"push"}]}',
  );
});

/**
 * I6 (seed 104000141, `--reshape-share 1`): while c0's run was under way,
 * its lock broken, c0's user wrote the run's `latest` marker by hand (no
 * mark), naming the run's version; c0 crashed, and its next push erased
 * the refused run and removed the marker, which named an erased version,
 * without a word: the warning was given only for a marked marker. A marker
 * that is not its synced copy is now reported too (`latest_reset`,
 * middleware/erasure_markers.ts).
 */
Deno.test("chaos regression: a marker written by hand naming a refused run's version is removed with a warning, never silently (I6, seed 104000141)", async () => {
  await clean(
    '{"seed":104000141,"clones":2,"kinds":["core","core"],"ops":[{"id":34,"kind":"foreign","what":"file"},{"id":31,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":7,"kind":"tick","n":5,"pick":2102698354},{"id":10,"kind":"run","clone":0,"model":0,"data":0,"workMs":15000,"same":true},{"id":13,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":14,"kind":"tick","n":14,"pick":1654717037},{"id":15,"kind":"tick","n":17,"pick":1546105349},{"id":16,"kind":"breakglass","model":0},{"id":17,"kind":"marker","clone":0,"model":0,"data":0,"back":false,"how":"hand"},{"id":20,"kind":"tick","n":33,"pick":1638272358},{"id":22,"kind":"crash","clone":0}]}',
  );
});

/**
 * I9 (seed 106100056, `--copy-share 1`; found by the `copy` move, taught
 * after a review found the loss): c1's cache was replaced by a copy of
 * c0's, writer id and all; c0 committed an edit, and c1's edit of the same
 * file, pushed by its final sync, took c0's committed object for its own
 * upload and wrote over it. The writer id is bound to the state directory
 * it was made in (sync/transfer/writer_id.ts): the copy takes its own.
 */
Deno.test("chaos regression: a copy of a cache never takes the other copy's committed edit for its own (I9, seed 106100056)", async () => {
  await clean(
    '{"seed":106100056,"clones":2,"skewMs":[0,-61646],"ops":[{"id":9,"kind":"bulk","clone":0},{"id":65,"kind":"tick","n":10,"pick":433048186},{"id":79,"kind":"copy","clone":1,"from":0},{"id":80,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":81,"kind":"edit","clone":1,"file":4,"how":"hand"}]}',
  );
});

/**
 * I25 (seed 107600550, `--unwritten-share 1`): c1's pull planned a first
 * fetch of notes/shared-1.md with notes/ missing here; the user saved a new
 * file there while the pull fetched it, and the pull, trusting its memo of
 * directories missing at planning time, recorded the conflict as a
 * deletion here. The user then deleted that never-synced file and a mark
 * whose write never came followed: `--mine` would have deleted theirs.
 * The memo is forgotten once the plan is made (sync/service/pull_local.ts).
 */
Deno.test("chaos regression: a file saved in a directory missing when the pull planned is a change here, never a deletion (I25, seed 107600550)", async () => {
  await clean(
    '{"seed":107600550,"clones":3,"oldClients":true,"indexFirst":true,"ops":[{"id":38,"kind":"oldpush","clone":0,"file":4},{"id":4,"kind":"crash","clone":1,"at":"commit"},{"id":39,"kind":"oldpush","clone":1,"file":1},{"id":12,"kind":"sync","clone":1},{"id":13,"kind":"edit","clone":1,"file":2,"how":"during","pick":1434537493},{"id":14,"kind":"delete","clone":1,"file":5,"how":"push"},{"id":42,"kind":"unwritten","clone":1,"file":4}]}',
  );
});

/**
 * I15 (seed 108000392, `--old-share 1 --etag-share 1`; the checker's): c0
 * replaced notes/shared-0.md by a directory; an old client's pull wrote
 * back an index it had read before, without the directory's file, and an
 * old client then wrote a file of that name. c0's final pull kept the
 * directory's file, its entry dropped by that rewrite, to publish again,
 * and left the file out as blocked by it: the checker took that file for
 * synced and unchanged, nothing of c0's own. What a pull keeps to publish
 * again is the clone's own (integration/chaos/shapes.ts).
 */
Deno.test("chaos regression: a file the pull keeps to publish again, its entry dropped by an old client's rewrite, is the clone's own where it blocks a path (I15, seed 108000392)", async () => {
  await clean(
    '{"seed":108000392,"clones":3,"absentOnError":true,"kinds":["api","core","api"],"oldClients":true,"skewMs":[0,0,53254],"etag":true,"ops":[{"id":17,"kind":"oldpush","clone":0,"file":4},{"id":1,"kind":"tick","n":9,"pick":2103792799},{"id":2,"kind":"lockfile","clone":2,"set":"@chaos/ext-2"},{"id":3,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":16,"kind":"oldpush","clone":0},{"id":4,"kind":"tick","n":15,"pick":601887514},{"id":20,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":21,"kind":"reshape","clone":0,"file":3,"how":"push"},{"id":6,"kind":"tick","n":29,"pick":730090463},{"id":8,"kind":"tick","n":16,"pick":1858252341},{"id":19,"kind":"oldpull","clone":2},{"id":18,"kind":"oldpush","clone":0,"file":3}]}',
  );
});

/**
 * I29, I7, I8 (seed 110000482; found by the `answer` crash, taught after a
 * review found a conflict of a cache with its own update): c1 adopted a
 * peer's upload and crashed as its index write landed, before the answer;
 * its user then deleted the file, and the push deleted c1's own write
 * there (its delete's answer lost too, so it found the path gone) with the
 * removal based on the version c1 had synced: the commit left the entry
 * naming the write it had just deleted, and c1's pull took that entry for
 * a peer's change, in conflict with its own deletion. A deletion of this
 * cache's own write that the index names is based on that write
 * (sync/service/push_delete.ts); and an entry naming this cache's own
 * write is its own (sync/service/pull_plan.ts).
 */
Deno.test("chaos regression: a deletion of this clone's own committed write, whose answers were lost, removes the entry naming it (I29, I7, I8, seed 110000482)", async () => {
  await clean(
    '{"seed":110000482,"clones":5,"kinds":["core","api","api","api","core"],"ops":[{"id":40,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":13,"kind":"tick","n":2,"pick":456585365},{"id":16,"kind":"sync","clone":1},{"id":19,"kind":"adopt","clone":1,"file":5},{"id":20,"kind":"crash","clone":1,"at":"answer"},{"id":21,"kind":"delete","clone":1,"file":2,"how":"push"},{"id":23,"kind":"flaky","call":"delete","count":2,"afterEffect":true},{"id":25,"kind":"tick","n":20,"pick":1909618676}]}',
  );
});

/**
 * I29 (the `answer` crash, at the code before c091424): c0's update's
 * index write landed and c0 crashed before the answer; its user edited the
 * file again, and c0's next pull took the entry naming its own update for
 * a peer's change: a conflict with itself.
 */
Deno.test("chaos regression: a clone's own update whose commit landed before a crash is no conflict with its next edit (I29)", async () => {
  for (const v2 of [false, true]) {
    await clean(
      JSON.stringify({
        seed: 1,
        clones: 2,
        v2,
        ops: [
          { id: 1, kind: "edit", clone: 0, file: 4, how: "push" },
          { id: 9, kind: "tick", n: 60, pick: 1 },
          { id: 2, kind: "crash", clone: 0, at: "answer" },
          { id: 3, kind: "edit", clone: 0, file: 4, how: "push" },
          { id: 8, kind: "tick", n: 60, pick: 2 },
          { id: 4, kind: "edit", clone: 0, file: 4, how: "hand" },
          { id: 5, kind: "sync", clone: 0 },
        ],
      }),
    );
  }
});

/**
 * I29 (seed 112000329, `--checked-delete-share 1`): c1's update was
 * committed and c1 crashed before the answer (its next call), its file
 * already replaced by a directory by hand; its next pull met the entry
 * naming its own update with the file deleted here, and took it for a
 * peer's change: a conflict with itself. A deletion here over this cache's
 * own write is kept for the push too (sync/service/pull_plan.ts).
 */
Deno.test("chaos regression: a deletion here over this clone's own committed update is no conflict with itself (I29, seed 112000329)", async () => {
  await clean(
    '{"seed":112000329,"clones":2,"kinds":["core","api"],"indexFirst":true,"checkedDeletes":true,"ops":[{"id":0,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":31,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":5,"kind":"tick","n":38,"pick":272567826},{"id":33,"kind":"sync","clone":0},{"id":29,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":30,"kind":"reshape","clone":1,"file":4,"how":"push"},{"id":7,"kind":"tick","n":12,"pick":583515120},{"id":8,"kind":"crash","clone":1},{"id":9,"kind":"sync","clone":1},{"id":14,"kind":"crash","clone":1}]}',
  );
});

/**
 * I9 (seed 114000494, `--checked-delete-share 1`; found by checked deletes,
 * taught after a trial on MinIO lost an edit so): c1's deletion checked the
 * version it had synced, and c2's edit landed and was committed before the
 * delete, which removed it; c1's commit then took out the entry naming
 * c2's edit as if its delete had removed the version it checked. Such a
 * removal now leaves an entry naming another version, as one found gone
 * does (sync/service/push_delete.ts, `deletesChecked`).
 */
Deno.test("chaos regression: a checked delete that removed a peer's edit landed in its window never takes out the entry naming it (I9, seed 114000494)", async () => {
  await clean(
    '{"seed":114000494,"clones":3,"absentOnError":true,"skewMs":[0,0,106385],"indexFirst":true,"checkedDeletes":true,"ops":[{"id":4,"kind":"adopt","clone":1,"file":5},{"id":7,"kind":"tick","n":8,"pick":1137788778},{"id":16,"kind":"sync","clone":2},{"id":45,"kind":"delete","clone":1,"file":0,"how":"push"},{"id":26,"kind":"adopt","clone":2,"file":5}]}',
  );
});

/**
 * I7, I8 (seed 114000144; the checker's): c0's run uploaded its version
 * and its `latest` marker over the version the index named, an outage cut
 * off its commit, and c0's cache was then replaced by a copy of c2's: that
 * upload waits for an adoption no history makes, and readers skip the
 * marker as uncommitted. Spared as I11 spares such uploads.
 */
Deno.test("chaos regression: an abandoned copy's upload over an indexed version is spared as I11 spares it (I7, I8, seed 114000144)", async () => {
  await clean(
    '{"seed":114000144,"clones":5,"kinds":["core-single-phase","core","core-single-phase","api","api"],"indexFirst":true,"ops":[{"id":3,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":4,"kind":"tick","n":4,"pick":1887209110},{"id":7,"kind":"tick","n":37,"pick":664176173},{"id":9,"kind":"run","clone":0,"model":1,"data":1,"workMs":0,"same":true},{"id":10,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":11,"kind":"run","clone":3,"model":1,"data":1,"workMs":5000},{"id":12,"kind":"resolve","clone":4,"pick":1,"how":"theirs"},{"id":13,"kind":"bulk","clone":1},{"id":16,"kind":"tick","n":32,"pick":1778751015},{"id":17,"kind":"crash","clone":4},{"id":19,"kind":"tick","n":26,"pick":1644436117},{"id":44,"kind":"edit","clone":4,"file":4,"how":"push"},{"id":45,"kind":"reshape","clone":4,"file":4,"how":"push"},{"id":29,"kind":"tick","n":34,"pick":1980086480},{"id":32,"kind":"outage","on":true},{"id":33,"kind":"tick","n":4,"pick":2086795818},{"id":48,"kind":"copy","clone":0,"from":2}]}',
  );
});

/**
 * I2 (seed 114000293, `--checked-delete-share 1`): a second process over
 * c1's cache marked and wrote a version of its run; c1's own sync, a walk
 * of the whole cache, published it while that run was under way; the run's
 * lock read then failed (third-party locks: a failed read looks absent),
 * it was refused, and its version stayed published. A walk now leaves out
 * what another running process over the cache marked
 * (sync/service/push_plan.ts).
 */
Deno.test("chaos regression: a walk push never publishes a version another running process over the cache marked (I2, seed 114000293)", async () => {
  await clean(
    '{"seed":114000293,"clones":3,"absentOnError":true,"kinds":["api","core","api"],"skewMs":[-56888,0,0],"checkedDeletes":true,"ops":[{"id":0,"kind":"delete","clone":1,"file":2,"how":"hand"},{"id":1,"kind":"wait","ms":31000},{"id":2,"kind":"sync","clone":1},{"id":3,"kind":"lockfile","clone":1,"set":"@chaos/ext-3"},{"id":4,"kind":"edit","clone":1,"file":0,"how":"revert"},{"id":5,"kind":"run","clone":2,"model":0,"data":1,"workMs":15000},{"id":6,"kind":"crash","clone":2},{"id":52,"kind":"sibling","clone":1,"how":"push","workMs":45000},{"id":53,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":54,"kind":"tick","n":26,"pick":684897075},{"id":7,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":8,"kind":"wait","ms":11000},{"id":9,"kind":"adopt","clone":1,"file":2},{"id":16,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":17,"kind":"tick","n":73,"pick":1168708937},{"id":18,"kind":"vanish","file":5,"run":16,"rewrite":true},{"id":45,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":46,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":47,"kind":"delete","clone":2,"file":5,"how":"push"},{"id":20,"kind":"tick","n":20,"pick":241852004},{"id":21,"kind":"wait","ms":80000},{"id":22,"kind":"tick","n":20,"pick":952091440},{"id":23,"kind":"wait","ms":80000},{"id":24,"kind":"tick","n":20,"pick":1316095698},{"id":25,"kind":"wait","ms":80000},{"id":26,"kind":"tick","n":20,"pick":1345966690},{"id":27,"kind":"wait","ms":80000},{"id":28,"kind":"tick","n":20,"pick":1663102027},{"id":29,"kind":"wait","ms":80000},{"id":30,"kind":"tick","n":20,"pick":105092593},{"id":31,"kind":"wait","ms":80000},{"id":49,"kind":"sibling","clone":2,"how":"dies","workMs":45000},{"id":50,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":51,"kind":"tick","n":31,"pick":236663428},{"id":32,"kind":"tick","n":20,"pick":1958348007},{"id":33,"kind":"wait","ms":80000},{"id":34,"kind":"tick","n":20,"pick":1094198609},{"id":35,"kind":"wait","ms":80000},{"id":36,"kind":"tick","n":20,"pick":1788078169},{"id":37,"kind":"wait","ms":80000},{"id":38,"kind":"tick","n":20,"pick":1474576083},{"id":39,"kind":"wait","ms":80000},{"id":40,"kind":"tick","n":20,"pick":1975656261},{"id":41,"kind":"wait","ms":80000},{"id":42,"kind":"tick","n":20,"pick":1491401225},{"id":43,"kind":"wait","ms":80000},{"id":44,"kind":"sync","clone":2},{"id":48,"kind":"sync","clone":1},{"id":10,"kind":"run","clone":1,"model":1,"data":1,"workMs":5000},{"id":11,"kind":"run","clone":1,"model":1,"data":0,"workMs":1000},{"id":12,"kind":"wait","ms":31000},{"id":13,"kind":"run","clone":2,"model":1,"data":1,"workMs":45000},{"id":14,"kind":"breakglass","model":1},{"id":15,"kind":"breakglass","model":1}]}',
  );
});

/**
 * I13 (seed 105200577, shrunk; `--streamed-share 1`): a streamed run's
 * writer stopped by a crash before finalizing its version 2 (its `raw` here,
 * no `metadata.yaml`); a later run of the same model was refused for its
 * lost lock, and its erasure reset the `latest` marker to the highest
 * version left, the unfinished one. That marker could never be pushed (the
 * version is held), so `resolve --mine` of it stayed refused. A recomputed
 * marker now never names an unfinished version where they are held.
 */
Deno.test("chaos regression: a refused run's erasure never resets the latest marker to an unfinished version (I13, seed 105200577)", async () => {
  await clean(
    '{"seed":105200577,"clones":4,"kinds":["api","core","core","core"],"indexFirst":true,"ops":[{"id":44,"kind":"foreign","what":"version","model":0,"data":1,"version":1,"marker":true},{"id":45,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"streamed":true},{"id":0,"kind":"breakglass","model":0},{"id":1,"kind":"tick","n":12,"pick":1713132326},{"id":2,"kind":"crash","clone":2,"at":"commit"},{"id":12,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"streamed":true},{"id":13,"kind":"resolve","clone":1,"pick":2,"how":"merged"},{"id":16,"kind":"breakglass","model":0},{"id":19,"kind":"latency","ms":3000},{"id":20,"kind":"tick","n":12,"pick":2025452265},{"id":39,"kind":"tick","n":24,"pick":274298148},{"id":40,"kind":"adopt","clone":3,"file":5},{"id":41,"kind":"tick","n":9,"pick":998091023},{"id":42,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I2 (seed 116000524, shrunk; third-party locks whose failed read looks
 * absent): a second process's run over a clone's cache was refused while
 * the clone's own sync resumed the same erasure; each completed it on its
 * own copy of the journal, one of them left the upload pending (an index
 * read failed) with its bytes kept aside, and the other's journal write
 * forgot them: the refused run's bytes stayed in the state for good. The
 * journal is now changed and completed under a lock every process takes.
 */
Deno.test("chaos regression: two processes completing one erasure never write each other's progress away (I2, seed 116000524)", async () => {
  await clean(
    '{"seed":116000524,"clones":4,"absentOnError":true,"kinds":["api","core","api","api"],"ops":[{"id":4,"kind":"resolve","clone":3,"pick":7,"how":"mine"},{"id":9,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":10,"kind":"resolve","clone":0,"pick":4,"how":"mine"},{"id":11,"kind":"bulk","clone":3},{"id":12,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":14,"kind":"breakglass","model":0},{"id":15,"kind":"breakglass","model":0},{"id":16,"kind":"breakglass","model":0},{"id":17,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":41,"kind":"sibling","clone":2,"how":"push","workMs":15000},{"id":42,"kind":"sync","clone":2},{"id":43,"kind":"tick","n":76,"pick":168511372},{"id":22,"kind":"tick","n":27,"pick":1699854319},{"id":23,"kind":"breakglass","model":0},{"id":26,"kind":"flaky","call":"get","count":3,"afterEffect":true},{"id":28,"kind":"tick","n":7,"pick":1750557934}]}',
  );
});

/**
 * I1 (seed 120000111, shrunk; third-party locks whose failed read looks
 * absent): a run refused for its lost lock had uploaded its version; a
 * peer's deterministic run met the upload with equal bytes, took it as its
 * own and committed it. The erasure kept the upload (a peer's commit names
 * it), but the refused run's record of the write stayed: the clone's next
 * push of the model's directory took the committed object, which carries
 * its writer id, for its own committed write deleted here, and deleted it
 * with its entry: the peer's acknowledged version was gone everywhere. The
 * erasure now settles the record of every upload it settles, and a push
 * that resumes it leaves their deletions out.
 */
Deno.test("chaos regression: a refused run's upload a peer committed as its own is never deleted by the refused clone's later push (I1, seed 120000111)", async () => {
  await clean(
    '{"seed":120000111,"clones":5,"absentOnError":true,"kinds":["core-single-phase","core","core-single-phase","core-single-phase","api"],"ops":[{"id":6,"kind":"run","clone":4,"model":0,"data":1,"workMs":45000,"same":true},{"id":8,"kind":"lockfile","clone":1,"set":"@chaos/ext-8"},{"id":9,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":15,"kind":"run","clone":3,"model":1,"data":1,"workMs":45000},{"id":16,"kind":"tick","n":33,"pick":511472717},{"id":17,"kind":"tick","n":15,"pick":1119522725},{"id":19,"kind":"bulk","clone":0},{"id":20,"kind":"breakglass","model":1},{"id":21,"kind":"breakglass","model":1},{"id":22,"kind":"wait","ms":65000},{"id":24,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"streamed":true},{"id":25,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":26,"kind":"tick","n":24,"pick":641963356},{"id":28,"kind":"outage","on":true},{"id":29,"kind":"tick","n":5,"pick":759395559},{"id":30,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true}]}',
  );
});

/**
 * I9 (seed 119500990, shrunk; found by the marker races): a clone that had
 * never synced a `latest` marker pushed its run's marker, naming a newer
 * version, over a peer's marker moved back by hand: the marker rebase took
 * it for a marker moved further forward. A marker this cache never synced
 * is now a conflict as before.
 */
Deno.test("chaos regression: a marker never synced here is never written over a peer's marker moved back (I9, seed 119500990)", async () => {
  await clean(
    '{"seed":119500990,"clones":5,"kinds":["core-single-phase","core","api","api","api"],"ops":[{"id":1,"kind":"run","clone":4,"model":0,"data":0,"workMs":0,"same":true},{"id":7,"kind":"tick","n":9,"pick":2009556033},{"id":8,"kind":"run","clone":4,"model":0,"data":0,"workMs":0},{"id":25,"kind":"tick","n":35,"pick":2103217814},{"id":26,"kind":"marker","clone":4,"model":0,"data":0,"back":true,"how":"push"},{"id":28,"kind":"run","clone":2,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I7, I8 (seed 121000113, shrunk by hand to its cause; the checker's): c0
 * deleted a config file it had synced, its delete landed (conditional on the
 * version it synced), and an outage cut its push off before the index
 * update (at the read of the vanished record the commit makes first). c0's
 * cache was then replaced by a copy of c1's, and with it the deletion its
 * user had not seen through: the index names an object no longer there, as
 * after another tool's deletion, until a pull that has seen the entry so for
 * the dangling-entry grace (15 minutes) removes it (the history with a pull,
 * a wait of 16 minutes and another pull appended passes; without the copy,
 * c0's final push commits its deletion). To be spared by I7 and I8 as an
 * abandoned copy's upload is. The history as the checker printed it follows
 * (there c2's deletion, its cache then replaced by a copy of c3's).
 */
Deno.test("chaos regression: an abandoned copy's deletion whose commit never came is spared by I7 and I8 (seed 121000113)", async () => {
  await clean(
    '{"seed":121000113,"clones":2,"ops":[{"id":0,"kind":"config","clone":0,"file":2},{"id":1,"kind":"tick","n":40,"pick":1},{"id":2,"kind":"delete","clone":0,"file":2,"how":"push"},{"id":3,"kind":"tick","n":1,"pick":2},{"id":4,"kind":"outage","on":true},{"id":5,"kind":"tick","n":40,"pick":3},{"id":6,"kind":"outage","on":false},{"id":7,"kind":"copy","clone":0,"from":1}]}',
    '{"seed":121000113,"clones":5,"ops":[{"id":48,"kind":"foreign","what":"file"},{"id":0,"kind":"sync","clone":4},{"id":1,"kind":"wait","ms":31000},{"id":2,"kind":"run","clone":3,"model":1,"data":0,"workMs":5000},{"id":3,"kind":"crash","clone":3},{"id":4,"kind":"bulk","clone":0},{"id":5,"kind":"resolve","clone":3,"pick":5,"how":"mine"},{"id":6,"kind":"edit","clone":3,"file":2,"how":"revert"},{"id":7,"kind":"adopt","clone":0,"file":5},{"id":8,"kind":"tick","n":14,"pick":1172596590},{"id":9,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"same":true},{"id":10,"kind":"crash","clone":4},{"id":41,"kind":"stall","clone":1,"on":true,"at":"companions"},{"id":40,"kind":"edit","clone":1,"file":0,"how":"push"},{"id":11,"kind":"resolve","clone":0,"pick":1,"how":"theirs"},{"id":12,"kind":"sync","clone":3},{"id":13,"kind":"adopt","clone":0,"file":2},{"id":14,"kind":"tick","n":30,"pick":2146479861},{"id":15,"kind":"tick","n":32,"pick":565378892},{"id":16,"kind":"run","clone":4,"model":1,"data":0,"workMs":5000,"streamed":true},{"id":17,"kind":"resolve","clone":0,"pick":7,"how":"theirs"},{"id":18,"kind":"migrate","clone":0},{"id":44,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":45,"kind":"reshape","clone":1,"file":3,"how":"hand"},{"id":39,"kind":"migrate","clone":2},{"id":37,"kind":"sync","clone":2},{"id":38,"kind":"delete","clone":2,"file":0,"how":"push"},{"id":36,"kind":"tick","n":43,"pick":378333961},{"id":35,"kind":"stall","clone":1,"on":false},{"id":46,"kind":"sync","clone":3},{"id":47,"kind":"reshape","clone":3,"file":3,"how":"push"},{"id":19,"kind":"edit","clone":0,"file":4,"how":"mark"},{"id":42,"kind":"reshape","clone":2,"file":5,"how":"push"},{"id":43,"kind":"reshape","clone":2,"file":5,"how":"hand"},{"id":20,"kind":"outage","on":true},{"id":21,"kind":"run","clone":1,"model":1,"data":0,"workMs":45000,"streamed":true},{"id":22,"kind":"tick","n":10,"pick":678519326},{"id":23,"kind":"outage","on":false},{"id":24,"kind":"tick","n":32,"pick":1702494876},{"id":49,"kind":"copy","clone":2,"from":3},{"id":50,"kind":"edit","clone":3,"file":5,"how":"push"},{"id":51,"kind":"edit","clone":2,"file":5,"how":"hand"},{"id":52,"kind":"sync","clone":2},{"id":53,"kind":"tick","n":65,"pick":1272458504},{"id":25,"kind":"tick","n":25,"pick":2020545384},{"id":26,"kind":"resolve","clone":1,"pick":6,"how":"mine"},{"id":27,"kind":"marker","clone":0,"model":1,"data":1,"back":false,"how":"revert"},{"id":28,"kind":"latency","ms":500},{"id":29,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":30,"kind":"breakglass","model":null},{"id":31,"kind":"delete","clone":2,"file":4,"how":"hand"},{"id":32,"kind":"breakglass","model":1},{"id":33,"kind":"run","clone":2,"model":1,"data":1,"workMs":5000,"streamed":true},{"id":34,"kind":"tick","n":32,"pick":446696155}]}',
  );
});

/**
 * I11 (seed 124100329, trimmed by hand; the checker's): c2 published
 * notes/shared-1.md and another tool deleted its object (the entry left
 * dangling). c3, offline until the end, replaced that name by a directory;
 * its first final push uploaded notes/shared-1.md/part-18.md, and its commit
 * met the dangling file entry as the other shape: left out, kept marked,
 * told (`path_blocked`), the name recorded as blocked. Its pull kept the
 * hold (the entry still within c3's grace), and its second push held the
 * file back. c4's pull, past its grace, removed the entry, and c3's second
 * pull found the way clear and cleared the record, as the hold's reason
 * says ("the next push publishes it"); but the final sync ended there, with
 * c3's upload unnamed and no longer held back. A pull of the second round
 * that finds the way clear for a held-back path now gets the next push (a
 * third round), which names that upload (integration/chaos/workload.ts;
 * the library side: sync/service/shape_hold_test.ts, last test).
 */
Deno.test("chaos regression: an upload left out beside a dangling entry of the other shape is named by the push after the pull that finds the way clear (I11, seed 124100329)", async () => {
  await clean(
    '{"seed":124100329,"clones":5,"kinds":["core-single-phase","core","api","api","api"],"skewMs":[0,57584,0,0,0],"indexFirst":true,"checkedDeletes":true,"ops":[{"id":0,"kind":"tick","n":12,"pick":743531433},{"id":1,"kind":"tick","n":40,"pick":657702192},{"id":16,"kind":"stall","clone":3,"on":true},{"id":19,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":20,"kind":"tick","n":39,"pick":6637319},{"id":21,"kind":"vanish","file":4},{"id":22,"kind":"sync","clone":4},{"id":23,"kind":"tick","n":20,"pick":1574323193},{"id":24,"kind":"wait","ms":960000},{"id":45,"kind":"tick","n":20,"pick":506113386},{"id":47,"kind":"sync","clone":4},{"id":3,"kind":"tick","n":6,"pick":14076126},{"id":4,"kind":"outage","on":true},{"id":17,"kind":"edit","clone":3,"file":4,"how":"push"},{"id":18,"kind":"reshape","clone":3,"file":4,"how":"push"},{"id":15,"kind":"stall","clone":3,"on":false},{"id":13,"kind":"tick","n":35,"pick":1621335013},{"id":14,"kind":"tick","n":17,"pick":1275931547}]}',
  );
});

/**
 * I11 (seed 130200227; the checker's): c1's same-output run lost its lock to
 * a breakglass and uploaded version 1 anyway; c2's run of the same output
 * found both files in place, its commit named `raw` and found
 * `metadata.yaml` already erased by c1's refusal, so its second pass wrote
 * it again; a second breakglass then refused that pass, and its version,
 * holding the `raw` the first pass committed, was held (`erasure_refused`),
 * its upload left on the datastore as the library documents, recorded in
 * c2's erasure journal until its user keeps or discards the run. I11 now
 * spares a held run's own upload that its clone's journal records
 * (integration/chaos/index_checks_test.ts).
 */
Deno.test("chaos regression: a held run's upload waits for its user's keep or discard (I11, seed 130200227)", async () => {
  await clean(
    '{"seed":130200227,"clones":5,"absentOnError":true,"v2":true,"kinds":["core","api","core","api","api"],"ops":[{"id":4,"kind":"run","clone":1,"model":0,"data":0,"workMs":1000,"same":true},{"id":5,"kind":"tick","n":7,"pick":1601013714},{"id":9,"kind":"breakglass","model":0},{"id":11,"kind":"run","clone":2,"model":0,"data":0,"workMs":0,"same":true},{"id":12,"kind":"tick","n":31,"pick":883298946},{"id":16,"kind":"tick","n":2,"pick":1304785383},{"id":20,"kind":"breakglass","model":0},{"id":23,"kind":"tick","n":1,"pick":928960255}]}',
  );
});

/**
 * I12 (seed 131100102; the checker's): c1's same-output run of m0 lost its
 * model lock to a breakglass, and c4's run of m0 took that lock at once;
 * the `oldsame` move then wrote c1's bytes of version 1's `metadata.yaml`
 * (a plain put, the same ETag, and its index entry) as c1's erasure was
 * about to delete it, while c4 held m0's lock. The delete took that object,
 * c4's create-only write of its own version 1 filled the path before the
 * erasure's put-back, and c4's commit named its version there. A real old
 * client writes a model's data versions under that model's lock (old and
 * new clients honour each other's locks), so it makes no such write while
 * another writer holds it: the move now waits for a moment the lock is free.
 */
Deno.test("chaos regression: an old client writes no model's data version while another writer holds that model's lock (I12, seed 131100102)", async () => {
  await clean(
    '{"seed":131100102,"clones":5,"kinds":["core","api","core","api","api"],"oldClients":true,"skewMs":[72033,0,0,0,0],"etag":true,"checkedDeletes":true,"ops":[{"id":0,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":2,"kind":"run","clone":4,"model":0,"data":1,"workMs":1000},{"id":3,"kind":"tick","n":1,"pick":1170745261},{"id":4,"kind":"breakglass","model":0},{"id":40,"kind":"oldsame","clone":0,"run":0,"pick":849386151},{"id":5,"kind":"tick","n":9,"pick":673153685}]}',
  );
});

/**
 * I11 (seed 139201324, shrunk; `--copy-share 1`): c0's lockfile transaction
 * put its lockfile, and an outage failed its index update (the bucket's
 * first index, whose discovery met the outage); the change stayed pending in
 * c0's cache, which its user then replaced by a copy of c2's. The object
 * stood unnamed for good, as every upload of a replaced cache whose commit
 * never came does (the next lockfile change of any cache takes it in), but
 * it was the one Sluice write that carried no writer id, so neither I11's
 * exception for such uploads nor index discovery could tell it from another
 * tool's object. The transaction's put now carries the cache's writer id
 * (`sync/locks/lockfile_publish.ts`).
 */
Deno.test("chaos regression: a lockfile transaction's copy cut off before its index update is its cache's upload (I11, seed 139201324)", async () => {
  await clean(
    '{"seed":139201324,"clones":4,"kinds":["core","api","core","core"],"ops":[{"id":2,"kind":"lockfile","clone":0,"set":"@chaos/ext-2"},{"id":3,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":4,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":5,"kind":"flaky","call":"put","count":1,"afterEffect":true},{"id":8,"kind":"adopt","clone":2,"file":2},{"id":9,"kind":"tick","n":20,"pick":87509954},{"id":10,"kind":"outage","on":true},{"id":11,"kind":"tick","n":6,"pick":1162745610},{"id":31,"kind":"copy","clone":0,"from":2}]}',
  );
});

/**
 * I7/I8 (seed 140000226, shrunk): while c0 moved the bucket to v2, c1's
 * first v1 commit of a new file landed with its answer lost (c1 crashed),
 * after the move had read no index object. c1's user made the file a
 * directory of its name; c1's push found its upload named by no index (the
 * v2 meta had landed, the move's catch-up not yet) and deleted it as its own
 * stranded upload, then crashed before its index update. The catch-up had
 * checked the object just before that delete, and its shard write named it
 * after: the index named a deleted object, and held back c1's file under the
 * directory. Fixed in sync/transfer/migrate_index.ts (the catch-up looks at
 * what it set again after its commit, as an adoption does).
 */
Deno.test("chaos regression: a move's catch-up never names a racing v1 commit's object its writer deleted after the check (I7, I8, seed 140000226)", async () => {
  await clean(
    '{"seed":140000226,"clones":4,"kinds":["api","api","core-single-phase","api"],"skewMs":[0,0,0,40533],"ops":[{"id":29,"kind":"migrate","clone":0},{"id":39,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":40,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":41,"kind":"crash","clone":1,"at":"commit","queued":true},{"id":42,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":31,"kind":"tick","n":30,"pick":1603617500}]}',
  );
});

/**
 * I8 (seed 141500553, shrunk; `--old-share 1 --etag-share 1`), the
 * checker's own: an old client's pull read the v1 index naming an earlier
 * old client's edit of config/settings-0.yaml (#29), then another old
 * client's push of that file (#30) put its object and committed it under
 * the global lock, and the pull (no lock, another object missing) wrote back
 * the index it read: the entry named #29's bytes again while the store held
 * #30's, and fresh clones skipped the file as uncommitted. No Sluice client
 * wrote that file; the old clients' design drops such a commit, as the
 * checker spares a push whose entry the pull left out. It now spares one the
 * pull rolled back to other bytes too (the same with versions of their own,
 * not ETags: not the ETag window of I12).
 */
Deno.test("chaos regression: an old client's commit rolled back by another old client's pull is theirs, spared (I8, seed 141500553)", async () => {
  await clean(
    '{"seed":141500553,"clones":2,"absentOnError":true,"kinds":["core","api"],"oldClients":true,"etag":true,"ops":[{"id":2,"kind":"run","clone":1,"model":0,"data":1,"workMs":45000,"same":true},{"id":3,"kind":"tick","n":12,"pick":428542662},{"id":29,"kind":"oldpush","clone":0,"file":0},{"id":4,"kind":"tick","n":25,"pick":314319856},{"id":8,"kind":"tick","n":6,"pick":2147131406},{"id":31,"kind":"oldpush","clone":1},{"id":9,"kind":"adopt","clone":0,"file":3},{"id":10,"kind":"breakglass","model":0},{"id":13,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":14,"kind":"tick","n":20,"pick":541289935},{"id":33,"kind":"sibling","clone":0,"how":"push","workMs":15000},{"id":34,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":35,"kind":"tick","n":57,"pick":1712673688},{"id":30,"kind":"oldpush","clone":0,"file":0},{"id":15,"kind":"delete","clone":0,"file":4,"how":"dir"},{"id":32,"kind":"oldpull","clone":1},{"id":16,"kind":"tick","n":25,"pick":1743207589}]}',
  );
});

/**
 * I26 (seed 75000037, shrunk; found by the `parallel` move once it was
 * taught, after a newcomer driving the extension met it: two model runs of
 * one process, one flushing single-phase, the other two-phase): the run
 * committed its push and released its lock while its parallel step, on
 * another model, stood between its preparation and its commit. The step's
 * push had been given every model lock held as it was prepared, the run's
 * among them, and its preparation had cleared the mark that the run's lock
 * was settled by a commit; its commit found that lock released and was
 * refused (`erasure_refused`), its own version held.
 */
Deno.test("chaos regression: a step's commit is not refused for another run's lock released after that run's push (I26, seed 75000037)", async () => {
  await clean(
    '{"seed":75000037,"clones":5,"absentOnError":true,"kinds":["api","core-single-phase","core","core-single-phase","core-single-phase"],"checkedDeletes":true,"ops":[{"id":30,"kind":"run","clone":1,"model":1,"data":0,"workMs":0,"parallel":true}]}',
  );
});

/**
 * I1 (seed 75000034, shrunk; the same move): a run's lock was broken
 * (breakglass) while its parallel step, on another model, held its own;
 * the run's push, given every model lock held as it started, was refused
 * for its own lost lock and erased every version written under those locks,
 * the step's too, whose own push then acknowledged a version that was gone.
 */
Deno.test("chaos regression: a run refused for its own lost lock never erases its parallel step's version (I1, seed 75000034)", async () => {
  await clean(
    '{"seed":75000034,"clones":4,"kinds":["api","core","core-single-phase","core-single-phase"],"ops":[{"id":9,"kind":"run","clone":2,"model":0,"data":0,"workMs":15000,"parallel":true},{"id":11,"kind":"tick","n":1,"pick":2022244139},{"id":17,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I2 (seed 142200997, shrunk; `--copy-share 1`, third-party locks): a run
 * lost its lock (its refresh failed in an outage) and was refused; the
 * store unreachable, the deletion of its uploads stayed pending in its
 * cache's erasure journal (`erasure_pending`), never named by the index.
 * Its user then replaced that cache by a copy of another clone's (a `copy`
 * move), the journal with it: those uploads are left for good, named by
 * no index, held by no clone, as every upload of a replaced cache whose
 * commit never came (I11 spares those). The final I2 scan of the store
 * found their bytes and blamed the library.
 */
Deno.test("chaos regression: a refused run's uploads whose erasure went with a cache replaced by a copy are left for good, unpublished (I2, seed 142200997)", async () => {
  const json =
    '{"seed":142200997,"clones":3,"absentOnError":true,"ops":[{"id":14,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":17,"kind":"delete","clone":2,"file":1,"how":"during","pick":1656216813},{"id":19,"kind":"run","clone":1,"model":1,"data":1,"workMs":45000},{"id":21,"kind":"tick","n":12,"pick":1239878760},{"id":22,"kind":"outage","on":true},{"id":23,"kind":"tick","n":5,"pick":966462544},{"id":64,"kind":"copy","clone":1,"from":0}]}';
  await clean(json);
  // Both of the run's objects are still on the store, spared as such.
  const r = await runHistory(parseHistory(json));
  assert.equal(r.stats.refusedLeftByCopy, 2);
});

/**
 * I13 (seed 143500042, shrunk; `--old-share 1 --etag-share 1`): c1's core
 * run crashed with its version 1's `raw` written and no `metadata.yaml`
 * (held back for good by unfinished-version-holder); after its next run
 * (version 2) c1 moved the marker back one, onto version 1, while c0's run
 * moved it to version 3. `--mine` can never publish that marker (no reader
 * could follow it), and its reason told the user to push the version, which
 * never publishes it: the reason now names the unfinished version and the
 * way out, `--theirs`, which the checker takes.
 */
Deno.test("chaos regression: a marker moved back onto a version its crashed writer never finalized is left by --theirs (I13, seed 143500042)", async () => {
  await clean(
    '{"seed":143500042,"clones":3,"kinds":["api","core","api"],"oldClients":true,"indexFirst":true,"etag":true,"ops":[{"id":13,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"streamed":true},{"id":22,"kind":"crash","clone":1,"at":"commit"},{"id":23,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"streamed":true},{"id":27,"kind":"marker","clone":1,"model":0,"data":1,"back":true,"how":"push"},{"id":31,"kind":"tick","n":25,"pick":1219823634},{"id":32,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"streamed":true}]}',
  );
});

/**
 * I7/I8 (seed 148001728, shrunk): c1's `resolve --mine` of its conflict on a
 * shared file crashed between its commit's upload and its index update: its
 * copy replaced theirs on the store, the index still naming theirs. c1 then
 * copied theirs into place by hand and ran `resolve --theirs`, which took
 * the copy as theirs without looking at the store and cleared the path's
 * dirty mark: reported resolved, it left the index naming a version the
 * store no longer held, for good (a fresh clone's pull skipped the file as
 * not yet committed).
 */
Deno.test("chaos regression: a --theirs whose copy is theirs already writes theirs back over its own cut-off upload (I7, I8, seed 148001728)", async () => {
  await clean(
    '{"seed":148001728,"clones":2,"absentOnError":true,"ops":[{"id":40,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":41,"kind":"edit","clone":1,"file":5,"how":"hand"},{"id":12,"kind":"resolve","clone":1,"pick":7,"how":"mine"},{"id":13,"kind":"resolve","clone":1,"pick":7,"how":"theirs"},{"id":15,"kind":"breakglass","model":0},{"id":17,"kind":"crash","clone":1,"at":"commit"},{"id":18,"kind":"tick","n":17,"pick":792728085}]}',
  );
});

/**
 * I1 (seed 76000088, shrunk; found by the `structural` move once it was
 * taught): a structural command of the tool (the global lock, a pull and a
 * push naming no model) ran in the process of a core-driven run and its
 * parallel step while both held their model locks, the run's broken by an
 * operator. The structural push was fenced by every held lock, refused for
 * the run's, and erased every version written under those locks, the
 * step's too, whose lock was never lost; the step's own flush then found
 * nothing to push and acknowledged a version that was gone.
 */
Deno.test("chaos regression: a structural command's push beside a run whose lock was broken never erases its parallel step's version (I1, seed 76000088)", async () => {
  await clean(
    '{"seed":76000088,"clones":4,"v2":true,"kinds":["core","api","api","api"],"indexFirst":true,"ops":[{"id":0,"kind":"sync","clone":2},{"id":1,"kind":"lockfile","clone":2,"set":"@chaos/ext-1"},{"id":2,"kind":"sync","clone":1},{"id":9,"kind":"run","clone":0,"model":0,"data":0,"workMs":45000,"parallel":true,"structural":true},{"id":11,"kind":"tick","n":21,"pick":451301517},{"id":13,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I2 (seed 76000364, shrunk; the `structural` move): the structural push of
 * the process of a core-driven run and its parallel step, fenced by every
 * held lock, published the run's version under the run's lock, which an
 * operator broke right after; the run's own flush was then refused for it,
 * its version already committed for every clone to pull.
 */
Deno.test("chaos regression: a structural command's push never publishes a run's version under that run's lock, broken before the run's flush (I2, seed 76000364)", async () => {
  await clean(
    '{"seed":76000364,"clones":5,"kinds":["core-single-phase","core","core","api","api"],"ops":[{"id":31,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"parallel":true,"structural":true},{"id":35,"kind":"tick","n":39,"pick":1069419965},{"id":18,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I19, the checker's own gap (seed 148300278, shrunk; `--checked-delete-share
 * 1`): c4 pushed its edit of a shared file, and crashed after the commit
 * landed, before recording the file synced; back up, its user replaced the
 * file by a directory and pushed. c0 pulled the edit meanwhile, and another
 * tool deleted its object between c4's look at its own upload and c4's
 * commit. c4's push withdrew its own write (a file this cache never synced,
 * its upload named by the index, removed here since), entry with it, and
 * c0's pull then removed its copy: a user's deletion, made before the
 * object went and pushed after it. I19 now spares a path whose clone's own
 * write of the bytes deleted its user had removed (here: replaced by a
 * directory) and not pushed yet when the object went, as it spares a
 * synced file deleted so.
 */
Deno.test("chaos regression: a clone's own write, committed with its answer lost and removed by its user before another tool's deletion, is a user's deletion (I19, seed 148300278)", async () => {
  await clean(
    '{"seed":148300278,"clones":5,"kinds":["api","core-single-phase","api","core-single-phase","core-single-phase"],"checkedDeletes":true,"ops":[{"id":78,"kind":"migrate","clone":2},{"id":79,"kind":"tick","n":16,"pick":297645408},{"id":0,"kind":"bulk","clone":4},{"id":5,"kind":"run","clone":4,"model":0,"data":0,"workMs":0},{"id":44,"kind":"edit","clone":4,"file":3,"how":"push"},{"id":45,"kind":"reshape","clone":4,"file":3,"how":"push"},{"id":11,"kind":"crash","clone":4,"at":"commit"},{"id":12,"kind":"run","clone":1,"model":0,"data":1,"workMs":15000,"streamed":true},{"id":14,"kind":"tick","n":38,"pick":1630577545},{"id":15,"kind":"tick","n":2,"pick":1854241640},{"id":16,"kind":"wait","ms":11000},{"id":17,"kind":"wait","ms":31000},{"id":18,"kind":"tick","n":15,"pick":1853183462},{"id":25,"kind":"resolve","clone":0,"pick":2,"how":"mine"},{"id":47,"kind":"tick","n":16,"pick":263556529},{"id":48,"kind":"vanish","file":3}]}',
  );
});

/**
 * I12 (seed 149100103, shrunk; `--old-share 1 --etag-share 1`), the
 * checker's own: c3's old client pull (#39) read the v1 index, met an object
 * missing (c0's file made a directory of its name, its deletion on its way
 * to the index) and wrote back the index it read, while c4's old client push
 * (#38) committed its log in between: their design drops that commit. The
 * pull's write landed with its answer lost (a flaky put after effect), so
 * the pull failed and the checker never learned what its write dropped, and
 * blamed the library for the missing entry. A pull's write whose answer is
 * lost is now taken as landed (not the ETag window of I12: no erasure). The
 * second history is the same with c3 armed to crash as its pull's write
 * lands (`at: "answer"`) in place of the flaky put: an old client's pull is
 * now spared that crash (a crash there is its return).
 */
Deno.test("chaos regression: an old client's commit dropped by another old client's pull whose write's answer was lost is theirs, spared (I12, seed 149100103)", async () => {
  await clean(
    '{"seed":149100103,"clones":5,"kinds":["core","api","api","core","api"],"oldClients":true,"etag":true,"ops":[{"id":37,"kind":"oldpush","clone":3},{"id":8,"kind":"tick","n":5,"pick":324786824},{"id":10,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":11,"kind":"lockfile","clone":0,"set":"@chaos/ext-11"},{"id":13,"kind":"edit","clone":4,"file":3,"how":"push"},{"id":15,"kind":"flaky","call":"delete","count":1,"afterEffect":true},{"id":16,"kind":"crash","clone":3},{"id":41,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":42,"kind":"reshape","clone":0,"file":5,"how":"push"},{"id":45,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":20,"kind":"wait","ms":5000},{"id":38,"kind":"oldpush","clone":4},{"id":43,"kind":"sync","clone":1},{"id":21,"kind":"tick","n":2,"pick":1473928274},{"id":23,"kind":"latency","ms":500},{"id":24,"kind":"tick","n":30,"pick":856547655},{"id":25,"kind":"tick","n":32,"pick":136718617},{"id":47,"kind":"sibling","clone":4,"how":"dies","workMs":15000},{"id":49,"kind":"tick","n":48,"pick":2126576185},{"id":26,"kind":"run","clone":1,"model":1,"data":0,"workMs":0,"parallel":true},{"id":39,"kind":"oldpull","clone":3},{"id":28,"kind":"tick","n":24,"pick":537275659},{"id":29,"kind":"flaky","call":"put","count":2,"afterEffect":true},{"id":30,"kind":"tick","n":2,"pick":1845818108}]}',
    '{"seed":149100103,"clones":5,"kinds":["core","api","api","core","api"],"oldClients":true,"etag":true,"ops":[{"id":37,"kind":"oldpush","clone":3},{"id":8,"kind":"tick","n":5,"pick":324786824},{"id":10,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":11,"kind":"lockfile","clone":0,"set":"@chaos/ext-11"},{"id":13,"kind":"edit","clone":4,"file":3,"how":"push"},{"id":15,"kind":"flaky","call":"delete","count":1,"afterEffect":true},{"id":16,"kind":"crash","clone":3},{"id":41,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":42,"kind":"reshape","clone":0,"file":5,"how":"push"},{"id":45,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":20,"kind":"wait","ms":5000},{"id":38,"kind":"oldpush","clone":4},{"id":43,"kind":"sync","clone":1},{"id":21,"kind":"tick","n":2,"pick":1473928274},{"id":23,"kind":"latency","ms":500},{"id":24,"kind":"tick","n":30,"pick":856547655},{"id":25,"kind":"tick","n":32,"pick":136718617},{"id":47,"kind":"sibling","clone":4,"how":"dies","workMs":15000},{"id":49,"kind":"tick","n":48,"pick":2126576185},{"id":26,"kind":"run","clone":1,"model":1,"data":0,"workMs":0,"parallel":true},{"id":29,"kind":"crash","clone":3,"at":"answer"},{"id":39,"kind":"oldpull","clone":3},{"id":28,"kind":"tick","n":24,"pick":537275659},{"id":30,"kind":"tick","n":2,"pick":1845818108}]}',
  );
});

/**
 * I9 (seed 155100395, `--checked-delete-share 1`, old clients): c0 synced
 * an old client's (c4's) file and deleted it; its delete checked the
 * version it had synced, and another old client's (c1's) edit landed, index
 * and all, before the delete, which removed it. c0's commit then took out
 * the entry naming c1's edit: that entry names no object version (an old
 * client's), so it was never taken for another version than the one
 * deleted. A removal found gone (or by a checked delete) now leaves
 * another client's entry naming other bytes than the copy deleted, as it
 * leaves a Sluice entry of another version (sync/transfer/index_apply.ts).
 */
Deno.test("chaos regression: a checked delete that removed an old client's edit landed in its window never takes out the old client's entry (I9, seed 155100395)", async () => {
  await clean(
    '{"seed":155100395,"clones":5,"kinds":["core-single-phase","api","api","core","api"],"oldClients":true,"checkedDeletes":true,"ops":[{"id":43,"kind":"oldpush","clone":4,"file":2},{"id":5,"kind":"lockfile","clone":2,"set":"@chaos/ext-5"},{"id":6,"kind":"tick","n":29,"pick":391482516},{"id":8,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":9,"kind":"sync","clone":0},{"id":10,"kind":"edit","clone":0,"file":3,"how":"during","pick":228006816},{"id":13,"kind":"delete","clone":0,"file":0,"how":"push"},{"id":44,"kind":"oldpush","clone":1,"file":2},{"id":16,"kind":"tick","n":12,"pick":860981439}]}',
  );
});

/**
 * I1 (seeds 155200758 and 155200206, shrunk; the `structural` move, with
 * `--copy-share 1`): another writer published its own version 1 of a model
 * (a crashed run's leftover, pushed by its clone's later push; an
 * unacknowledged run's, pushed by its clone's bulk push) while a run of
 * that model held its lock and had written its version 1, unpublished. The
 * structural command of the run's process pulled naming no model: it set
 * the run's version aside as a never-synced copy differing from the
 * datastore's and took the other writer's, so the run's flush found
 * nothing of its own to push and acknowledged a version that was not its.
 * A pull naming no model now leaves what is under another held model lock
 * of the process as it is, and the run's flush is refused (version_exists).
 */
Deno.test("chaos regression: a structural command's pull leaves a held run's unpublished version as it is, never acknowledged over another writer's (I1, seeds 155200758, 155200206)", async () => {
  await clean(
    '{"seed":155200758,"clones":4,"kinds":["core-single-phase","core","core-single-phase","core"],"oldClients":true,"skewMs":[100820,0,0,0],"etag":true,"ops":[{"id":2,"kind":"run","clone":1,"model":0,"data":1,"workMs":1000,"parallel":true},{"id":20,"kind":"crash","clone":1,"at":"commit"},{"id":22,"kind":"tick","n":12,"pick":1286300931},{"id":31,"kind":"run","clone":0,"model":0,"data":1,"workMs":15000,"parallel":true,"structural":true},{"id":33,"kind":"tick","n":24,"pick":754045177},{"id":34,"kind":"sync","clone":1}]}',
    '{"seed":155200206,"clones":3,"kinds":["core","core","core"],"checkedDeletes":true,"ops":[{"id":49,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":6,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"parallel":true},{"id":7,"kind":"run","clone":2,"model":0,"data":1,"workMs":15000},{"id":10,"kind":"breakglass","model":0},{"id":11,"kind":"adopt","clone":2,"file":4},{"id":13,"kind":"tick","n":31,"pick":379481716},{"id":14,"kind":"tick","n":23,"pick":336086947},{"id":16,"kind":"crash","clone":1},{"id":18,"kind":"outage","on":true},{"id":19,"kind":"tick","n":9,"pick":848279975},{"id":29,"kind":"breakglass","model":0},{"id":30,"kind":"outage","on":false},{"id":37,"kind":"tick","n":3,"pick":1059344986},{"id":38,"kind":"bulk","clone":2},{"id":40,"kind":"sync","clone":1},{"id":41,"kind":"tick","n":10,"pick":1857742495},{"id":42,"kind":"run","clone":1,"model":0,"data":1,"workMs":1000,"parallel":true,"structural":true},{"id":43,"kind":"tick","n":32,"pick":1593370903}]}',
  );
});

/**
 * I6 (seed 156000258, shrunk): a clone's pull met a conflict on a shared
 * file; its user copied theirs into place by hand and ran resolve --theirs,
 * and deleted the file by hand while the resolution was looking at the
 * datastore. The resolution had looked at the copy (theirs already) before
 * that, then forgot the path and pulled it: the pull, finding nothing here
 * and no synced record, took the datastore's copy, and the deletion was
 * silently undone.
 */
Deno.test("chaos regression: a deletion made while resolve --theirs runs over a copy already theirs is never undone (I6, seed 156000258)", async () => {
  await clean(
    '{"seed":156000258,"clones":2,"absentOnError":true,"ops":[{"id":74,"kind":"foreign","what":"version","model":1,"data":1,"version":1,"marker":true},{"id":3,"kind":"run","clone":1,"model":0,"data":0,"workMs":15000},{"id":7,"kind":"adopt","clone":1,"file":2},{"id":8,"kind":"lockfile","clone":1,"set":"@chaos/ext-8"},{"id":9,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":80,"kind":"tick","n":43,"pick":1304196347},{"id":13,"kind":"sync","clone":0},{"id":14,"kind":"edit","clone":0,"file":2,"how":"during","pick":628541383},{"id":15,"kind":"tick","n":34,"pick":1616491455},{"id":16,"kind":"resolve","clone":0,"pick":5,"how":"theirs"},{"id":18,"kind":"delete","clone":0,"file":0,"how":"during","pick":1893294007}]}',
  );
});

/**
 * I29 (seed 76000058, `--parallel-share 1 --structural-share 1`): c0
 * wrote a file it had never synced and pushed it, the commit landing as
 * the push failed (flaky gets); its user deleted the file, and the push of that
 * deletion failed too. c0's next sync pulled first: the entry named c0's
 * own write at a path it had never synced and no longer held, so the pull
 * fetched it back over the deletion, and a file saved there during that
 * download met it as a conflict with itself. A deletion here of a path
 * never synced, over this cache's own write, is kept for the push
 * (sync/service/pull_plan.ts).
 */
Deno.test("chaos regression: a pull never fetches back this clone's own committed creation deleted here since (I29, seed 76000058)", async () => {
  await clean(
    '{"seed":76000058,"clones":3,"kinds":["api","core-single-phase","api"],"skewMs":[0,109141,0],"ops":[{"id":70,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":71,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":72,"kind":"delete","clone":0,"file":3,"how":"push"},{"id":45,"kind":"tick","n":3,"pick":1088936379},{"id":21,"kind":"adopt","clone":2,"file":3},{"id":22,"kind":"adopt","clone":2,"file":1},{"id":23,"kind":"tick","n":12,"pick":101781189},{"id":28,"kind":"sync","clone":0},{"id":29,"kind":"edit","clone":0,"file":0,"how":"during","pick":81830864}]}',
  );
});

/**
 * I1 (seed 161000015, shrunk): c3's run wrote its version and marked it
 * (its never-synced files recorded as writes of its push) and crashed
 * before the commit, its lock broken. Two processes then opened c3's cache
 * at once (c3 again, and a second process of the tool), and each took the
 * dead process's record of those writes over. c3's next run numbered its
 * version 1 again and published it. The second process's push of
 * everything pending, whose manifest never saw that sync, settled the
 * record it had taken over: the write it found was this cache's own, named
 * by the index, so it withdrew entry and objects of the acknowledged run,
 * though the files were here still (no local deletion to publish).
 */
Deno.test("chaos regression: a push of everything pending never withdraws this cache's committed write of a path still here, whose record it took over (I1, seed 161000015)", async () => {
  await clean(
    '{"seed":161000015,"clones":4,"absentOnError":true,"kinds":["api","api","core","api"],"skewMs":[0,0,83598,0],"ops":[{"id":0,"kind":"breakglass","model":0},{"id":1,"kind":"run","clone":3,"model":0,"data":1,"workMs":0,"streamed":true},{"id":3,"kind":"resolve","clone":0,"pick":3,"how":"merged"},{"id":4,"kind":"tick","n":1,"pick":1151774519},{"id":5,"kind":"tick","n":16,"pick":832409898},{"id":9,"kind":"crash","clone":3},{"id":45,"kind":"sibling","clone":3,"how":"push","workMs":15000},{"id":46,"kind":"run","clone":3,"model":0,"data":1,"workMs":0}]}',
  );
});

/**
 * I1 and I2 (seeds 172000001 and 172000224, `--lockless-share 1`, shrunk;
 * found by the `lockless` move at the code before bbfe32f): a core-driven
 * run held its model lock with version 1 written and marked, not flushed;
 * another tool, honouring no lock, published its own version 1 of that
 * data with its index entries; a second process of the tool over the same
 * cache ran a structural command, whose pull naming no model took the
 * other tool's version and set the run's aside. The run's flush then found
 * nothing of its own to push and acknowledged version 1 (I1); with the
 * run's lock broken meanwhile, its refusal's erasure left its bytes in the
 * cache, at the path and set aside (I2). A pull now leaves as it is what
 * other running processes over the same cache marked under data/, and the
 * run's flush is refused with version_exists.
 */
Deno.test("chaos regression: a structural command's pull in another process leaves a run's unpublished version as it is beside another tool's version of that number published with no lock (I1, I2, seeds 172000001, 172000224)", async () => {
  await clean(
    '{"seed":172000001,"clones":2,"kinds":["core","core"],"skewMs":[0,117132],"ops":[{"id":20,"kind":"run","clone":1,"model":0,"data":0,"workMs":15000},{"id":39,"kind":"lockless","run":20,"pick":857984399,"indexed":true},{"id":40,"kind":"sibling","clone":1,"how":"structural","workMs":3000}]}',
    '{"seed":172000224,"clones":3,"absentOnError":true,"kinds":["api","api","core"],"indexFirst":true,"ops":[{"id":13,"kind":"run","clone":2,"model":0,"data":0,"workMs":15000},{"id":23,"kind":"lockless","run":13,"pick":735073440,"indexed":true,"marker":true},{"id":24,"kind":"sibling","clone":2,"how":"structural","workMs":500},{"id":14,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I18 (seed 172000164, `--lockless-share 1 --shared-cache-share 1
 * --structural-share 1`, shrunk; the checker's): another tool's own file,
 * named by the first index (discovered, no hash), met a second process's
 * pull over a clone's cache as a local copy never synced (the clone's own
 * process had pulled it), and the clone's next pull recorded a conflict
 * there; its user resolved it `--merged`, which left the merged copy in
 * place, the conflict open. I18 held every clone to hold the tool's bytes
 * there, its user's change of the path included; a clone whose user
 * changed the path is now spared (its copy is I6's).
 */
Deno.test("chaos regression: another tool's own file changed by a clone's user is that user's choice, not a loss of the tool's file (I18, seed 172000164)", async () => {
  await clean(
    '{"seed":172000164,"clones":2,"kinds":["core-single-phase","api"],"indexFirst":true,"ops":[{"id":20,"kind":"foreign","what":"file"},{"id":21,"kind":"foreign","what":"shared","file":2},{"id":22,"kind":"foreign","what":"version","model":0,"data":1,"version":2},{"id":23,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":24,"kind":"sibling","clone":0,"how":"structural","workMs":20000},{"id":25,"kind":"sync","clone":0},{"id":26,"kind":"tick","n":21,"pick":553216310},{"id":15,"kind":"resolve","clone":0,"pick":7,"how":"merged"}]}',
  );
});

/**
 * I1 (seeds 172300261, shrunk, and 172100033, `--lockless-share 1
 * --shared-cache-share 1 --structural-share 1`): a second process
 * over c0's cache started a structural command (the global lock, a pull
 * naming no model), which looked at what other processes had marked once,
 * at its start, finding nothing; c0's run then marked and wrote version 1
 * under its model lock, and another tool published its own version 1 with
 * its index entries, honouring no lock, while that pull was under way. The
 * pull set the run's version aside and took the other's, and the run's
 * flush, finding nothing of its own to push, acknowledged it. The unit test
 * in `packages/extension/pull_locks_test.ts` ("…marked and written while
 * the pull is under way…") fails the same way. Fixed: the pull reads the
 * other processes' marks again after its index read, leaving what lies
 * under a directory they marked as it is, and once more for a file changed
 * while it fetched it (`sync/service/pull_elsewhere.ts`).
 */
Deno.test("chaos regression: a structural command's pull in another process leaves as it is a run's version marked and written while that pull is under way (I1, seed 172300261)", async () => {
  await clean(
    '{"seed":172300261,"clones":2,"v2":true,"kinds":["core","api"],"skewMs":[116791,0],"ops":[{"id":25,"kind":"sibling","clone":0,"how":"structural","workMs":2000},{"id":26,"kind":"run","clone":0,"model":1,"data":0,"workMs":30000},{"id":29,"kind":"lockless","run":26,"pick":822292590,"indexed":true,"marker":true}]}',
  );
});

/**
 * I11 (seed 168300297, `--shared-cache-share 1 --structural-share 1
 * --reshape-share 1`, shrunk): a second process over c0's cache ran a
 * structural command, whose pull found no index, named another tool's
 * `notes/shared-1.md` in the first one and fetched it into the cache; c0's
 * own process, open since before that pull, then had the file replaced by
 * a directory of its name and pushed it by name. That process planned over
 * the synced records it had read at its start, so it took the file for one
 * never synced: it uploaded the directory's file and deleted nothing, and
 * its commit left the upload out beside the file the index named
 * (`path_blocked`, telling of a file published by another writer since this
 * cache last pulled). Every later push held it back, and the upload stayed
 * on the store, named by no index. Each push, pull and resolution now takes
 * in first the synced records other processes over the cache wrote since
 * (`SyncState.refreshSynced`): the push deletes the file and publishes the
 * directory's (`sync/service/synced_elsewhere_test.ts`).
 */
Deno.test("chaos regression: a file another process over the cache pulled, replaced by a directory and pushed by name from the clone's own process, is deleted and the directory published (I11, seed 168300297)", async () => {
  await clean(
    '{"seed":168300297,"clones":2,"kinds":["core","api"],"ops":[{"id":73,"kind":"foreign","what":"shared","file":4},{"id":78,"kind":"sibling","clone":0,"how":"structural","workMs":2000},{"id":52,"kind":"tick","n":18,"pick":2124521859},{"id":84,"kind":"reshape","clone":0,"file":4,"how":"push"}]}',
  );
});

/**
 * I30 (seed 180000000, `--torn-log-share 1`, shrunk to 4 operations): c0
 * pushed an edit of `config/settings-2.yaml`; c2 synced, and as its pull
 * fetched the file another process over c2's cache, its disk full, left
 * part of a line it wrote ahead at the end of the synced manifest's log.
 * The pull wrote its own record ahead right after that fragment, so the log
 * had an unreadable line before its last, and the process started on the
 * cache for its final sync found the manifest unreadable and began with no
 * synced record. No line is now written ahead after a log whose last line
 * is cut off (the save writes a base instead: 669f615,
 * `sync/service/synced_manifest_test.ts`).
 */
Deno.test("chaos regression: a record written ahead after another process's torn line in the manifest log leaves the manifest readable to the next process (I30, seed 180000000)", async () => {
  await clean(
    '{"seed":180000000,"clones":3,"v2":true,"kinds":["api","api","core"],"oldClients":true,"ops":[{"id":37,"kind":"edit","clone":0,"file":2,"how":"push"},{"id":38,"kind":"tick","n":2,"pick":1568319241},{"id":39,"kind":"sync","clone":2},{"id":40,"kind":"torn","clone":2,"file":0,"pick":1862375211}]}',
  );
});

/**
 * I6 and I30 (seed 180000020, `--torn-log-share 1`, shrunk to 7
 * operations): c0's user wrote `config/settings-2.yaml` and synced
 * (publishing it), then deleted it by hand; c1 pushed an edit of another
 * file, and as c0's next sync fetched it another process over c0's cache
 * left part of a line at the end of the synced manifest's log, after which
 * the pull wrote its own record. The process started on the cache for its
 * final sync found the manifest unreadable, took every file for one never
 * synced, and its pull fetched the deleted file again: the user's deletion
 * undone. Fixed as the one above (669f615).
 */
Deno.test("chaos regression: a deletion by hand stays deleted after another process's torn line in the manifest log (I6, I30, seed 180000020)", async () => {
  await clean(
    '{"seed":180000020,"clones":3,"kinds":["core-single-phase","api","api"],"ops":[{"id":17,"kind":"edit","clone":0,"file":2,"how":"hand"},{"id":18,"kind":"sync","clone":0},{"id":13,"kind":"delete","clone":0,"file":2,"how":"during","pick":893410854},{"id":20,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":21,"kind":"tick","n":1,"pick":1637462418},{"id":22,"kind":"sync","clone":0},{"id":23,"kind":"torn","clone":0,"file":1,"pick":2080629098}]}',
  );
});

/**
 * I30 (seed 181900001, `--damaged-log-share 1`, shrunk to 4 operations): c1
 * pushed an edit of `config/settings-1.yaml`; c0 synced, writing the record
 * of the file it fetched ahead to its synced manifest's log, and that line,
 * not the log's last, was then damaged on disk (garbage bytes, its newline
 * kept). The process started afresh on c0's cache found the whole manifest
 * unreadable and began with no synced record. A damaged line in the middle
 * of the log is now passed over, its record alone lost (88cee24,
 * `sync/service/manifest_damaged_test.ts`).
 */
Deno.test("chaos regression: a damaged line in the middle of the manifest log leaves the manifest readable to the next process (I30, seed 181900001)", async () => {
  await clean(
    '{"seed":181900001,"clones":3,"v2":true,"kinds":["api","api","core"],"skewMs":[-90103,0,0],"ops":[{"id":78,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":79,"kind":"tick","n":2,"pick":1446775269},{"id":82,"kind":"sync","clone":0},{"id":84,"kind":"damaged","clone":0,"file":1,"pick":1317921513}]}',
  );
});

/**
 * I6 and I30 (seed 181900024, `--damaged-log-share 1`, shrunk by hand to 9
 * operations): c0 pushed an edit of `config/settings-0.yaml` and c1 one of
 * `notes/shared-0.md`; c1 synced (its log then held the records of both),
 * and its user deleted `notes/shared-0.md` by hand. The log's first line
 * (the record of `config/settings-0.yaml`) was damaged on disk, and the
 * process started afresh on c1's cache found the whole manifest unreadable,
 * took every file for one never synced, and its sync fetched the deleted
 * file again: the user's deletion undone, though its record was on another
 * line. Fixed as the one above (88cee24): only the damaged line's record is
 * lost, and the deletion is published.
 */
Deno.test("chaos regression: a deletion by hand stays deleted after a damaged line in the middle of the manifest log holding another file's record (I6, I30, seed 181900024)", async () => {
  await clean(
    '{"seed":181900024,"clones":4,"v2":true,"kinds":["core-single-phase","api","core","api"],"oldClients":true,"etag":true,"ops":[{"id":32,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":33,"kind":"tick","n":53,"pick":766818365},{"id":34,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":35,"kind":"tick","n":37,"pick":272475439},{"id":36,"kind":"sync","clone":1},{"id":37,"kind":"tick","n":49,"pick":1079316979},{"id":38,"kind":"delete","clone":1,"file":3,"how":"hand"},{"id":39,"kind":"damaged","clone":1,"file":3,"pick":1521521013},{"id":40,"kind":"sync","clone":1}]}',
  );
});

/**
 * The checker's (seed 174100236, `--reshape-share 1 --shared-cache-share 1
 * --structural-share 1`, shrunk to 8 operations): c2 replaced
 * `notes/shared-2.lock` by a directory and pushed, then made it a file again
 * by hand; c1 pulled the directory and edited a file in it. c2's "merged"
 * resolution of that file was recorded as its user's edit before its write,
 * which the file standing where the directory must be refused
 * (`unsafe_path`, nothing written): I6 then held the merge lost. A merge
 * where a file stands above the path is now no merge (mine, as it is), as
 * a directory at the path is not.
 */
Deno.test("chaos regression: a merge where a file stands in place of the conflict's directory is no edit of the user's (I6, seed 174100236)", async () => {
  await clean(
    '{"seed":174100236,"clones":3,"v2":true,"kinds":["core","api","api"],"indexFirst":true,"ops":[{"id":26,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":27,"kind":"reshape","clone":2,"file":5,"how":"push"},{"id":29,"kind":"reshape","clone":2,"file":5,"how":"hand"},{"id":9,"kind":"tick","n":10,"pick":368211617},{"id":24,"kind":"sync","clone":1},{"id":15,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"same":true},{"id":38,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":20,"kind":"resolve","clone":2,"pick":0,"how":"merged"}]}',
  );
});

/**
 * I9 (seed 174100154, `--reshape-share 1 --shared-cache-share 1
 * --structural-share 1`, shrunk, then by hand): c0 deleted
 * config/settings-0.yaml, which c1 had synced; c2, whose first commit of
 * the path had lost its answer (and whose object another tool deleted
 * since), pushed it again between c0's delete and c0's index commit. c1,
 * editing the path with `--adopt-uncommitted`, met c2's upload while the
 * index still named the version it synced, and its adoption's commit,
 * landing after c0's, named c2's object again over c0's deletion: the
 * adoption's commit checked only that the store still held the object.
 * Fixed in `sync/transfer/adopt.ts`: an entry of the adoption's base gone
 * by its commit (a deletion committed since) is never named again
 * (`sync/service/adopt_over_deletion_test.ts`).
 */
Deno.test("chaos regression: an adoption crossed by a peer's committed deletion never names the path again (I9, seed 174100154)", async () => {
  await clean(
    '{"seed":174100154,"clones":5,"kinds":["core-single-phase","api","core","core-single-phase","api"],"skewMs":[0,59105,0,0,0],"ops":[{"id":7,"kind":"config","clone":0,"file":2},{"id":10,"kind":"crash","clone":2,"at":"answer"},{"id":51,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":52,"kind":"tick","n":13,"pick":1598665622},{"id":53,"kind":"vanish","file":0},{"id":54,"kind":"sync","clone":0},{"id":55,"kind":"tick","n":20,"pick":1516609847},{"id":56,"kind":"wait","ms":80000},{"id":58,"kind":"wait","ms":80000},{"id":60,"kind":"wait","ms":80000},{"id":84,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":64,"kind":"wait","ms":80000},{"id":66,"kind":"wait","ms":80000},{"id":67,"kind":"tick","n":20,"pick":1177185410},{"id":68,"kind":"wait","ms":80000},{"id":70,"kind":"wait","ms":80000},{"id":72,"kind":"wait","ms":80000},{"id":74,"kind":"wait","ms":80000},{"id":76,"kind":"wait","ms":80000},{"id":78,"kind":"wait","ms":80000},{"id":79,"kind":"sync","clone":0},{"id":11,"kind":"tick","n":25,"pick":189418152},{"id":12,"kind":"adopt","clone":0,"file":0},{"id":15,"kind":"resolve","clone":2,"pick":0,"how":"mine"},{"id":18,"kind":"tick","n":20,"pick":1936177928},{"id":23,"kind":"crash","clone":3,"at":"answer"},{"id":81,"kind":"sync","clone":1},{"id":82,"kind":"tick","n":36,"pick":1919997740},{"id":30,"kind":"adopt","clone":4,"file":2},{"id":31,"kind":"delete","clone":2,"file":2,"how":"push"},{"id":32,"kind":"adopt","clone":3,"file":3},{"id":33,"kind":"adopt","clone":1,"file":0},{"id":37,"kind":"delete","clone":0,"file":5,"how":"push"},{"id":41,"kind":"tick","n":20,"pick":155137027}]}',
  );
});

/**
 * The checker's (seed 177300182, `--copy-share 1 --shared-cache-share 1`,
 * shrunk to 8 operations): c0's `--merged` of `notes/shared-2.lock`
 * uploaded the merge over theirs; as its commit looked at the path, c0's
 * user deleted the merged file by hand, and an outage cut the commit off.
 * The conflict, put back, named the copy at its path, where the user had
 * removed it: a later `--mine` is refused there (`not_found`, naming this
 * cache's own upload) and `--theirs` takes that upload (seed 80600338).
 * I22 held the library to a copy it had at the resolution's start; a copy
 * the clone's own user removed while the resolution ran is no longer the
 * library's to keep.
 */
Deno.test("chaos regression: a merge deleted by hand while its cut-off resolution ran is no copy the conflict lost (I22, seed 177300182)", async () => {
  await clean(
    '{"seed":177300182,"clones":3,"absentOnError":true,"kinds":["core","core-single-phase","api"],"skewMs":[0,0,69269],"checkedDeletes":true,"ops":[{"id":55,"kind":"foreign","what":"shared","file":5},{"id":56,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":58,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":0,"kind":"tick","n":25,"pick":511137858},{"id":1,"kind":"resolve","clone":0,"pick":3,"how":"merged"},{"id":5,"kind":"delete","clone":0,"file":1,"how":"during","pick":2061571794},{"id":6,"kind":"outage","on":true},{"id":40,"kind":"tick","n":2,"pick":1922657059}]}',
  );
});

/**
 * I11 (seed 178300230, `--copy-share 1 --shared-cache-share 1`, shrunk to 7
 * operations): c0's run lost its version 1 to another tool's, published with
 * no lock and no index entry; its next run wrote version 2 and its `latest`
 * marker, then crashed before the index update. The user moved the marker
 * one back, onto the other tool's version 1, which no index lists:
 * marker-after-version held it, and the push, planning the marker, made no
 * check of the marker the crashed run had written, which stayed on the
 * store named by no index. A held marker now takes that upload back
 * (`middleware/marker_after_version.ts`).
 */
Deno.test("chaos regression: a marker held back for naming an unlisted version leaves no upload of it a crashed run wrote (I11, seed 178300230)", async () => {
  await clean(
    '{"seed":178300230,"clones":2,"v2":true,"kinds":["core","core"],"checkedDeletes":true,"ops":[{"id":19,"kind":"run","clone":0,"model":1,"data":0,"workMs":0,"streamed":true},{"id":62,"kind":"lockless","run":19,"pick":284662223,"indexed":false},{"id":20,"kind":"crash","clone":0,"at":"commit"},{"id":50,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":51,"kind":"tick","n":13,"pick":1460223636},{"id":36,"kind":"tick","n":20,"pick":839758877},{"id":40,"kind":"marker","clone":0,"model":1,"data":0,"back":true,"how":"push"}]}',
  );
});

/**
 * I11 (seed 178300155, `--copy-share 1 --shared-cache-share 1`, shrunk to
 * 14 operations; failing at 338df09): c2's edit of
 * `notes/shared-1.md` committed, its answer lost (a crash); c2's user then
 * replaced the file by a directory of its name and pushed that name. The
 * push took out the entry naming c2's own write, then an outage cut it off
 * before the object's delete; c2's next sync pulled, found the entry gone
 * and forgot the file as synced, and its push of the directory checked
 * nothing at the file's name: the upload stayed, named by no index, for
 * good. Fixed in `sync/service/push_delete.ts`: the path is recorded as
 * written before the entry goes, and the push of the directory checks it
 * (`sync/service/own_update_unanswered_directory_test.ts`).
 */
Deno.test("chaos regression: an own committed write's delete cut off after its entry went leaves no upload when a directory replaced the file (I11, seed 178300155)", async () => {
  await clean(
    '{"seed":178300155,"clones":3,"kinds":["core-single-phase","api","api"],"checkedDeletes":true,"ops":[{"id":12,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":16,"kind":"tick","n":8,"pick":1704333861},{"id":19,"kind":"flaky","call":"get","count":3,"afterEffect":false},{"id":21,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":70,"kind":"crash","clone":2,"at":"answer","queued":true},{"id":71,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":73,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":23,"kind":"breakglass","model":0},{"id":25,"kind":"breakglass","model":0},{"id":26,"kind":"adopt","clone":1,"file":4},{"id":27,"kind":"tick","n":36,"pick":277069222},{"id":29,"kind":"outage","on":true},{"id":59,"kind":"tick","n":5,"pick":1143713742},{"id":61,"kind":"sync","clone":2}]}',
  );
});

/**
 * I7 and I8 (seed 182700371, `--torn-log-share 1 --shared-cache-share 1`,
 * shrunk to 15 operations; failing at 76aab93 and 84695fc too): c3's new
 * `notes/shared-0.md` committed, its answer lost (a crash); c3's next
 * process replaced the file by a directory of its name and pushed that
 * name. The push took out the entry naming c3's own write, and before the
 * object's delete c2, which had synced that version, pulled: it found the
 * entry gone while the store still held the version and named it again, as
 * an entry another client dropped. c3 then deleted the object and crashed
 * before it read the index again: the index named an object the store no
 * longer held, and c3's next push, with no record of that version, never
 * took it out. Fixed in `sync/service/push_delete.ts`: the own write is
 * recorded as synced before its entry goes, so a cut-off after the delete
 * leaves a deletion the next push finishes
 * (`sync/service/own_write_named_again_test.ts`).
 */
Deno.test("chaos regression: an own committed write named again by a peer before its delete, the process crashed after the delete, leaves no entry naming nothing (I7, I8, seed 182700371)", async () => {
  await clean(
    '{"seed":182700371,"clones":4,"kinds":["core","api","api","api"],"indexFirst":true,"checkedDeletes":true,"ops":[{"id":76,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":77,"kind":"tick","n":11,"pick":1978624841},{"id":72,"kind":"crash","clone":3,"at":"answer","queued":true},{"id":73,"kind":"edit","clone":3,"file":3,"how":"push"},{"id":74,"kind":"crash","clone":3,"at":"commit","queued":true},{"id":75,"kind":"reshape","clone":3,"file":3,"how":"push"},{"id":18,"kind":"breakglass","model":0},{"id":21,"kind":"run","clone":2,"model":0,"data":1,"workMs":1000},{"id":33,"kind":"tick","n":12,"pick":116231526},{"id":62,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":51,"kind":"wait","ms":625},{"id":60,"kind":"sync","clone":2},{"id":30,"kind":"sync","clone":2},{"id":24,"kind":"breakglass","model":0},{"id":68,"kind":"tick","n":34,"pick":1025040451}]}',
  );
});

/**
 * I1 (seed 184000232, `--lockless-share 1 --shared-cache-share 1
 * --structural-share 1`, shrunk to 13 operations; failing at 84695fc too):
 * c0's core run #27 held model m1's lock, and its parallel step held the
 * lock of `chaos/other/par-of-op27` with version 1 written, over locks that
 * report a failed read as absent. An operator broke m1's lock and c1's run
 * took it; c0's structural command then pushed naming no model, and its
 * reads of both held locks failed (a flaky store), so it found both lost:
 * fenced by both, it was refused for m1's and its refusal erased the
 * parallel step's version too. That step's flush then found its own lock
 * still naming it, pushed nothing of the erased version and reported
 * success. Fixed in `packages/extension/held_locks.ts`: each lock a
 * refused push was fenced by stays lost to its run, whose flush is refused
 * (`packages/extension/absent_lock_read_test.ts`).
 */
Deno.test("chaos regression: a parallel step whose held lock a refused push naming no model read as absent is refused, never acknowledged with its version erased (I1, seed 184000232)", async () => {
  await clean(
    '{"seed":184000232,"clones":2,"absentOnError":true,"kinds":["core","core"],"skewMs":[0,-47812],"ops":[{"id":69,"kind":"sync","clone":0},{"id":18,"kind":"run","clone":0,"model":1,"data":0,"workMs":5000,"parallel":true},{"id":21,"kind":"tick","n":38,"pick":2084664997},{"id":22,"kind":"lockfile","clone":1,"set":"@chaos/ext-22"},{"id":25,"kind":"lockfile","clone":1,"set":"@chaos/ext-25"},{"id":26,"kind":"run","clone":1,"model":1,"data":1,"workMs":45000},{"id":27,"kind":"run","clone":0,"model":1,"data":1,"workMs":45000,"parallel":true,"structural":true},{"id":81,"kind":"lockless","run":27,"pick":426028910,"indexed":false},{"id":30,"kind":"tick","n":6,"pick":1847929391},{"id":31,"kind":"breakglass","model":1},{"id":32,"kind":"tick","n":21,"pick":963072711},{"id":33,"kind":"flaky","call":"get","count":3,"afterEffect":true},{"id":34,"kind":"tick","n":2,"pick":886678216}]}',
  );
});

/**
 * I1, I27 (seed 185100234, `--reshape-share 1 --shared-cache-share 1
 * --structural-share 1`, old clients, shrunk to 30 operations; failing at
 * 84695fc too): c3's run #5 uploaded version 1 of m0's `log` (same output as
 * every run of it writes) and lost its lock to a breakglass; an outage cut
 * off its erasure, left pending. c0's run #11 wrote the same bytes: its
 * creates met c3's objects and its commit named them, acknowledged. c3's run
 * #16 wrote version 1 again with other bytes: its creates were refused
 * (`version_exists`, the objects carrying c3's writer id) and its copies set
 * aside, but the record of that push's writes stayed, so c3's next push took
 * the absent paths for its own stranded uploads, took their entries out and
 * deleted c0's published version. Fixed in `middleware/lost_version.ts`: a
 * lost version's files the index names at the object the store holds lose
 * that record (`sync/service/own_upload_published_by_peer_test.ts`).
 */
Deno.test("chaos regression: a peer's version committed over this cache's uncommitted upload of the same bytes is not deleted by this cache's push after its rewrite of it was refused (I1, I27, seed 185100234)", async () => {
  await clean(
    '{"seed":185100234,"clones":4,"oldClients":true,"indexFirst":true,"ops":[{"id":47,"kind":"oldpush","clone":3},{"id":0,"kind":"delete","clone":3,"file":3,"how":"dir"},{"id":44,"kind":"oldpush","clone":0,"file":1},{"id":1,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":2,"kind":"tick","n":1,"pick":1607134917},{"id":3,"kind":"bulk","clone":0},{"id":5,"kind":"run","clone":3,"model":0,"data":1,"workMs":5000,"same":true},{"id":6,"kind":"run","clone":1,"model":0,"data":1,"workMs":45000},{"id":7,"kind":"run","clone":3,"model":0,"data":0,"workMs":15000},{"id":54,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":61,"kind":"sibling","clone":0,"how":"dies","workMs":5000},{"id":63,"kind":"tick","n":55,"pick":2062401764},{"id":8,"kind":"tick","n":16,"pick":2128412169},{"id":10,"kind":"breakglass","model":0},{"id":11,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":13,"kind":"breakglass","model":0},{"id":15,"kind":"run","clone":2,"model":0,"data":0,"workMs":15000},{"id":16,"kind":"run","clone":3,"model":0,"data":1,"workMs":45000},{"id":17,"kind":"tick","n":34,"pick":501198674},{"id":18,"kind":"tick","n":25,"pick":1329837200},{"id":19,"kind":"tick","n":25,"pick":339149870},{"id":20,"kind":"breakglass","model":0},{"id":24,"kind":"tick","n":12,"pick":1218941812},{"id":27,"kind":"outage","on":true},{"id":28,"kind":"tick","n":6,"pick":1731400450},{"id":29,"kind":"outage","on":false},{"id":31,"kind":"breakglass","model":0},{"id":35,"kind":"tick","n":4,"pick":911374776},{"id":36,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":60,"kind":"tick","n":73,"pick":1561930248}]}',
  );
});

/**
 * I11 (seed 185700242, `--torn-log-share 1 --shared-cache-share 1`, shrunk
 * to 47 operations; failing at d503f79 too): c1's run of m0's `log` uploaded
 * version 1's `metadata.yaml`, then met another writer's unindexed `raw` of
 * that version and waited; the take-back of its own `metadata.yaml` upload
 * failed (an outage), yet its commit counted the path handled, clearing its
 * mark and its record of the write, so no later push named or deleted the
 * upload. Fixed in `sync/service/push.ts`: a withdrawn path is not handled by
 * the commit (`sync/service/version_waits_withdraw_test.ts`).
 */
Deno.test("chaos regression: a waiting version's own upload whose take-back failed is published or deleted by a later push, never left unnamed (I11, seed 185700242)", async () => {
  await clean(
    '{"seed":185700242,"clones":5,"kinds":["api","api","api","api","core"],"indexFirst":true,"ops":[{"id":0,"kind":"config","clone":1,"file":1},{"id":1,"kind":"bulk","clone":2},{"id":2,"kind":"run","clone":0,"model":1,"data":0,"workMs":1000},{"id":3,"kind":"config","clone":1,"file":2},{"id":4,"kind":"run","clone":0,"model":0,"data":1,"workMs":15000},{"id":5,"kind":"tick","n":7,"pick":729248527},{"id":6,"kind":"breakglass","model":1},{"id":7,"kind":"breakglass","model":0},{"id":8,"kind":"run","clone":1,"model":0,"data":1,"workMs":15000,"same":true},{"id":9,"kind":"run","clone":3,"model":0,"data":0,"workMs":15000},{"id":10,"kind":"config","clone":3,"file":2},{"id":11,"kind":"tick","n":6,"pick":1839055778},{"id":12,"kind":"bulk","clone":4},{"id":46,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":47,"kind":"tick","n":34,"pick":545369006},{"id":48,"kind":"sync","clone":2},{"id":49,"kind":"torn","clone":2,"file":4,"pick":160234302},{"id":50,"kind":"tick","n":38,"pick":423269721},{"id":51,"kind":"crash","clone":2},{"id":14,"kind":"breakglass","model":0},{"id":15,"kind":"delete","clone":4,"file":1,"how":"dir"},{"id":43,"kind":"sibling","clone":0,"how":"push","workMs":15000},{"id":44,"kind":"sync","clone":0},{"id":45,"kind":"tick","n":20,"pick":1114137503},{"id":18,"kind":"latency","ms":500},{"id":19,"kind":"marker","clone":0,"model":0,"data":1,"back":false,"how":"push"},{"id":20,"kind":"flaky","call":"get","count":2,"afterEffect":true},{"id":21,"kind":"lockfile","clone":0,"set":"@chaos/ext-21"},{"id":22,"kind":"wait","ms":5000},{"id":23,"kind":"adopt","clone":4,"file":5},{"id":24,"kind":"sync","clone":0},{"id":25,"kind":"tick","n":39,"pick":1459085341},{"id":26,"kind":"breakglass","model":0},{"id":27,"kind":"run","clone":4,"model":0,"data":0,"workMs":5000,"same":true},{"id":28,"kind":"breakglass","model":1},{"id":29,"kind":"tick","n":36,"pick":927516596},{"id":30,"kind":"tick","n":31,"pick":921097302},{"id":31,"kind":"stall","clone":4,"on":true},{"id":32,"kind":"breakglass","model":0},{"id":33,"kind":"stall","clone":4,"on":false},{"id":34,"kind":"run","clone":3,"model":0,"data":0,"workMs":0,"same":true},{"id":35,"kind":"tick","n":24,"pick":1323409161},{"id":36,"kind":"run","clone":0,"model":0,"data":1,"workMs":45000},{"id":37,"kind":"outage","on":true},{"id":38,"kind":"sync","clone":2},{"id":41,"kind":"sync","clone":4},{"id":42,"kind":"tick","n":21,"pick":969792940}]}',
  );
});

/**
 * I13 (seed 188200467, `--copy-share`, v2 index): c2's run wrote m0's `out`
 * version 2 and crashed before its commit; its cache was then replaced by a
 * copy of c0's, so nothing will ever commit or erase that upload. c1's
 * same-output run of version 2 met it and waited (`push_waiting_uncommitted`:
 * its files and its `latest` marker left dirty, and said so), and c1's final
 * pull met c3's marker as a conflict. `resolve --mine` of the marker is held
 * back ahead of its version, rightly, with the way out: push the version,
 * whose warning then names `push --adopt-uncommitted` of it once that upload
 * is 15 minutes old; the checker now takes that way as a user does.
 */
Deno.test("chaos regression: a marker held back ahead of a version waiting on a writer gone for good resolves once that version is adopted (I13, seed 188200467)", async () => {
  await clean(
    '{"seed":188200467,"clones":4,"v2":true,"indexFirst":true,"ops":[{"id":0,"kind":"run","clone":3,"model":0,"data":0,"workMs":0},{"id":2,"kind":"flaky","call":"delete","count":2,"afterEffect":false},{"id":4,"kind":"crash","clone":2,"at":"commit"},{"id":6,"kind":"crash","clone":3,"at":"commit"},{"id":7,"kind":"tick","n":10,"pick":1644917583},{"id":8,"kind":"flaky","call":"put","count":3,"afterEffect":false},{"id":9,"kind":"edit","clone":3,"file":5,"how":"push"},{"id":10,"kind":"sync","clone":1},{"id":11,"kind":"adopt","clone":1,"file":4},{"id":12,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"streamed":true},{"id":13,"kind":"breakglass","model":0},{"id":14,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":15,"kind":"flaky","call":"put","count":2,"afterEffect":true},{"id":18,"kind":"tick","n":36,"pick":108943270},{"id":19,"kind":"wait","ms":31000},{"id":20,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":21,"kind":"tick","n":4,"pick":1584072783},{"id":40,"kind":"tick","n":20,"pick":1998721241},{"id":41,"kind":"wait","ms":40000},{"id":59,"kind":"copy","clone":2,"from":0}]}',
  );
});

/**
 * I11, I12 (seed 190300201, versions are ETags, old clients): c3's run of
 * m0's `out` was refused (its lock broken); its erasure looked at its
 * upload of version 1's `metadata.yaml` (its own writer id), then an old
 * client wrote the same bytes there with its index entry (the same ETag),
 * and the erasure's conditional delete took that write. An old client's
 * pull then met the object gone and wrote back the index it had read
 * without the entry (no lock, their design), while the erasure, which had
 * read the index naming it, put the bytes back. The store holds the old
 * client's bytes unnamed: the old client's pull's loss, spared by the
 * checker while the store holds those bytes (`GroundTruth.oldPullMissed`).
 */
Deno.test("chaos regression: an old client's write taken by an erasure and put back, dropped by an old client's pull in between, is theirs to lose (I11, I12, seed 190300201)", async () => {
  await clean(
    '{"seed":190300201,"clones":4,"absentOnError":true,"kinds":["core","core-single-phase","api","api"],"oldClients":true,"etag":true,"ops":[{"id":44,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":12,"kind":"tick","n":15,"pick":1547356576},{"id":19,"kind":"run","clone":3,"model":0,"data":0,"workMs":0,"same":true},{"id":20,"kind":"breakglass","model":0},{"id":35,"kind":"oldsame","clone":2,"run":19,"pick":248976092},{"id":34,"kind":"oldpull","clone":0}]}',
  );
});

/**
 * I6 (seed 189700364, a false report; failing at 76aab93, 84695fc and
 * d503f79 too): c1 deleted notes/shared-0.md, its deletion committed, then
 * adopted a new file at that path: its upload landed before its commit.
 * c3's core-driven sync read the index without the path, and its user
 * deleted the file by hand while that pull looked at the store for the
 * object (found at another version: deleted on the datastore), so both
 * sides agreed it was deleted. c1's commit of the new file came after, and
 * c3's final pull fetched it: a creation published after the deletion, not
 * the deletion undone. The checker counted the deletion as in effect only
 * where the store held no object at the path when it was made; the index
 * naming no entry there, while the store held other bytes than the clone
 * synced (a peer's upload whose commit had not come), counts too.
 */
Deno.test("chaos regression: a deletion made while the index named no entry, a peer's new upload there not yet committed, is not undone by that creation (I6, seed 189700364)", async () => {
  await clean(
    '{"seed":189700364,"clones":5,"kinds":["core","core-single-phase","api","core","api"],"ops":[{"id":31,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":39,"kind":"sync","clone":3},{"id":9,"kind":"tick","n":11,"pick":1064660884},{"id":30,"kind":"migrate","clone":1},{"id":28,"kind":"sync","clone":1},{"id":29,"kind":"delete","clone":1,"file":3,"how":"push"},{"id":27,"kind":"tick","n":15,"pick":117210236},{"id":19,"kind":"adopt","clone":1,"file":3},{"id":22,"kind":"sync","clone":3},{"id":23,"kind":"delete","clone":3,"file":3,"how":"during","pick":257777102}]}',
  );
});

/**
 * I25 (seed 220000131, `--own-withdrawn-share 1 --reused-lock-share 0`, cut
 * to its own-withdrawn block and the mark; the checker's): c1's push of its
 * deletion of a file whose commit answer it lost took the entry out, then
 * met c0's edit of the file at the object's deletion, and kept the
 * deletion as a conflict (`delete_skipped`). c1's later mark of the path,
 * with nothing there and nothing synced, was taken for a write that never
 * came, and I25 blamed it for that conflict's deletion, its user's. A mark
 * where a conflict records a deletion already is no longer such a mark.
 */
Deno.test("chaos regression: a deletion kept as a conflict (delete_skipped) is its user's, not a later mark's with nothing there (I25, seed 220000131)", async () => {
  await clean(
    '{"seed":220000131,"clones":2,"kinds":["api","core-single-phase"],"ops":[{"id":27,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":28,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":29,"kind":"tick","n":36,"pick":590735144},{"id":30,"kind":"sync","clone":0},{"id":31,"kind":"tick","n":37,"pick":1226943661},{"id":32,"kind":"stall","clone":1,"on":true,"at":"withdraw"},{"id":33,"kind":"delete","clone":1,"file":3,"how":"push"},{"id":34,"kind":"tick","n":25,"pick":625607945},{"id":35,"kind":"sync","clone":0},{"id":36,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":37,"kind":"tick","n":21,"pick":266772663},{"id":38,"kind":"stall","clone":1,"on":false},{"id":39,"kind":"tick","n":21,"pick":1418587769},{"id":26,"kind":"unwritten","clone":1,"file":3}]}',
  );
});

/**
 * I4, the checker's (seed 191100123, shrunk): c1's core run made about 80
 * store calls while four other clones' commands and a deleted file's
 * 16 minutes of `tick 20` / `wait 80s` steps went on. It never slept on
 * its own clock: each of its 920 s of fake time passed while one of its
 * store calls sat parked, held back by the scheduler through the waits and
 * the other units' turns, and the budget counted that time as the run's.
 * Released in the final drain, the run ended 8 calls later. Time a call is
 * held back is no longer a command's own (the latency of its own calls and
 * its own waits still are).
 */
Deno.test("chaos regression: a run whose store calls the scheduler held back through a deleted file's waits is not a hang (I4, seed 191100123)", async () => {
  await clean(
    '{"seed":191100123,"clones":4,"kinds":["api","core","api","core"],"ops":[{"id":56,"kind":"foreign","what":"version","model":0,"data":1,"version":1},{"id":58,"kind":"foreign","what":"version","model":0,"data":0,"version":1,"marker":true},{"id":60,"kind":"foreign","what":"version","model":1,"data":1,"version":1,"marker":true},{"id":57,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"streamed":true},{"id":61,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":1,"kind":"tick","n":4,"pick":564340650},{"id":62,"kind":"sibling","clone":0,"how":"dies","workMs":5000},{"id":63,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":64,"kind":"tick","n":51,"pick":1873436718},{"id":6,"kind":"breakglass","model":0},{"id":7,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":11,"kind":"sync","clone":2},{"id":23,"kind":"edit","clone":3,"file":5,"how":"push"},{"id":24,"kind":"reshape","clone":3,"file":5,"how":"push"},{"id":12,"kind":"breakglass","model":0},{"id":25,"kind":"sync","clone":3},{"id":26,"kind":"reshape","clone":3,"file":5,"how":"push"},{"id":13,"kind":"tick","n":36,"pick":305064528},{"id":14,"kind":"delete","clone":2,"file":4,"how":"hand"},{"id":28,"kind":"tick","n":4,"pick":1845242743},{"id":29,"kind":"vanish","file":1},{"id":30,"kind":"sync","clone":1},{"id":31,"kind":"tick","n":20,"pick":303510003},{"id":32,"kind":"wait","ms":80000},{"id":33,"kind":"tick","n":20,"pick":2145243215},{"id":34,"kind":"wait","ms":80000},{"id":35,"kind":"tick","n":20,"pick":527831477},{"id":36,"kind":"wait","ms":80000},{"id":37,"kind":"tick","n":20,"pick":1907464814},{"id":38,"kind":"wait","ms":80000},{"id":39,"kind":"tick","n":20,"pick":1201361949},{"id":40,"kind":"wait","ms":80000},{"id":41,"kind":"tick","n":20,"pick":2142774661},{"id":42,"kind":"wait","ms":80000},{"id":43,"kind":"tick","n":20,"pick":1030783041},{"id":44,"kind":"wait","ms":80000}]}',
  );
});

/**
 * I30, the checker's (seed 193100159, `--shared-cache-share 1
 * --damaged-log-share 1`, shrunk to 34 operations, kept, and by hand to 7): a
 * line of c0's synced manifest log was damaged on disk while c0's process
 * stayed open, another process writing a line ahead after it. c0's next
 * command was its user's deletion by hand (in the seed, queued behind a
 * push that began before the damage): the file removed, no push, nothing
 * of the library called, so nothing of the log read. I30 took it for the
 * command that took the log in, and, as it succeeded without a
 * `state_unreadable` warning, held the line's record lost unsaid; the
 * sync after it told the line. A command that calls nothing of the library
 * that takes the manifest in (an edit, deletion or reshape by hand, an edit
 * marked dirty and not pushed, one with no file to act on) now leaves I30
 * waiting for the next.
 */
Deno.test("chaos regression: a deletion by hand after a damaged line of the manifest log, the process open since before, reads no line and has none to tell (I30, seed 193100159)", async () => {
  await clean(
    '{"seed":193100159,"clones":2,"kinds":["core","api"],"ops":[{"id":1,"kind":"edit","clone":1,"file":0,"how":"push"},{"id":2,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":3,"kind":"tick","n":30,"pick":5},{"id":4,"kind":"sync","clone":0},{"id":5,"kind":"damaged","clone":0,"file":0,"pick":1491515675,"open":true},{"id":6,"kind":"delete","clone":0,"file":1,"how":"hand"},{"id":7,"kind":"sync","clone":0}]}',
    '{"seed":193100159,"clones":5,"absentOnError":true,"v2":true,"kinds":["core","api","core","api","api"],"indexFirst":true,"ops":[{"id":35,"kind":"edit","clone":4,"file":2,"how":"push"},{"id":39,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":0,"kind":"lockfile","clone":0,"set":"@chaos/ext-0"},{"id":1,"kind":"crash","clone":2},{"id":19,"kind":"edit","clone":4,"file":4,"how":"push"},{"id":72,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":74,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":76,"kind":"edit","clone":0,"file":1,"how":"push"},{"id":78,"kind":"sync","clone":0},{"id":80,"kind":"damaged","clone":0,"file":0,"pick":564055505,"dies":"log"},{"id":81,"kind":"sync","clone":0},{"id":3,"kind":"tick","n":15,"pick":661732999},{"id":4,"kind":"run","clone":0,"model":0,"data":0,"workMs":5000,"same":true},{"id":5,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":21,"kind":"sync","clone":1},{"id":22,"kind":"reshape","clone":1,"file":4,"how":"push"},{"id":23,"kind":"sibling","clone":0,"how":"push","workMs":5000},{"id":24,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":25,"kind":"tick","n":46,"pick":311599749},{"id":6,"kind":"adopt","clone":3,"file":0},{"id":8,"kind":"breakglass","model":0},{"id":10,"kind":"run","clone":2,"model":0,"data":0,"workMs":0,"same":true},{"id":11,"kind":"breakglass","model":0},{"id":45,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":60,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":61,"kind":"tick","n":49,"pick":896723541},{"id":62,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":63,"kind":"tick","n":46,"pick":387267551},{"id":64,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":65,"kind":"tick","n":40,"pick":564118746},{"id":67,"kind":"tick","n":60,"pick":525750720},{"id":68,"kind":"delete","clone":0,"file":5,"how":"hand"},{"id":69,"kind":"damaged","clone":0,"file":5,"pick":1491515675,"open":true},{"id":70,"kind":"sync","clone":0}]}',
  );
});

Deno.test("chaos regression: a model lock object taken again after a run under it committed is the new run's, so that run's push, left waiting on another writer's upload of its version, fails instead of reporting a version published that never was (I1, seed 194500441)", async () => {
  await clean(
    '{"seed":194500441,"clones":2,"kinds":["core","api"],"checkedDeletes":true,"reusedLocks":true,"ops":[{"id":4,"kind":"adopt","clone":0,"file":0},{"id":5,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":6,"kind":"run","clone":1,"model":1,"data":0,"workMs":15000},{"id":7,"kind":"lockfile","clone":0,"set":"@chaos/ext-7"},{"id":10,"kind":"tick","n":31,"pick":1798026681},{"id":14,"kind":"flaky","call":"get","count":3,"afterEffect":true},{"id":20,"kind":"tick","n":20,"pick":871005402},{"id":23,"kind":"lockfile","clone":1,"set":"@chaos/ext-23"},{"id":24,"kind":"tick","n":31,"pick":1464216263},{"id":26,"kind":"resolve","clone":0,"pick":1,"how":"theirs"},{"id":49,"kind":"sync","clone":1},{"id":27,"kind":"tick","n":31,"pick":1607696976},{"id":39,"kind":"outage","on":true},{"id":55,"kind":"tick","n":4,"pick":1452249414},{"id":41,"kind":"run","clone":0,"model":1,"data":0,"workMs":0,"parallel":true}]}',
  );
});

/**
 * I23, the checker's (seed 194000379, `--lockless-share 1
 * --shared-cache-share 1 --structural-share 1`, shrunk to 12 operations): c2's
 * edit of a shared file crashed as its index write landed; its user then
 * deleted the file and pushed it by name, and the push, meeting a peer's
 * edit there, kept that mark dirty with a conflict. The peer replaced the
 * file by a directory, which c2's sync pulled; that sync's push held its
 * check of the crashed write's upload for the conflict and kept the
 * directory's mark (the user's mark of the file's name) dirty, naming it
 * nowhere in its result. c2's user replaced the directory by a file by hand,
 * and a run's push took the standing mark and deleted the peer's file
 * under it on the datastore. I23 took every mark a push did not name as
 * settled; a mark of the user's the clone still holds, that very mark, now
 * stays standing.
 */
Deno.test("chaos regression: a mark of the user's that a push keeps without naming it still names the path (I23, seed 194000379)", async () => {
  await clean(
    '{"seed":194000379,"clones":3,"ops":[{"id":41,"kind":"crash","clone":2,"at":"answer","queued":true},{"id":42,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":44,"kind":"sync","clone":0},{"id":47,"kind":"delete","clone":2,"file":4,"how":"push"},{"id":49,"kind":"sync","clone":0},{"id":50,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":51,"kind":"tick","n":16,"pick":1994980734},{"id":26,"kind":"reshape","clone":0,"file":4,"how":"push"},{"id":0,"kind":"tick","n":22,"pick":487719189},{"id":27,"kind":"sync","clone":2},{"id":28,"kind":"reshape","clone":2,"file":4,"how":"hand"},{"id":9,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"same":true}]}',
  );
});

/**
 * I32, I7, I8 (seed 194800002, `--old-share 1 --old-window-share 1`,
 * shrunk): c3's create of a shared file under the global lock landed, its
 * answer lost (a crash); an old client on c4's machine, holding the global
 * lock, read the index (naming c3's upload) and stopped before its write,
 * while c3 deleted the file and pushed. The push's preparation took back
 * its own upload (the entry out, then the object) outside the lock, and
 * its commit waited for the lock; the old client's write put back the
 * entry it had read, naming the deleted object, and the push reported the
 * upload withdrawn. Fixed in 50c6752: the preparation leaves that
 * take-back to the commit, under the lock (`atCommit`;
 * `sync/service/global_lock_withdraw_test.ts`).
 */
Deno.test("chaos regression: a withdrawal of a clone's own committed create inside an old client's read-modify-write of the index is not undone (I32, I7, I8, seed 194800002)", async () => {
  const r = await runHistory(parseHistory(
    '{"seed":194800002,"clones":5,"kinds":["core","api","api","core","api"],"oldClients":true,"etag":true,"setAsideFlaky":true,"ops":[{"id":38,"kind":"crash","clone":3,"at":"answer","queued":true},{"id":39,"kind":"edit","clone":3,"file":0,"how":"push"},{"id":42,"kind":"tick","n":2,"pick":1516841239},{"id":43,"kind":"oldpush","clone":4,"window":3},{"id":44,"kind":"delete","clone":3,"file":0,"how":"push"}]}',
  ));
  assert.deepEqual(
    r.violations.map((v) => `${v.invariant}: ${v.message}`),
    [],
    formatHistory(r.history),
  );
  assert.equal(r.stats.oldWindowsMet, 1, "the push ran inside the old client's read-modify-write");
});

/**
 * I32, the checker's (seed 194600492, `--parallel-share 1
 * --structural-share 1 --shared-cache-share 1`, shrunk to 14 operations;
 * failing at 0848a7c too): c3's new `notes/shared-1.md` committed, its
 * answer lost (a crash); c3's next process replaced the file by a directory
 * of its name and pushed. That push took its upload back: the entry out,
 * then the object deleted, the index naming nothing there, and its read
 * after the delete found nothing there either (`withdrawn`). c1, which
 * never saw that upload, then created a file of its own at the path and
 * committed it; c3's push, going on with its directory, read the index
 * again and held the directory back (`path_blocked`). I32 took c1's entry,
 * committed before that later read, for c3's own named again. An entry
 * first committed after a withdrawal ended so (and never naming the upload
 * again) is a peer's file of its own, which the next pull shows as any.
 */
Deno.test("chaos regression: a peer's new file at a path after this cache's withdrawal there ended is not the withdrawn upload named again (I32, seed 194600492)", async () => {
  await clean(
    '{"seed":194600492,"clones":5,"absentOnError":true,"kinds":["core","api","api","api","core-single-phase"],"ops":[{"id":44,"kind":"crash","clone":3,"at":"answer","queued":true},{"id":47,"kind":"sync","clone":0},{"id":12,"kind":"lockfile","clone":3,"set":"@chaos/ext-12"},{"id":13,"kind":"flaky","call":"put","count":3,"afterEffect":false},{"id":18,"kind":"edit","clone":2,"file":2,"how":"push"},{"id":19,"kind":"tick","n":12,"pick":1143706088},{"id":23,"kind":"lockfile","clone":1,"set":"@chaos/ext-23"},{"id":24,"kind":"adopt","clone":1,"file":4},{"id":25,"kind":"adopt","clone":0,"file":0},{"id":30,"kind":"edit","clone":3,"file":4,"how":"push"},{"id":31,"kind":"reshape","clone":3,"file":4,"how":"push"},{"id":41,"kind":"sibling","clone":2,"how":"dies","workMs":15000},{"id":43,"kind":"tick","n":21,"pick":1961344086},{"id":40,"kind":"tick","n":18,"pick":1005624012}]}',
  );
});

/**
 * I30 (seed 194700001, `--log-fail-share 1`, shrunk to 6 operations; with
 * 87db0fd's change to `sync/` taken back): c0 pushed an edit of
 * `config/settings-2.yaml`; c2 synced, a line of its manifest log was
 * damaged on disk and its process restarted, so its next save wrote a base.
 * c2 then pushed its own edit of `notes/shared-0.md`; just before the base
 * that push's save wrote was renamed into place, another process wrote a
 * line of `notes/shared-0.md` ahead to the log (its record, its mtime
 * another), and the replacement of the log after the rename failed (no
 * space left). That line was passed over (the save's own record stands
 * over it), yet the failure was taken for a harmless one: the base named
 * the log left in place, and the process's next refresh took the line in
 * over its own record, which the files then held for good. Fixed in
 * 87db0fd (`sync/service/manifest_carry_test.ts`): the process keeps its
 * records of such paths unsaved and writes a base at its next save.
 */
Deno.test("chaos regression: a base writer whose replacement of the log fails keeps its own record over another process's line of that path written ahead since its take-in (I30, seed 194700001)", async () => {
  await clean(
    '{"seed":194700001,"clones":3,"v2":true,"kinds":["api","core","core"],"oldClients":true,"ops":[{"id":69,"kind":"edit","clone":0,"file":2,"how":"push"},{"id":70,"kind":"tick","n":3,"pick":1212130912},{"id":75,"kind":"sync","clone":2},{"id":78,"kind":"damaged","clone":2,"file":0,"pick":778903165,"replaceFails":true},{"id":79,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":80,"kind":"tick","n":8,"pick":16214326}]}',
  );
});

/**
 * I1, I27 (seed 194700000, `--set-aside-flaky-share 1`, shrunk to 9
 * operations; with 804feb4's change to `sync/` taken back): c1's run #43 of
 * m1's `out` (same output as every run of it writes) uploaded version 1 and
 * stopped before the check of its lock that precedes its commit; a
 * breakglass took its lock, and it went on, refused (`model_lock_lost`),
 * its erasure's deletes of those uploads cut off. c0's run #50 wrote the
 * same bytes: its creates met c1's uploads and its commit named them,
 * acknowledged. c1's run #53 wrote version 1 again with other bytes: refused
 * (`version_exists`), its copy set aside, and the first read of the index
 * after that failed, so the record of its write stayed; c1's next push took
 * the path for its own stranded upload and deleted c0's published version
 * with its entry. Fixed in 804feb4
 * (`sync/service/own_upload_published_by_peer_test.ts`).
 */
Deno.test("chaos regression: a peer's version committed over this cache's uncommitted upload of the same bytes is not deleted by this cache's push after its rewrite was refused and the look at the index after it failed (I1, I27, seed 194700000)", async () => {
  await clean(
    '{"seed":194700000,"clones":2,"kinds":["core","api"],"skewMs":[83484,0],"setAsideFlaky":true,"ops":[{"id":43,"kind":"run","clone":1,"model":1,"data":0,"workMs":0,"same":true},{"id":44,"kind":"stall","clone":1,"on":true,"at":"commit","run":43,"pick":450416518},{"id":45,"kind":"breakglass","model":1},{"id":46,"kind":"tick","n":3,"pick":490136748},{"id":47,"kind":"flaky","call":"delete","count":2,"afterEffect":false},{"id":48,"kind":"stall","clone":1,"on":false},{"id":50,"kind":"run","clone":0,"model":1,"data":0,"workMs":0,"same":true},{"id":53,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":54,"kind":"tick","n":10,"pick":1731326269}]}',
  );
});

/**
 * I7, I8, the checker's (seeds 194400002 with `--old-share 1 --etag-share 1`,
 * and 194800308 with `--damaged-log-share 1 --shared-cache-share 1`, both
 * shrunk): a clone deleted a file it had synced (194400002: c0's deletion of
 * config/settings-0.yaml, its delete made outside the global lock, as old
 * clients make theirs, and its commit's wait for that lock, held by c4's move
 * to v2, timed out; 194800308: c2's replacement of notes/shared-2.lock by a
 * directory of its name, its delete landed and an outage cut its push off
 * before the index update). A damaged line of that clone's manifest log then
 * held the only record of the version deleted, and its process restarted: the
 * path counts as never synced there, so its next push had no deletion to
 * commit, and the index named the object deleted. Every pull told it
 * (`index_entry_dangling`); with a pull, a wait of 16 minutes and another
 * pull appended, the entry is removed and both pass. Spared by I7 and I8, as
 * an abandoned copy's deletion is (seed 121000113), while the store holds
 * nothing there. With a deletion's record forgotten as its object goes,
 * before its commit (`runDeletes` in sync/service/push_delete_run.ts), both
 * fail I7 and I8 still: the spare covers a record the damaged line took alone.
 */
Deno.test("chaos regression: a deletion whose commit never came, its record lost to a damaged line of the manifest log, is spared by I7 and I8 (seeds 194400002, 194800308)", async () => {
  await clean(
    '{"seed":194400002,"clones":5,"kinds":["api","core","api","api","api"],"oldClients":true,"etag":true,"reusedLocks":true,"ops":[{"id":61,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":1,"kind":"tick","n":9,"pick":1207412826},{"id":3,"kind":"migrate","clone":4},{"id":4,"kind":"sync","clone":0},{"id":11,"kind":"latency","ms":3000},{"id":12,"kind":"delete","clone":0,"file":3,"how":"push"},{"id":75,"kind":"damaged","clone":0,"file":1,"pick":1006970954,"dies":"log"}]}',
    '{"seed":194800308,"clones":3,"absentOnError":true,"v2":true,"indexFirst":true,"ops":[{"id":6,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"same":true},{"id":7,"kind":"tick","n":18,"pick":1521847797},{"id":8,"kind":"flaky","call":"put","count":2,"afterEffect":true},{"id":38,"kind":"stall","clone":2,"on":true},{"id":48,"kind":"sibling","clone":2,"how":"dies","workMs":5000},{"id":49,"kind":"sync","clone":2},{"id":50,"kind":"tick","n":2,"pick":1153565031},{"id":17,"kind":"adopt","clone":0,"file":4},{"id":18,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":42,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":43,"kind":"reshape","clone":2,"file":5,"how":"push"},{"id":37,"kind":"stall","clone":2,"on":false},{"id":24,"kind":"resolve","clone":0,"pick":1,"how":"mine"},{"id":25,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":26,"kind":"breakglass","model":0},{"id":29,"kind":"tick","n":19,"pick":1672427922},{"id":30,"kind":"tick","n":15,"pick":1629475216},{"id":34,"kind":"outage","on":true},{"id":58,"kind":"tick","n":7,"pick":1896988074},{"id":59,"kind":"damaged","clone":2,"file":4,"pick":1569390185}]}',
  );
});

/**
 * I20 (seed 194900100, `--blip-share 1`, shrunk; the checker's, once taught
 * the `blip` move): c2 replaced a file it never pushed by a directory of its
 * name and marked it by that name, then pushed a config edit, whose upload
 * alone met a brief outage (failed as unreachable, the store answering
 * again at once). The push stopped its further writes there, so the
 * directory's file was never tried, and its commit, the store back,
 * cleared the directory's mark: the file was neither published nor kept
 * dirty, and no later push took it. A write a push never tried now keeps
 * its marked directory's mark (f574b5f).
 */
Deno.test("chaos regression: a push stopped by a brief outage at its first write keeps the mark of a directory whose writes it never tried (I20, seed 194900100)", async () => {
  await clean(
    '{"seed":194900100,"clones":4,"absentOnError":true,"indexFirst":true,"checkedDeletes":true,"ops":[{"id":32,"kind":"edit","clone":2,"file":5,"how":"hand"},{"id":35,"kind":"reshape","clone":2,"file":5,"how":"mark"},{"id":36,"kind":"blip","clone":2,"call":"put"},{"id":37,"kind":"config","clone":2,"file":1},{"id":38,"kind":"tick","n":8,"pick":354626433}]}',
  );
});

/**
 * I15 (seed 194900102, `--blip-share 1`, shrunk; the checker's, once taught
 * the `blip` move): c1 replaced two synced files by directories of their
 * names, marked each by its name, and pushed a config edit. The first
 * deletion clearing the way met a brief outage; the push stopped its
 * deletions there and never tried the second, yet published the files of
 * that second directory beside the file still standing: a file and files
 * under a directory of one name on the datastore. A deletion never tried
 * now holds back the writes beside it, as a failed one does (837565e).
 */
Deno.test("chaos regression: a deletion clearing the way for a directory, never tried after a brief outage, holds back that directory's files (I15, seed 194900102)", async () => {
  await clean(
    '{"seed":194900102,"clones":4,"kinds":["api","core","core","api"],"ops":[{"id":54,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":55,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":56,"kind":"tick","n":13,"pick":925852619},{"id":57,"kind":"reshape","clone":1,"file":5,"how":"mark"},{"id":58,"kind":"reshape","clone":1,"file":4,"how":"mark"},{"id":59,"kind":"blip","clone":1,"call":"delete"},{"id":60,"kind":"config","clone":1,"file":2},{"id":61,"kind":"tick","n":2,"pick":1971445256}]}',
  );
});

Deno.test("chaos regression: a pull leaving a path with nothing here to the push, as this cache's own write deleted here, reads the index again next time, so a peer's published version over this cache's erased upload comes here (I1, seed 194700021)", async () => {
  await clean(
    '{"seed":194700021,"clones":4,"kinds":["api","core","core","api"],"checkedDeletes":true,"setAsideFlaky":true,"ops":[{"id":18,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":33,"kind":"breakglass","model":0},{"id":34,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"same":true},{"id":35,"kind":"run","clone":3,"model":0,"data":1,"workMs":5000},{"id":52,"kind":"sync","clone":1},{"id":53,"kind":"tick","n":5,"pick":1002127714},{"id":54,"kind":"run","clone":2,"model":0,"data":0,"workMs":0,"same":true},{"id":55,"kind":"stall","clone":2,"on":true,"at":"commit","run":54,"pick":1278231948},{"id":56,"kind":"breakglass","model":0},{"id":57,"kind":"tick","n":6,"pick":255843695},{"id":58,"kind":"flaky","call":"delete","count":2,"afterEffect":false},{"id":59,"kind":"stall","clone":2,"on":false},{"id":60,"kind":"tick","n":19,"pick":1040139973},{"id":61,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":64,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":66,"kind":"sync","clone":2}]}',
  );
});

Deno.test("chaos regression: a mark whose write never comes, after a damaged line of the manifest log with the process open since before, reads no line and has none to tell (I30, seed 196100481)", async () => {
  await clean(
    '{"seed":196100481,"clones":2,"absentOnError":true,"kinds":["core","core"],"skewMs":[0,-54252],"setAsideFlaky":true,"ops":[{"id":60,"kind":"run","clone":0,"model":1,"data":0,"workMs":0,"same":true},{"id":29,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":30,"kind":"tick","n":28,"pick":159637662},{"id":43,"kind":"damaged","clone":0,"file":1,"pick":1334900535,"open":true},{"id":23,"kind":"unwritten","clone":0,"file":1}]}',
  );
});

/**
 * I11 (seed 194510114, `--lockless-share 1 --shared-cache-share 1
 * --structural-share 1`; old clients, ETag versions, checked deletes): c0
 * committed its edit of a shared file; an old client's pull, which had read
 * the index before that commit and met an object missing, wrote it back
 * without c0's entry; c0's user had deleted the file by hand (unmarked).
 * Shrunk to 37 operations, the library's: c0's next pull took the path
 * for one deleted on both sides and forgot it, while the store still held
 * the version c0 synced, and the object stood there named by no index.
 * The pull now keeps c0's record, synced at that version, without marking
 * the deletion: an unmarked deletion is published only by a push of its
 * name (a push of everything pending never deletes), so it stays c0's local
 * deletion, told with `index_entry_dropped`, and the object stays unnamed
 * meanwhile, which I11 spares only while some clone holds the path synced
 * at exactly that version, its file gone there and the path not marked
 * (`sync/service/dropped_entries_test.ts`). With the record forgotten again,
 * the first history fails I11 again. As found (46 operations once
 * shrunk with that fix in), a damaged line of c0's manifest log held the
 * path's record too, after the deletion by hand: c0 counts the path as
 * never synced, so no pull of its names its write again nor pushes the
 * deletion; what the lost record leads to at that path, beside the old
 * client's drop, which I11 now spares (the checker's).
 */
Deno.test("chaos regression: a file deleted by hand whose committed entry an old client's pull dropped stays a local deletion, its record kept; with its record lost to a damaged log line, its object is spared (I11, seed 194510114)", async () => {
  await clean(
    '{"seed":194510114,"clones":3,"kinds":["api","api","core"],"oldClients":true,"etag":true,"checkedDeletes":true,"ops":[{"id":47,"kind":"sibling","clone":0,"how":"push","workMs":45000},{"id":49,"kind":"tick","n":42,"pick":2134572967},{"id":41,"kind":"oldpush","clone":0},{"id":2,"kind":"run","clone":0,"model":0,"data":1,"workMs":5000,"streamed":true},{"id":3,"kind":"run","clone":2,"model":0,"data":0,"workMs":0,"same":true},{"id":4,"kind":"run","clone":0,"model":0,"data":1,"workMs":1000,"parallel":true},{"id":5,"kind":"breakglass","model":0},{"id":6,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":7,"kind":"tick","n":36,"pick":1752652608},{"id":46,"kind":"oldpull","clone":2},{"id":8,"kind":"tick","n":22,"pick":1779810987},{"id":43,"kind":"oldpush","clone":2},{"id":9,"kind":"config","clone":1,"file":2},{"id":10,"kind":"run","clone":1,"model":0,"data":0,"workMs":15000,"same":true},{"id":11,"kind":"flaky","call":"head","count":2,"afterEffect":false},{"id":12,"kind":"tick","n":9,"pick":557667023},{"id":15,"kind":"latency","ms":500},{"id":16,"kind":"breakglass","model":0},{"id":17,"kind":"resolve","clone":2,"pick":7,"how":"theirs"},{"id":18,"kind":"run","clone":1,"model":0,"data":1,"workMs":5000,"same":true},{"id":45,"kind":"oldpull","clone":1},{"id":20,"kind":"tick","n":40,"pick":1127869743},{"id":23,"kind":"sync","clone":0},{"id":24,"kind":"delete","clone":0,"file":2,"how":"during","pick":748985785},{"id":25,"kind":"delete","clone":2,"file":4,"how":"push"},{"id":28,"kind":"tick","n":17,"pick":110394851},{"id":44,"kind":"oldpull","clone":0},{"id":29,"kind":"tick","n":30,"pick":887092292},{"id":50,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":51,"kind":"tick","n":50,"pick":660701149},{"id":52,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":53,"kind":"tick","n":28,"pick":1478501756},{"id":54,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":55,"kind":"tick","n":53,"pick":634032102},{"id":56,"kind":"sync","clone":0},{"id":57,"kind":"tick","n":35,"pick":1173434726},{"id":58,"kind":"delete","clone":0,"file":4,"how":"hand"}]}',
    '{"seed":194510114,"clones":3,"kinds":["api","api","core"],"oldClients":true,"etag":true,"checkedDeletes":true,"ops":[{"id":47,"kind":"sibling","clone":0,"how":"push","workMs":45000},{"id":48,"kind":"sync","clone":0},{"id":49,"kind":"tick","n":42,"pick":2134572967},{"id":0,"kind":"tick","n":9,"pick":1921291604},{"id":1,"kind":"marker","clone":2,"model":0,"data":0,"back":false,"how":"push"},{"id":41,"kind":"oldpush","clone":0},{"id":2,"kind":"run","clone":0,"model":0,"data":1,"workMs":5000,"streamed":true},{"id":3,"kind":"run","clone":2,"model":0,"data":0,"workMs":0,"same":true},{"id":4,"kind":"run","clone":0,"model":0,"data":1,"workMs":1000,"parallel":true},{"id":5,"kind":"breakglass","model":0},{"id":6,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":7,"kind":"tick","n":36,"pick":1752652608},{"id":46,"kind":"oldpull","clone":2},{"id":8,"kind":"tick","n":22,"pick":1779810987},{"id":43,"kind":"oldpush","clone":2},{"id":9,"kind":"config","clone":1,"file":2},{"id":10,"kind":"run","clone":1,"model":0,"data":0,"workMs":15000,"same":true},{"id":11,"kind":"flaky","call":"head","count":2,"afterEffect":false},{"id":12,"kind":"tick","n":9,"pick":557667023},{"id":13,"kind":"edit","clone":0,"file":1,"how":"hand"},{"id":14,"kind":"marker","clone":1,"model":1,"data":1,"back":false,"how":"push"},{"id":15,"kind":"latency","ms":500},{"id":16,"kind":"breakglass","model":0},{"id":17,"kind":"resolve","clone":2,"pick":7,"how":"theirs"},{"id":18,"kind":"run","clone":1,"model":0,"data":1,"workMs":5000,"same":true},{"id":45,"kind":"oldpull","clone":1},{"id":19,"kind":"run","clone":2,"model":1,"data":1,"workMs":0,"streamed":true},{"id":20,"kind":"tick","n":40,"pick":1127869743},{"id":24,"kind":"delete","clone":0,"file":2,"how":"during","pick":748985785},{"id":25,"kind":"delete","clone":2,"file":4,"how":"push"},{"id":26,"kind":"sync","clone":2},{"id":27,"kind":"flaky","call":"delete","count":2,"afterEffect":true},{"id":28,"kind":"tick","n":17,"pick":110394851},{"id":44,"kind":"oldpull","clone":0},{"id":29,"kind":"tick","n":30,"pick":887092292},{"id":50,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":51,"kind":"tick","n":50,"pick":660701149},{"id":52,"kind":"edit","clone":1,"file":2,"how":"push"},{"id":53,"kind":"tick","n":28,"pick":1478501756},{"id":54,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":55,"kind":"tick","n":53,"pick":634032102},{"id":56,"kind":"sync","clone":0},{"id":57,"kind":"tick","n":35,"pick":1173434726},{"id":58,"kind":"delete","clone":0,"file":4,"how":"hand"},{"id":59,"kind":"damaged","clone":0,"file":4,"pick":2111629710},{"id":60,"kind":"sync","clone":0}]}',
  );
});

/**
 * I27 (seed 194900118, `--blip-share 1`, shrunk; the library's): c1's run
 * was refused for its lost lock (a breakglass) once its uploads landed, and
 * its erasure's delete of its `metadata.yaml` met a brief outage (one
 * attempt; the blip's second strike fell on the next push's erasure too),
 * left pending. c1's next run of the same version met that leftover, its
 * own upload that no index names, and took it for a version this cache had
 * published: refused with `version_exists`, its copy set aside, and no index
 * named the version after the final sync. Such a leftover now holds the
 * version back (`sync_incomplete`) until the next push's erasure deletes it.
 */
Deno.test("chaos regression: a refused run's upload left by its erasure's failed delete holds the next run of that version back instead of taking it (I27, seed 194900118)", async () => {
  await clean(
    '{"seed":194900118,"clones":2,"kinds":["core","api"],"oldClients":true,"indexFirst":true,"ops":[{"id":9,"kind":"resolve","clone":0,"pick":1,"how":"merged"},{"id":56,"kind":"blip","clone":1,"call":"delete"},{"id":19,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":20,"kind":"tick","n":15,"pick":793903432},{"id":21,"kind":"tick","n":10,"pick":1710526217},{"id":22,"kind":"breakglass","model":0},{"id":23,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":54,"kind":"config","clone":0,"file":0},{"id":55,"kind":"tick","n":38,"pick":945349150}]}',
  );
});

Deno.test("chaos regression: a data version this cache published, its record lost to a damaged line of the manifest log, is told for its own by the pull that finds it again, so a blind deletion of it is kept as a conflict and its last copy stays (I19, seed 196500029)", async () => {
  await clean(
    '{"seed":196500029,"clones":4,"kinds":["api","api","core","api"],"checkedDeletes":true,"ops":[{"id":2,"kind":"run","clone":2,"model":1,"data":0,"workMs":15000,"parallel":true},{"id":6,"kind":"tick","n":2,"pick":1569433463},{"id":38,"kind":"run","clone":2,"model":1,"data":0,"workMs":0},{"id":39,"kind":"tick","n":40,"pick":518533736},{"id":82,"kind":"edit","clone":0,"file":0,"how":"push"},{"id":84,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":86,"kind":"sync","clone":2},{"id":87,"kind":"tick","n":56,"pick":2010193254},{"id":88,"kind":"damaged","clone":2,"file":0,"pick":971529078},{"id":91,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":93,"kind":"sync","clone":2},{"id":94,"kind":"tick","n":10,"pick":366778650},{"id":40,"kind":"vanish","file":4,"run":38,"blind":true}]}',
  );
});

/**
 * I30, the checker's (seed 196700111, `--torn-log-share 1
 * --shared-cache-share 1`, shrunk to 44 operations): a line of c0's synced
 * manifest log (an index version's) was damaged on disk while c0's process
 * stayed open, another process writing a line ahead after it, and c0's next
 * command a lockfile change. A second process over c0's cache (a `sibling`
 * move's, pushing) saved first: its take-in passed over the line, told it
 * (`state_unreadable`, line 2) and wrote a base over the log. c0's lockfile
 * change then took in that base, with no damaged line left to tell. I30
 * counted only a warning of c0's own process, and held the line's record
 * lost unsaid. A second process's warning naming the line, the line gone
 * from the log on disk when it is told, now counts as told.
 */
Deno.test("chaos regression: a damaged line of the manifest log told by a second process over the cache, which wrote a base over it, leaves the clone's process open since before no line to tell (I30, seed 196700111)", async () => {
  await clean(
    '{"seed":196700111,"clones":5,"absentOnError":true,"v2":true,"kinds":["api","api","core","api","core-single-phase"],"skewMs":[0,0,70289,0,0],"indexFirst":true,"ops":[{"id":1,"kind":"run","clone":2,"model":0,"data":1,"workMs":1000},{"id":3,"kind":"sync","clone":4},{"id":4,"kind":"run","clone":4,"model":0,"data":1,"workMs":15000},{"id":27,"kind":"sibling","clone":0,"how":"push","workMs":15000},{"id":28,"kind":"sync","clone":0},{"id":5,"kind":"breakglass","model":0},{"id":8,"kind":"flaky","call":"head","count":1,"afterEffect":false},{"id":9,"kind":"latency","ms":500},{"id":10,"kind":"run","clone":4,"model":1,"data":1,"workMs":1000,"same":true},{"id":11,"kind":"resolve","clone":2,"pick":2,"how":"mine"},{"id":30,"kind":"sibling","clone":2,"how":"dies","workMs":5000},{"id":42,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":43,"kind":"tick","n":23,"pick":1135132848},{"id":44,"kind":"edit","clone":1,"file":1,"how":"push"},{"id":45,"kind":"tick","n":26,"pick":354218206},{"id":46,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":47,"kind":"tick","n":23,"pick":1933887376},{"id":48,"kind":"sync","clone":0},{"id":49,"kind":"tick","n":23,"pick":1205353681},{"id":50,"kind":"damaged","clone":0,"file":1,"pick":2122196573,"open":true},{"id":51,"kind":"sync","clone":0},{"id":52,"kind":"tick","n":41,"pick":1069522675},{"id":31,"kind":"run","clone":2,"model":1,"data":0,"workMs":0},{"id":32,"kind":"tick","n":30,"pick":1444633540},{"id":12,"kind":"breakglass","model":1},{"id":13,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"same":true},{"id":14,"kind":"run","clone":3,"model":1,"data":1,"workMs":0},{"id":15,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":16,"kind":"sync","clone":4},{"id":17,"kind":"edit","clone":4,"file":1,"how":"during","pick":1618567405},{"id":18,"kind":"run","clone":2,"model":1,"data":1,"workMs":5000},{"id":19,"kind":"edit","clone":4,"file":4,"how":"revert"},{"id":20,"kind":"run","clone":1,"model":1,"data":0,"workMs":1000},{"id":21,"kind":"run","clone":0,"model":1,"data":0,"workMs":15000},{"id":22,"kind":"tick","n":37,"pick":456792560},{"id":33,"kind":"edit","clone":3,"file":4,"how":"push"},{"id":34,"kind":"tick","n":20,"pick":514904490},{"id":35,"kind":"sync","clone":0},{"id":36,"kind":"torn","clone":0,"file":5,"pick":708027610},{"id":37,"kind":"tick","n":49,"pick":2120142771},{"id":38,"kind":"crash","clone":0},{"id":39,"kind":"delete","clone":3,"file":5,"how":"push"},{"id":40,"kind":"tick","n":30,"pick":432605668},{"id":41,"kind":"sync","clone":0}]}',
  );
});

/**
 * I11/I18, the checker's (seed 196300468, `--copy-share 1
 * --shared-cache-share 1`; first pushes make the index first): shrunk to c0's
 * push of a shared file's edit (#110), which made the index, then another
 * tool's put of `config/settings-0.yaml` (#83), named by no index after the
 * final sync. Another tool's first writes come before any index (I18: what is
 * there when an index is made is named by it), but the own-lost block was
 * spliced at any place, here first of all, and the own-withdrawn block,
 * inserted before the first operation that was not another tool's write,
 * went first too. Every move now takes its places after those writes
 * (`afterForeign` in moves_bucket.ts). The seed's history keeps them first,
 * and its shrunk operations in that order pass; with the objects a listing
 * finds left out of the index a commit makes where there is none (`find` in
 * sync/service/index_discovered.ts returning `{}`), they fail I11 and I18.
 */
Deno.test("chaos regression: no move's block comes before another tool's first writes, which come before any index (I11, I18, seed 196300468)", async () => {
  const h = generateHistory(196300468, { copyShare: 1, sharedCacheShare: 1 });
  const foreign = h.ops.filter((o) => o.kind === "foreign");
  assert.deepEqual(foreign.map((o) => o.id), [82, 83]);
  assert.deepEqual(h.ops.slice(0, foreign.length), foreign, formatHistory(h));
  await clean(
    '{"seed":196300468,"clones":2,"absentOnError":true,"indexFirst":true,"ops":[{"id":83,"kind":"foreign","what":"shared","file":0},{"id":110,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":111,"kind":"tick","n":3,"pick":859221626}]}',
  );
});

/**
 * I7, I8, the checker's (seed 196800408, `--damaged-log-share 1
 * --shared-cache-share 1`, shrunk to 7 operations): on a store whose deletes
 * check the version, then delete, c4's delete of a shared file checked the
 * version it synced; in the window c2's `--mine` wrote over it and
 * committed, and c4's delete then took c2's write, its answer lost (a flaky
 * delete after its effect). c4's commit left the entry naming c2's version
 * (the store's race, not a deletion of c2's edit): the index names a
 * missing object, as it does after the same race with the answer come. The
 * checker held such a race's bytes to I19 only when the delete answered; a
 * delete that fails after taking the write is now the same race. With the
 * commit's guard for it removed (`index_apply.ts`: a removal whose delete
 * found nothing, its entry naming a version it did not check, left
 * standing), the history fails I9.
 */
Deno.test("chaos regression: a checked delete that takes a write landed in its window, its answer lost, is the store's race, not a dangling commit (I7, I8, seed 196800408)", async () => {
  const r = await runHistory(parseHistory(
    '{"seed":196800408,"clones":5,"v2":true,"kinds":["core","api","api","api","core"],"checkedDeletes":true,"setAsideFlaky":true,"ops":[{"id":54,"kind":"edit","clone":4,"file":0,"how":"push"},{"id":55,"kind":"tick","n":5,"pick":426565402},{"id":6,"kind":"flaky","call":"delete","count":1,"afterEffect":true},{"id":10,"kind":"delete","clone":4,"file":0,"how":"push"},{"id":11,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":12,"kind":"resolve","clone":2,"pick":1,"how":"mine"},{"id":42,"kind":"lockless","run":15,"pick":2144019301,"indexed":true}]}',
  ));
  assert.deepEqual(
    r.violations.map((v) => `${v.invariant}: ${v.message}`),
    [],
    formatHistory(r.history),
  );
  assert.equal(r.stats.checkedDeleteRaces, 1, "the delete took the write landed in its window");
});

/**
 * I33 (seed 197000000, `--theirs-shape-share 1`, shrunk; the checker's, once
 * taught the `--theirs-shape-share` move): c0 pushed notes/shared-1.md, c2
 * pulled it, edited it and pushed; c0 deleted it and pushed it by name, its
 * deletion kept as an open conflict with c2's edit (`delete_skipped`); c2
 * replaced the file by a directory of its name holding a new file and
 * pushed; c0's sync pulled that directory, and c0 resolved the conflict with
 * `--theirs`, which set the peer's directory aside whole: the peer's file
 * was gone from c0 for good, recorded as synced (no pull brought it back, a
 * walk offered its deletion). A directory at the path that is the
 * datastore's side now stays (bc1afc7).
 */
Deno.test("chaos regression: resolve --theirs of a deletion here keeps the peer's directory of that name a pull brought (I33, seed 197000000)", async () => {
  await clean(
    '{"seed":197000000,"clones":3,"kinds":["api","core","api"],"reusedLocks":true,"setAsideFlaky":true,"ops":[{"id":40,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":41,"kind":"tick","n":8,"pick":1123814060},{"id":42,"kind":"sync","clone":2},{"id":44,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":46,"kind":"delete","clone":0,"file":4,"how":"push"},{"id":47,"kind":"tick","n":4,"pick":1068703807},{"id":48,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":49,"kind":"tick","n":13,"pick":1025850134},{"id":50,"kind":"sync","clone":0},{"id":52,"kind":"resolve","clone":0,"pick":0,"how":"theirs"}]}',
  );
});

Deno.test("chaos regression: resolve --theirs where an old client's file stands beside a peer's directory of its name on the datastore sets the directory here aside, so theirs (the file) can be taken (I13, seed 197000127)", async () => {
  await clean(
    '{"seed":197000127,"clones":4,"kinds":["core-single-phase","core","api","api"],"oldClients":true,"reusedLocks":true,"ops":[{"id":70,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":74,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":42,"kind":"oldpush","clone":2,"file":4},{"id":48,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":49,"kind":"reshape","clone":0,"file":4,"how":"push"},{"id":36,"kind":"resolve","clone":0,"pick":3,"how":"merged"},{"id":37,"kind":"tick","n":8,"pick":958029389}]}',
  );
});

Deno.test("chaos regression: the final sync's resolutions meet no index read failed right after a set-aside: every fault is healed by then (I13, seed 197000038)", async () => {
  await clean(
    '{"seed":197000038,"clones":2,"v2":true,"kinds":["core","api"],"setAsideFlaky":true,"ops":[{"id":3,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":66,"kind":"lockless","run":3,"pick":1003469765,"indexed":true},{"id":4,"kind":"resolve","clone":1,"pick":0,"how":"theirs"},{"id":22,"kind":"sync","clone":0},{"id":6,"kind":"breakglass","model":0},{"id":8,"kind":"breakglass","model":0},{"id":55,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":78,"kind":"tick","n":2,"pick":246369391}]}',
  );
});

Deno.test("chaos regression: an old client's edit beside a peer's directory of the file's name leaves a clone's conflict there resolvable, the directory here set aside (I13, seed 197100413)", async () => {
  await clean(
    '{"seed":197100413,"clones":3,"absentOnError":true,"kinds":["api","core","core-single-phase"],"oldClients":true,"skewMs":[0,0,119527],"etag":true,"reusedLocks":true,"ops":[{"id":10,"kind":"resolve","clone":0,"pick":2,"how":"theirs"},{"id":47,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":48,"kind":"reshape","clone":1,"file":5,"how":"push"},{"id":45,"kind":"oldpush","clone":0,"file":5},{"id":33,"kind":"edit","clone":0,"file":5,"how":"hand-tick"}]}',
  );
});

Deno.test("chaos regression: an old client's push or pull on a clone's machine, after a damaged line of its manifest log with its process open since before, takes nothing of the log in and has nothing to tell (I30, seed 197600424)", async () => {
  await clean(
    '{"seed":197600424,"clones":4,"absentOnError":true,"kinds":["core-single-phase","core-single-phase","api","api"],"oldClients":true,"etag":true,"reusedLocks":true,"setAsideFlaky":true,"ops":[{"id":17,"kind":"oldpush","clone":3,"file":0,"del":true},{"id":5,"kind":"run","clone":0,"model":1,"data":0,"workMs":15000,"same":true},{"id":18,"kind":"oldpush","clone":3,"file":3},{"id":7,"kind":"tick","n":20,"pick":1002596829},{"id":8,"kind":"run","clone":2,"model":1,"data":0,"workMs":0},{"id":10,"kind":"sync","clone":3},{"id":11,"kind":"breakglass","model":1},{"id":22,"kind":"oldpull","clone":2},{"id":20,"kind":"oldpush","clone":2},{"id":23,"kind":"sibling","clone":1,"how":"push","workMs":5000},{"id":24,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":30,"kind":"edit","clone":3,"file":1,"how":"push"},{"id":31,"kind":"tick","n":22,"pick":605145449},{"id":32,"kind":"edit","clone":3,"file":2,"how":"push"},{"id":33,"kind":"tick","n":46,"pick":993573639},{"id":35,"kind":"tick","n":21,"pick":1051913130},{"id":37,"kind":"tick","n":51,"pick":51552890},{"id":39,"kind":"damaged","clone":2,"file":2,"pick":1014616257,"open":true}]}',
  );
});

/**
 * I12 (seed 197300051, versions are ETags, checked deletes, old clients;
 * the checker's): c4's deterministic run of m0's `log` was refused (its lock
 * broken); an old client wrote its version 1 `metadata.yaml` bytes there
 * with its index entry as the run's erasure looked at its upload (the same
 * ETag), and the erasure's checked delete took that write. An old client's
 * pull then met the object gone and wrote back the index it had read
 * without the entry (no lock, their design); the erasure, reading the index
 * after that write, had nothing to put back. c1's run, taking the lock
 * next, found version 1 free (no entry, no object), wrote it with its own
 * bytes (create-only puts) and committed it. The old client's loss is its
 * pull's, as in seed 190300201; the path filled afterwards by a writer that
 * met it empty is no write over it (`GroundTruth.oldPullMetGone`).
 */
Deno.test("chaos regression: an old client's write an old client's pull dropped while an erasure had deleted it, the version then made by another run, is theirs to lose (I12, seed 197300051)", async () => {
  await clean(
    '{"seed":197300051,"clones":5,"kinds":["api","core","api","api","api"],"oldClients":true,"etag":true,"checkedDeletes":true,"ops":[{"id":2,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":3,"kind":"run","clone":4,"model":0,"data":1,"workMs":0,"same":true},{"id":5,"kind":"tick","n":1,"pick":2027185945},{"id":6,"kind":"breakglass","model":0},{"id":38,"kind":"oldsame","clone":1,"run":3,"pick":405982744},{"id":36,"kind":"oldpull","clone":0}]}',
  );
});

Deno.test("chaos regression: a run refused for its lost lock in a push under the global lock keeps no copy of its lost version set aside (I2, seed 198400035)", async () => {
  await clean(
    '{"seed":198400035,"clones":5,"kinds":["api","core","core","api","api"],"oldClients":true,"etag":true,"reusedLocks":true,"ops":[{"id":74,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":75,"kind":"tick","n":15,"pick":133736938},{"id":1,"kind":"run","clone":4,"model":0,"data":0,"workMs":0},{"id":3,"kind":"run","clone":3,"model":0,"data":0,"workMs":15000},{"id":4,"kind":"tick","n":37,"pick":782912326},{"id":6,"kind":"breakglass","model":0},{"id":12,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"same":true},{"id":13,"kind":"tick","n":6,"pick":404162283},{"id":24,"kind":"breakglass","model":0}]}',
  );
});

/**
 * I13 (seed 199300092, v2 index): c2 edited notes/shared-1.md/part-43.md
 * under the directory c0 had made of notes/shared-1.md, c0's edit of it
 * committed first (c2's conflict), then replaced the directory by a file
 * of its name, held back by its push. --mine was refused as a copy deleted
 * by hand, --theirs as blocked by that file: now --mine deletes theirs and
 * publishes the file, and --theirs sets the file aside and takes theirs
 * (`sync/service/resolve_file_above_test.ts`).
 */
Deno.test("chaos regression: an edit under a directory a file of its name replaced here, in conflict with a peer's edit, is resolved by --mine, which publishes the file (I13, seed 199300092)", async () => {
  await clean(
    '{"seed":199300092,"clones":3,"v2":true,"kinds":["api","core","core"],"setAsideFlaky":true,"ops":[{"id":1,"kind":"edit","clone":0,"file":4,"how":"mark"},{"id":43,"kind":"reshape","clone":0,"file":4,"how":"push"},{"id":70,"kind":"sync","clone":2},{"id":46,"kind":"sync","clone":2},{"id":47,"kind":"tick","n":13,"pick":1577624726},{"id":49,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":36,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":37,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":34,"kind":"resolve","clone":2,"pick":1,"how":"mine"}]}',
  );
});

/**
 * I30, the checker's (seed 199700096, `--shared-cache-share 1
 * --damaged-log-share 1`, shrunk to 9 operations): a line of c1's synced
 * manifest log (an index version's) was damaged on disk while c1's process
 * stayed open, another process writing a line ahead after it. A second
 * process over c1's cache (a `sibling` move's, running a model) opened it
 * next and told the line at its open (`state_unreadable`, line 2), the line
 * still on disk then; its first save wrote a base over the log, and c1's
 * run then took in that base, with no damaged line left to tell. I30
 * counted a second process's warning only when the line was already gone
 * as it was told, and held the line's record lost unsaid. A second
 * process's warning naming the line now counts once the line is gone from
 * the log on disk.
 */
Deno.test("chaos regression: a damaged line of the manifest log told at a second process's open, which then wrote a base over it, leaves the clone's process open since before no line to tell (I30, seed 199700096)", async () => {
  await clean(
    '{"seed":199700096,"clones":2,"kinds":["core","core-single-phase"],"indexFirst":true,"reusedLocks":true,"ops":[{"id":39,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":37,"kind":"stall","clone":1,"on":true},{"id":23,"kind":"tick","n":10,"pick":1401807135},{"id":47,"kind":"sibling","clone":1,"how":"structural","workMs":8000},{"id":72,"kind":"tick","n":15,"pick":1068586029},{"id":74,"kind":"damaged","clone":1,"file":4,"pick":609732584,"open":true},{"id":50,"kind":"sibling","clone":1,"how":"dies","workMs":45000},{"id":51,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":52,"kind":"tick","n":3,"pick":921159906}]}',
  );
});

/**
 * I23 (seed 199960002, `--old-share 1 --dropped-deletion-share 1`, shrunk
 * to 6 operations): c3 deleted a file by push, its object gone and its
 * commit cut off by a crash; an old client's pull met the object missing and
 * wrote back the index it read after c1's commit of notes/shared-2.lock,
 * dropping that entry while the store kept the object. c1's user deleted
 * the file by hand, never marking it; c1's next pull (the final sync's)
 * marked the deletion dirty (50297ff) and its push deleted the object, every
 * peer's pull then removing its copy: a deletion nobody asked for. The pull
 * now keeps the record as a local deletion, unmarked, which no push of
 * everything pending makes (`sync/service/dropped_entries_test.ts`). With
 * 9f01cba taken back, this history fails I23 again.
 */
Deno.test("chaos regression: a file deleted by hand, unmarked, whose entry an old client's pull dropped is not deleted on the datastore by the clone's next push (I23, seed 199960002)", async () => {
  await clean(
    '{"seed":199960002,"clones":4,"kinds":["core-single-phase","api","api","api"],"oldClients":true,"skewMs":[0,0,0,-60936],"etag":true,"reusedLocks":true,"ops":[{"id":57,"kind":"edit","clone":3,"file":2,"how":"push"},{"id":59,"kind":"crash","clone":3,"at":"commit","queued":true},{"id":60,"kind":"delete","clone":3,"file":2,"how":"push"},{"id":64,"kind":"oldpull","clone":3,"window":2},{"id":65,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":69,"kind":"delete","clone":1,"file":5,"how":"hand"}]}',
  );
});

/**
 * I33 (seed 199910010, `--theirs-blocked-share 1`, shrunk; found with
 * 0509609 taken back): c2's deletion of notes/shared-0.md was kept as a
 * conflict with c4's edit, c4 made the file a directory of its name and
 * pushed, c2's sync pulled it; c1, which had pulled nothing, pushed a file
 * notes/shared-0.md, left out at its commit beside the directory
 * (`path_blocked`), its upload standing unnamed. c2's `resolve --theirs`
 * took that upload for a file of the name beside the directory and set
 * the directory aside whole: c4's file under it gone from c2 for good.
 */
Deno.test("chaos regression: resolve --theirs keeps the peer's directory though another clone's blocked push left an upload of a file of its name (I33, seed 199910010)", async () => {
  await clean(
    '{"seed":199910010,"clones":5,"kinds":["core-single-phase","api","api","api","core"],"checkedDeletes":true,"ops":[{"id":53,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":54,"kind":"tick","n":6,"pick":944169902},{"id":55,"kind":"sync","clone":4},{"id":57,"kind":"edit","clone":4,"file":3,"how":"push"},{"id":58,"kind":"tick","n":8,"pick":1764189044},{"id":59,"kind":"delete","clone":2,"file":3,"how":"push"},{"id":61,"kind":"reshape","clone":4,"file":3,"how":"push"},{"id":62,"kind":"tick","n":20,"pick":1496185453},{"id":63,"kind":"sync","clone":2},{"id":65,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":67,"kind":"resolve","clone":2,"pick":1,"how":"theirs"}]}',
  );
});

/**
 * I33 (seed 199920001, `--theirs-under-share 1`, shrunk; found with
 * 43f87a6 taken back): c0's deletion of notes/shared-0.md was kept as a
 * conflict with c1's edit, c1 made the file a directory of its name and
 * pushed, c0's sync pulled it; c0's user wrote notes/shared-0.md/part-78.md
 * under it and marked notes/shared-0.md. c0's `resolve --theirs` kept the
 * directory and cleared the mark of its name, which also stood for that
 * file: no push published it, and none said so.
 */
Deno.test("chaos regression: resolve --theirs that keeps the peer's directory keeps the mark of its name for a file of this cache's under it (I33, seed 199920001)", async () => {
  await clean(
    '{"seed":199920001,"clones":2,"setAsideFlaky":true,"ops":[{"id":66,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":68,"kind":"sync","clone":1},{"id":70,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":72,"kind":"delete","clone":0,"file":3,"how":"push"},{"id":73,"kind":"tick","n":21,"pick":959094889},{"id":74,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":75,"kind":"tick","n":12,"pick":95248467},{"id":76,"kind":"sync","clone":0},{"id":78,"kind":"edit","clone":0,"file":3,"how":"under"},{"id":80,"kind":"resolve","clone":0,"pick":3,"how":"theirs"}]}',
  );
});

/**
 * I6 (seed 199930002, `--put-back-lost-share 1`, shrunk; found with
 * c553cc6 taken back): c1 published version 1 of m0's `out`, another tool
 * deleted both its files, the index naming them still. c2's run of that
 * data numbered its version 1 too: its push created nothing where a
 * put-back might come and set its copy aside, naming no version it lost
 * to. Past the dangling-entry grace, c2's pull took the entries out, its
 * run wrote version 1 again and died as its commit landed (the answer
 * lost); its user deleted those files and pushed them by name. The
 * set-aside kept c2's own upload of metadata.yaml from being taken back,
 * and a pull brought the deleted file back.
 */
Deno.test("chaos regression: a copy set aside for a put-back that may come keeps no later own upload of its path from being taken back once deleted here (I6, seed 199930002)", async () => {
  await clean(
    '{"seed":199930002,"clones":3,"kinds":["api","api","core"],"skewMs":[0,0,42881],"setAsideFlaky":true,"ops":[{"id":107,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":108,"kind":"tick","n":25,"pick":105467762},{"id":109,"kind":"vanish","file":0,"run":107,"whole":true},{"id":110,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":113,"kind":"tick","n":21,"pick":1292782035},{"id":114,"kind":"delete","clone":2,"file":0,"how":"hand","run":110},{"id":115,"kind":"wait","ms":960000},{"id":116,"kind":"sync","clone":2},{"id":118,"kind":"crash","clone":2,"at":"answer","queued":true},{"id":119,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":120,"kind":"tick","n":4,"pick":309135643},{"id":121,"kind":"delete","clone":2,"file":0,"how":"push","run":119},{"id":122,"kind":"tick","n":39,"pick":122490213}]}',
  );
});

/**
 * I30 (seed 200800061, shrunk): line 1 of c1's manifest log (the index
 * version it last read, no record of a path) was damaged while its
 * process stayed open, and another process wrote a line ahead after it.
 * That process's only command since was the arming of a brief outage,
 * which calls nothing of the library and reads no line of the log; the
 * checker held it to tell the line. The process started afresh on the
 * cache for the final sync told it at its open.
 */
Deno.test("chaos regression: arming a brief outage reads no line of the manifest log and has no damaged line to tell (I30, seed 200800061)", async () => {
  await clean(
    '{"seed":200800061,"clones":2,"kinds":["core","core-single-phase"],"oldClients":true,"indexFirst":true,"checkedDeletes":true,"reusedLocks":true,"ops":[{"id":14,"kind":"adopt","clone":1,"file":3},{"id":15,"kind":"sync","clone":1},{"id":19,"kind":"lockfile","clone":1,"set":"@chaos/ext-19"},{"id":75,"kind":"damaged","clone":1,"file":1,"pick":600818858,"open":true},{"id":90,"kind":"blip","clone":1,"call":"delete"}]}',
  );
});

/**
 * I34 (seed 199970001, `--lockfile-race-share 1`, shrunk to 10 operations):
 * c2's lockfile change failed in an outage (kept as its pending delta, its
 * local copy holding it); c1 published an entry of its own; c2's sync
 * pulled the lockfile changed here and on the datastore, a conflict; c2's
 * next transaction published its change merged into c1's copy and wrote
 * that copy here, and the conflict stayed open (with 0912ba2 taken back), so
 * every later pull and push warned `conflicts_left` over a path whose two
 * sides agreed.
 */
Deno.test("chaos regression: a lockfile transaction that publishes this clone's change after a pull held the lockfile as a conflict leaves no conflict open there (I34, seed 199970001)", async () => {
  await clean(
    '{"seed":199970001,"clones":5,"absentOnError":true,"kinds":["api","core","core-single-phase","api","api"],"skewMs":[0,0,0,0,-114551],"ops":[{"id":75,"kind":"lockfile","clone":2,"set":"@chaos/ext-75"},{"id":76,"kind":"tick","n":12,"pick":254685525},{"id":77,"kind":"outage","on":true},{"id":78,"kind":"lockfile","clone":2,"set":"@chaos/ext-78"},{"id":79,"kind":"tick","n":5,"pick":976351024},{"id":80,"kind":"outage","on":false},{"id":82,"kind":"lockfile","clone":1,"set":"@chaos/ext-82"},{"id":83,"kind":"tick","n":55,"pick":206996792},{"id":84,"kind":"sync","clone":2},{"id":4,"kind":"lockfile","clone":2,"set":"@chaos/ext-4"}]}',
  );
});

/**
 * I35 (seed 199980002, `--lost-marker-window-share 1 --old-share 1
 * --etag-share 0`, shrunk to 7 operations): c2, a core-driven clone
 * flushing in two phases, committed version 1 of a model's data; its next
 * run died between its uploads (version 2 and the `latest` marker over the
 * committed one) and its commit; its run after that wrote version 3, while
 * another tool published versions 2 and 3 with their index entries and an
 * old client's push stopped between its read of the index and its write.
 * The run's preparation threw its lost versions, the marker reset to 1, and
 * (with 7f6bf18 taken back) took back the cut-off run's marker upload
 * outside the global lock, the committed bytes put back and named: the old
 * client's write then put back the entry naming the version that upload had
 * replaced, which the store no longer held.
 */
Deno.test("chaos regression: a two-phase preparation that throws its lost versions takes its marker upload back under the global lock, not inside an old client's read-modify-write (I35, seed 199980002)", async () => {
  await clean(
    '{"seed":199980002,"clones":4,"absentOnError":true,"kinds":["api","api","core","api"],"oldClients":true,"ops":[{"id":60,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":62,"kind":"crash","clone":2,"at":"commit","queued":true},{"id":63,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":67,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":68,"kind":"lockless","run":67,"pick":33563661,"indexed":true,"below":true},{"id":69,"kind":"lockless","run":67,"pick":1879540622,"indexed":true},{"id":70,"kind":"oldpush","clone":1,"window":2}]}',
  );
});

/**
 * I13 (seed 199910056, `--theirs-blocked-share 1`, shrunk; the checker's):
 * c2 synced notes/shared-0.md, c1 replaced it by a directory and c2's pull
 * followed, its record of the file's deletion then lost to damaged lines of
 * its manifest log, so that c2 counts the file as synced at its first
 * version, replaced here by the directory. The push of `resolve --mine` of
 * c2's conflict under that directory held the file back, naming the way on
 * (`sluice push notes/shared-0.md` by its name), which the checker did not
 * take, reporting a conflict nobody could leave. It now pushes that name, as
 * the reason says, and resolves again.
 */
Deno.test("chaos regression: a resolution held back beside a file a damaged manifest line records as synced pushes that name, as told (I13, seed 199910056)", async () => {
  await clean(
    '{"seed":199910056,"clones":3,"ops":[{"id":87,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":88,"kind":"tick","n":3,"pick":1844505497},{"id":89,"kind":"sync","clone":1},{"id":95,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":96,"kind":"tick","n":18,"pick":2136326886},{"id":97,"kind":"sync","clone":2},{"id":99,"kind":"edit","clone":2,"file":3,"how":"under"},{"id":100,"kind":"tick","n":9,"pick":374025203},{"id":43,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":46,"kind":"reshape","clone":1,"file":3,"how":"push"},{"id":26,"kind":"tick","n":2,"pick":660093957},{"id":28,"kind":"crash","clone":2,"at":"commit"},{"id":29,"kind":"lockfile","clone":0,"set":"@chaos/ext-29"},{"id":51,"kind":"edit","clone":2,"file":3,"how":"push"},{"id":52,"kind":"tick","n":19,"pick":1159404134},{"id":56,"kind":"damaged","clone":2,"file":3,"pick":1834547744,"open":true},{"id":33,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"streamed":true},{"id":61,"kind":"edit","clone":1,"file":0,"how":"push"},{"id":63,"kind":"edit","clone":2,"file":2,"how":"push"},{"id":64,"kind":"tick","n":36,"pick":517289168},{"id":65,"kind":"sync","clone":2},{"id":68,"kind":"damaged","clone":2,"file":4,"pick":1088581598,"dies":"nolog"}]}',
  );
});

/**
 * I7, I8 (seed 199930000, `--put-back-lost-share 1`, shrunk; v2 index;
 * found with 236d32a taken back): c0's pull past the dangling-entry grace
 * emptied m0's shard and dropped it from the meta; c0's run wrote version
 * 1 of m0's `out` again and died after its write of that shard, before the
 * meta bump listing it. Its user deleted the files and pushed them by name:
 * the push, finding no entry under the meta, deleted its uploads alone, and
 * c1's core run, committing into that shard, listed it and published
 * entries naming the deleted objects.
 */
Deno.test("chaos regression: an own upload named only in a shard the meta does not list yet is taken back with its entry (I7, I8, seed 199930000)", async () => {
  await clean(
    '{"seed":199930000,"clones":2,"absentOnError":true,"v2":true,"kinds":["api","core"],"ops":[{"id":53,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":54,"kind":"tick","n":22,"pick":2106458155},{"id":55,"kind":"vanish","file":0,"run":53,"whole":true},{"id":57,"kind":"sync","clone":0},{"id":59,"kind":"tick","n":8,"pick":1144023789},{"id":61,"kind":"wait","ms":960000},{"id":62,"kind":"sync","clone":0},{"id":64,"kind":"crash","clone":0,"at":"answer","queued":true},{"id":65,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":66,"kind":"tick","n":30,"pick":1029431127},{"id":67,"kind":"delete","clone":0,"file":0,"how":"push","run":65},{"id":30,"kind":"run","clone":1,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I13 (seed 199930025, `--put-back-lost-share 1`, shrunk; a checker's
 * mistake): another tool deleted c1's version 1 of m0's `log` whole; past
 * the dangling-entry grace a pull took the entries out, and c1's pull kept
 * both its copies as conflicts. Its user took theirs, the deletion, for
 * metadata.yaml, leaving a raw with no metadata.yaml beside it: a version
 * still being written, which no push publishes. The final `--mine` was left
 * out so, and its reason's way out (the version's deletion, theirs) is now
 * taken.
 */
Deno.test("chaos regression: a raw whose metadata.yaml its user took theirs for is resolved by taking theirs, as the unfinished version's reason says (I13, seed 199930025)", async () => {
  await clean(
    '{"seed":199930025,"clones":2,"kinds":["api","core-single-phase"],"indexFirst":true,"reusedLocks":true,"ops":[{"id":57,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":58,"kind":"tick","n":35,"pick":180935366},{"id":59,"kind":"vanish","file":0,"run":57,"whole":true},{"id":61,"kind":"sync","clone":0},{"id":63,"kind":"tick","n":6,"pick":15894021},{"id":65,"kind":"wait","ms":960000},{"id":66,"kind":"sync","clone":0},{"id":5,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":6,"kind":"resolve","clone":1,"pick":0,"how":"theirs"}]}',
  );
});

/**
 * I7, I8 (seed 199980016, `--lost-marker-window-share 1 --old-share 1
 * --etag-share 0`, shrunk; v2 index, generation versions): c0's core run's
 * push died between its uploads (the marker over the committed one) and its
 * commit; its next run lost its version to another tool's, and the reset
 * marker's take-back, at the commit under the global lock, put the committed
 * bytes back under a new version and died before its index write naming
 * them. The index named the version the upload had replaced, gone, for good.
 * The take-back now records the copy as synced before that write, so a later
 * pull keeps it to be named again and the next push names it.
 */
Deno.test("chaos regression: a marker take-back cut off between its put-back and its index write is named by a later pull and push (I7, I8, seed 199980016)", async () => {
  await clean(
    '{"seed":199980016,"clones":2,"v2":true,"kinds":["core","core"],"oldClients":true,"ops":[{"id":29,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":31,"kind":"crash","clone":0,"at":"commit","queued":true},{"id":32,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":36,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":37,"kind":"lockless","run":36,"pick":813136134,"indexed":true,"below":true},{"id":38,"kind":"lockless","run":36,"pick":708230244,"indexed":true},{"id":4,"kind":"tick","n":21,"pick":1473902877},{"id":10,"kind":"crash","clone":0,"at":"commit"},{"id":21,"kind":"tick","n":36,"pick":1204966172}]}',
  );
});

/**
 * I11 and I13 (seed 199930188, `--put-back-lost-share 1`, shrunk; 4 clones
 * with old clients, a v1 index): c4's run of m0's `log` committed version 1
 * with its answer lost (the marker naming 1); its files then deleted here, a
 * push took back its own uploads, their entries first, and was cut off by an
 * outage before the delete of metadata.yaml. The later pushes held that
 * deletion under the marker, which still named version 1 here, so the
 * upload stayed on the store, named by no index, and c3's `resolve --mine`
 * waited on it for good (`push_waiting_uncommitted`). A deletion of a file
 * no index names now goes under the marker too.
 */
Deno.test("chaos regression: a take-back of a cache's own committed version, cut off between its entries' removal and a delete, is finished by its next push while the marker here names the version (I11, I13, seed 199930188)", async () => {
  await clean(
    '{"seed":199930188,"clones":5,"kinds":["api","api","core","api","api"],"oldClients":true,"ops":[{"id":31,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":32,"kind":"tick","n":37,"pick":1346943765},{"id":33,"kind":"vanish","file":0,"run":31,"whole":true},{"id":35,"kind":"sync","clone":4},{"id":37,"kind":"tick","n":6,"pick":654565773},{"id":39,"kind":"wait","ms":960000},{"id":40,"kind":"sync","clone":4},{"id":42,"kind":"crash","clone":4,"at":"answer","queued":true},{"id":43,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":44,"kind":"tick","n":38,"pick":1159149551},{"id":45,"kind":"delete","clone":4,"file":0,"how":"push","run":43},{"id":46,"kind":"tick","n":33,"pick":1902394858},{"id":48,"kind":"tick","n":33,"pick":1262136984},{"id":0,"kind":"outage","on":true},{"id":15,"kind":"tick","n":2,"pick":1855701037}]}',
  );
});

/**
 * I1 (seed 199930196, `--put-back-lost-share 1`, shrunk; 5 clones, c1's
 * clock 69 s behind): another tool deleted c0's version 1 of m0's `out`
 * whole, and c1's run then published version 1 again with other bytes.
 * c0's `resolve --merged` pulled first, which set c0's copy aside and
 * brought in c1's, then wrote its merge over that; the library refused it
 * (`version_exists`: a data version is never written over, `--theirs`
 * settles it), and the checker left its merged bytes at the path, so c0 did
 * not hold c1's acknowledged version after the final sync. The checker now
 * takes theirs, as the refusal says.
 */
Deno.test("chaos regression: a --merged refused on a data version another writer published again is settled with --theirs, as the refusal says (I1, seed 199930196)", async () => {
  await clean(
    '{"seed":199930196,"clones":5,"kinds":["api","api","core-single-phase","api","api"],"skewMs":[0,-68846,0,0,0],"ops":[{"id":58,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":59,"kind":"tick","n":26,"pick":842126744},{"id":60,"kind":"vanish","file":0,"run":58,"whole":true},{"id":62,"kind":"sync","clone":4},{"id":64,"kind":"tick","n":6,"pick":644579873},{"id":66,"kind":"wait","ms":960000},{"id":67,"kind":"sync","clone":4},{"id":3,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":6,"kind":"tick","n":17,"pick":124796879},{"id":7,"kind":"tick","n":22,"pick":1106624465},{"id":22,"kind":"resolve","clone":0,"pick":0,"how":"merged"}]}',
  );
});

/**
 * I36 (seed 203100000, `--under-marker-share 1 --old-share 1`, shrunk; 4
 * clones with old clients, a v1 index): an old client's pull on c3's
 * machine read the index (c2's deletion of a file it pushed landed, its
 * commit cut off: an entry naming nothing), and stopped; c2's run committed
 * version 1 of m0's `log` and its marker, c0 synced, fetching both, and the
 * old client wrote back the index it had read, dropping version 1's entries.
 * c0's user then deleted version 1 here, the marker here naming it, and
 * pushed: the deletion went for want of an index entry, taking c2's
 * committed version from the store while the marker named it. A deletion
 * under the marker now goes for want of an entry only over this cache's own
 * take-back upload (or nothing), never a committed version.
 */
Deno.test("chaos regression: a peer's committed version whose entries an old client's pull dropped is not deleted by a push while the marker here names it (I36, seed 203100000)", async () => {
  await clean(
    '{"seed":203100000,"clones":4,"kinds":["api","core","api","core"],"oldClients":true,"ops":[{"id":61,"kind":"edit","clone":2,"file":0,"how":"push"},{"id":63,"kind":"crash","clone":2,"at":"commit","queued":true},{"id":64,"kind":"delete","clone":2,"file":0,"how":"push"},{"id":65,"kind":"tick","n":18,"pick":827269830},{"id":66,"kind":"wait","ms":31000},{"id":68,"kind":"oldpull","clone":3,"window":0},{"id":69,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":70,"kind":"tick","n":44,"pick":1360790722},{"id":71,"kind":"sync","clone":0},{"id":72,"kind":"tick","n":14,"pick":970277005},{"id":73,"kind":"delete","clone":0,"file":0,"how":"push","run":69,"committed":true}]}',
  );
});

/**
 * I7, I8 (seed 203300000, `--take-back-blip-share 1`, shrunk; 2 clones with
 * old clients, a v2 index): c0's run of m1's `log` died between its uploads
 * (the marker over the committed one) and its commit; its next run lost its
 * version, and the one the cut-off run uploaded, to another tool's, and the
 * marker's take-back met a brief outage at its delete of this cache's
 * upload. The marker reset here was marked by no one, so no later push
 * finished the take-back: the upload stayed over the committed marker and
 * the index named the version it had replaced for good. The marker is now
 * marked before every take-back, and the next push makes it.
 */
Deno.test("chaos regression: a marker take-back whose delete of this cache's upload failed in a brief outage is made by the next push (I7, I8, seed 203300000)", async () => {
  await clean(
    '{"seed":203300000,"clones":2,"absentOnError":true,"v2":true,"oldClients":true,"indexFirst":true,"checkedDeletes":true,"ops":[{"id":39,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":40,"kind":"tick","n":24,"pick":1383850120},{"id":41,"kind":"crash","clone":0,"at":"commit","queued":true},{"id":42,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":45,"kind":"tick","n":8,"pick":1223915381},{"id":46,"kind":"blip","clone":0,"call":"delete","marker":true},{"id":47,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":48,"kind":"lockless","run":47,"pick":1885210304,"indexed":true,"below":true},{"id":49,"kind":"lockless","run":47,"pick":1095234584,"indexed":true},{"id":50,"kind":"tick","n":34,"pick":1972506139},{"id":15,"kind":"tick","n":35,"pick":935105629}]}',
  );
});

/**
 * I7, I8 (seed 203400000, `--put-back-answer-share 1`, shrunk; 4 clones):
 * c0's run of m1's `out` died between its uploads (the marker over the
 * committed one) and its commit; its next run lost its version, and the one
 * the cut-off run uploaded, to another tool's, and the marker's take-back
 * put the committed bytes back with a create that landed, its answer lost
 * (each retry out of reach). The failure was thrown with the new object's
 * version known nowhere, and the index named the version the upload had
 * replaced for good. A create that failed is now looked at, and one holding
 * the bytes to put back is taken as put back and named (79ecd1c); the
 * marker marked before every take-back (c6da659, 5b9f481) has the next push
 * finish it too, so the seed fails only with all three taken back.
 */
Deno.test("chaos regression: a marker take-back whose put-back create landed with its answer lost names the object put back (I7, I8, seed 203400000)", async () => {
  await clean(
    '{"seed":203400000,"clones":4,"kinds":["api","core","api","core"],"reusedLocks":true,"ops":[{"id":93,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":94,"kind":"tick","n":25,"pick":1512958623},{"id":95,"kind":"crash","clone":0,"at":"commit","queued":true},{"id":96,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":100,"kind":"blip","clone":0,"call":"put","marker":true,"landed":true},{"id":101,"kind":"run","clone":0,"model":1,"data":0,"workMs":0},{"id":102,"kind":"lockless","run":101,"pick":808339918,"indexed":true,"below":true},{"id":103,"kind":"lockless","run":101,"pick":213369728,"indexed":true},{"id":104,"kind":"tick","n":38,"pick":2005145133}]}',
  );
});

/**
 * I13 (seed 203150150, default shares, shrunk; 2 clones, a v2 index): c1
 * made notes/shared-2.lock after c0 had published it (a conflict, changed
 * remotely) and deleted it here; c0 replaced its file by a directory, which
 * c1 pulled, and edited the file under it; c1 edited that file too (a
 * second conflict), then replaced the directory by a file of its name. The
 * final sync's `--mine` of the file's conflict was held back by its push
 * (resolve the file under the directory first), rebasing the file on c0's
 * file, deleted since. That record made the file look synced: `--mine` of
 * the file under the directory was refused as a copy deleted here, and
 * `--theirs` found the file in the way. A file above that differs from its
 * record is now this cache's own shape, as one never synced is.
 */
Deno.test("chaos regression: a file that replaced a directory here, rebased by its own held-back --mine, still lets the conflict under it resolve (I13, seed 203150150)", async () => {
  await clean(
    '{"seed":203150150,"clones":2,"absentOnError":true,"v2":true,"kinds":["api","core-single-phase"],"checkedDeletes":true,"ops":[{"id":76,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":80,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":82,"kind":"delete","clone":1,"file":5,"how":"push"},{"id":84,"kind":"reshape","clone":0,"file":5,"how":"push"},{"id":85,"kind":"tick","n":17,"pick":821933748},{"id":86,"kind":"sync","clone":1},{"id":87,"kind":"tick","n":4,"pick":127407174},{"id":4,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":59,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":64,"kind":"tick","n":1,"pick":1070774288},{"id":65,"kind":"sync","clone":1},{"id":22,"kind":"reshape","clone":1,"file":5,"how":"push"}]}',
  );
});

/**
 * I11 (seed 203100030, `--under-marker-share 1 --old-share 1`, shrunk; 5
 * clones with old clients): c4's run of m1's `out` committed version 1, an
 * old client's pull wrote back the index it had read before, dropping the
 * version's entries, and c4 deleted the version here while its marker named
 * it. The push held the deletion (4826a6e), and the pull left the deletion
 * marked here to that push, so nothing named the version again: the store
 * kept objects no index named. A held deletion whose entry was dropped, the
 * store holding the version synced, now names that version again.
 */
Deno.test("chaos regression: a held deletion of this cache's committed version whose entries an old client dropped names it again (I11, seed 203100030)", async () => {
  await clean(
    '{"seed":203100030,"clones":5,"absentOnError":true,"kinds":["core","api","api","api","core"],"oldClients":true,"checkedDeletes":true,"reusedLocks":true,"ops":[{"id":63,"kind":"edit","clone":4,"file":3,"how":"push"},{"id":65,"kind":"crash","clone":4,"at":"commit","queued":true},{"id":66,"kind":"delete","clone":4,"file":3,"how":"push"},{"id":67,"kind":"tick","n":18,"pick":1822743282},{"id":70,"kind":"oldpull","clone":3,"window":3},{"id":71,"kind":"run","clone":4,"model":1,"data":0,"workMs":0},{"id":75,"kind":"delete","clone":4,"file":0,"how":"push","run":71,"committed":true}]}',
  );
});

/**
 * I9 (seed 203150119, shrunk; 5 clones with old clients, versions the
 * bytes' ETags): c0's edit of config/settings-1.yaml, a new file, committed
 * as c0 crashed before the answer; c4 synced it, and c0's restarted process
 * deleted it: its push took out the entry naming its own write before its
 * delete of that write. c4's edit of the file uploaded over c0's write in
 * between (its base still in the store), so c0's delete met c4's upload and
 * left it, the deletion committed and reported done; c4's commit, based on
 * the version no entry named any more, named the path again over that
 * deletion. A write over the version the index named when it was synced
 * here is now left out as a conflict once its entry is gone.
 */
Deno.test("chaos regression: an edit uploaded inside a take-back of a committed-unanswered create is a conflict with the committed deletion (I9, seed 203150119)", async () => {
  await clean(
    '{"seed":203150119,"clones":5,"kinds":["core","api","api","api","core"],"oldClients":true,"etag":true,"ops":[{"id":76,"kind":"lockfile","clone":3,"set":"@chaos/ext-76"},{"id":51,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":64,"kind":"tick","n":20,"pick":949418405},{"id":33,"kind":"crash","clone":0,"at":"answer","queued":true},{"id":34,"kind":"edit","clone":0,"file":1,"how":"push"},{"id":35,"kind":"tick","n":23,"pick":1785639735},{"id":36,"kind":"sync","clone":4},{"id":37,"kind":"tick","n":31,"pick":600334378},{"id":39,"kind":"delete","clone":0,"file":1,"how":"push"},{"id":40,"kind":"tick","n":32,"pick":145468256},{"id":41,"kind":"sync","clone":4},{"id":42,"kind":"edit","clone":4,"file":1,"how":"push"},{"id":43,"kind":"tick","n":13,"pick":1402226973}]}',
  );
});

/**
 * I33 (seed 205300004, a false report; 5 clones, a v2 index): c1 edited
 * notes/shared-1.md and pushed it, then its user deleted the file by hand
 * (no mark, so no push of changed files publishes the deletion), and c3's
 * cache was replaced by a copy of c1's, state and all. The copy's synced
 * record names the file while the cache lacks it: a local deletion, c1's
 * unpublished change carried into the copy its user chose, which a pull
 * keeps as it keeps c1's own (`sluice pull --restore-deleted` takes it
 * back). The checker held c3 to the file as if its user had never deleted
 * it; a copy now takes on the deletions of the cache it was copied from.
 */
Deno.test("chaos regression: a copy of a cache whose user deleted a synced file by hand keeps that deletion as its own (I33, seed 205300004)", async () => {
  await clean(
    '{"seed":205300004,"clones":5,"absentOnError":true,"v2":true,"kinds":["api","api","core","api","core-single-phase"],"reusedLocks":true,"ops":[{"id":36,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":40,"kind":"delete","clone":1,"file":4,"how":"hand"},{"id":41,"kind":"damaged","clone":1,"file":4,"pick":1680293265,"replaceFails":true},{"id":25,"kind":"copy","clone":3,"from":1}]}',
  );
});

/**
 * I1 (seed 206500016, `--save-gap-share 1 --parallel-share 1`, shrunk; 2
 * core-driven clones): c0's run of m0's `log`, beside a parallel step of
 * its workflow in the same process, saved as the tool's `save` does: the
 * data name's directory marked and made, then, before its first file, the
 * step's flush naming its own model held the run's model directory back
 * and cleaned the directory's mark, nothing being under it yet. The run's
 * files were marked by nothing, and its own flush was acknowledged with
 * nothing of its version published. A marked directory held back for
 * another run's push now keeps its mark (deffae4).
 */
Deno.test("chaos regression: a save's marked directory, empty as another step's flush holds it back, keeps its mark for the run's own flush (I1, seed 206500016)", async () => {
  await clean(
    '{"seed":206500016,"clones":2,"kinds":["core","core"],"oldClients":true,"indexFirst":true,"ops":[{"id":21,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"parallel":true,"saveGap":true}]}',
  );
});

/**
 * I9 (seed 203100067, `--under-marker-share 1 --old-share 1`, shrunk on the
 * way; 4 clones with old clients, a v2 index, versions the bytes' ETags):
 * c1's run committed m1's `out` marker at 1, its next run uploaded the
 * marker 2 and died before its commit, and another tool published versions
 * 2 and 3. c0 moved the marker to 2: its create met c1's upload of those
 * very bytes, and its commit named that object. c1's run of version 3 lost
 * it (`version_exists`), and its marker reset here to the 1 it synced was
 * left marked for the next push to settle c1's own upload; that push found
 * the object carrying c1's writer id and wrote 1 over it as c1's own
 * uncommitted write: c0's committed marker, never seen, was lost. A copy
 * put back as synced now meets an own object the index names as a
 * committed change (a conflict).
 */
Deno.test("chaos regression: a marker put back as synced is not written over this cache's own upload a peer committed (I9, seed 203100067)", async () => {
  await clean(
    '{"seed":203100067,"clones":4,"absentOnError":true,"v2":true,"kinds":["api","core","api","api"],"oldClients":true,"skewMs":[0,0,83039,0],"etag":true,"ops":[{"id":90,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":92,"kind":"crash","clone":1,"at":"commit","queued":true},{"id":93,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":97,"kind":"run","clone":1,"model":1,"data":0,"workMs":30000},{"id":98,"kind":"lockless","run":97,"pick":236511347,"indexed":true,"below":true},{"id":99,"kind":"lockless","run":97,"pick":544703916,"indexed":true},{"id":82,"kind":"sync","clone":0},{"id":16,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":27,"kind":"marker","clone":0,"model":1,"data":0,"back":true,"how":"push"},{"id":57,"kind":"marker","clone":2,"model":1,"data":0,"back":false,"how":"push"},{"id":28,"kind":"tick","n":31,"pick":627376630},{"id":47,"kind":"reshape","clone":1,"file":4,"how":"push"}]}',
  );
});

/**
 * I7, I8 and I33 (seed 206200022, shrunk; 4 clones with old clients): an
 * old client pushed notes/shared-1.md and c3 synced it; c3's edit of it
 * (pushed with --adopt-uncommitted) uploaded over the old client's object,
 * and an outage cut its commit off. c3's user then deleted the file by
 * hand, and a damaged line of c3's manifest log took the file's record.
 * c3's next push, the file never synced as far as it knew, deleted its own
 * stranded upload and left the old client's entry, which named bytes the
 * upload had replaced: the index named an object the store no longer held.
 * That entry now goes with the upload, recorded as lost.
 */
Deno.test("chaos regression: an own stranded upload over an old client's file, deleted here with its record lost, takes that client's entry out with it (I7, seed 206200022)", async () => {
  await clean(
    '{"seed":206200022,"clones":4,"kinds":["core","core","api","api"],"oldClients":true,"skewMs":[89702,0,0,0],"reusedLocks":true,"setAsideFlaky":true,"ops":[{"id":25,"kind":"oldpush","clone":3,"file":4},{"id":72,"kind":"sync","clone":3},{"id":71,"kind":"tick","n":11,"pick":2018504478},{"id":7,"kind":"adopt","clone":3,"file":4},{"id":14,"kind":"tick","n":3,"pick":256737687},{"id":15,"kind":"outage","on":true},{"id":57,"kind":"delete","clone":3,"file":4,"how":"hand"},{"id":58,"kind":"damaged","clone":3,"file":4,"pick":1425993401}]}',
  );
});

/**
 * I9 (seed 203100067, `--under-marker-share 1 --old-share 1`, shrunk; a
 * false report): another tool published versions 2 and 3 of m1's `out`
 * while its marker named 1; c0 moved the marker "one back" from the highest
 * version it held (to 2, forward from the 1 it named) and c2 to 3, both
 * from 1, c2 writing over c0's as `marker_rebase.ts` does for a marker
 * moved further forward. The checker held c0's marker as a rollback; a
 * marker moved forward from the number it named here is none.
 */
Deno.test("chaos regression: a marker moved one back from the highest version but forward from the one it named is no rollback (I9, seed 203100067)", async () => {
  await clean(
    '{"seed":203100067,"clones":4,"absentOnError":true,"v2":true,"kinds":["api","core","api","api"],"oldClients":true,"skewMs":[0,0,83039,0],"etag":true,"ops":[{"id":90,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":91,"kind":"tick","n":24,"pick":1151716777},{"id":92,"kind":"crash","clone":1,"at":"commit","queued":true},{"id":93,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":96,"kind":"tick","n":16,"pick":1163839927},{"id":97,"kind":"run","clone":1,"model":1,"data":0,"workMs":30000},{"id":98,"kind":"lockless","run":97,"pick":236511347,"indexed":true,"below":true},{"id":99,"kind":"lockless","run":97,"pick":544703916,"indexed":true},{"id":100,"kind":"oldpush","clone":2,"window":1},{"id":101,"kind":"tick","n":105,"pick":363459249},{"id":72,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":73,"kind":"tick","n":33,"pick":679102316},{"id":74,"kind":"sync","clone":2},{"id":75,"kind":"tick","n":53,"pick":112985378},{"id":82,"kind":"sync","clone":0},{"id":83,"kind":"tick","n":34,"pick":1033045209},{"id":43,"kind":"oldpull","clone":0},{"id":16,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":25,"kind":"outage","on":false},{"id":26,"kind":"tick","n":19,"pick":169857046},{"id":27,"kind":"marker","clone":0,"model":1,"data":0,"back":true,"how":"push"},{"id":57,"kind":"marker","clone":2,"model":1,"data":0,"back":false,"how":"push"},{"id":28,"kind":"tick","n":31,"pick":627376630},{"id":47,"kind":"reshape","clone":1,"file":4,"how":"push"}]}',
  );
});

/**
 * I9 (seed 206500056, `--checked-delete-share 1 --blind-share 1
 * --vanish-share 1`, shrunk; the checker's): c2's crashed run left its
 * marker write of m0's `out` uncommitted and its restart put back the
 * committed marker, `1`, while another tool published versions 2 and 3
 * with their index entries and no marker. c0 and c2 both synced the marker
 * at `1`; c0 moved it "one back" from its highest version (3), to `2`,
 * and c2 moved it to `3`: from the marker both synced, both moved it
 * forward, c2's further, and c2's push wrote over c0's as the marker rebase
 * does (README, Conflicts), losing nothing. The checker held c0's marker
 * to I9 as a move back; a marker moved "back" is now one only when it names
 * a version below the marker named in its clone (26ab0de).
 */
Deno.test("chaos regression: a marker moved one below the highest version but above the marker synced is a move forward, written over by one moved further (I9, seed 206500056)", async () => {
  await clean(
    '{"seed":206500056,"clones":3,"kinds":["core-single-phase","core-single-phase","api"],"checkedDeletes":true,"reusedLocks":true,"ops":[{"id":139,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":141,"kind":"crash","clone":2,"at":"commit","queued":true},{"id":142,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":147,"kind":"run","clone":2,"model":0,"data":0,"workMs":30000},{"id":148,"kind":"lockless","run":147,"pick":9491768,"indexed":true,"below":true},{"id":149,"kind":"lockless","run":147,"pick":1613551426,"indexed":true},{"id":150,"kind":"tick","n":111,"pick":717285720},{"id":0,"kind":"run","clone":0,"model":0,"data":1,"workMs":45000,"parallel":true},{"id":67,"kind":"tick","n":20,"pick":75729886},{"id":68,"kind":"wait","ms":80000},{"id":69,"kind":"tick","n":20,"pick":506658104},{"id":70,"kind":"wait","ms":80000},{"id":71,"kind":"tick","n":20,"pick":1929265030},{"id":73,"kind":"sync","clone":2},{"id":74,"kind":"sync","clone":1},{"id":12,"kind":"breakglass","model":0},{"id":13,"kind":"marker","clone":0,"model":0,"data":0,"back":true,"how":"push"},{"id":81,"kind":"marker","clone":2,"model":0,"data":0,"back":false,"how":"push"}]}',
  );
});

/**
 * I1 (seed 206400043, shrunk, a false report; 4 clones with old clients, a
 * v2 index, versions the bytes' ETags): another tool deleted c3's run's
 * version 1 whole, and c2's pulls removed its entries. c3's user merged its
 * metadata.yaml (`resolve --merged`), the resolution cut off by the global
 * lock (lock_timeout), the merge left in the file; c0's run then published
 * version 1 again. The final pull kept c3's edit, as it keeps any local
 * change, in a conflict naming c0's bytes as theirs, and I1, checked before
 * the final resolution, found c3 without them. I1 now checks such a clone
 * after that resolution, whose `--mine`, refused by the push as a version
 * another writer published (c3's files of it set aside, the conflict
 * dropped), is followed by the pull the refusal names.
 */
Deno.test("chaos regression: a user's edit of a run's file kept in a conflict with a peer's version is held to it after the final resolution (I1, seed 206400043)", async () => {
  await clean(
    '{"seed":206400043,"clones":4,"absentOnError":true,"v2":true,"kinds":["core","api","api","core"],"oldClients":true,"etag":true,"checkedDeletes":true,"setAsideFlaky":true,"ops":[{"id":65,"kind":"run","clone":3,"model":1,"data":1,"workMs":0},{"id":66,"kind":"tick","n":29,"pick":1384920912},{"id":67,"kind":"vanish","file":0,"run":65,"whole":true},{"id":69,"kind":"sync","clone":2},{"id":71,"kind":"tick","n":10,"pick":1192532496},{"id":73,"kind":"wait","ms":960000},{"id":74,"kind":"sync","clone":2},{"id":3,"kind":"latency","ms":3000},{"id":4,"kind":"adopt","clone":0,"file":0},{"id":6,"kind":"tick","n":25,"pick":2145696729},{"id":7,"kind":"delete","clone":0,"file":2,"how":"push"},{"id":18,"kind":"resolve","clone":3,"pick":2,"how":"merged"},{"id":19,"kind":"bulk","clone":2},{"id":26,"kind":"tick","n":15,"pick":541777171},{"id":27,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":28,"kind":"tick","n":29,"pick":1666702590}]}',
  );
});

/**
 * I27 (seed 206000042, `--lockless-share 1 --shared-cache-share 1
 * --structural-share 1`, versions are ETags, old clients; shrunk twice, the
 * second after the first fix): c0's same-output run of m0's `out` was
 * refused (its lock broken); its erasure looked at its upload of version
 * 1's `metadata.yaml`, an old client wrote the same bytes there with its
 * entry, the erasure's delete took them, and an outage left its look at
 * the index after (and its delete of `raw`) pending. c0's next push took
 * the erasure up: its index read named the old client's entry, then, while
 * it looked at or deleted `raw`, an old client's pull met `metadata.yaml`
 * gone and wrote back its index without the entry. The erasure put the
 * bytes back all the same, judged by its first read (the first history: a
 * read of its own after the write-back showed the entry gone; the second:
 * no read between), and they stood unnamed: c0's next run of version 1 took
 * them for an old client's uncommitted push and was refused
 * (`version_exists`) for a version nobody published. A put-back is now
 * judged by the latest read (049ad84), and one found before the erasure's
 * later looks is preceded by another read (ed05e97).
 */
Deno.test("chaos regression: an erasure never puts back an old client's write that an old client's pull dropped since its look at the index, so no run of that version is refused for unnamed bytes (I27, seed 206000042)", async () => {
  await clean(
    '{"seed":206000042,"clones":2,"oldClients":true,"etag":true,"ops":[{"id":0,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":47,"kind":"sibling","clone":1,"how":"push","workMs":45000},{"id":49,"kind":"tick","n":15,"pick":1799103326},{"id":3,"kind":"breakglass","model":0},{"id":39,"kind":"oldsame","clone":1,"run":0,"pick":1547780350},{"id":9,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":13,"kind":"tick","n":1,"pick":299882242},{"id":16,"kind":"outage","on":true},{"id":56,"kind":"tick","n":8,"pick":1976015307},{"id":57,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":38,"kind":"oldpull","clone":1},{"id":25,"kind":"run","clone":0,"model":0,"data":0,"workMs":0}]}',
    '{"seed":206000042,"clones":2,"oldClients":true,"etag":true,"ops":[{"id":0,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":47,"kind":"sibling","clone":1,"how":"push","workMs":45000},{"id":48,"kind":"sync","clone":1},{"id":3,"kind":"breakglass","model":0},{"id":39,"kind":"oldsame","clone":1,"run":0,"pick":1547780350},{"id":9,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":13,"kind":"tick","n":9,"pick":299882242},{"id":16,"kind":"outage","on":true},{"id":56,"kind":"tick","n":8,"pick":1976015307},{"id":57,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":38,"kind":"oldpull","clone":1},{"id":25,"kind":"run","clone":0,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I9 (seed 206800234, `--damaged-log-share 1 --shared-cache-share 1`,
 * shrunk; 5 clones, a clock skew, first pushes making the index): a false
 * report. c3 synced c0's edit of notes/shared-0.md (op #71), and a damaged
 * line of its manifest log lost that record: c3's copy, never changed,
 * counted as never synced, and met c0's later version as a conflict, which
 * c3 resolved `--mine`, publishing its copy (the bytes of c0's edit #71)
 * as a version of its own. A second damaged line lost that record in turn
 * (the file synced at c0's version again, as its conflict's rebase left
 * it), and c3's next edit, refused by the store, met its own object and
 * wrote over it, as config-cas-writer does. Nothing was lost: c3 replaced
 * what it had published itself. The checker named the replaced bytes by
 * the first edit of that hash, c0's, which c3 no longer recorded; a writer
 * replacing a version it wrote itself is now held to nothing there.
 */
Deno.test("chaos regression: a clone replacing its own published copy of a peer's edit, both records lost to damaged log lines, loses nothing (I9, seed 206800234)", async () => {
  await clean(
    '{"seed":206800234,"clones":5,"absentOnError":true,"kinds":["api","api","api","api","core"],"skewMs":[59538,0,0,0,0],"indexFirst":true,"ops":[{"id":103,"kind":"tick","n":37,"pick":1110609808},{"id":52,"kind":"run","clone":3,"model":0,"data":0,"workMs":0,"parallel":true,"structural":true},{"id":54,"kind":"run","clone":3,"model":1,"data":0,"workMs":0},{"id":47,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":2,"kind":"adopt","clone":0,"file":2},{"id":3,"kind":"tick","n":29,"pick":6866285},{"id":4,"kind":"adopt","clone":0,"file":2},{"id":30,"kind":"stall","clone":4,"on":true},{"id":5,"kind":"tick","n":19,"pick":24807358},{"id":6,"kind":"marker","clone":1,"model":1,"data":1,"back":true,"how":"push"},{"id":71,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":72,"kind":"tick","n":48,"pick":98141896},{"id":77,"kind":"sync","clone":3},{"id":78,"kind":"tick","n":31,"pick":1098390084},{"id":79,"kind":"damaged","clone":3,"file":3,"pick":759513438,"open":true},{"id":80,"kind":"sync","clone":3},{"id":85,"kind":"tick","n":21,"pick":2078651350},{"id":58,"kind":"marker","clone":2,"model":1,"data":1,"back":false,"how":"push"},{"id":44,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":45,"kind":"reshape","clone":0,"file":3,"how":"push"},{"id":46,"kind":"reshape","clone":0,"file":3,"how":"push"},{"id":7,"kind":"edit","clone":0,"file":0,"how":"hand-tick"},{"id":8,"kind":"run","clone":4,"model":1,"data":0,"workMs":1000,"parallel":true,"structural":true},{"id":9,"kind":"tick","n":27,"pick":1319286483},{"id":10,"kind":"resolve","clone":4,"pick":3,"how":"theirs"},{"id":11,"kind":"resolve","clone":3,"pick":0,"how":"mine"},{"id":12,"kind":"tick","n":4,"pick":799866209},{"id":13,"kind":"tick","n":26,"pick":980317261},{"id":14,"kind":"run","clone":2,"model":1,"data":1,"workMs":15000},{"id":29,"kind":"stall","clone":4,"on":false},{"id":19,"kind":"outage","on":true},{"id":20,"kind":"sync","clone":3},{"id":21,"kind":"outage","on":false},{"id":22,"kind":"migrate","clone":0},{"id":23,"kind":"run","clone":3,"model":1,"data":0,"workMs":15000,"same":true},{"id":24,"kind":"run","clone":0,"model":1,"data":1,"workMs":15000,"parallel":true},{"id":25,"kind":"lockfile","clone":0,"set":"@chaos/ext-25"},{"id":63,"kind":"edit","clone":3,"file":3,"how":"push"},{"id":64,"kind":"tick","n":55,"pick":1247648068},{"id":65,"kind":"sync","clone":3},{"id":66,"kind":"tick","n":58,"pick":970925527},{"id":67,"kind":"delete","clone":3,"file":3,"how":"hand"},{"id":68,"kind":"damaged","clone":3,"file":3,"pick":1011627092},{"id":69,"kind":"sync","clone":3}]}',
  );
});

/**
 * I37 (seed 207500001, `--dropped-edit-share 1`, shrunk; 3 clones, two
 * core-driven, old clients, deletes checked then made): c0's deletion,
 * cut off before its commit, left an entry naming nothing; an old client's
 * pull on c0's machine read the index and stopped before its write-back
 * while c2 pushed notes/shared-1.md, new, and c1 synced, fetching it. The
 * write-back dropped c2's entry, its object kept. c1's user edited the file
 * and pushed before any pull of c1's saw the drop: its commit took the
 * missing entry for a committed deletion, left the edit out as a conflict
 * and deleted its upload, which had replaced c2's version, so nothing was
 * left at the path though nobody had deleted it. A missing entry is a
 * deletion now only where the store no longer holds the write or a
 * take-back's note names the version it was based on.
 */
Deno.test("chaos regression: an edit pushed over a synced version whose entry an old client dropped, before a pull saw the drop, is published, never met as a deletion (I37, seed 207500001)", async () => {
  await clean(
    '{"seed":207500001,"clones":3,"absentOnError":true,"kinds":["core","api","core"],"oldClients":true,"checkedDeletes":true,"ops":[{"id":87,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":89,"kind":"crash","clone":0,"at":"commit","queued":true},{"id":90,"kind":"delete","clone":0,"file":3,"how":"push"},{"id":91,"kind":"tick","n":25,"pick":1241570211},{"id":92,"kind":"wait","ms":31000},{"id":94,"kind":"oldpull","clone":0,"window":1},{"id":95,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":96,"kind":"tick","n":24,"pick":1661745253},{"id":97,"kind":"sync","clone":1},{"id":98,"kind":"tick","n":1,"pick":877427919},{"id":99,"kind":"edit","clone":1,"file":4,"how":"push","dropped":true}]}',
  );
});

/**
 * I33 (seed 203300283, `--take-back-blip-share 1`, shrunk; the checker's):
 * c2 made notes/shared-1.md a directory and pushed; c0 synced it, and its
 * user wrote part-88.md under it and marked the directory's name; c2 made
 * the path a file again and pushed. c0's pull met that file as a conflict
 * with the directory here, and its user took theirs: the directory, which
 * the datastore no longer holds, was set aside whole with the file in it,
 * as `--theirs` does (the result names the copy set aside; I6 finds the
 * bytes there). I33's marked files held that write to being published or
 * still marked; a write under a directory its clone's `--theirs` set
 * aside afterwards is now the user's choice, as a later edit of it is.
 */
Deno.test("chaos regression: a file written under a directory and marked by its name, set aside with the directory by a resolve --theirs of a file of that name, is the user's choice (I33, seed 203300283)", async () => {
  await clean(
    '{"seed":203300283,"clones":3,"absentOnError":true,"kinds":["api","core","api"],"skewMs":[0,-97475,0],"indexFirst":true,"ops":[{"id":80,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":84,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":85,"kind":"tick","n":14,"pick":1862418936},{"id":86,"kind":"sync","clone":0},{"id":87,"kind":"tick","n":4,"pick":1632994113},{"id":88,"kind":"edit","clone":0,"file":4,"how":"under"},{"id":70,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":71,"kind":"tick","n":9,"pick":2111277757},{"id":2,"kind":"resolve","clone":0,"pick":7,"how":"theirs"}]}',
  );
});

/**
 * I9 (seed 208500001, `--rollback-past-share 1`; shrunk): c2 synced m1's
 * `log` marker at 1; two of its same-output runs died while they worked,
 * leaving versions 2 and 3 and its marker naming 3 in its cache. c1 ran the
 * data twice (2 and 3, the same bytes) and its user moved the marker back to
 * 2. c2's final sync pushed its marker at 3 over c1's rollback: the rebase
 * judged c1's marker moved forward from 1, and c2's further. A peer's marker
 * is now taken as moved forward only when no version the index lists is
 * above it (this cache's own new versions left out): a rollback leaves the
 * versions it moved back from listed above its marker.
 */
Deno.test("chaos regression: a peer's rollback of a marker above the one a clone synced is not written over by that clone's marker moved further (I9, seed 208500001)", async () => {
  await clean(
    '{"seed":208500001,"clones":3,"v2":true,"kinds":["api","core-single-phase","api"],"oldClients":true,"etag":true,"ops":[{"id":34,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"same":true},{"id":35,"kind":"tick","n":19,"pick":806990802},{"id":38,"kind":"run","clone":2,"model":1,"data":1,"workMs":0,"same":true},{"id":39,"kind":"tick","n":23,"pick":1962195038},{"id":40,"kind":"crash","clone":2},{"id":41,"kind":"wait","ms":31000},{"id":42,"kind":"run","clone":2,"model":1,"data":1,"workMs":0,"same":true},{"id":43,"kind":"tick","n":15,"pick":1559924811},{"id":44,"kind":"crash","clone":2},{"id":46,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"same":true},{"id":48,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"same":true},{"id":50,"kind":"marker","clone":1,"model":1,"data":1,"back":true,"how":"push"}]}',
  );
});

/**
 * I6 (seed 208300097, `--copy-share 1 --shared-cache-share 1`, shrunk; 2
 * clones, index reads failing right after a lost version's set-aside). c0's
 * run of version 2 of shell/cmd/m0/log was refused (`version_exists`, its
 * copy set aside) and its sync's pull met c1's version 2 over a marker
 * reading `1` this cache never synced: a conflict, mine (`1`) set aside,
 * theirs (`2`) in place. A later pull took c1's version 3 at the path, the
 * conflict left open. c0 then moved the marker one back, to `2` (op #31),
 * marked it dirty and pushed, which left it out for the open conflict. The
 * final `resolve --mine` put the set-aside `1` back over it: a copy holding
 * theirs' bytes was taken for theirs and written over, with no set-aside
 * copy. It is now taken for theirs only while the cache holds it as synced
 * (not dirty, its synced record naming those bytes); else it is set aside
 * like any third copy (`sync/service/resolve_test.ts`).
 */
Deno.test("chaos regression: resolve --mine sets aside an edit made since the conflict that holds theirs' old bytes (I6, seed 208300097)", async () => {
  await clean(
    '{"seed":208300097,"clones":2,"setAsideFlaky":true,"ops":[{"id":3,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"streamed":true},{"id":48,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":49,"kind":"stall","clone":0,"on":true,"at":"commit","run":48,"pick":1280193295},{"id":50,"kind":"breakglass","model":0},{"id":51,"kind":"tick","n":3,"pick":611505711},{"id":52,"kind":"flaky","call":"delete","count":2,"afterEffect":false},{"id":53,"kind":"stall","clone":0,"on":false},{"id":55,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":58,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":59,"kind":"tick","n":33,"pick":1315885355},{"id":60,"kind":"sync","clone":0},{"id":39,"kind":"tick","n":42,"pick":1807341779},{"id":29,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"streamed":true},{"id":30,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":31,"kind":"marker","clone":0,"model":0,"data":1,"back":true,"how":"push"}]}',
  );
});

/**
 * I1 (seed 208500000, `--rollback-past-share 1`, shrunk to 3 operations; the
 * checker's): a clone's run was acknowledged for version 1, and the
 * `lockless` move then had another tool publish "at the next run's number
 * less one", 1, writing over that acknowledged version with plain puts: a
 * tool honouring neither lock nor create-only loses it whatever Sluice does.
 * Below the run's number, that tool now publishes nothing over a version a
 * run was acknowledged for.
 */
Deno.test("chaos regression: another tool publishing below a run's number writes nothing over an acknowledged version (I1, seed 208500000)", async () => {
  await clean(
    '{"seed":208500000,"clones":3,"absentOnError":true,"kinds":["core","core","api"],"indexFirst":true,"reusedLocks":true,"ops":[{"id":49,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":54,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":55,"kind":"lockless","run":54,"pick":1332907190,"indexed":true,"below":true}]}',
  );
});

/**
 * I1 (seed 208900072, shrunk): c2 published m1/log version 1; another tool
 * deleted its objects, the index still naming them; c4 published version 1
 * again with other bytes. c2's sync set its copy aside as a rewritten
 * version and crashed at the download of c4's. The next open named the
 * set-aside copy in a conflict, but the next pull took the empty path for a
 * deletion made here and never fetched c4's version: c2 held neither. A
 * pull now does the stopped pull's fetch there, the conflict kept open.
 */
Deno.test("chaos regression: a pull after one that crashed between a rewritten version's set-aside and its download takes the datastore's copy (I1, seed 208900072)", async () => {
  await clean(
    '{"seed":208900072,"clones":5,"absentOnError":true,"kinds":["core","api","api","core-single-phase","api"],"skewMs":[0,81925,0,0,0],"ops":[{"id":55,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":56,"kind":"tick","n":26,"pick":1184305082},{"id":57,"kind":"vanish","file":0,"run":55,"whole":true},{"id":58,"kind":"run","clone":4,"model":1,"data":1,"workMs":0},{"id":61,"kind":"tick","n":16,"pick":1468107197},{"id":62,"kind":"delete","clone":4,"file":0,"how":"hand","run":58},{"id":63,"kind":"wait","ms":960000},{"id":67,"kind":"run","clone":4,"model":1,"data":1,"workMs":0},{"id":68,"kind":"tick","n":47,"pick":441860991},{"id":52,"kind":"sibling","clone":3,"how":"dies","workMs":45000},{"id":53,"kind":"run","clone":3,"model":1,"data":1,"workMs":0},{"id":6,"kind":"sync","clone":2},{"id":8,"kind":"tick","n":17,"pick":1429661869},{"id":9,"kind":"crash","clone":2}]}',
  );
});

/**
 * I1 (seed 208900294, shrunk): c3 published m0/log version 1; another tool
 * deleted its objects, and a pull past the dangling-entry grace removed the
 * entries, recording them lost. c1, a copy of c3's cache (state and all),
 * kept its synced copy at the path as the last one, in a conflict. c2 then
 * published version 1 again with other bytes, acknowledged; c1's final pull
 * took the kept copy for a change made here and kept it in place, so c1 did
 * not hold c2's version after the final sync. A pull now sets such a copy
 * aside, as any synced copy of a rewritten version, and takes the datastore's.
 */
Deno.test("chaos regression: a copy kept over the datastore's loss of its data version is set aside when the version is published again (I1, seed 208900294)", async () => {
  await clean(
    '{"seed":208900294,"clones":5,"kinds":["api","api","core","api","core"],"ops":[{"id":124,"kind":"tick","n":33,"pick":880738454},{"id":94,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":95,"kind":"tick","n":30,"pick":294001796},{"id":96,"kind":"vanish","file":0,"run":94,"whole":true},{"id":97,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":100,"kind":"tick","n":51,"pick":1253707030},{"id":101,"kind":"delete","clone":4,"file":0,"how":"hand","run":97},{"id":102,"kind":"wait","ms":960000},{"id":109,"kind":"tick","n":57,"pick":389636594},{"id":110,"kind":"sync","clone":4},{"id":59,"kind":"tick","n":20,"pick":2066605189},{"id":88,"kind":"copy","clone":1,"from":3},{"id":91,"kind":"sync","clone":1},{"id":92,"kind":"tick","n":38,"pick":19607232},{"id":20,"kind":"run","clone":0,"model":0,"data":0,"workMs":1000},{"id":21,"kind":"run","clone":2,"model":0,"data":1,"workMs":15000},{"id":22,"kind":"tick","n":21,"pick":507928267},{"id":23,"kind":"resolve","clone":4,"pick":4,"how":"mine"}]}',
  );
});

/**
 * I1 (seed 209700114, shrunk to 35 operations; the checker's, an old
 * client's limit): c0's run published m1/log version 2 under the global
 * lock while an old client's pull on c2, holding the index it read before
 * that commit, met an object gone and wrote that index back, dropping the
 * version's entries (README's old-client limits). c2's next run numbered
 * from that index made version 2 too; its push found c0's upload named by
 * no index (an uncommitted write in the way) and left its own dirty. At the
 * final sync c0's pull named its version again (`index_entry_dropped`), and
 * c2's pull kept its own version in a conflict, as a data version is never
 * written over: c2 held c0's bytes only after the final resolution
 * (`--mine` refused, theirs taken). I1 now checks such a clone after that
 * resolution, only where an old client's pull wrote an index without the
 * run's file while the store held it.
 */
Deno.test("chaos regression: a run's version an old client's pull dropped, made again by a peer's run, is held after the final resolution (I1, seed 209700114)", async () => {
  await clean(
    '{"seed":209700114,"clones":5,"kinds":["core-single-phase","api","api","api","core"],"oldClients":true,"etag":true,"reusedLocks":true,"setAsideFlaky":true,"ops":[{"id":2,"kind":"run","clone":1,"model":1,"data":0,"workMs":15000,"same":true},{"id":4,"kind":"tick","n":23,"pick":968625014},{"id":8,"kind":"run","clone":2,"model":1,"data":0,"workMs":45000,"same":true},{"id":81,"kind":"tick","n":59,"pick":2076879076},{"id":82,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":83,"kind":"tick","n":22,"pick":938672651},{"id":84,"kind":"sync","clone":1},{"id":85,"kind":"tick","n":30,"pick":717295772},{"id":86,"kind":"sync","clone":1},{"id":10,"kind":"run","clone":3,"model":1,"data":1,"workMs":45000,"streamed":true},{"id":38,"kind":"oldpush","clone":0,"file":0},{"id":12,"kind":"breakglass","model":1},{"id":13,"kind":"tick","n":1,"pick":651523729},{"id":14,"kind":"breakglass","model":1},{"id":15,"kind":"adopt","clone":2,"file":0},{"id":47,"kind":"sibling","clone":1,"how":"dies","workMs":15000},{"id":48,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":22,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":23,"kind":"run","clone":0,"model":1,"data":1,"workMs":15000},{"id":40,"kind":"oldpush","clone":1},{"id":44,"kind":"sibling","clone":2,"how":"push","workMs":5000},{"id":45,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":46,"kind":"tick","n":80,"pick":1488300713},{"id":25,"kind":"edit","clone":1,"file":4,"how":"hand-tick"},{"id":26,"kind":"tick","n":17,"pick":1416735766},{"id":27,"kind":"tick","n":40,"pick":687928743},{"id":42,"kind":"oldpull","clone":2},{"id":61,"kind":"tick","n":20,"pick":1981435943},{"id":62,"kind":"sync","clone":4},{"id":63,"kind":"torn","clone":4,"file":0,"pick":285584606},{"id":64,"kind":"tick","n":42,"pick":1335538759},{"id":65,"kind":"crash","clone":4},{"id":66,"kind":"delete","clone":1,"file":5,"how":"push"},{"id":39,"kind":"oldpush","clone":3,"file":4,"del":true},{"id":32,"kind":"run","clone":2,"model":1,"data":1,"workMs":1000,"same":true}]}',
  );
});

/**
 * I11 (seed 210400008, shrunk; old clients, ETag versions): c0's run, lost
 * to another tool's version, took back its uncommitted `latest` marker and
 * put the committed one back with its index entry; an old client's pull,
 * meeting the marker gone between that take-back's delete and its put-back,
 * wrote back the index it read, dropping the entry. c0's next run's pull
 * kept the marker as a dropped entry (dirty, to be named again); the run was
 * refused (its lock broken), its erasure reset the marker here to the
 * highest version left, and the refresh pull after took that change over an
 * entry no index named for "changed here, deleted on the datastore": a
 * conflict, the put-back object named by no index after the final sync. A
 * pull now leaves such a change to the push where the store still holds the
 * version synced (the entry dropped, not the file deleted).
 */
Deno.test("chaos regression: a dropped entry changed here since a pull kept it is pushed, no conflict with a deletion (I11, seed 210400008)", async () => {
  await clean(
    '{"seed":210400008,"clones":2,"kinds":["core","api"],"oldClients":true,"skewMs":[0,-71508],"etag":true,"ops":[{"id":51,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":53,"kind":"crash","clone":0,"at":"commit","queued":true},{"id":54,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":58,"kind":"run","clone":0,"model":0,"data":0,"workMs":30000},{"id":59,"kind":"lockless","run":58,"pick":2117699401,"indexed":true,"below":true},{"id":60,"kind":"lockless","run":58,"pick":1528745615,"indexed":true},{"id":61,"kind":"oldpush","clone":1,"window":0},{"id":62,"kind":"tick","n":63,"pick":358665315},{"id":46,"kind":"oldpull","clone":1},{"id":1,"kind":"delete","clone":0,"file":2,"how":"during","pick":1031892553},{"id":45,"kind":"oldpull","clone":1},{"id":6,"kind":"tick","n":34,"pick":1363354997},{"id":21,"kind":"tick","n":15,"pick":1948654622},{"id":22,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":24,"kind":"breakglass","model":0},{"id":25,"kind":"tick","n":2,"pick":1916386333}]}',
  );
});
