/**
 * The order of a v2 commit's writes: a `latest` marker never shows in a
 * listed shard before the files it names, also when the commit is cut off
 * between its writes.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { META_KEY, metaBody, shardKey, shardOf } from "./bucket_layout.ts";
import { readIndex, updateIndex } from "./remote_index.ts";
import { nextCommitSeq, SLUICE_SEQ } from "./index_v2.ts";

const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const entry = (v: string) => ({ v, h: "0".repeat(64), s: 1 });
// The marker of a model's data lives in its type's shard, shared by the
// type's models; each model's version files live in a shard of their own.
const M0 = "data/shell/cmd/m0/out";
const M1 = "data/shell/cmd/m1/out";

async function v2Bucket(): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  const meta = { version: 2 as const, partitions: [], commitSeq: 0, raw: {} };
  await store.put(META_KEY, metaBody(meta), { kind: "create" });
  await updateIndex(store, {
    set: { [`${M0}/1/raw`]: entry("a"), [`${M0}/latest`]: entry("b") },
    remove: [],
  }, NO_RETRY);
  return store;
}

/**
 * Commits m1's first version (its file and its marker) into `store`, the
 * process dying at the first meta write after the marker's shard is
 * written. True when that shard was written.
 */
async function m1FirstVersionCutOff(store: InMemoryStore): Promise<boolean> {
  let markerShardWritten = false;
  const cut = hookedStore(store, {
    before: (key) => {
      if (key === shardKey(shardOf(`${M1}/latest`))) markerShardWritten = true;
      else if (key === META_KEY && markerShardWritten) throw new Error("the process died");
    },
  });
  await assert.rejects(
    updateIndex(cut, {
      set: { [`${M1}/1/raw`]: entry("c"), [`${M1}/latest`]: entry("d") },
      remove: [],
    }, NO_RETRY),
    /the process died/,
  );
  return markerShardWritten;
}

Deno.test("v2: the first version of a new model, cut off before its last meta bump, shows no marker naming files no listed shard names", async () => {
  const store = await v2Bucket();
  assert.notEqual(shardOf(`${M1}/1/raw`), shardOf(`${M1}/latest`));
  const markerShardWritten = await m1FirstVersionCutOff(store);
  assert.ok(markerShardWritten, "cut off after the marker's shard was written");
  const seen = (await readIndex(store, NO_RETRY))!.entries;
  assert.ok(Object.hasOwn(seen, `${M1}/latest`), "the marker's shard is listed already");
  assert.ok(Object.hasOwn(seen, `${M1}/1/raw`), "so the files' new shard is listed too");
});

Deno.test("v2: a commit that creates no shard bumps the meta once", async () => {
  const store = await v2Bucket();
  let bumps = 0;
  const counted = hookedStore(store, { before: (key) => void (key === META_KEY && bumps++) });
  await updateIndex(counted, {
    set: { [`${M0}/2/raw`]: entry("e"), [`${M0}/latest`]: entry("f") },
    remove: [],
  }, NO_RETRY);
  assert.equal(bumps, 1);
  const seen = (await readIndex(store, NO_RETRY))!.entries;
  assert.equal(seen[`${M0}/latest`].v, "f");
  assert.equal(seen[`${M0}/2/raw`].v, "e");
});

Deno.test("v2: a files' shard a peer wrote and never listed (cut off before its bump) is listed before the marker's shard is written", async () => {
  const store = await v2Bucket();
  // A peer writes m1's first file into a new shard, and dies before its meta bump.
  const peer = hookedStore(store, {
    before: (key) => {
      if (key === META_KEY) throw new Error("the peer died");
    },
  });
  await assert.rejects(
    updateIndex(peer, { set: { [`${M1}/1/other`]: entry("q") }, remove: [] }, NO_RETRY),
    /the peer died/,
  );
  assert.ok(!Object.hasOwn((await readIndex(store, NO_RETRY))!.entries, `${M1}/1/other`));
  assert.ok(await m1FirstVersionCutOff(store), "cut off after the marker's shard was written");
  const seen = (await readIndex(store, NO_RETRY))!.entries;
  assert.ok(Object.hasOwn(seen, `${M1}/latest`), "the marker's shard is listed already");
  assert.ok(Object.hasOwn(seen, `${M1}/1/raw`), "so the files' shard is listed too");
});

Deno.test("nextCommitSeq counts on by one, and jumps past every number seen when the meta went back", () => {
  const meta = (commitSeq: number, raw: Record<string, unknown> = {}) => ({
    version: 2 as const,
    partitions: [],
    commitSeq,
    raw,
  });
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(nextCommitSeq(meta(7), 7, now), 8, "the meta this cache last saw");
  assert.equal(nextCommitSeq(meta(9), 7, now), 10, "moved on by others");
  assert.equal(nextCommitSeq(meta(3), 7, now), now, "below what this cache saw: past it");
  assert.equal(
    nextCommitSeq(meta(3, { [SLUICE_SEQ]: 5 }), 0, now),
    now,
    "below Sluice's last number there",
  );
  assert.equal(nextCommitSeq(meta(now), now, now + 5), now + 1, "after a jump, on by one");
  assert.equal(
    nextCommitSeq(meta(3), now + 9, now),
    now + 10,
    "past a jump seen, whatever the clock",
  );
});
