/**
 * A data version this cache's push
 * created keeps the flag however that push came to be committed, so a
 * pull that finds it deleted on the datastore keeps it as a conflict.
 */
import assert from "node:assert/strict";
import { type InMemoryStore, peerPush } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { clone, copyTree, isIndexKey, olderClientVersions, put, read } from "./clone_kit.ts";
import { readWriterId } from "../transfer/writer_id.ts";
import { OWN_VERSION_DELETED_REASON } from "./pull_removals.ts";

const DIR = "data/acme/box/m3/state";
const RAW = `${DIR}/3/raw`;

const scenario = () => olderClientVersions(DIR);

async function blindDeleteThenPull(store: InMemoryStore, x: Awaited<ReturnType<typeof clone>>) {
  await peerPush(store, { [`${DIR}/latest`]: "2" }, { remove: [RAW] });
  const pulled = await x.pullChanged();
  assert.deepEqual(pulled.removed, [], "its own version is not removed");
  assert.deepEqual(pulled.conflicts, [RAW]);
  assert.equal(await read(x, RAW), "X-m3-first", "kept in place");
  assert.equal(x.state.conflicts.get(RAW)?.reason, OWN_VERSION_DELETED_REASON);
}

Deno.test("own flag: a push whose commit was cut off, pushed again (its upload found in place: `identical`), keeps its version on a blind deletion", async () => {
  const { store, x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  store.failNext("put", 50, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(x.pushChanged());
  store.heal();
  await x.pushChanged();
  // (own flag)
  await blindDeleteThenPull(store, x);
});

Deno.test("own flag: a push whose commit landed with its answer lost, then a pull, keeps its version on a blind deletion", async () => {
  const { store, x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    afterEffect: true,
    match: (k) => k === "_index/_meta.json",
  });
  await assert.rejects(x.pushChanged());
  await x.pullChanged();
  await x.pushChanged();
  // (own flag)
  await blindDeleteThenPull(store, x);
});

Deno.test("own flag: a version kept over a blind deletion and published again with resolve --mine keeps the flag", async () => {
  const { store, x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  await blindDeleteThenPull(store, x);
  assert.equal((await x.resolveConflict(RAW, "mine")).resolved, true);
  assert.equal(typeof x.state.synced(RAW)?.own, "string", "published again by this cache");
  await blindDeleteThenPull(store, x);
});

Deno.test("own flag: a version this cache pushed, marked dirty again unchanged (swamp marks what a run touched) and pushed, keeps its version on a blind deletion", async () => {
  const { store, x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  await x.markDirty({ relPath: RAW });
  await x.pushChanged();
  await blindDeleteThenPull(store, x);
});

Deno.test("own flag: a version this cache pushed, the whole cache marked dirty (a bulk mark) and pushed, keeps its version on a blind deletion", async () => {
  const { store, x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  await x.markDirty();
  await x.pushChanged();
  await blindDeleteThenPull(store, x);
});

Deno.test("own flag: a version kept over a blind deletion, then deleted here too (swamp's garbage collection through Sluice) and pushed: no conflict stays open", async () => {
  const { store, x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  await blindDeleteThenPull(store, x);
  await Deno.remove(`${x.cacheDir}/${DIR}/3`, { recursive: true });
  await x.markDirty({ relPath: RAW });
  const pushed = await x.pushChanged().catch((e) => e);
  const pulled = await x.pullChanged();
  assert.deepEqual(
    x.conflicts(),
    [],
    `deleted on both sides: agreed (push: ${
      JSON.stringify(pushed?.conflicts ?? String(pushed))
    }, pull: ${JSON.stringify(pulled.conflicts)})`,
  );
});

Deno.test("own flag: with a version kept over a blind deletion, the next run's version and marker are published", async () => {
  const { store, x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  await blindDeleteThenPull(store, x);
  await put(x, `${DIR}/4/raw`, "X-m3-second");
  await put(x, `${DIR}/latest`, "4");
  const r = await x.pushChanged();
  assert.equal(store.peekText(`${DIR}/4/raw`), "X-m3-second");
  assert.equal(store.peekText(`${DIR}/latest`), "4", JSON.stringify(r));
  const status = await x.status();
  assert.ok(!status.some((e) => e.path === RAW && e.action === "put"), JSON.stringify(status));
  // --theirs takes the deletion; nothing of it stays.
  assert.equal((await x.resolveConflict(RAW, "theirs")).resolved, true);
  assert.deepEqual(x.conflicts(), []);
  assert.equal(await read(x, RAW), undefined);
  const again = await x.pullChanged();
  assert.deepEqual(again.conflicts, []);
});

Deno.test("own flag: a version kept over a blind deletion, then published again by an old client's next run with its own bytes: set aside, theirs taken", async () => {
  const { store, x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  await blindDeleteThenPull(store, x);
  await peerPush(store, { [RAW]: "old client's run 3", [`${DIR}/latest`]: "3" });
  const pulled = await x.pullChanged();
  assert.deepEqual(pulled.conflicts, [RAW]);
  const rec = x.state.conflicts.get(RAW);
  assert.notEqual(rec?.mine?.location, RAW, `this cache's copy set aside (${JSON.stringify(rec)})`);
  assert.equal(await read(x, RAW), "old client's run 3");
});

Deno.test("own flag: a copy of the cache (a backup restored, a CI cache) follows the original's deliberate deletion of a version the original pushed: the copy never pushed it", async () => {
  const { x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  const copyDir = `${await Deno.makeTempDir({ prefix: "sluice-copy-" })}/cache`;
  await copyTree(x.cacheDir, copyDir);
  const y = await clone(x.store, "y", copyDir);
  assert.equal(await readWriterId(y.cache), null, "the copied id is not the copy's");
  // The original deletes version 3 (a `data delete`), its marker back to 2.
  await Deno.remove(`${x.cacheDir}/${DIR}/3`, { recursive: true });
  await x.markDirty({ relPath: RAW });
  await put(x, `${DIR}/latest`, "2");
  await x.pushChanged();
  const pulled = await y.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "no conflict: the copy never published version 3");
  assert.deepEqual(pulled.removed, [RAW]);
});

Deno.test("own flag: a version this cache pushed, rewritten by an old client and resolved --theirs, follows a later deletion (theirs is no version of this cache's)", async () => {
  const { store, x } = await scenario();
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  await peerPush(store, { [RAW]: "old client's run 3" });
  const first = await x.pullChanged();
  assert.deepEqual(first.conflicts, [RAW]);
  assert.equal((await x.resolveConflict(RAW, "theirs")).resolved, true);
  assert.equal(await read(x, RAW), "old client's run 3");
  assert.equal(x.state.synced(RAW)?.own, undefined);
  await peerPush(store, {}, { remove: [RAW] });
  const pulled = await x.pullChanged();
  assert.deepEqual(pulled.conflicts, []);
  assert.deepEqual(pulled.removed, [RAW]);
});
