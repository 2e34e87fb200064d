/**
 * The setting of the marker-after-version tests of a held marker's stranded
 * upload: a bucket with an index (a peer's push) and another tool's version
 * 1 of `DATA` (no index entry, no writer id), and a clone whose next push can
 * be cut off once its `latest` marker is written, before the index update;
 * the writes of a version and its marker; and a synced marker's upload that
 * such a cut-off push left stranded.
 *
 * @module
 */
import assert from "node:assert/strict";
import { hookedStore, type InMemoryStore, peerPull } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import type { SyncService } from "../sync/service/service.ts";
import { clone, isIndexKey, put } from "../sync/service/clone_kit.ts";

/** The data the tests write versions of. */
export const DATA = "data/shell/cmd/m1/out";
/** Its `latest` marker. */
export const MARKER = `${DATA}/latest`;

/**
 * The peer, and the clone `a` with `pushCutOff`, which runs a push that is
 * cut off once the marker is written, before the index update.
 */
export async function markerBucket(
  store: InMemoryStore,
): Promise<{ peer: SyncService; a: SyncService; pushCutOff: () => Promise<void> }> {
  const peer = await clone(store, "peer");
  await put(peer, "notes/readme.md", "hello");
  await peer.pushChanged();
  const enc = new TextEncoder();
  await store.put(`${DATA}/1/raw`, enc.encode("their raw"), PutModes.create);
  await store.put(`${DATA}/1/metadata.yaml`, enc.encode("version: 1\n"), PutModes.create);
  let cut = false;
  let markerWritten = false;
  const a = await clone(
    hookedStore(store, {
      before: (key) => {
        if (cut && markerWritten && isIndexKey(key)) throw new Error("cut off before the index");
        return Promise.resolve();
      },
      after: (key) => {
        if (key === MARKER) markerWritten = true;
        return Promise.resolve();
      },
    }),
    "a",
  );
  const pushCutOff = async () => {
    cut = true;
    try {
      await assert.rejects(a.pushChanged(), /cut off before the index/);
    } finally {
      cut = false;
    }
  };
  return { peer, a, pushCutOff };
}

/**
 * `svc` writes version `n` of `o.data` (`DATA` unless told): its
 * `metadata.yaml` ("version: n"), its `raw` ("a's raw n"), and the data's
 * `latest` marker naming it.
 */
export async function putVersion(
  svc: SyncService,
  n: string,
  o: { data?: string } = {},
): Promise<void> {
  const data = o.data ?? DATA;
  await put(svc, `${data}/${n}/metadata.yaml`, `version: ${n}\n`);
  await put(svc, `${data}/${n}/raw`, `a's raw ${n}`);
  await put(svc, `${data}/latest`, n);
}

/**
 * {@link markerBucket}, where `a` published version 2 and its marker, then
 * wrote version 3 and moved the marker onto it, its push cut off once the
 * marker was written, before the index update: the marker's upload stands
 * in place of the synced one, which the index still names.
 */
export async function strandedOverTwo(
  store: InMemoryStore,
): Promise<{ peer: SyncService; a: SyncService }> {
  const { peer, a, pushCutOff } = await markerBucket(store);
  // Version 2 and its marker, published and synced.
  await putVersion(a, "2");
  await a.pushChanged();
  // Version 3 and the marker moved onto it: cut off once the marker is
  // written, before the index update.
  await putVersion(a, "3");
  await pushCutOff();
  assert.equal(store.peekText(MARKER), "3", "the marker was written before the cut");
  return { peer, a };
}

/**
 * Clone `a` of `store` whose next call on `marker` once `arm` is called
 * first runs an old client's pull ({@link peerPull}), which rewrites the
 * index with no lock; `pulled` is what that pull dropped (undefined until
 * it ran).
 */
export async function oldPullOnMarker(
  store: InMemoryStore,
  marker: string,
): Promise<{ a: SyncService; arm: () => void; pulled: () => string[] | undefined }> {
  let armed = false;
  let pulled: string[] | undefined;
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        if (!armed || key !== marker) return;
        armed = false;
        pulled = await peerPull(store);
      },
    }),
    "a",
  );
  return { a, arm: () => void (armed = true), pulled: () => pulled };
}
