/**
 * Opening what a command needs from its common options: the cache
 * directory, the store (from `--store`, `SLUICE_STORE`, or the store this
 * cache was last used with), the identity, and a sync service with the
 * default gates and a lock backend.
 *
 * A cache mirrors one datastore: the first command that names a store and
 * reaches it (the store answered one of its requests: {@link noticingStore})
 * records it in the cache's internal state at that first answer, before the
 * command goes on to upload or fetch anything ({@link Session.recordStore}:
 * one killed midway leaves it recorded), later commands default to it, and a
 * command naming another datastore for the same cache is refused
 * (its synced manifest would make a push skip files the other store lacks;
 * the checks are in `session_checks.ts`).
 *
 * @module
 */
import { resolve } from "node:path";
import { createSluice } from "../sluice.ts";
import { findStateDir, LocalCache } from "../sync/transfer/cache.ts";
import { processIdentity } from "../sync/clock.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import type { ConditionalWritesSetting } from "../sync/context.ts";
import {
  AlreadyExistsError,
  ConfigError,
  NotFoundError,
  PreconditionFailedError,
} from "../sync/errors.ts";
import { createEmitter, type SluiceEmitter } from "../sync/events.ts";
import type { DistributedLock, Identity, LockBackend, ObjectStore } from "../sync/ports.ts";
import { globalLockKey } from "../sync/locks/model_locks.ts";
import type { SyncService } from "../sync/service/service.ts";
import { type CliIo, type Output, shellWord } from "./output.ts";
import { openStore, parseStoreUrl, storeIdentity, type StoreSpec, storeUrl } from "./store_url.ts";
import { STORE_DEFAULTS, type StoreRetryEvent } from "../packages/store_kit/attempts.ts";

export {
  againWithCache,
  againWithInit,
  checkCacheDir,
  checkFileStore,
  CLI_STORE_STATE,
  DEFAULT_CACHE_DIR,
  STORE_ENV,
} from "./session_checks.ts";
import {
  againWithCache,
  againWithInit,
  checkCacheDir,
  checkFileStore,
  chooseStore,
  CLI_STORE_STATE,
  DEFAULT_CACHE_DIR,
  refuseInit,
  startsCaches,
  STORE_ENV,
  type StoreRecord,
} from "./session_checks.ts";
import { recordedClassifierRules } from "../sync/store_record.ts";

/** Options every store-using command accepts. */
export interface CommonOptions {
  /** `--cache <dir>`. */
  readonly cache?: string;
  /** `--store <url>`. */
  readonly store?: string;
  /** `--holder <user@host>`. */
  readonly holder?: string;
  /** `--hostname <name>`. */
  readonly hostname?: string;
  /** `--pid <n>`. */
  readonly pid?: string;
  /** `--namespace <ns>`. */
  readonly namespace?: string;
  /** `--conditional-writes <auto|required|off>`. */
  readonly conditionalWrites?: string;
  /** `--json`. */
  readonly json?: boolean;
  /** `--verbose`. */
  readonly verbose?: boolean;
  /** `--init`: create a missing cache directory or `file://` store directory. */
  readonly init?: boolean;
}

/** Everything a command works with; `close` releases the store's client. */
export interface Session {
  /** The sync service over the cache, with the default gates and a lock backend. */
  readonly service: SyncService;
  /** The store the cache mirrors. */
  readonly store: ObjectStore;
  /** What the store was made from. */
  readonly spec: StoreSpec;
  /** Where warnings, gate notes and progress are emitted. */
  readonly events: SluiceEmitter;
  /** Who this process acts as. */
  readonly identity: Identity;
  /** The datastore namespace (`""` for none). */
  readonly namespace: string;
  /** Absolute cache directory. */
  readonly cacheDir: string;
  /** True once the store answered one of this command's requests. */
  readonly reached: boolean;
  /**
   * Records the store in the cache, when this command named one the cache
   * has not recorded and the store answered (a no-op otherwise): a first
   * command that failed on a mistyped bucket, or never asked the store,
   * leaves the cache free for the right one. The store's first answer
   * records it already (once), before the answer is handed on.
   */
  recordStore(): Promise<void>;
  /**
   * False when the cache does not record this store and this command will
   * not record it (another command than a push or a pull, on a directory
   * that was no cache): later commands there need `--store`.
   */
  readonly storeKept: boolean;
  /** Releases the store's client. */
  close(): void;
}

/** The session's lock backend; `invalid_config` (field `lock.backend`) when it has none. */
export function lockBackendOf(s: Session): LockBackend {
  const backend = s.service.lockBackend;
  if (!backend) throw new ConfigError("lock.backend", "a lock backend");
  return backend;
}

/** A new (not acquired) lock on the datastore's global lock key of the session's namespace. */
export function globalLockOf(s: Session): DistributedLock {
  return lockBackendOf(s).createLock(globalLockKey(s.namespace), s.identity);
}

const SETTINGS: readonly ConditionalWritesSetting[] = ["auto", "required", "off"];

