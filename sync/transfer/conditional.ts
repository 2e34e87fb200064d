/**
 * Conditional writes on endpoints that may not honour them.
 *
 * Some S3-compatible endpoints refuse `If-None-Match` / `If-Match` (501, or a
 * 400 naming the header: the store maps both to `NotImplementedError`); worse,
 * some accept the header and silently ignore it, answering 2xx to a write that
 * should have failed. Only an active probe catches the second kind:
 * {@link probeConditionalWrites} creates a random key under
 * {@link PROBE_PREFIX} twice in create mode (the second must fail), checks that
 * an update on a stale version fails, and cleans up.
 *
 * A {@link ConditionalWrites} registry keeps, per endpoint, the probe result
 * (memoised in process, and cached in the cache directory with an expiry) and
 * whether the fallback warning was emitted. It is an object, not module state:
 * production shares {@link defaultConditionalWrites}; tests create their own.
 *
 * On an endpoint without conditional writes Sluice falls back to
 * check-then-write ({@link checkThenPut}, {@link checkThenDelete}), which
 * narrows but cannot close the race between two writers.
 * {@link withConditionalFallback} wraps a store so that any user of the
 * {@link ObjectStore} port (the lock engine's create-only acquire and
 * compare-and-swap heartbeat) gets the same fallback and the same warning.
 *
 * @module
 */
import {
  AlreadyExistsError,
  ConditionalWritesUnsupportedError,
  NotImplementedError,
  PreconditionFailedError,
} from "../errors.ts";
import { randomId } from "../hash.ts";
import { BUCKET_RECORDS_DIR } from "./bucket_layout.ts";
import type { ConditionalWritesSetting } from "../context.ts";
import type { SluiceEmitter } from "../events.ts";
import {
  type CallOptions,
  type DeleteOptions,
  type GetResult,
  type ListOptions,
  type ObjectInfo,
  type ObjectStore,
  type PutBody,
  type PutMode,
  PutModes,
  type PutOptions,
} from "../ports.ts";

/** Reserved store prefix of probe objects (internal: never a cache file). */
export const PROBE_PREFIX = `${BUCKET_RECORDS_DIR}/probe/`;

/** Name of the probe cache in the cache's internal state directory. */
export const PROBE_STATE_FILE = "conditional-probe.json";

/** Warning code emitted once per endpoint when Sluice falls back to check-then-write. */
export const FALLBACK_WARNING = "conditional_writes_fallback";

/** Default expiry of a cached probe result: 24 h. */
export const DEFAULT_PROBE_TTL_MS = 24 * 3600_000;

/** How an endpoint treats one form of conditional write. */
export type ConditionalSupport = "honoured" | "ignored" | "refused";

/** The two forms of conditional write. */
export type ConditionalForm = "create" | "update";

/** What a probe found. */
export interface ProbeResult {
  /** Create-only writes (`If-None-Match: *`, `ifGenerationMatch=0`). */
  readonly create: ConditionalSupport;
  /** Compare-and-swap writes (`If-Match`, `ifGenerationMatch=<gen>`). */
  readonly update: ConditionalSupport;
  /** When the probe ran (clock ms). */
  readonly checkedAt: number;
}

/** Where probe results are cached: the cache's internal state (`CacheAccess` fits). */
export interface ProbeCache {
  /** Reads a JSON state file; null when absent. */
  readState<T>(name: string): Promise<T | null>;
  /**
   * Writes a JSON state file atomically; with `durable: false`, without
   * syncing it to disk (a crash may lose it, or leave it unreadable).
   */
  writeState(name: string, value: unknown, options?: { durable?: boolean }): Promise<void>;
}

/** What a decision needs besides the store. */
export interface ConditionalEnv {
  /** Probe cache; without it only the in-process memo is used. */
  readonly cache?: ProbeCache;
  /** Time for `checkedAt` and expiry; default `Date.now`. */
  readonly now?: () => number;
  /** Expiry of a cached probe result; default {@link DEFAULT_PROBE_TTL_MS}. */
  readonly ttlMs?: number;
  /** Cancels the probe. */
  readonly signal?: AbortSignal;
  /** Where the fallback warning goes. */
  readonly events?: SluiceEmitter;
}

/** Counters for benchmarks and tests. */
export interface ConditionalWritesStats {
  /** Probes actually run against a store. */
  probeRuns: number;
  /** Probe results taken from a fresh cache file. */
  probeCacheHits: number;
  /** Writes and deletes done by check-then-write. */
  fallbackWrites: number;
  /** Fallback warnings emitted. */
  warnings: number;
}

interface ProbeFile {
  format: 1;
  endpoints: Record<string, ProbeResult>;
}

const SUPPORT = new Set<unknown>(["honoured", "ignored", "refused"]);
const enc = (s: string) => new TextEncoder().encode(s);

