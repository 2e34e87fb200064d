/**
 * What the tests of a second pass refused into a held version share
 * (`held_marker_test.ts`, `held_marker_over_test.ts`): another writer's
 * upload of the version's metadata, never committed; a clone `a` whose
 * store, once armed, erases that upload and breaks a's model lock just
 * before the `latest` marker is written (the commit's fence passed); and
 * a's run, whose push's second pass is refused.
 *
 * @module
 */
import assert from "node:assert/strict";
import { hookedStore, type InMemoryStore } from "../../packages/testing/mod.ts";
import { ErasureRefusedError } from "../../middleware/erasure.ts";
import { acquireModelLocks, globalLockKey, modelLockKey } from "../locks/model_locks.ts";
import { type IndexEntry, readIndex } from "../transfer/remote_index.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import type { SyncService } from "./service.ts";
import { clone, put, quick } from "./clone_kit.ts";

export const MODEL = "shell/m1";
export const DATA = `data/${MODEL}/out`;
/** The data's `latest` marker. */
export const MARKER = `${DATA}/latest`;
export const V1 = `${DATA}/1`;
export const V2 = `${DATA}/2`;
/** Version 2's metadata, which {@link othersUpload} writes in the tests. */
export const META = `${V2}/metadata.yaml`;
export const RAW = `${V2}/raw`;

/** Another writer's upload of "same output" at `path`, never committed: tagged with its writer id, as every write of a push is. */
export async function othersUpload(store: InMemoryStore, path: string): Promise<void> {
  await store.put(path, new TextEncoder().encode("same output"), { kind: "create" }, {
    metadata: { [WRITER_METADATA]: "the-other-writer" },
  });
}

/**
 * Clone `a` of `store`; once `arm` is called, just before a's next call on
 * the marker, `meta` is deleted from the store and a's model lock broken,
 * and `fired` says so.
 */
export async function breakglassA(store: InMemoryStore, meta: string) {
  let armed = false;
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        // The commit's fence has passed; the marker is about to be written.
        if (!armed || key !== MARKER) return;
        armed = false;
        await store.delete(meta);
        await store.delete(modelLockKey(MODEL)); // the breakglass
      },
    }),
    "a",
  );
  return { a, arm: () => void (armed = true), fired: () => !armed };
}

/**
 * a's run of version `n` (its `metadata.yaml` "same output", its `raw`
 * "a's raw", the marker naming it) pushed under its model lock, and the
 * global lock where `globalLock`, with the breakglass armed: the first pass
 * writes the marker, the second is refused. Resolves to the refusal.
 */
export async function refusedRun(
  k: { a: SyncService; arm: () => void; fired: () => boolean },
  n: string,
  globalLock: boolean,
): Promise<ErasureRefusedError> {
  const { a } = k;
  k.arm();
  const set = await acquireModelLocks(a, [MODEL]);
  await put(a, `${DATA}/${n}/metadata.yaml`, "same output");
  await put(a, `${DATA}/${n}/raw`, "a's raw");
  await put(a, MARKER, n);
  const lock = globalLock
    ? { globalLock: a.lockBackend!.createLock(globalLockKey(), a.identity) }
    : {};
  const error = await set.push([`${DATA}/${n}`], lock).then(() => undefined, (e) => e);
  await set.release();
  assert.equal(k.fired(), true, "the marker was written by the first pass");
  assert.ok(error instanceof ErasureRefusedError, String(error));
  return error;
}

/**
 * a publishes version 1 ("raw 1", "meta 1") and the marker naming it under
 * its model lock. Resolves to the index entry of the committed marker.
 */
export async function publishVersionOne(
  store: InMemoryStore,
  a: SyncService,
): Promise<IndexEntry> {
  const first = await acquireModelLocks(a, [MODEL]);
  await put(a, `${V1}/raw`, "raw 1");
  await put(a, `${V1}/metadata.yaml`, "meta 1");
  await put(a, MARKER, "1");
  await first.push([V1]);
  await first.release();
  return (await readIndex(store, quick.retry))!.entries[MARKER];
}