/**
 * Who this process writes as: `--holder`, `--hostname` and `--pid` override
 * the process's own (user from `USER`/`USERNAME` in the given environment).
 *
 * @example
 * ```ts
 * import { resolveIdentity } from "./session.ts";
 * resolveIdentity({ holder: "ci@runner", pid: "7" }, { USER: "me" }).holder; // "ci@runner"
 * ```
 */
export function resolveIdentity(
  options: Pick<CommonOptions, "holder" | "hostname" | "pid">,
  env: Readonly<Record<string, string>> = {},
): Identity {
  const base = processIdentity();
  const hostname = options.hostname ?? base.hostname;
  if (hostname === "" || /[\s@]/.test(hostname)) {
    throw new ConfigError(
      "--hostname",
      `a host name without spaces or '@', got ${JSON.stringify(hostname)}`,
    );
  }
  const user = env.USER ?? env.USERNAME ?? base.holder.split("@")[0];
  const holder = options.holder ?? `${user}@${hostname}`;
  if (holder.trim() === "" || /\s/.test(holder)) {
    throw new ConfigError(
      "--holder",
      `a holder such as user@host, without spaces, got ${JSON.stringify(holder)}`,
    );
  }
  let pid = base.pid;
  if (options.pid !== undefined) {
    if (!/^[0-9]{1,10}$/.test(options.pid) || Number(options.pid) <= 0) {
      throw new ConfigError("--pid", `a positive whole number, got ${JSON.stringify(options.pid)}`);
    }
    pid = Number(options.pid);
  }
  return { holder, hostname, pid };
}

/** Validates `--namespace` (one path segment, or empty). */
export function resolveNamespace(ns: string | undefined): string {
  const v = (ns ?? "").replace(/^\/+|\/+$/g, "");
  if (v !== "" && !/^[A-Za-z0-9._-]+$/.test(v) || v === "." || v === "..") {
    throw new ConfigError(
      "--namespace",
      `one path segment of letters, digits, '.', '_' or '-', got ${JSON.stringify(ns)}`,
    );
  }
  return v;
}

/**
 * `store`, calling `onReached` when one of its calls succeeds or is refused
 * as an answer about an object (not found, already exists, a failed
 * condition): the store answered, so its bucket exists and the credentials
 * were taken. A missing bucket, refused credentials or an outage do not
 * count. The answer is handed on once `onReached` has settled (a promise it
 * gives, awaited; its error instead, when it fails): what the caller does
 * next with the store comes after it. Methods run on the store itself, so
 * its private state is untouched.
 */
export function noticingStore<S extends object>(store: S, onReached: () => unknown): S {
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const out = value.apply(target, args);
        if (!(out instanceof Promise)) return out;
        return out.then(
          async (answer) => {
            await onReached();
            return answer;
          },
          async (e) => {
            if (
              e instanceof NotFoundError || e instanceof AlreadyExistsError ||
              e instanceof PreconditionFailedError
            ) await onReached();
            throw e;
          },
        );
      };
    },
  });
}

/** Resolves `--cache` against the working directory. */
export function resolveCacheDir(options: Pick<CommonOptions, "cache">, io: CliIo): string {
  const dir = options.cache ?? DEFAULT_CACHE_DIR;
  if (dir.trim() === "") throw new ConfigError("--cache", "a directory");
  return resolve(io.cwd ?? Deno.cwd(), dir);
}

/** True when no `--cache` was given: the cache is the default one of the working directory. */
function cacheDefaulted(options: Pick<CommonOptions, "cache">, io: CliIo): boolean {
  const named = io.argv?.some((a) => a === "--cache" || a.startsWith("--cache="));
  return !named && (options.cache ?? DEFAULT_CACHE_DIR) === DEFAULT_CACHE_DIR;
}

/**
 * A warning before a bucket store retries a request, so that an endpoint
 * that does not answer is never a silent wait: one line per attempt number
 * (not one per request in flight), with how long it may still take.
 */
export function retryNotice(
  spec: StoreSpec,
  out: Pick<Output, "warn">,
): ((e: StoreRetryEvent) => void) | undefined {
  if (spec.kind === "file") return undefined;
  const timeoutS = (spec.requestTimeoutMs ?? STORE_DEFAULTS.requestTimeoutMs) / 1000;
  const attempts = (spec.retries ?? STORE_DEFAULTS.retries) + 1;
  // What is left to set to fail sooner (nothing once both are given).
  const unset = [
    spec.requestTimeoutMs === undefined ? "?timeout=<ms>" : "",
    spec.retries === undefined ? "?retries=<n>" : "",
  ].filter((x) => x);
  const sooner = unset.length === 0
    ? ` The store URL sets timeout=${spec.requestTimeoutMs} and retries=${spec.retries}: lower them to fail sooner.`
    : ` To fail sooner, set ${unset.join(" and ")} on the store URL.`;
  let shown = 0;
  return (e) => {
    if (e.attempt <= shown) return;
    shown = e.attempt;
    out.warn({
      code: "store_retry",
      message: `${e.op} ${
        e.key || "(bucket)"
      }: attempt ${e.attempt} of ${attempts} failed (${e.detail}); trying again in ${
        Math.round(e.delayMs)
      } ms. Each attempt waits at most ${timeoutS} s; Ctrl-C stops, and what is not synced yet waits for the next run.${sooner}`,
    });
  };
}

