/**
 * Model lock sets: a run's per-model locks, taken in a fixed order while no
 * global datastore lock is held, followed by a scoped pull of those models.
 * `push(written)` pushes through the pipeline with the locks (so the lock
 * fence and the refused-run eraser apply); `release()` always releases.
 *
 * @module
 */
import { AbortedError, ConfigError } from "../errors.ts";
import { LockReadError, LockTimeoutError } from "../lock_errors.ts";
import { errorDetail } from "./lock_object.ts";
import { assertSafeRelPath, joinKey } from "../paths.ts";
import type { DistributedLock, LockInfo, LockOptions } from "../ports.ts";
import type { PushResult } from "../service/push.ts";
import { pushUnderGlobalLock } from "../service/global_lock_push.ts";
import { StoreLock, TIMESTAMP_SLACK_MS } from "./lock_engine.ts";
import { releaseOrWarn } from "./lock_release.ts";
import type { SyncService } from "../service/service.ts";

/** Key of a model's lock: `[<ns>/]data/<type…>/<modelId>/.lock`. */
export function modelLockKey(model: string, namespace = ""): string {
  return joinKey(namespace, "data", model, ".lock");
}

/** Key of the global datastore lock: `.datastore.lock`, or `.locks/<ns>.lock` when namespaced. */
export function globalLockKey(namespace = ""): string {
  return namespace ? `.locks/${namespace}.lock` : ".datastore.lock";
}

/** Options of {@link acquireModelLocks}. */
export interface ModelLockSetOptions {
  readonly signal?: AbortSignal;
  /** Namespace prefix of the models' paths. */
  readonly namespace?: string;
  /** Options for each lock (TTL, waits). */
  readonly lock?: LockOptions;
  /** How long to wait for a held global lock; default 60 000 ms. */
  readonly globalWaitMs?: number;
  /** Delay between global-lock checks; default 500 ms. */
  readonly globalPollMs?: number;
}

const VERSION_FILE = /^(.*\/\d+)\/[^/]+$/;

/** A run's held model locks. */
export class ModelLockSet {
  /** Models, sorted and de-duplicated. */
  readonly models: readonly string[];
  /** The held locks, in acquisition order. */
  readonly locks: readonly DistributedLock[];
  /** Version directories present in the cache when the locks were taken. */
  readonly preexisting: ReadonlySet<string>;
  readonly #service: SyncService;
  readonly #namespace: string;
  #released = false;

  constructor(
    service: SyncService,
    models: readonly string[],
    locks: readonly DistributedLock[],
    preexisting: ReadonlySet<string>,
    namespace: string,
  ) {
    this.#service = service;
    this.models = models;
    this.locks = locks;
    this.preexisting = preexisting;
    this.#namespace = namespace;
  }

  /** Cache prefixes of the locked models. */
  get prefixes(): string[] {
    return this.models.map((m) => `${joinKey(this.#namespace, "data", m)}/`);
  }

