/**
 * `sluice lock list | inspect`: finds lock objects with the store's `list`
 * (per-model `[<ns>/]data/<type…>/<modelId>/.lock`, global `.datastore.lock`
 * and `.locks/<ns>.lock`) and reads each through the lock engine's
 * `inspect`, with its staleness by the store's last-modified time and the
 * store's own clock (read by a probe write, see `store_clock.ts`), so that a
 * machine whose clock is off never shows a live lock as stale.
 *
 * @module
 */
import { ConfigError } from "../sync/errors.ts";
import { LockReadError } from "../sync/lock_errors.ts";
import { describeHolder, unreadableProblem } from "../sync/locks/lock_body.ts";
import { globalLockKey, modelLockKey } from "../sync/locks/model_locks.ts";
import { storeNow } from "../sync/locks/store_clock.ts";
import { systemClock } from "../sync/clock.ts";
import { isSafeRelPath } from "../sync/paths.ts";
import type { Clock, Identity, LockBackend, LockInfo, ObjectStore } from "../sync/ports.ts";

/** One lock object as `lock list` and `lock inspect` report it. */
export interface LockEntry {
  /** Store key of the lock object. */
  readonly key: string;
  /** `model` for a per-model lock, `global` for the datastore lock. */
  readonly scope: "model" | "global";
  /** `type…/modelId` of a model lock. */
  readonly model?: string;
  /** Namespace of the lock, when namespaced. */
  readonly namespace?: string;
  /** The lock body; absent when it could not be parsed (see `error`). */
  readonly info?: LockInfo;
  /** Why the body could not be read. */
  readonly error?: string;
  /** The store's last-modified time of the lock object (ms since the epoch). */
  readonly lastModified: number;
  /** True once last-modified plus the TTL has passed (any acquirer may take it over). */
  readonly stale: boolean;
  /** Milliseconds until stale (negative: stale since). */
  readonly expiresInMs: number;
}

/** Where a key sits among lock keys, or null when it is not a lock key. */
export function classifyLockKey(
  key: string,
  namespace = "",
): { scope: "model" | "global"; model?: string; namespace?: string } | null {
  if (!namespace && key === ".datastore.lock") return { scope: "global" };
  const g = /^\.locks\/([^/]+)\.lock$/.exec(key);
  if (g && (!namespace || g[1] === namespace)) return { scope: "global", namespace: g[1] };
  const base = namespace ? `${namespace}/data/` : "data/";
  if (key.startsWith(base) && key.endsWith("/.lock")) {
    const model = key.slice(base.length, -"/.lock".length);
    if (model.split("/").length >= 2 && isSafeRelPath(model)) {
      return { scope: "model", model, ...(namespace ? { namespace } : {}) };
    }
  }
  return null;
}

/**
 * Validates a `--model` value (`type…/modelId`: at least two safe segments).
 *
 * @example
 * ```ts
 * import { parseModel } from "./locks.ts";
 * parseModel("aws/ec2/m1"); // "aws/ec2/m1"
 * ```
 */
export function parseModel(model: string): string {
  const m = model.replace(/^\/+|\/+$/g, "");
  if (!isSafeRelPath(m) || m.split("/").length < 2 || m.split("/").includes(".lock")) {
    throw new ConfigError(
      "--model",
      `a model as type/modelId (the type may contain '/'), e.g. aws/ec2/web-1, got ${
        JSON.stringify(model)
      }`,
    );
  }
  return m;
}

/** The lock key `lock inspect`/`lock release` act on: the model's lock, or the global one. */
export function lockKeyFor(model: string | undefined, namespace: string): string {
  return model ? modelLockKey(parseModel(model), namespace) : globalLockKey(namespace);
}

async function entryFor(
  backend: LockBackend,
  identity: Identity,
  key: string,
  lastModified: number,
  now: number,
  namespace: string,
  signal?: AbortSignal,
): Promise<LockEntry | null> {
  const where = classifyLockKey(key, namespace) ?? { scope: "global" as const };
  let info: LockInfo | null;
  try {
    info = await backend.createLock(key, identity).inspect({ signal });
  } catch (e) {
    if (!(e instanceof LockReadError)) throw e;
    return { key, ...where, error: e.message, lastModified, stale: false, expiresInMs: 0 };
  }
  if (!info) return null;
  const expiresInMs = lastModified + info.ttlMs - now;
  return { key, ...where, info, lastModified, stale: expiresInMs < 0, expiresInMs };
}