/**
 * Opens the cache, the store and a sync service with the default gates.
 * Warnings and gate notes go to `out`. `command` (e.g. `push`, `lock list`)
 * is named in the messages that say what to run next.
 */
export async function openSession(
  options: CommonOptions,
  io: CliIo,
  out: Output,
  command = "push",
): Promise<Session> {
  if (options.init) {
    refuseInit(
      command,
      io.argv && `sluice ${io.argv.filter((a) => a !== "--init").map(shellWord).join(" ")}`,
    );
  }
  // A store URL given is checked first: a mistyped one is told at once, not
  // after the cache's own checks (whose next command would repeat it).
  const given = options.store ?? (io.env?.[STORE_ENV] || undefined);
  if (given !== undefined) parseStoreUrl(given, { cwd: io.cwd });
  const cacheDir = resolveCacheDir(options, io);
  const wasCache = await checkCacheDir(
    cacheDir,
    options.init ?? false,
    againWithInit(
      io,
      command,
      ["--cache", cacheDir],
      options.store === undefined && !io.env?.[STORE_ENV],
    ),
    cacheDefaulted(options, io) ? (dir) => againWithCache(io, command, dir) : undefined,
  );
  const namespace = resolveNamespace(options.namespace);
  const identity = resolveIdentity(options, io.env);
  const setting = (options.conditionalWrites ?? "auto") as ConditionalWritesSetting;
  if (!SETTINGS.includes(setting)) {
    throw new ConfigError(
      "--conditional-writes",
      `auto, required or off, got ${JSON.stringify(setting)}`,
    );
  }
  const probeCache = new LocalCache(cacheDir, undefined, {}, findStateDir(cacheDir));
  const chosen = await chooseStore(options, io, probeCache);
  out.usingStore(storeUrl(chosen.spec));
  // Only a push starts a new datastore: a pull finds nothing in one that is
  // not there (most often a mistyped path), `--init` or not.
  const newStore = command === "push" && (options.init ?? false);
  await checkFileStore(
    chosen.spec,
    newStore,
    command === "push"
      ? againWithInit(io, command, ["--cache", cacheDir, "--store", storeIdentity(chosen.spec)])
      : undefined,
    cacheDir,
  );
  // A cache the swamp extension made holds unfinished data versions (its record says so).
  const hold = chosen.recorded?.unfinishedVersions === "hold";
  // The extension's classifier rules, which keep its `internal` paths local.
  const rules = recordedClassifierRules(chosen.recorded);
  const opened = (io.openStore ?? openStore)(chosen.spec, {
    env: io.env,
    onRetry: retryNotice(chosen.spec, out),
  });
  // Only a push or a pull makes a cache: another command run on a directory
  // that is none yet leaves it as it is (its record of a store would let a
  // later push take the directory for a cache).
  const records = chosen.record && (startsCaches(command) || wasCache);
  let reached = false;
  let recording: Promise<void> | undefined;
  const recordStore = (): Promise<void> => {
    if (!records || !reached) return Promise.resolve();
    // Once: a failed write is tried again by the next answer (or at the end).
    return recording ??= probeCache.writeState(
      CLI_STORE_STATE,
      {
        format: 1,
        url: chosen.url,
        identity: storeIdentity(chosen.spec),
        ...(hold ? { unfinishedVersions: "hold" as const } : {}),
        ...(rules.length ? { classifierRules: rules } : {}),
      } satisfies StoreRecord,
    ).catch((e) => {
      recording = undefined;
      throw e;
    });
  };
  // Recorded at the store's first answer, before the command goes on: a push
  // or a pull reads the index before it uploads or fetches anything, so a
  // command killed midway leaves the cache tied to the store it wrote to.
  const store = noticingStore(opened.store, () => {
    reached = true;
    return recordStore();
  });
  try {
    const events = createEmitter();
    events.on("warning", (w) => out.warn(w));
    events.on("gate", (g) => out.gate(g));
    // The default lock backend shares the push's conditional-write detection:
    // on an endpoint that refuses or ignores them, locks get check-then-write too.
    const service = await createSluice({
      cacheDir,
      // A datastore's cache keeps it under `_control/` (see `sharedStateDir`).
      stateDir: probeCache.stateDir,
      store,
      conditional: new ConditionalWrites(),
      identity,
      events,
      config: {
        conditionalWrites: setting,
        ...(hold ? { unfinishedVersions: "hold" } : {}),
        ...(rules.length ? { classifierRules: rules } : {}),
      },
    });
    return {
      get reached() {
        return reached;
      },
      storeKept: !chosen.record || startsCaches(command) || wasCache,
      recordStore,
      service,
      store,
      spec: chosen.spec,
      events,
      identity,
      namespace,
      cacheDir,
      close: opened.close,
    };
  } catch (e) {
    opened.close();
    throw e;
  }
}
