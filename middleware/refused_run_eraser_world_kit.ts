/**
 * The setting of the refused-run eraser's end-to-end tests (incident 002,
 * and 001 with the eraser): two clones sharing one store, built with or
 * without the lock fence and the eraser, and the runs the tests refuse.
 *
 * @module
 */
import { isLayoutInternal } from "../sync/transfer/bucket_layout.ts";
import { refusedRunEraserEntry } from "./refused_run_eraser.ts";
import { DATA, KEY, MARKER, V1 } from "./refused_run_eraser_kit.ts";
import { lockFenceEntry } from "./lock_fence.ts";
import { PATH_CLASSIFIER, pathClassifier } from "./path_classifier.ts";
import { createOnlyWriterEntry } from "./create_only_writer.ts";
import { FakeClock, hookedStore, InMemoryStore } from "../packages/testing/mod.ts";
import { encodeLockInfo } from "../sync/locks/lock_body.ts";
import { storeLockBackend } from "../sync/locks/lock_engine.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";
import { Pipeline } from "../sync/pipeline.ts";
import { type DistributedLock, type Identity, type LockInfo, PutModes } from "../sync/ports.ts";
import { PUSH_PHASES, type PushContext, WRITE_PHASES, type WriteContext } from "../sync/context.ts";
import { createSyncService, type SyncService } from "../sync/service/service.ts";
import { walkFiles } from "../sync/transfer/cache.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

/** Whether the clones run the lock fence and the refused-run eraser. */
export interface Gates {
  readonly fence: boolean;
  readonly eraser: boolean;
}

/** A third-party lock that, like some registry locks, reports any read failure as "absent". */
class NullOnErrorLock implements DistributedLock {
  readonly key = KEY;
  readonly #store: InMemoryStore;
  readonly #info: LockInfo;
  constructor(store: InMemoryStore, who: Identity) {
    this.#store = store;
    this.#info = { ...who, acquiredAt: "2026-01-01T00:00:00Z", ttlMs: 30_000, nonce: "tp" };
  }
  async acquire(): Promise<void> {
    await this.#store.put(this.key, encodeLockInfo(this.#info), PutModes.create);
  }
  async release(): Promise<void> {
    await this.#store.delete(this.key).catch(() => {});
  }
  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  async inspect(): Promise<LockInfo | null> {
    try {
      const got = await this.#store.get(this.key);
      return JSON.parse(new TextDecoder().decode(got.body)) as LockInfo;
    } catch {
      return null; // the flaw: an unreachable store looks like a released lock
    }
  }
  forceRelease(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

/** What the world adds to its clones' pipelines and store. */
export interface WorldOptions {
  /** Runs after each write of A's or B's push. */
  readonly onWrite?: (ctx: WriteContext) => Promise<void>;
  /** Adds the create-only writer to the write pipeline. */
  readonly createOnly?: boolean;
  /** Runs ahead of each store delete of any clone. */
  readonly beforeDelete?: (key: string) => Promise<void>;
}

/** The push and write pipelines of a clone with `gates`. */
function pipelines(gates: Gates, { onWrite, createOnly }: WorldOptions) {
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  push.add({ name: PATH_CLASSIFIER, phase: "classify", middleware: pathClassifier() });
  if (gates.eraser) push.add(refusedRunEraserEntry());
  if (gates.fence) push.add(lockFenceEntry());
  const write = new Pipeline<WriteContext>(WRITE_PHASES);
  if (createOnly) write.add(createOnlyWriterEntry());
  if (onWrite) {
    write.add({
      name: "spy",
      phase: "prepare",
      middleware: async (ctx, next) => {
        await next();
        await onWrite(ctx);
      },
    });
  }
  return { push, write };
}

/**
 * A store and its lock backend on a fake clock, clones `a` and `b` with
 * `gates` (and `clone` for more), the warnings they gave, and version 1
 * pushed by `a` and pulled by `b`.
 */
export async function world(gates: Gates, options: WorldOptions = {}) {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const lockBackend = storeLockBackend(store, { clock });
  const warnings: string[] = [];
  const seen = options.beforeDelete
    ? hookedStore(store, { beforeDelete: options.beforeDelete })
    : store;
  const clone = async (name: string, pid: number, cacheDir?: string, g = gates) => {
    const svc = await createSyncService({
      cacheDir: cacheDir ?? await Deno.makeTempDir({ prefix: `sluice-eraser-${name}-` }),
      store: seen,
      lockBackend,
      identity: { holder: `${name}@host`, hostname: "host", pid },
      clock,
      config: quick,
      ...pipelines(g, options),
    });
    svc.events.on("warning", (w) => warnings.push(`${name}:${w.code}`));
    return svc;
  };
  const a = await clone("a", 1);
  const b = await clone("b", 2);
  await writeVersion(a, 1, "first");
  await a.pushChanged();
  await b.pullChanged();
  return { clock, store, a, b, warnings, clone };
}

/** `svc` writes version `n` of `DATA` (`raw` holding `text`) and the marker naming it, marked dirty. */
export async function writeVersion(svc: SyncService, n: number, text: string): Promise<string> {
  const dir = `${DATA}/${n}`;
  await Deno.mkdir(`${svc.cacheDir}/${dir}`, { recursive: true });
  await Deno.writeTextFile(`${svc.cacheDir}/${dir}/raw`, text);
  await Deno.writeTextFile(`${svc.cacheDir}/${dir}/metadata.yaml`, `version: ${n}\n`);
  await Deno.writeTextFile(`${svc.cacheDir}/${MARKER}`, `${n}`);
  await svc.markDirty({ relPaths: [`${dir}/raw`, `${dir}/metadata.yaml`, MARKER] });
  return dir;
}

/** Cache files (internal state left out), path → text. */
export async function cacheFiles(svc: SyncService): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const f of walkFiles(svc.cacheDir)) {
    out[f.path] = await Deno.readTextFile(`${svc.cacheDir}/${f.path}`);
  }
  return out;
}