/** Options of {@link listLocks} and {@link inspectLock}. */
export interface LockQueryOptions {
  /** Only this namespace's locks (default: the unnamespaced ones and every `.locks/*`). */
  readonly namespace?: string;
  /**
   * Current time, ms since the epoch; default the store's time, read by a
   * probe write once a lock object is found (this machine's clock when the
   * probe fails).
   */
  readonly now?: number;
  /** This machine's clock, which the probe's difference is added to; default the system clock. */
  readonly clock?: Clock;
  /** Cancels the reads. */
  readonly signal?: AbortSignal;
}

/**
 * Every lock object in the store, in key order.
 *
 * @example
 * ```ts
 * import { listLocks } from "./locks.ts";
 * import { storeLockBackend } from "../sync/locks/lock_engine.ts";
 * import { InMemoryStore } from "../packages/testing/mod.ts";
 * const store = new InMemoryStore();
 * const me = { holder: "a@h", hostname: "h", pid: 1 };
 * const locks = await listLocks(store, storeLockBackend(store), me);
 * console.log(locks.length); // 0
 * ```
 */
export async function listLocks(
  store: ObjectStore,
  backend: LockBackend,
  identity: Identity,
  options: LockQueryOptions = {},
): Promise<LockEntry[]> {
  const ns = options.namespace ?? "";
  const prefixes = ns
    ? [`${ns}/data/`, globalLockKey(ns)]
    : ["data/", ".datastore.lock", ".locks/"];
  const found = new Map<string, number>();
  for (const prefix of prefixes) {
    for await (const page of store.list(prefix, { signal: options.signal })) {
      for (const o of page) {
        if (classifyLockKey(o.key, ns)) found.set(o.key, o.lastModified);
      }
    }
  }
  const out: LockEntry[] = [];
  if (found.size === 0) return out;
  const now = options.now ?? await storeNow(store, options.clock ?? systemClock, options.signal);
  for (const key of [...found.keys()].sort()) {
    const e = await entryFor(backend, identity, key, found.get(key)!, now, ns, options.signal);
    if (e) out.push(e);
  }
  return out;
}

/** One lock (the model's, or the global one without `model`); null when no lock object exists. */
export async function inspectLock(
  store: ObjectStore,
  backend: LockBackend,
  identity: Identity,
  key: string,
  options: LockQueryOptions = {},
): Promise<LockEntry | null> {
  const head = await store.head(key, { signal: options.signal });
  if (!head) return null;
  return await entryFor(
    backend,
    identity,
    key,
    head.lastModified,
    options.now ?? await storeNow(store, options.clock ?? systemClock, options.signal),
    options.namespace ?? "",
    options.signal,
  );
}

function duration(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

/** A one-line human description of a lock entry. */
export function describeLock(e: LockEntry): string {
  const what = e.scope === "model" ? `model ${e.model}` : "global datastore lock";
  if (!e.info) return `${e.key}  (${what})  unreadable: ${e.error}`;
  const state = e.stale
    ? `STALE for ${duration(e.expiresInMs)} (the next acquirer takes it over)`
    : `live, stale in ${duration(e.expiresInMs)} unless renewed`;
  return `${e.key}  (${what})  held by ${
    describeHolder(e.info)
  } on ${e.info.hostname}, last renewed ${e.info.acquiredAt}; ${state}`;
}

/**
 * What `lock release --force` says of the lock at `key` it broke: whose it
 * was (or what was wrong with a body that was no lock), and how a holder
 * still running finds out: a model lock's run is refused with
 * `model_lock_lost`, a push under the global lock with `global_lock_lost`.
 *
 * @example
 * ```ts
 * import { describeBroken } from "./locks.ts";
 * const broken = { holder: "a@h", hostname: "h", pid: 1, acquiredAt: "2026-01-01T00:00:00.000Z", ttlMs: 30_000, nonce: "n" };
 * console.log(describeBroken(".datastore.lock", "global", broken));
 * ```
 */
export function describeBroken(
  key: string,
  scope: "model" | "global",
  broken: LockInfo,
): string {
  const problem = unreadableProblem(broken);
  const what = problem === undefined
    ? `Broke the lock ${key} held by ${describeHolder(broken)} (last renewed ${broken.acquiredAt}).`
    : `Broke the lock ${key}, whose body could not be read (${problem}; last written ${broken.acquiredAt}).`;
  const who = problem === undefined
    ? "If that process is still running"
    : "If a process still held it";
  const then = scope === "model"
    ? "its push will be refused (model_lock_lost) and its new data discarded"
    : "its push will be refused (global_lock_lost): the files it uploaded stay unpublished and dirty in its cache, for its next push";
  return `${what} ${who}, ${then}.`;
}
