/**
 * What the tests of a push under the global lock beside an old client
 * share: a Sluice cache over an in-memory store on a fake clock, its global
 * lock, the old client's lock on the same key, and whether a waiter met the
 * holder's lock; and a push of the cache started inside an old client's
 * read-modify-write of the index.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import {
  FakeClock,
  InMemoryStore,
  peerPush,
  peerReadIndex,
  waitFor,
} from "../../packages/testing/mod.ts";
import type { DistributedLock } from "../ports.ts";
import { UnreachableError } from "../errors.ts";
import { releaseLock } from "../locks/model_locks.ts";
import type { ModelLockSet } from "../locks/model_locks.ts";
import type { SyncService } from "./service.ts";
import type { PushOptions } from "./push_options.ts";
import { pushUnderGlobalLock } from "./global_lock_push.ts";
import { assertIndexCurrent, isIndexKey, put, quick } from "./clone_kit.ts";

/** The old clients' global lock key. */
export const GLOBAL = ".datastore.lock";
/** A file of this cache's, and one of the old client's. */
export const MINE = "config/mine.yaml";
export const THEIRS = "config/theirs.yaml";
/** Retries of a global lock wait: every 50 ms, for up to 10 s of the fake clock. */
export const lockOptions = { retryDelayMs: 50, maxWaitMs: 10_000 };

/** A cache, its store and clock, a new global lock of its, and the old client's. */
export interface GlobalLockSetup {
  store: InMemoryStore;
  clock: FakeClock;
  svc: SyncService;
  lock: () => DistributedLock;
  oldClientLock: DistributedLock;
}

/** A fresh cache (its directory named with `prefix`) with no retries, over a fresh store. */
export async function globalLockSetup(prefix: string): Promise<GlobalLockSetup> {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const identity = { holder: "sluice@host", hostname: "host", pid: 1 };
  const svc = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix }),
    store,
    identity,
    clock,
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
  });
  const backend = svc.lockBackend!;
  return {
    store,
    clock,
    svc,
    lock: () => backend.createLock(GLOBAL, identity, lockOptions),
    oldClientLock: backend.createLock(
      GLOBAL,
      { holder: "old-client@other", hostname: "other", pid: 2 },
      lockOptions,
    ),
  };
}

/** True once a write of the global lock was refused (a waiter met the holder's lock). */
export function lockRefused(store: InMemoryStore): boolean {
  return store.log.some((l) => l.op === "put" && l.key === GLOBAL && l.outcome === "error");
}

/**
 * A push under the global lock with `options`, started inside an old
 * client's push (of `THEIRS`) made under that lock, between its read of the
 * index and its write of it; the old client writes once this push waits for
 * the lock (or ends; with `mustWait`, asserted to be waiting). Returns the
 * push's result.
 */
export async function pushInsideOldClientPush(
  s: Pick<GlobalLockSetup, "store" | "clock" | "svc" | "lock" | "oldClientLock">,
  options: PushOptions = {},
  how: { readonly mustWait?: boolean } = {},
): Promise<Awaited<ReturnType<typeof pushUnderGlobalLock>>> {
  let done = false;
  let run:
    | Promise<{ result: Awaited<ReturnType<typeof pushUnderGlobalLock>> } | { error: unknown }>
    | undefined;
  s.store.resetLog();
  await s.oldClientLock.withLock(() =>
    peerPush(s.store, { [THEIRS]: "theirs\n" }, {
      now: () => s.clock.now(),
      afterRead: async () => {
        run = pushUnderGlobalLock(s.svc, s.lock(), options).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ).finally(() => (done = true));
        await waitFor(() => lockRefused(s.store) || done, { clock: s.clock, stepMs: 50 });
        if (how.mustWait) {
          assert.equal(done, false, "the push waits while the old client holds the lock");
        }
      },
    })
  );
  await waitFor(() => done, { clock: s.clock, stepMs: 50 });
  const outcome = await run!;
  if ("error" in outcome) throw outcome.error;
  return outcome.result;
}

