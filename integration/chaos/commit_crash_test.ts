/**
 * Where the chaos checker's armed commit crash hits: between a commit
 * step's write and the index update, on whichever index object that update
 * reads first.
 *
 * @module
 */
import assert from "node:assert/strict";
import { parseHistory } from "./history.ts";
import { commitCrashPoint } from "./clone_setup.ts";
import { runHistory } from "./workload.ts";
import { describe } from "./chaos_kit.ts";

Deno.test("chaos: an armed crash hits between a commit-step write and the index update", () => {
  assert.equal(commitCrashPoint("put data/shell/cmd/m0/out/latest (update)"), "write");
  assert.equal(commitCrashPoint("delete notes/shared-1.md"), "write");
  assert.equal(commitCrashPoint("put notes/shared-0.md (create)"), "write");
  assert.equal(commitCrashPoint("put data/shell/cmd/m0/out/3/raw (create)"), undefined);
  // The index update's first call, whichever index object it is on: the v1
  // index, the meta, or (a v2 meta this cache saw last) a shard.
  assert.equal(commitCrashPoint("get _index/_meta.json"), "index");
  assert.equal(commitCrashPoint("head .datastore-index.json"), "index");
  assert.equal(commitCrashPoint("get .datastore-index.json"), "index");
  assert.equal(commitCrashPoint("get _index/_unpartitioned.json"), "index");
  assert.equal(commitCrashPoint("get _index/data--shell--cmd--m0.json"), "index");
  assert.equal(commitCrashPoint("put _index/data--shell--cmd--m0.json (update)"), "index");
  assert.equal(commitCrashPoint("put _index/_meta.json (update)"), "index");
  // Not the index: locks, the store's records, the data and its markers read back.
  assert.equal(commitCrashPoint("get .datastore.lock"), undefined);
  assert.equal(commitCrashPoint("put data/shell/cmd/m0/.lock (create)"), undefined);
  assert.equal(commitCrashPoint("get _control/.sluice/clock"), undefined);
  assert.equal(commitCrashPoint("head notes/shared-0.md"), undefined);
  assert.equal(commitCrashPoint("get data/shell/cmd/m0/out/latest"), undefined);
  assert.equal(commitCrashPoint("list "), undefined);
});

/**
 * A clone that synced a v2 bucket holds the meta it saw: its next commit
 * reads the shards it touches first and the meta only after writing them.
 * The armed crash still hits before the index update (on that first shard
 * read), for a run committed in one phase or in two and for a pushed edit,
 * as on a v1 bucket and on a v2 one whose meta the clone has not seen.
 */
Deno.test("chaos: an armed crash hits before the index update with a v2 meta held, on v1 and v2 alike", async () => {
  const cases: [string, string, string][] = [
    ['"v2":true,"kinds":["core","api"]', "run", "get _index/data--shell--cmd--m0.json"],
    [
      '"v2":true,"kinds":["core-single-phase","api"]',
      "run",
      "get _index/data--shell--cmd--m0.json",
    ],
    ['"v2":true', "run", "get _index/data--shell--cmd--m0.json"],
    ['"v2":true', "edit", "get _index/_unpartitioned.json"],
    ['"v2":true', "unsynced edit", "get _index/_meta.json"],
    ['"kinds":["core","api"]', "run", "get _index/_meta.json"],
    ["", "edit", "get _index/_meta.json"],
  ];
  for (const [bucket, what, on] of cases) {
    const move = what === "run"
      ? '{"id":2,"kind":"run","clone":0,"model":0,"data":0,"workMs":0}'
      : '{"id":2,"kind":"edit","clone":0,"file":3,"how":"push"}';
    const sync = what === "unsynced edit" ? "" : '{"id":0,"kind":"sync","clone":0},';
    const history = parseHistory(
      `{"seed":1,"clones":2,${bucket ? `${bucket},` : ""}"ops":[${sync}` +
        `{"id":1,"kind":"crash","clone":0,"at":"commit"},${move},` +
        '{"id":3,"kind":"tick","n":60,"pick":1}]}',
    );
    const lines: string[] = [];
    const r = await runHistory(history, { trace: (line) => lines.push(line) });
    const label = `${bucket || "v1"}, ${what}`;
    assert.deepEqual(r.violations, [], describe([r]));
    assert.equal(r.stats.commitCrashes, 1, `${label}: ${lines.join("\n")}`);
    const crash = lines.find((l) => l.includes("crashes between a commit write"));
    assert.ok(crash?.endsWith(` on ${on})`), `${label}: ${crash}`);
  }
});