  /**
   * Pushes the cache's dirty paths under these locks, given the data version
   * directories (`data/…/<N>`) the run wrote. With `globalLock` (a bucket
   * old clients push to as well), the commit holds it (see
   * `pushUnderGlobalLock`).
   */
  push(
    written: readonly string[],
    options: { signal?: AbortSignal; globalLock?: DistributedLock } = {},
  ): Promise<PushResult> {
    const push = {
      signal: options.signal,
      locks: this.locks,
      written,
      preexisting: this.preexisting,
      models: this.models,
    };
    return options.globalLock
      ? pushUnderGlobalLock(this.#service, options.globalLock, push)
      : this.#service.pushChanged(push);
  }

  /**
   * Releases every lock (safe to call twice; never throws: a lock whose
   * release fails is named in a `lock_release_failed` warning).
   */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    // A release that fails is a warning (lock_release_failed): the run's outcome stands.
    for (const l of [...this.locks].reverse()) await releaseOrWarn(l, this.#service.events);
  }
}

/**
 * Takes the per-model locks of a run (sorted, de-duplicated), waiting while
 * the global datastore lock is held, then pulls those models.
 *
 * @example
 * ```ts
 * import { acquireModelLocks } from "./model_locks.ts";
 * import type { SyncService } from "../service/service.ts";
 * async function run(svc: SyncService) {
 *   const set = await acquireModelLocks(svc, ["aws/ec2/m1"]);
 *   try {
 *     await set.push(["data/aws/ec2/m1/state/4"]);
 *   } finally {
 *     await set.release();
 *   }
 * }
 * ```
 */
export async function acquireModelLocks(
  service: SyncService,
  models: readonly string[],
  options: ModelLockSetOptions = {},
): Promise<ModelLockSet> {
  const backend = service.lockBackend;
  if (!backend) {
    throw new ConfigError("lock.backend", "a lock backend is needed to take model locks");
  }
  const ns = options.namespace ?? "";
  const sorted = [...new Set(models)].sort();
  for (const m of sorted) assertSafeRelPath(joinKey("data", m));
  await waitForGlobal(service, ns, options);
  const held: DistributedLock[] = [];
  try {
    for (const m of sorted) {
      const lock = backend.createLock(modelLockKey(m, ns), service.identity, options.lock);
      await lock.acquire({ signal: options.signal });
      held.push(lock);
    }
    const prefixes = sorted.map((m) => `${joinKey(ns, "data", m)}/`);
    await service.pullChanged({ signal: options.signal, prefixes });
    const preexisting = new Set<string>();
    for (const p of prefixes) {
      for (const f of await service.cache.listFiles(p)) {
        const m = VERSION_FILE.exec(f);
        if (m) preexisting.add(m[1]);
      }
    }
    return new ModelLockSet(service, sorted, held, preexisting, ns);
  } catch (e) {
    for (const l of held.reverse()) await releaseOrWarn(l, service.events);
    throw e;
  }
}

/**
 * The global lock's body; any failure but an abort is a `LockReadError`
 * naming the lock (a third party's lock may throw bare errors), as the lock
 * fence says a model lock's.
 */
async function readGlobal(lock: DistributedLock, signal?: AbortSignal): Promise<LockInfo | null> {
  try {
    return await lock.inspect({ signal });
  } catch (e) {
    if (e instanceof AbortedError || e instanceof LockReadError) throw e;
    throw new LockReadError(lock.key, errorDetail(e), { cause: e });
  }
}

async function waitForGlobal(service: SyncService, ns: string, options: ModelLockSetOptions) {
  const backend = service.lockBackend!;
  const global = backend.createLock(globalLockKey(ns), service.identity);
  const waitMs = options.globalWaitMs ?? 60_000;
  const pollMs = options.globalPollMs ?? 500;
  const start = service.clock.now();
  for (;;) {
    const info = await readGlobal(global, options.signal);
    if (!info) return;
    // A global lock nobody renews (its holder died, or could not delete it) holds no one off,
    // judged by the datastore's time on its object. A backend that keeps its locks elsewhere
    // (a third party's) leaves no object here: its lock is held while it says so (its own
    // acquire takes over a stale one), never free for want of an object in the datastore.
    const head = await service.store.head(global.key, { signal: options.signal });
    if (head && head.lastModified + info.ttlMs + TIMESTAMP_SLACK_MS < service.clock.now()) return;
    if (service.clock.now() - start >= waitMs) {
      throw new LockTimeoutError(global.key, waitMs, `${info.holder} (pid ${info.pid})`);
    }
    await service.clock.sleep(pollMs, options.signal);
  }
}

/** What a breakglass did. */
export interface BreakglassResult {
  readonly key: string;
  /** The holder whose lock was broken, or null when there was no lock. */
  readonly broken: LockInfo | null;
  /** True when the lock object was deleted. */
  readonly released: boolean;
}

/**
 * The breakglass: inspects a model's lock (or the global lock without
 * `model`) and force-releases it by its nonce, reporting whose lock it broke.
 */
export async function releaseLock(
  service: SyncService,
  options: { model?: string; force: true; namespace?: string },
): Promise<BreakglassResult> {
  const backend = service.lockBackend;
  if (!backend) throw new ConfigError("lock.backend", "a lock backend is needed to release locks");
  const key = options.model
    ? modelLockKey(options.model, options.namespace)
    : globalLockKey(options.namespace);
  const lock = backend.createLock(key, service.identity);
  // An unreadable lock object is described, so that it can be broken too.
  const info = lock instanceof StoreLock ? await lock.describe() : await lock.inspect();
  if (!info) return { key, broken: null, released: false };
  const released = await lock.forceRelease(info.nonce);
  return { key, broken: info, released };
}