/**
 * Probes `store` once: create twice (the second must fail), then an update on
 * a stale version (must fail). Cleans up the probe key. Transport errors
 * propagate; nothing is cached here.
 *
 * @example
 * ```ts
 * import { probeConditionalWrites } from "./conditional.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const store = new InMemoryStore();
 * store.conditionalMode = "ignore";
 * const r = await probeConditionalWrites(store); // { create: "ignored", update: "ignored", … }
 * ```
 */
export async function probeConditionalWrites(
  store: ObjectStore,
  options: { now?: () => number; signal?: AbortSignal } = {},
): Promise<ProbeResult> {
  const key = `${PROBE_PREFIX}${randomId(8)}`;
  const put = (n: number, mode: PutMode) =>
    store.put(key, enc(`sluice conditional-write probe ${key} step ${n}`), mode, {
      signal: options.signal,
    });
  const versions: string[] = [];
  const attempt = async (
    n: number,
    mode: PutMode,
    expected: abstract new (...args: never[]) => Error,
  ): Promise<ConditionalSupport> => {
    try {
      versions.push((await put(n, mode)).version);
      return "ignored";
    } catch (e) {
      if (e instanceof expected) return "honoured";
      if (e instanceof NotImplementedError) return "refused";
      throw e;
    }
  };
  try {
    let create: ConditionalSupport;
    try {
      versions.push((await put(1, PutModes.create)).version);
      create = await attempt(2, PutModes.create, AlreadyExistsError);
    } catch (e) {
      if (!(e instanceof NotImplementedError)) throw e;
      create = "refused";
      versions.push((await put(1, PutModes.overwrite)).version);
    }
    if (versions.length === 1) versions.push((await put(3, PutModes.overwrite)).version);
    const stale = versions[0];
    // Distinct bodies give distinct versions; if they do not, no CAS can be trusted.
    const update = stale === versions[versions.length - 1]
      ? "ignored"
      : await attempt(4, PutModes.update(stale), PreconditionFailedError);
    return { create, update, checkedAt: (options.now ?? Date.now)() };
  } finally {
    // Not on the caller's signal: a probe cancelled (Ctrl-C) after its first
    // write must still remove its key, or the bucket keeps it. One attempt,
    // bounded by the store's own per-attempt deadline.
    await store.delete(key, { noRetry: true }).catch(() => {});
  }
}

/** Throws what a conditional `mode` would throw, judged by a read (the "check" of check-then-write). */
export async function checkCondition(
  store: ObjectStore,
  key: string,
  mode: PutMode,
  options: CallOptions = {},
): Promise<void> {
  if (mode.kind === "overwrite") return;
  const cur = await store.head(key, options);
  if (mode.kind === "create" && cur) throw new AlreadyExistsError(key, cur.version);
  if (mode.kind === "update" && cur?.version !== mode.version) {
    throw new PreconditionFailedError(
      key,
      cur ? `version ${cur.version}, expected ${mode.version}` : "it does not exist",
    );
  }
}

/** Check-then-write: {@link checkCondition}, then an overwrite put. Narrows, cannot close, the race. */
export async function checkThenPut(
  store: ObjectStore,
  key: string,
  body: PutBody,
  mode: PutMode,
  options: PutOptions = {},
): Promise<ObjectInfo> {
  await checkCondition(store, key, mode, options);
  return await store.put(key, body, PutModes.overwrite, options);
}

/** Check-then-delete: with `ifVersion`, a read compares the version, then an unconditional delete. */
export async function checkThenDelete(
  store: ObjectStore,
  key: string,
  options: DeleteOptions = {},
): Promise<void> {
  const { ifVersion, ...rest } = options;
  if (ifVersion !== undefined) await checkCondition(store, key, PutModes.update(ifVersion), rest);
  await store.delete(key, rest);
}

/** The one warning text (names the endpoint, the limit of the fallback, and both settings). */
export function fallbackWarning(endpoint: string, how: ConditionalSupport): string {
  const does = how === "refused" ? "refuses" : "silently ignores";
  return `The endpoint ${endpoint} ${does} conditional writes (If-None-Match/If-Match or generation preconditions). Sluice falls back to check-then-write for it: it reads the object, then writes. This narrows but cannot close the race between two writers writing the same key at the same moment. To refuse pushing to such an endpoint, set conditionalWrites: "required"; to accept the fallback without this warning, set conditionalWrites: "off".`;
}

function validResult(r: unknown): r is ProbeResult {
  const o = r as ProbeResult | null;
  return !!o && SUPPORT.has(o.create) && SUPPORT.has(o.update) && typeof o.checkedAt === "number";
}

