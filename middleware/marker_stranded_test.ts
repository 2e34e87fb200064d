/**
 * The stranded upload of a synced `latest` marker held back by
 * marker-after-version (`marker_stranded.ts`): published once the version it
 * names is listed; taken back, the committed marker put back, where no push
 * will ever list that version.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import {
  assertIndexCurrent,
  clone,
  isIndexKey,
  put,
  quick,
  read,
  v2Store,
} from "../sync/service/clone_kit.ts";
import { DATA, MARKER, putVersion, strandedOverTwo } from "./marker_stranded_kit.ts";
import {
  DATA as TAKEN_BACK_DATA,
  deletedHere,
  MARKER as TAKEN_BACK_MARKER,
  pushCutOff,
  SHARD_CUT,
} from "./marker_taken_back_kit.ts";
import type { SyncService } from "../sync/service/service.ts";
import { pushUnderGlobalLock } from "../sync/service/global_lock_push.ts";
import { GLOBAL, lockOptions } from "../sync/service/global_lock_kit.ts";

/**
 * A synced `latest` marker that an earlier push of this cache rewrote, cut
 * off before its index update, then held back by marker-after-version (the
 * marker moved here onto a version no index lists): the upload stands in
 * place of the synced object, which the index still names. Held, the
 * marker is no write of any push, so nothing settles that upload: the
 * index names an object that is gone, a peer reads no marker, and its
 * marker write meets a change it cannot see. Once the version the upload
 * names is listed, a push publishes the upload, as its commit would have.
 */
Deno.test("a synced marker held back publishes this cache's own upload of it that a cut-off push left once the version it names is listed", async () => {
  const store = new InMemoryStore();
  // Another tool's version 1: no index entry, no writer id.
  const { peer, a } = await strandedOverTwo(store);
  // The marker moved here onto the other tool's version: held back, dirty.
  await put(a, MARKER, "1");
  await a.pushChanged();
  assert.ok(a.state.dirtyPaths().includes(MARKER));
  const named = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(Object.hasOwn(named, `${DATA}/3/raw`), "version 3 is published");
  // The next push, the marker still held: version 3 is listed now, and the
  // upload naming it is published.
  await a.pushChanged();
  assert.equal(await read(a, MARKER), "1");
  assert.ok(a.state.dirtyPaths().includes(MARKER));
  await assertIndexCurrent(store, { held: true });
  // A peer reads the marker the datastore holds, and moves it on.
  await peer.pullChanged();
  assert.equal(await read(peer, MARKER), "3");
  await put(peer, MARKER, "2");
  const moved = await peer.pushChanged();
  assert.deepEqual(moved.conflicts, []);
  assert.ok(moved.uploaded.includes(MARKER));
  await assertIndexCurrent(store, { held: true });
});

/**
 * A synced `latest` marker that an earlier push of this cache rewrote, cut
 * off before the marker's index update, then held back by
 * marker-after-version because the version its bytes name is gone: its
 * files deleted here (this cache's own uploads of them taken back), so no
 * push will ever list it. The upload stands in place of the synced object,
 * which the index still names: a fresh clone finds no marker, and waiting
 * for the version to be listed waits for good. The committed marker is put
 * back (its bytes found by the synced hash among the versions here) and
 * named in its place; the marker here stays held, dirty.
 */
Deno.test("a synced marker held back over a version deleted here puts back the committed marker in place of its own stranded upload", async () => {
  const store = new InMemoryStore();
  const { peer, a } = await strandedOverTwo(store);
  // Version 3 deleted here (a crashed run's output cleaned up): the marker
  // here still names it, and is held.
  await Deno.remove(`${a.cacheDir}/${DATA}/3`, { recursive: true });
  await a.markDirty({ relPaths: [`${DATA}/3/metadata.yaml`, `${DATA}/3/raw`] });
  const r = await a.pushChanged();
  assert.ok(r.skipped.some((s) => s.path === MARKER), "the marker is held");
  assert.equal(store.peek(`${DATA}/3/raw`), undefined, "version 3's upload is taken back");
  await assertIndexCurrent(store, { held: true });
  assert.equal(store.peekText(MARKER), "2");
  assert.equal(await read(a, MARKER), "3");
  assert.ok(a.state.dirtyPaths().includes(MARKER));
  // A fresh clone reads the committed marker.
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, MARKER), "2");
  // The peer moves it on over the copy put back; `a`, set back to version 2, syncs.
  await peer.pullChanged();
  assert.equal(await read(peer, MARKER), "2");
  await put(a, MARKER, "2");
  await a.pushChanged();
  await a.pullChanged();
  assert.deepEqual(a.conflicts(), []);
  assert.ok(!a.state.dirtyPaths().includes(MARKER));
  await assertIndexCurrent(store, { held: true });
});

/**
 * Chaos seed 227900160 in-process: a v2 bucket, beside old clients (each
 * push under their global lock), a version's shard written and the
 * marker's cut off, so that the marker's upload stands in place of the
 * committed one. Version 2 is deleted here and pushed: the commit puts the
 * committed marker back over the upload (recorded as synced at the copy),
 * and the process dies before the index write naming that copy. The marker
 * here still names version 2, so it stays held, and nothing named the copy
 * after: the index named the version the put-back replaced for good, and a
 * fresh clone's pull skipped the marker as not yet committed. The next
 * push names the copy.
 */
Deno.test("a put-back of the committed marker over its own stranded upload, cut off before its index write, is named by the next push", async () => {
  const store = await v2Store();
  // The process dies at the index write after the marker's put-back: no
  // call of it reaches the store after.
  let armed = false;
  let putBack = false;
  let dead = false;
  const calls = new Set(["get", "head", "put", "delete"]);
  const hooked = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (!calls.has(String(prop))) return value.bind(target);
      return async (key: string, ...rest: unknown[]) => {
        if (dead || (putBack && prop === "put" && isIndexKey(key))) {
          dead = true;
          throw new Error("died before the index write");
        }
        const r = await value.call(target, key, ...rest);
        if (armed && prop === "put" && key === TAKEN_BACK_MARKER) putBack = true;
        return r;
      };
    },
  });
  const a = await clone(hooked, "a");
  const global = (svc: SyncService) =>
    pushUnderGlobalLock(svc, svc.lockBackend!.createLock(GLOBAL, svc.identity, lockOptions));
  await putVersion(a, "1", { data: TAKEN_BACK_DATA });
  await global(a);
  await pushCutOff(store, a, "2", SHARD_CUT);
  assert.equal(store.peekText(TAKEN_BACK_MARKER), "2", "the marker's upload stands");
  await deletedHere(a, "2");
  armed = true;
  await assert.rejects(global(a), /died before the index write/);
  assert.equal(store.peekText(TAKEN_BACK_MARKER), "1", "the committed marker was put back");
  // Its process restarted (the global lock it left taken over as stale),
  // the cache pushes, pulls and pushes again.
  await store.delete(GLOBAL);
  const again = await clone(store, "a", a.cacheDir);
  const r = await global(again);
  assert.ok(r.skipped.some((s) => s.path === TAKEN_BACK_MARKER), "the marker is held");
  await again.pullChanged();
  await global(again);
  assert.equal(await read(again, TAKEN_BACK_MARKER), "2");
  assert.ok(again.state.dirtyPaths().includes(TAKEN_BACK_MARKER));
  await assertIndexCurrent(store, { held: true });
  const fresh = await clone(store, "fresh");
  const pulled = await fresh.pullChanged();
  assert.equal(await read(fresh, TAKEN_BACK_MARKER), "1", JSON.stringify(pulled));
});
