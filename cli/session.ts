/**
 * Opening what a command needs from its common options: the cache
 * directory, the store (from `--store`, `SLUICE_STORE`, or the store this
 * cache was last used with), the identity, and a sync service with the
 * default gates and a lock backend.
 *
 * A cache mirrors one datastore: the first command that names a store and
 * reaches it (the store answered one of its requests: {@link noticingStore})
 * records it in the cache's internal state when it ends
 * ({@link Session.recordStore}), later commands default to it, and a
 * command naming another datastore for the same cache is refused
 * (its synced manifest would make a push skip files the other store lacks).
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { createSluice } from "../sluice.ts";
import { LocalCache, STATE_DIR } from "../sync/transfer/cache.ts";
import { processIdentity } from "../sync/clock.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import type { ConditionalWritesSetting } from "../sync/context.ts";
import {
  AlreadyExistsError,
  ConfigError,
  NotFoundError,
  PreconditionFailedError,
  SluiceError,
} from "../sync/errors.ts";
import { createEmitter, type SluiceEmitter } from "../sync/events.ts";
import type { DistributedLock, Identity, LockBackend, ObjectStore } from "../sync/ports.ts";
import { globalLockKey } from "../sync/locks/model_locks.ts";
import type { SyncService } from "../sync/service/service.ts";
import { type CliIo, type Output, shellWord } from "./output.ts";
import { openStore, parseStoreUrl, storeIdentity, type StoreSpec } from "./store_url.ts";
import { STORE_DEFAULTS, type StoreRetryEvent } from "../packages/store_kit/attempts.ts";

/** Default cache directory, relative to the working directory. */
export const DEFAULT_CACHE_DIR = "./.sluice-cache";

/** Environment variable naming the default store URL. */
export const STORE_ENV = "SLUICE_STORE";

/** State file (in the cache's `.sluice/`) recording the store the cache mirrors. */
export const CLI_STORE_STATE = "cli-store.json";

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
   * leaves the cache free for the right one.
   */
  recordStore(): Promise<void>;
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

