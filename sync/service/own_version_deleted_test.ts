/**
 * swamp's existing extensions, pushing one model, walk a stale dirty
 * directory of another model and delete every indexed file there their
 * cache never pulled: a data version a Sluice cache published after that
 * client's last pull (seen with the GCS extension on fake-gcs-server). A
 * pull of the cache that published it keeps its copy, the only one left, as
 * a conflict with the deletion; before, it followed the deletion silently
 * and the next run numbered the same version again.
 */
import assert from "node:assert/strict";
import { peerPush, peerReadIndex } from "../../packages/testing/mod.ts";
import { olderClientVersions, put, read } from "./clone_kit.ts";
import { OWN_VERSION_DELETED_REASON } from "./pull_removals.ts";

const DIR = "data/acme/box/m3/state";

/** The version a run writes next, as swamp core numbers it: the highest directory in the cache plus one. */
async function nextVersion(cacheDir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(`${cacheDir}/${DIR}`)) {
    if (e.isDirectory && /^\d+$/.test(e.name)) n = Math.max(n, Number(e.name));
  }
  return n + 1;
}

const scenario = () => olderClientVersions(DIR);

Deno.test("a data version this cache published, deleted by an older client's blind push, is kept here as a conflict, and the next run numbers above it", async () => {
  const { store, x } = await scenario();
  await put(x, `${DIR}/3/raw`, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  await x.pushChanged();
  // The older client, whose cache holds versions 1 and 2 only, pushes
  // another model: its stale directory makes it write its latest back and
  // delete version 3 (object, then entry).
  await peerPush(store, { [`${DIR}/latest`]: "2" }, { remove: [`${DIR}/3/raw`] });
  const warned: string[] = [];
  x.events.on("warning", (w) => w.code === "pull_conflict" && warned.push(w.message));
  const pulled = await x.pullChanged();
  assert.match(
    warned[0],
    /is a data version this cache published: the copy here may be the last one/,
  );
  assert.doesNotMatch(warned[0], /changed here/);
  assert.deepEqual(pulled.removed, []);
  assert.deepEqual(pulled.conflicts, [`${DIR}/3/raw`]);
  assert.equal(await read(x, `${DIR}/3/raw`), "X-m3-first", "kept in place");
  assert.equal(x.state.conflicts.get(`${DIR}/3/raw`)?.reason, OWN_VERSION_DELETED_REASON);
  // The next run writes version 4, not 3 again.
  assert.equal(await nextVersion(x.cacheDir), 4);
  // --mine publishes it again.
  assert.equal((await x.resolveConflict(`${DIR}/3/raw`, "mine")).resolved, true);
  assert.equal(new TextDecoder().decode((await store.get(`${DIR}/3/raw`)).body), "X-m3-first");
  assert.ok((await peerReadIndex(store))[`${DIR}/3/raw`]);
});

Deno.test("a data version this cache only pulled is removed with its deletion, as any peer's deletion is (the loss the kept copy prevents where it is the last)", async () => {
  const { store, x } = await scenario();
  await peerPush(store, { [`${DIR}/latest`]: "1" }, { remove: [`${DIR}/2/raw`] });
  const pulled = await x.pullChanged();
  assert.deepEqual(pulled.removed, [`${DIR}/2/raw`]);
  assert.equal(await read(x, `${DIR}/2/raw`), undefined);
  assert.deepEqual(pulled.conflicts, []);
});
