/**
 * What the tests of `deleteUploads` (`erasure_steps_test.ts`,
 * `erasure_steps_old_client_test.ts`) share: the run's uploads, the index
 * entries that name them, the erasure's calls, and a store hook that runs
 * a step once, in the erasure's window.
 *
 * @module
 */
import { type DeleteOutcome, deleteUploads } from "./erasure_steps.ts";
import { type ObjectInfo, type ObjectStore, PutModes } from "../sync/ports.ts";
import { sha256Hex } from "../sync/hash.ts";
import { FakeClock, InMemoryStore, peerPush } from "../packages/testing/mod.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";

/** No retries of an index update: a refused one fails at once. */
export const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
/** The data the runs write versions of. */
export const D = "data/t/m/d";
/** Version 1's metadata and raw output. */
export const META = `${D}/1/metadata.yaml`;
export const RAW = `${D}/1/raw`;

/** The erasure of this run's upload at `path` (its local copy `text`), by the cache whose writer id is `writerId`. */
export function eraseLocal(
  store: ObjectStore,
  path: string,
  version: string,
  text = "same",
  writerId: string | null = null,
): Promise<DeleteOutcome> {
  return deleteUploads(
    store,
    [{ path, version }],
    undefined,
    1,
    () => Promise.resolve(enc(text)),
    writerId,
  );
}

/** This run's upload of `text` at `path`, as a cache whose writer id is "me" writes it. */
export function uploadAsMe(store: InMemoryStore, path: string, text: string): Promise<ObjectInfo> {
  return store.put(path, enc(text), PutModes.create, { metadata: { "sluice-writer": "me" } });
}

/** The erasure, by the cache whose writer id is "me", of its upload at `path` (its local copy `text`). */
export function eraseAsMe(
  store: ObjectStore,
  path: string,
  version: string,
  text: string,
): Promise<DeleteOutcome> {
  return eraseLocal(store, path, version, text, "me");
}

/** A store hook that runs `fn` once, before the first call on `path`; `fired` once it has. */
export function onceAt(
  path: string,
  fn: () => Promise<unknown>,
): ((key: string) => Promise<void>) & { fired: boolean } {
  const hook = async (key: string) => {
    if (hook.fired || key !== path) return;
    hook.fired = true;
    await fn();
  };
  hook.fired = false;
  return hook;
}

/** An upload of "same" at `path` (this run's), and a peer's commit that names it, to run when wanted. */
export async function sameUpload(store: InMemoryStore, path: string) {
  const mine = await store.put(path, enc("same"), PutModes.create);
  const h = await sha256Hex(enc("same"));
  const name = () =>
    updateIndex(store, {
      set: { [path]: { v: mine.version, h, s: 4 } },
      remove: [],
      base: { [path]: null },
      check: [path],
    }, NO_RETRY);
  return { mine, h, name };
}

/**
 * An upload of "out" at `path` that the index names, deleted since (an
 * erasure cut off after its delete): named, gone.
 */
export async function namedThenGone(store: InMemoryStore, path: string): Promise<ObjectInfo> {
  const mine = await store.put(path, enc("out"), PutModes.create);
  await updateIndex(store, {
    set: { [path]: { v: mine.version, h: await sha256Hex(enc("out")), s: 3 } },
    remove: [],
    base: { [path]: null },
  }, NO_RETRY);
  await store.delete(path);
  return mine;
}

/** An ETag-versioned store (a version is its bytes') on a fake clock; `now` reads that clock. */
export function etagStore(): { inner: InMemoryStore; now: () => number } {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const inner = new InMemoryStore({ versionFromBytes: true, clock });
  return { inner, now: () => clock.now() };
}

/** What the run wrote here of version 1: its local copies. */
const LOCAL: Record<string, string> = { [META]: "same meta", [RAW]: "same raw" };

/** The run's uploads of version 1's metadata and raw output (its local copies), by "me". */
export async function runUploads(store: InMemoryStore) {
  const meta = await uploadAsMe(store, META, LOCAL[META]);
  const raw = await uploadAsMe(store, RAW, LOCAL[RAW]);
  return { meta, raw };
}

/**
 * On {@link etagStore}, the run's uploads of version 1 ({@link runUploads}),
 * an old client's write of the same metadata bytes over the run's (the same
 * version) with its entry, and that object taken since by an erasure's
 * delete, its entry kept.
 */
export async function oldClientWriteTaken() {
  const { inner, now } = etagStore();
  const { meta, raw } = await runUploads(inner);
  await peerPush(inner, { [META]: "same meta" }, { now });
  await inner.delete(META);
  return { inner, meta, raw };
}

/** The erasure, by "me", of `uploads` of version 1 (the local copies {@link runUploads} wrote). */
export function eraseRun(
  store: ObjectStore,
  uploads: { path: string; version: string }[],
): Promise<DeleteOutcome> {
  return deleteUploads(
    store,
    uploads,
    undefined,
    1,
    (path) => Promise.resolve(enc(LOCAL[path])),
    "me",
  );
}