interface StoreRecord {
  format: 1;
  url: string;
  identity: string;
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
 * count. Methods run on the store itself, so its private state is untouched.
 */
export function noticingStore<S extends object>(store: S, onReached: () => void): S {
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const out = value.apply(target, args);
        if (out instanceof Promise) {
          out.then(onReached, (e) => {
            if (
              e instanceof NotFoundError || e instanceof AlreadyExistsError ||
              e instanceof PreconditionFailedError
            ) onReached();
          });
        }
        return out;
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

/**
 * The store URL to use: `--store`, else `SLUICE_STORE`, else the store the
 * cache recorded; refuses a store other than the recorded one.
 */
async function chooseStore(
  options: CommonOptions,
  io: CliIo,
  cache: LocalCache,
): Promise<{ spec: StoreSpec; url: string; record: boolean }> {
  const recorded = await cache.readState<StoreRecord>(CLI_STORE_STATE).catch(() => null);
  const given = options.store ?? io.env?.[STORE_ENV];
  if (given === undefined) {
    if (recorded?.format === 1 && typeof recorded.url === "string") {
      return {
        spec: parseStoreUrl(recorded.url, { cwd: io.cwd }),
        url: recorded.url,
        record: false,
      };
    }
    throw new ConfigError(
      "--store",
      `a store URL: pass --store (e.g. --store file:///srv/datastore or --store s3://bucket/prefix), or set ${STORE_ENV}; the cache ${cache.dir} has no recorded store yet`,
    );
  }
  const spec = parseStoreUrl(given, { cwd: io.cwd });
  const id = storeIdentity(spec);
  if (recorded?.format === 1 && recorded.identity !== id) {
    throw new SluiceError(
      "invalid_config",
      `The cache ${cache.dir} mirrors ${recorded.identity}, not ${id}: its sync records belong to the other store: a sync with ${id} would take them for its own and skip files ${id} lacks. Nothing was changed. Use another --cache directory for ${id}, or drop --store (and ${STORE_ENV}) to use ${recorded.identity}.`,
    );
  }
  // The same bucket and prefix on another server (a mistyped port, another
  // MinIO) is another datastore: its records would be taken for this one's.
  if (recorded?.format === 1 && typeof recorded.url === "string") {
    const was = endpointOf(recorded.url, io.cwd);
    const now = endpointOf(given, io.cwd);
    if (was !== null && now !== null && was !== now) {
      throw new SluiceError(
        "invalid_config",
        `The cache ${cache.dir} mirrors ${id} at ${was || "the service's own endpoint"}, not at ${
          now || "the service's own endpoint"
        }: the same bucket on another server is another datastore, and its sync records belong to the first one (a sync with the other would take them for its own, push there what belongs here, and take files missing there for deletions). Nothing was changed. Check the endpoint (a mistyped host or port?); drop --store (and ${STORE_ENV}) to use ${recorded.url}; or use another --cache directory for the other server.`,
      );
    }
  }
  return { spec, url: given, record: recorded?.url !== given };
}

/**
 * The endpoint a store URL reaches, normalised (origin and path, without a
 * trailing slash); "" for the service's own endpoint (none given, or a
 * file:// store); null when the URL does not parse.
 */
function endpointOf(url: string, cwd: string | undefined): string | null {
  let spec: StoreSpec;
  try {
    spec = parseStoreUrl(url, { cwd });
  } catch {
    return null;
  }
  if (spec.kind === "file" || !spec.endpoint) return "";
  try {
    const u = new URL(spec.endpoint);
    return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return spec.endpoint;
  }
}

/** What a path is: a directory, something else, or nothing. */
async function pathKind(path: string, flag: string): Promise<"dir" | "other" | "missing"> {
  try {
    return (await Deno.stat(path)).isDirectory ? "dir" : "other";
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "missing";
    throw new SluiceError(
      "invalid_config",
      `${flag} names ${path}, which cannot be used as a directory (${
        e instanceof Error ? e.message : String(e)
      }). Nothing was changed. Pass ${flag} a directory.`,
      { cause: e },
    );
  }
}

/**
 * What to run to create what was missing: the command line as the user ran
 * it, with `--init` added, quoted for a shell (without the arguments, as a
 * library caller gives none: `command`, then `fallback`). Undefined for a
 * command other than a push or a pull: only those start a cache or a store
 * (elsewhere `--init` would make an empty one and fail).
 */
export function againWithInit(
  io: Pick<CliIo, "argv">,
  command: string,
  fallback: readonly string[],
): string | undefined {
  if (command !== "push" && command !== "pull") return undefined;
  const args = io.argv ? [...io.argv] : [...command.split(" "), ...fallback];
  if (!args.includes("--init")) args.push("--init");
  return `sluice ${args.map(shellWord).join(" ")}`;
}

/**
 * Refuses a cache directory that does not exist (it has never been synced:
 * most likely a mistyped `--cache`) unless `--init` asks for a new one, and
 * a cache path that is not a directory.
 */
export async function checkCacheDir(
  dir: string,
  init: boolean,
  again: string | undefined,
): Promise<void> {
  const kind = await pathKind(dir, "--cache");
  if (kind === "other") {
    throw new SluiceError(
      "invalid_config",
      `--cache names ${dir}, which is a file, not a directory. Nothing was changed. Pass --cache the cache directory (or a new directory with --init).`,
    );
  }
  const outer = await enclosingCache(dir);
  if (outer) {
    throw new SluiceError(
      "invalid_config",
      `--cache names ${dir}, which lies inside the cache ${outer}: a cache there would publish its files at other paths than the outer cache does, and each would take the other's files for its own. Nothing was changed. Pass --cache ${outer} (and name the paths under it, e.g. \`sluice push ${
        dir.slice(outer.length + 1)
      }\`), or choose a directory outside it.`,
    );
  }
  if (kind === "missing" && !init) {
    throw new SluiceError(
      "cache_not_found",
      `The cache directory ${dir} does not exist, so it has never been synced (is --cache mistyped?). Nothing was created, pushed or pulled. Check the path; ${
        again
          ? `to start a new cache there, run the command again with --init: \`${again}\``
          : "a new cache is started by its first `sluice pull --init` or `sluice push --init`"
      }.`,
    );
  }
}

/**
 * The nearest directory above `dir` that is a cache of the command line (it
 * holds its record of a store), unless `dir` is one itself; null when none.
 */
async function enclosingCache(dir: string): Promise<string | null> {
  const isCache = async (d: string) => {
    try {
      return (await Deno.lstat(`${d}/${STATE_DIR}/${CLI_STORE_STATE}`)).isFile;
    } catch {
      return false;
    }
  };
  if (await isCache(dir)) return null;
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) {
    if (await isCache(d)) return d;
  }
  return null;
}

/**
 * Refuses a `file://` store whose directory does not exist (nothing was ever
 * pushed there: most likely a mistyped `--store`) unless `--init` asks for a
 * new one, which is then created; and a store path that is not a directory.
 */
export async function checkFileStore(
  spec: StoreSpec,
  init: boolean,
  again: string | undefined,
): Promise<void> {
  if (spec.kind !== "file") return;
  const url = storeIdentity(spec);
  const kind = await pathKind(spec.root, "--store");
  if (kind === "other") {
    throw new SluiceError(
      "invalid_config",
      `The store ${url} names ${spec.root}, which is a file, not a directory. Nothing was changed. Pass --store the datastore's directory, as file:///abs/dir.`,
    );
  }
  if (kind === "dir") return;
  if (!init) {
    throw new SluiceError(
      "store_not_found",
      `The store directory ${spec.root} does not exist, so nothing was ever pushed to ${url} (is --store mistyped?). Nothing was pushed or pulled, and the cache was not tied to that store. Check the URL; ${
        again
          ? `to start a new datastore there, run the command again with --init: \`${again}\``
          : "a new datastore is started by the first `sluice push --init` to it"
      }.`,
    );
  }
  await Deno.mkdir(spec.root, { recursive: true });
}

/**
 * A warning before a bucket store retries a request, so that an endpoint
 * that does not answer is never a silent wait: one line per attempt number
 * (not one per request in flight), with how long it may still take.
 */
function retryNotice(spec: StoreSpec, out: Output): ((e: StoreRetryEvent) => void) | undefined {
  if (spec.kind === "file") return undefined;
  const timeoutS = (spec.requestTimeoutMs ?? STORE_DEFAULTS.requestTimeoutMs) / 1000;
  const attempts = (spec.retries ?? STORE_DEFAULTS.retries) + 1;
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
      } ms. Each attempt waits at most ${timeoutS} s; Ctrl-C stops, and local changes stay dirty. To fail sooner, set ?timeout=<ms> and ?retries=<n> on the store URL.`,
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
  const cacheDir = resolveCacheDir(options, io);
  await checkCacheDir(
    cacheDir,
    options.init ?? false,
    againWithInit(io, command, ["--cache", cacheDir]),
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
  const probeCache = new LocalCache(cacheDir);
  const chosen = await chooseStore(options, io, probeCache);
  await checkFileStore(
    chosen.spec,
    options.init ?? false,
    againWithInit(io, command, ["--cache", cacheDir, "--store", storeIdentity(chosen.spec)]),
  );
  const opened = openStore(chosen.spec, { env: io.env, onRetry: retryNotice(chosen.spec, out) });
  let reached = false;
  const store = noticingStore(opened.store, () => reached = true);
  try {
    const events = createEmitter();
    events.on("warning", (w) => out.warn(w));
    events.on("gate", (g) => out.gate(g));
    // The default lock backend shares the push's conditional-write detection:
    // on an endpoint that refuses or ignores them, locks get check-then-write too.
    const service = await createSluice({
      cacheDir,
      store,
      conditional: new ConditionalWrites(),
      identity,
      events,
      config: { conditionalWrites: setting },
    });
    return {
      get reached() {
        return reached;
      },
      recordStore: async () => {
        if (!chosen.record || !reached) return;
        await service.cache.writeState(
          CLI_STORE_STATE,
          {
            format: 1,
            url: chosen.url,
            identity: storeIdentity(chosen.spec),
          } satisfies StoreRecord,
        );
      },
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