/** Store objects other than the index and locks, key → text. */
export function storeFiles(store: InMemoryStore): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of store.keys()) {
    if (!isLayoutInternal(k) && !k.endsWith(".lock")) out[k] = store.peekText(k)!;
  }
  return out;
}

/** Whether any store object holds A's data. */
export const storeHasA = (store: InMemoryStore) =>
  store.keys().some((k) => (store.peekText(k) ?? "").includes("A's data"));

/** A holds the lock, a breakglass frees it, B takes it and pushes version 2, then A pushes 2. */
export async function breakglass(
  gates: Gates,
  beforeA?: (w: Awaited<ReturnType<typeof world>>) => void,
) {
  const w = await world(gates);
  const setA = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, "A's data");
  await releaseLock(w.b, { model: "t/m", force: true });
  const setB = await acquireModelLocks(w.b, ["t/m"]);
  await setB.push([await writeVersion(w.b, 2, "B's data")]);
  beforeA?.(w);
  const error = await setA.push([dirA]).then(() => undefined, (e) => e);
  w.store.heal(); // a fault armed for A's push never outlives it
  await setB.release();
  await setA.release();
  return { ...w, error, dirA };
}

/** A's model lock is a third-party lock; the store goes down before A pushes. */
export async function lostWhileUnreachable(gates: Gates) {
  const w = await world(gates);
  const lock = new NullOnErrorLock(w.store, w.a.identity);
  await lock.acquire();
  const dirA = await writeVersion(w.a, 2, "A's data");
  w.store.unreachable = true;
  const error = await w.a.pushChanged({
    locks: [lock],
    written: [dirA],
    preexisting: new Set([V1]),
    models: ["t/m"],
  }).then(() => undefined, (e) => e);
  w.store.heal();
  await lock.release();
  return { ...w, error, dirA };
}