/** The kit's setup (its cache's directory named with `prefix` and `sluice-`), and another writer on its store and clock. */
export async function globalLockSetupWithWriter(
  prefix: string,
): Promise<GlobalLockSetup & { writer: SyncService }> {
  const s = await globalLockSetup(`${prefix}sluice-`);
  const writer = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `${prefix}writer-` }),
    store: s.store,
    identity: { holder: "writer@host", hostname: "host", pid: 1 },
    clock: s.clock,
    config: quick,
  });
  return { ...s, writer };
}

/**
 * `path` pushed from the cache and pulled by the writer, then the writer's
 * edit of it: its upload lands, its commit is cut off (the writer taken for
 * gone). Returns the version of that upload.
 */
export async function writerUploadCutOff(
  s: GlobalLockSetup & { writer: SyncService },
  path: string,
): Promise<string> {
  await put(s.svc, path, "one\n");
  await s.svc.pushChanged();
  await s.writer.pullChanged();
  await put(s.writer, path, "writer's edit\n");
  s.store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(s.writer.pushChanged());
  return (await s.store.head(path))!.version;
}

/**
 * The cache's change of `path` pushed, told to adopt the writer's `upload`
 * of it, inside an old client's read-modify-write of the index: the push
 * meets the upload as a committed change, which stays, named by the index
 * beside the old client's entry, and the lock is released.
 */
export async function assertAdoptedInsideOldClientPush(
  s: GlobalLockSetup,
  path: string,
  upload: string,
): Promise<void> {
  const r = await pushInsideOldClientPush(s, { adoptUncommitted: [path] });
  assert.deepEqual(r.conflicts, [path]);
  assert.equal((await s.store.head(path))?.version, upload, "the writer's upload stays");
  const index = await peerReadIndex(s.store);
  assert.deepEqual(Object.keys(index).sort(), [path, THEIRS], "the old client's entry stays");
  await assertIndexCurrent(s.store, { held: true });
  assert.equal(s.store.peek(GLOBAL), undefined, "the lock is released");
}

/** Version 1 of the data directory `d` and its `latest` marker, written and pushed. */
export async function pushVersionOne(svc: SyncService, d: string): Promise<void> {
  await put(svc, `${d}/1/raw`, "v1");
  await put(svc, `${d}/1/metadata.yaml`, "version: 1");
  await put(svc, `${d}/latest`, "1");
  await svc.pushChanged();
}

/**
 * Version 1 of `d` pushed; then version 2 and the marker naming it
 * uploaded (the marker over the committed one), the commit cut off; then
 * version 2 changed here since, so lost (a data version is never rewritten).
 */
export async function markerUploadedVersionLost(s: GlobalLockSetup, d: string): Promise<void> {
  await pushVersionOne(s.svc, d);
  await put(s.svc, `${d}/2/raw`, "v2");
  await put(s.svc, `${d}/2/metadata.yaml`, "version: 2");
  await put(s.svc, `${d}/latest`, "2");
  s.store.failNext("put", 50, undefined, {
    match: (k) => k.startsWith("_") || k.startsWith("."),
  });
  await assert.rejects(s.svc.pushChanged());
  s.store.heal();
  assert.equal(s.store.peekText(`${d}/latest`), "2", "the marker upload landed");
  await put(s.svc, `${d}/2/raw`, "v2 changed");
}

/**
 * A run's push under the global lock holding `set`, prepared while the old
 * client holds the global lock; the lock of `model` is broken while its commit
 * waits for it, then the old client lets go. Returns what the push threw.
 */
export async function pushLosingModelLock(
  s: GlobalLockSetup,
  set: ModelLockSet,
  model: string,
  options: Pick<PushOptions, "written" | "preexisting">,
): Promise<unknown> {
  await s.oldClientLock.acquire();
  s.store.resetLog();
  let done = false;
  let error: unknown;
  const run = pushUnderGlobalLock(s.svc, s.lock(), {
    locks: set.locks,
    ...options,
    models: set.models,
  }).then(() => undefined, (e) => (error = e)).finally(() => (done = true));
  await waitFor(() => lockRefused(s.store) || done, { clock: s.clock, stepMs: 50 });
  assert.equal(done, false, "the commit waits for the global lock");
  await releaseLock(s.svc, { model, force: true });
  await s.oldClientLock.release();
  await waitFor(() => done, { clock: s.clock, stepMs: 50 });
  await run;
  await set.release();
  return error;
}