/**
 * Per-endpoint knowledge about conditional writes: probe results (probed at
 * most once per endpoint per registry, cached in the cache dir) and whether
 * the fallback warning was emitted (once per endpoint per registry).
 *
 * @example
 * ```ts
 * import { ConditionalWrites } from "./conditional.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const registry = new ConditionalWrites();
 * const how = await registry.decide(new InMemoryStore(), "create", "auto", {});
 * console.log(how, registry.stats.probeRuns); // "native", 1
 * ```
 */
export class ConditionalWrites {
  /** Counters (probe runs, cache hits, fallback writes, warnings). */
  readonly stats: ConditionalWritesStats = {
    probeRuns: 0,
    probeCacheHits: 0,
    fallbackWrites: 0,
    warnings: 0,
  };
  readonly #results = new Map<string, Promise<ProbeResult>>();
  /** The settled value of each promise `#results` holds now (none while it is pending). */
  readonly #known = new Map<string, ProbeResult>();
  readonly #warned = new Set<string>();

  /** The endpoint's probe result: memoised, else a fresh cached one, else a new probe (then cached). */
  probe(store: ObjectStore, env: ConditionalEnv = {}): Promise<ProbeResult> {
    const endpoint = store.endpoint;
    let p = this.#results.get(endpoint);
    if (!p) {
      p = this.#load(store, env);
      this.#results.set(endpoint, p);
      const mine = p;
      mine.then((result) => {
        if (this.#results.get(endpoint) === mine) this.#known.set(endpoint, result);
      }, () => {
        // A failed probe (e.g. unreachable) is not remembered: the next write probes again.
        if (this.#results.get(endpoint) === mine) this.#results.delete(endpoint);
      });
    }
    return p;
  }

  /**
   * How to make a `form` write to `store` under `setting`: `native` (pass the
   * conditional mode through) or `fallback` (check-then-write). Emits the
   * warning once per endpoint; throws `ConditionalWritesUnsupportedError`
   * under `required`. `off` never probes.
   */
  async decide(
    store: ObjectStore,
    form: ConditionalForm,
    setting: ConditionalWritesSetting,
    env: ConditionalEnv,
  ): Promise<"native" | "fallback"> {
    if (setting === "off") return "fallback";
    const support = (await this.probe(store, env))[form];
    if (support === "honoured") return "native";
    this.refuseOrWarn(store.endpoint, support, setting, env);
    return "fallback";
  }

  /**
   * True when {@link decide} would answer `native` for `form` writes to
   * `endpoint` under `setting` without asking anything: the endpoint's
   * probe result is settled and honours them. False tells nothing (not
   * probed yet, or the fallback): ask {@link decide}. A push asks this before
   * each write, so that the common answer costs one lookup.
   */
  honoursNow(endpoint: string, form: ConditionalForm, setting: ConditionalWritesSetting): boolean {
    return setting !== "off" && this.#known.get(endpoint)?.[form] === "honoured";
  }

  /**
   * Records that the endpoint refused a `form` write the probe said it
   * honours (e.g. a changed endpoint), so later writes fall back; then warns
   * once, or throws under `required`.
   */
  async demote(
    store: ObjectStore,
    form: ConditionalForm,
    setting: ConditionalWritesSetting,
    env: ConditionalEnv,
  ): Promise<void> {
    if (setting !== "off") {
      const old = await this.probe(store, env).catch(() => undefined);
      const now = (env.now ?? Date.now)();
      const next: ProbeResult = {
        create: old?.create ?? "refused",
        update: old?.update ?? "refused",
        checkedAt: old?.checkedAt ?? now,
        [form]: "refused",
      };
      this.#results.set(store.endpoint, Promise.resolve(next));
      this.#known.set(store.endpoint, next);
      await this.#save(store.endpoint, next, env).catch(() => {});
    }
    this.refuseOrWarn(store.endpoint, "refused", setting, env);
  }

  /** True once the fallback warning was emitted for `endpoint`. */
  warned(endpoint: string): boolean {
    return this.#warned.has(endpoint);
  }

  /**
   * For a write that cannot be made natively: throws
   * `ConditionalWritesUnsupportedError` under `required`; under `auto` emits
   * the fallback warning unless already emitted for `endpoint`; `off` is silent.
   */
  refuseOrWarn(
    endpoint: string,
    how: ConditionalSupport,
    setting: ConditionalWritesSetting,
    env: ConditionalEnv,
  ): void {
    if (setting === "required") {
      throw new ConditionalWritesUnsupportedError(
        endpoint,
        how === "refused" ? "refused" : "ignored",
      );
    }
    if (setting === "off" || this.#warned.has(endpoint)) return;
    this.#warned.add(endpoint);
    this.stats.warnings++;
    env.events?.emit("warning", {
      code: FALLBACK_WARNING,
      message: fallbackWarning(endpoint, how),
    });
  }

  async #load(store: ObjectStore, env: ConditionalEnv): Promise<ProbeResult> {
    const now = env.now ?? Date.now;
    const ttl = env.ttlMs ?? DEFAULT_PROBE_TTL_MS;
    const file = await env.cache?.readState<ProbeFile>(PROBE_STATE_FILE).catch(() => null);
    const cached = file?.endpoints?.[store.endpoint];
    if (validResult(cached) && cached.checkedAt <= now() && now() - cached.checkedAt < ttl) {
      this.stats.probeCacheHits++;
      return cached;
    }
    this.stats.probeRuns++;
    const result = await probeConditionalWrites(store, { now, signal: env.signal });
    await this.#save(store.endpoint, result, env).catch(() => {});
    return result;
  }

  async #save(endpoint: string, result: ProbeResult, env: ConditionalEnv): Promise<void> {
    if (!env.cache) return;
    const file = await env.cache.readState<ProbeFile>(PROBE_STATE_FILE).catch(() => null);
    const endpoints = file?.format === 1 && file.endpoints ? { ...file.endpoints } : {};
    endpoints[endpoint] = result;
    // Not synced to disk: a first push's conditional writes wait for this
    // save, and a record lost or torn by a crash only costs the next process
    // one probe (an unreadable record is read as none).
    await env.cache.writeState(PROBE_STATE_FILE, { format: 1, endpoints } satisfies ProbeFile, {
      durable: false,
    });
  }
}

/** The registry production code shares (one per process). Tests pass their own. */
export const defaultConditionalWrites: ConditionalWrites = new ConditionalWrites();

/** Options of {@link withConditionalFallback}. */
export interface ConditionalFallbackOptions extends ConditionalEnv {
  /** Default `auto`. */
  readonly setting?: ConditionalWritesSetting;
  /** Default {@link defaultConditionalWrites}. */
  readonly registry?: ConditionalWrites;
}

/**
 * Wraps `store` so conditional puts and conditional deletes work on any
 * endpoint: passed through where the endpoint honours them, check-then-write
 * (with the one warning per endpoint) where it refuses or ignores them, and
 * refused under `required`. Give the wrapper to the lock engine so its
 * create-only acquire and compare-and-swap heartbeat get the same fallback.
 *
 * @example
 * ```ts
 * import { ConditionalWrites, withConditionalFallback } from "./conditional.ts";
 * import { storeLockBackend } from "../locks/lock_engine.ts";
 * import { createEmitter } from "../events.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const events = createEmitter();
 * const store = withConditionalFallback(new InMemoryStore(), { registry: new ConditionalWrites(), events });
 * const backend = storeLockBackend(store, { events });
 * ```
 */
export function withConditionalFallback(
  store: ObjectStore,
  options: ConditionalFallbackOptions = {},
): ObjectStore {
  const setting = options.setting ?? "auto";
  const registry = options.registry ?? defaultConditionalWrites;
  const env = (signal?: AbortSignal): ConditionalEnv => ({
    ...options,
    signal: signal ?? options.signal,
  });
  return {
    endpoint: store.endpoint,
    ...(store.retriesInternally ? { retriesInternally: true } : {}),
    ...(store.deletesChecked ? { deletesChecked: true } : {}),
    get: (key: string, o?: CallOptions): Promise<GetResult> => store.get(key, o),
    ...(store.getStream
      ? { getStream: (key: string, o?: CallOptions) => store.getStream!(key, o) }
      : {}),
    head: (key: string, o?: CallOptions) => store.head(key, o),
    list: (prefix: string, o?: ListOptions) => store.list(prefix, o),
    async put(key: string, body: PutBody, mode: PutMode, o: PutOptions = {}) {
      if (mode.kind === "overwrite") return await store.put(key, body, mode, o);
      if (await registry.decide(store, mode.kind, setting, env(o.signal)) === "native") {
        try {
          return await store.put(key, body, mode, o);
        } catch (e) {
          if (!(e instanceof NotImplementedError)) throw e;
        }
        await registry.demote(store, mode.kind, setting, env(o.signal));
      }
      registry.stats.fallbackWrites++;
      return await checkThenPut(store, key, body, mode, o);
    },
    async delete(key: string, o: DeleteOptions = {}) {
      if (o.ifVersion === undefined) return await store.delete(key, o);
      if (await registry.decide(store, "update", setting, env(o.signal)) === "native") {
        try {
          return await store.delete(key, o);
        } catch (e) {
          if (!(e instanceof NotImplementedError)) throw e;
        }
        // A refused conditional delete says nothing about conditional puts: fall back for this call only.
        if (setting === "required") {
          throw new ConditionalWritesUnsupportedError(store.endpoint, "refused");
        }
      }
      registry.stats.fallbackWrites++;
      await checkThenDelete(store, key, o);
    },
  };
}
