/**
 * The call sequence of the "swamp" tool's core, replayed against the Sluice
 * datastore extensions on a real server (MinIO or fake-gcs-server): each
 * {@link Host} is one clone with the tool running on it (its own repository,
 * cache, identity, `datastore` export and SDK clients), and the functions
 * below drive the extension exactly in the order the tool does:
 *
 * - `createProvider` is called afresh at every site (resolution, each lock,
 *   each sync service), and a command may create several sync services;
 * - {@link runModelMethod}: the per-model command. Wait while the global lock
 *   is held (breaking it when stale), take the model lock
 *   `data/<type>/<id>/.lock`, re-inspect the global lock, scoped pull with
 *   `context.models`, the method body (markDirty of the data-name directory
 *   before each write, of the version directory at finalize), then the flush:
 *   two-phase (`preparePush` under the model lock only, then `commitPush`
 *   under a fresh global lock) or single-phase (`pushChanged` with the
 *   context under the global lock); the model lock is released in a finally;
 * - {@link structuralCommand}: global lock `.datastore.lock`, `pullChanged()`,
 *   the body, `pushChanged()` without context (a push error other than a
 *   timeout is only a warning to the tool), release;
 * - {@link bulkPushCommand}: `markDirty()` with no path, then `pushChanged()`
 *   with no lock (the token commands);
 * - {@link datastoreSync}: `datastore sync`, a new service under the global
 *   lock, pull then push;
 * - {@link breakglass}: `datastore lock release --force --model <type>/<id>`
 *   through the lock API (`inspect`, then `forceRelease(nonce)`).
 *
 * @module
 */
import { createEmitter } from "../sync/events.ts";
import type { WarningEvent } from "../sync/events.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import type { Identity } from "../sync/ports.ts";
import type { StoreProvider } from "../packages/provider/mod.ts";
import type { LockBackendRegistry } from "../sync/locks/lock_registry.ts";
import type {
  ExtensionProvider,
  InjectedExtensionDeps,
  SwampModelRef,
} from "../packages/extension/mod.ts";
import type { ExtensionSyncService } from "../packages/extension/sync_service.ts";
import { waitFor } from "../packages/testing/wait_for.ts";
import { type FaultProxy, startFaultProxy } from "./proxy.ts";

/** Lock timings in the replay's config (real time, well above S3's 1 s Last-Modified resolution). */
export const REPLAY_LOCK = { backend: "store", ttlMs: 3_000, maxWaitMs: 10_000, retryDelayMs: 50 };

/** The Sluice keys of every host's config (the backend adds bucket and endpoint keys). */
export const REPLAY_SETTINGS = {
  prefix: "datastore",
  conditionalWrites: "required",
  requestTimeoutMs: 5_000,
  retry: { retries: 1, minTimeoutMs: 20, maxTimeoutMs: 50 },
  lock: REPLAY_LOCK,
} as const;

/** The `maxWaitMs` the tool passes to `createLock`. */
export const TOOL_MAX_WAIT_MS = 10_000;

/** What the replay needs of a `datastore` export. */
export interface ReplayDatastore {
  createProvider(config: Record<string, unknown>): ExtensionProvider;
}

/** One fresh bucket of a backend. */
export interface ReplayBucket {
  /** The server's URL. */
  readonly endpoint: string;
  /** The backend's `datastore` export with injected collaborators. */
  datastore(deps: InjectedExtensionDeps): ReplayDatastore;
  /** The extension config of this bucket, its client talking to `endpoint`. */
  config(endpoint: string): Record<string, unknown>;
  /** A Sluice provider of the same bucket and prefix, for reading and seeding objects directly. */
  observer(): StoreProvider;
  /**
   * A raw conditional create (S3 `If-None-Match: *`, GCS `ifGenerationMatch=0`)
   * of `key` under the prefix, made with the backend's own protocol and not
   * through Sluice: true when created, false when the object already exists.
   */
  rawCreate(key: string, body: string): Promise<boolean>;
  /** The raw object under the prefix, or null when absent. */
  rawGet(key: string): Promise<string | null>;
  /** The environment the Sluice command line reaches the bucket with (credentials). */
  readonly cliEnv: Readonly<Record<string, string>>;
}

/** A server the replay runs on. */
export interface ReplayBackend {
  /** Shown in test names. */
  readonly label: string;
  /** True when the server is not installed. */
  readonly ignore: boolean;
  /** A fresh bucket (the server starts on first use). */
  bucket(): Promise<ReplayBucket>;
  /** Stops the server if it was started. */
  stop(): Promise<void>;
}

/** Options of a {@link Host}. */
export interface HostOptions {
  /** Talk to the server through the world's fault proxy. */
  readonly throughProxy?: boolean;
  /** Gate names left out (the test-only switch of the extension). */
  readonly disable?: readonly string[];
  /** Lock backends (to swap the `store` backend for a test double). */
  readonly lockRegistry?: LockBackendRegistry;
}

/** One clone with the tool running on it. */
export interface Host {
  readonly name: string;
  readonly identity: Identity;
  /** `<repo>/.swamp`, what the tool passes to `createLock`. */
  readonly datastorePath: string;
  /** The cache root the tool passes to `createSyncService`. */
  readonly cachePath: string;
  /** Warnings of the extension. */
  readonly warnings: WarningEvent[];
  /** `createProvider` calls made so far. */
  readonly providerCalls: number;
  /** `datastore.createProvider(config)`, as the tool calls it at each site. */
  provider(): ExtensionProvider;
  /** A new sync service, as the tool creates one per command or site. */
  service(): ExtensionSyncService;
  /** The cache copy of `rel`, or null. */
  read(rel: string): Promise<string | null>;
  /** Writes `rel` in the cache as the tool does (temporary file, then rename). */
  write(rel: string, text: string): Promise<void>;
}

/** One scenario's world: a fresh bucket, its fault proxy, its hosts. */
export interface ReplayWorld {
  readonly bucket: ReplayBucket;
  readonly proxy: FaultProxy;
  /** A direct reader of the bucket (prefix applied). */
  readonly observer: StoreProvider;
  host(name: string, options?: HostOptions): Promise<Host>;
  /** The object's text, or null when absent. */
  remote(key: string): Promise<string | null>;
  dispose(): Promise<void>;
}

/** The identity of host `name` (a fixed pid per name). */
export function identityOf(name: string): Identity {
  return {
    holder: `${name}@host-${name}`,
    hostname: `host-${name}`,
    pid: 2000 + [...name].reduce((n, ch) => n * 31 + ch.charCodeAt(0), 7) % 9000,
  };
}

/** Opens a world on a fresh bucket of `backend`. */
export async function openReplayWorld(backend: ReplayBackend): Promise<ReplayWorld> {
  const bucket = await backend.bucket();
  const target = new URL(bucket.endpoint);
  const proxy = await startFaultProxy(target.hostname, Number(target.port));
  const observer = bucket.observer();
  const hosts: { repoDir: string; provider: () => ExtensionProvider }[] = [];
  return {
    bucket,
    proxy,
    observer,
    async host(name, options = {}) {
      const h = await makeHost(bucket, options.throughProxy ? proxy.url : bucket.endpoint, name, {
        ...(options.disable ? { disableGatesForTesting: options.disable } : {}),
        ...(options.lockRegistry ? { lockRegistry: options.lockRegistry } : {}),
      });
      hosts.push({ repoDir: h.datastorePath.slice(0, -"/.swamp".length), provider: h.provider });
      return h;
    },
    async remote(key) {
      const head = await observer.store.head(key);
      return head ? new TextDecoder().decode((await observer.store.get(key)).body) : null;
    },
    async dispose() {
      await proxy.heal().catch(() => {});
      for (const h of hosts) {
        h.provider().runtime.provider.close();
        await Deno.remove(h.repoDir, { recursive: true }).catch(() => {});
      }
      observer.close();
      await proxy.close();
    },
  };
}

async function makeHost(
  bucket: ReplayBucket,
  endpoint: string,
  name: string,
  extra: InjectedExtensionDeps,
): Promise<Host> {
  const identity = identityOf(name);
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  // One process of the tool: its own export instance, probe memo and events.
  const ds = bucket.datastore({
    identity,
    events,
    conditional: new ConditionalWrites(),
    env: () => undefined,
    ...extra,
  });
  const config = bucket.config(endpoint);
  const repoDir = await Deno.makeTempDir({ prefix: `sluice-replay-${name}-` });
  const cachePath = `${repoDir}/home/repos/r1`;
  let calls = 0;
  const provider = () => {
    calls++;
    return ds.createProvider(config);
  };
  const datastorePath = provider().resolveDatastorePath(repoDir);
  return {
    name,
    identity,
    datastorePath,
    cachePath,
    warnings,
    get providerCalls() {
      return calls;
    },
    provider,
    service: () => provider().createSyncService(repoDir, cachePath),
    read: (rel) => Deno.readTextFile(`${cachePath}/${rel}`).catch(() => null),
    write: (rel, text) => atomicWrite(cachePath, rel, text),
  };
}

/** Writes as the tool does: `.<uuid>.tmp` in the same directory, then rename. */
export async function atomicWrite(root: string, rel: string, text: string): Promise<void> {
  const file = `${root}/${rel}`;
  const dir = file.slice(0, file.lastIndexOf("/"));
  await Deno.mkdir(dir, { recursive: true });
  const tmp = `${dir}/.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(tmp, text);
  await Deno.rename(tmp, file);
}

/** The per-model lock key the tool uses (solo mode). */
export function modelLockKey(model: SwampModelRef): string {
  return `data/${model.modelType}/${model.modelId}/.lock`;
}

/** A model's data-name directory, cache-relative. */
export function dataDir(model: SwampModelRef, dataName: string): string {
  return `data/${model.modelType}/${model.modelId}/${dataName}`;
}

/**
 * Step 1 of the tool's per-model command: wait while the global lock is held,
 * breaking it when its body's `acquiredAt + ttlMs` has passed.
 */
async function waitForGlobalLock(host: Host): Promise<void> {
  const global = host.provider().createLock(host.datastorePath, { maxWaitMs: TOOL_MAX_WAIT_MS });
  await waitFor(async () => {
    const info = await global.inspect();
    if (!info) return true;
    if (Date.now() - Date.parse(info.acquiredAt) > info.ttlMs && info.nonce) {
      await global.forceRelease(info.nonce);
    }
    return false;
  }, { timeoutMs: 2 * (REPLAY_LOCK.ttlMs + 1_000), stepMs: 50, message: "global lock" });
}

/** What a model method's body may do (the tool's data repository, under the model lock). */
export interface MethodRun {
  readonly host: Host;
  /** The sync service of the command (it also backs the markDirty hook). */
  readonly service: ExtensionSyncService;
  /**
   * Saves a new version of `dataName`: markDirty of the data-name directory,
   * the version allocated from the local cache (highest N + 1), `raw` and
   * `metadata.yaml` written, markDirty of the version directory (finalize),
   * then the `latest` marker. Returns the version.
   */
  saveVersion(dataName: string, text: string): Promise<number>;
}

/** How the tool flushes a per-model command. */
export type FlushMode = "two-phase" | "single-phase";

/** Options of {@link runModelMethod}. */
export interface RunOptions {
  /** Default: two-phase when the service advertises it (as the tool decides). */
  readonly flush?: FlushMode;
  /** Runs between `preparePush` and the commit's global lock. */
  readonly betweenPrepareAndCommit?: () => Promise<void>;
}

/** The highest version directory of `dir` in the cache plus one, created as the tool does. */
async function allocateVersion(cachePath: string, dir: string): Promise<number> {
  let max = 0;
  try {
    for await (const e of Deno.readDir(`${cachePath}/${dir}`)) {
      if (e.isDirectory && /^\d+$/.test(e.name)) max = Math.max(max, Number(e.name));
    }
  } catch {
    // no version yet
  }
  for (let n = max + 1;; n++) {
    try {
      await Deno.mkdir(`${cachePath}/${dir}/${n}`, { recursive: false });
      return n;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        await Deno.mkdir(`${cachePath}/${dir}`, { recursive: true });
        n--;
      } else if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
  }
}

/**
 * A per-model command (`model method run`) as the tool runs it. Rejects with
 * the flush's error (the tool wraps it in a summary; the replay keeps it).
 */
export async function runModelMethod<T>(
  host: Host,
  model: SwampModelRef,
  body: (run: MethodRun) => Promise<T>,
  options: RunOptions = {},
): Promise<T> {
  const service = host.service();
  const context = { models: [model] };
  const key = modelLockKey(model);
  let lock: ReturnType<ExtensionProvider["createLock"]>;
  for (;;) {
    await waitForGlobalLock(host);
    lock = host.provider().createLock(host.datastorePath, {
      lockKey: key,
      maxWaitMs: TOOL_MAX_WAIT_MS,
    });
    await lock.acquire();
    const global = host.provider().createLock(host.datastorePath, { maxWaitMs: TOOL_MAX_WAIT_MS });
    if ((await global.inspect()) === null) break;
    await lock.release(); // the global lock was taken meanwhile: start again
  }
  try {
    const caps = service.capabilities();
    await service.pullChanged({ context });
    const run: MethodRun = {
      host,
      service,
      async saveVersion(dataName, text) {
        const dir = dataDir(model, dataName);
        await service.markDirty({ relPath: dir });
        const n = await allocateVersion(host.cachePath, dir);
        await host.write(`${dir}/${n}/raw`, text);
        await host.write(`${dir}/${n}/metadata.yaml`, `version: ${n}\n`);
        await service.markDirty({ relPath: `${dir}/${n}` });
        await host.write(`${dir}/latest`, String(n));
        return n;
      },
    };
    const result = await body(run);
    const global = () =>
      host.provider().createLock(host.datastorePath, { maxWaitMs: TOOL_MAX_WAIT_MS });
    if ((options.flush ?? "two-phase") === "two-phase" && caps.twoPhaseSync) {
      const manifest = await service.preparePush({ context });
      await options.betweenPrepareAndCommit?.();
      await global().withLock(() => service.commitPush(manifest));
    } else {
      await global().withLock(() => service.pushChanged({ context }));
    }
    return result;
  } finally {
    await lock.release();
  }
}

/** What a structural command's push did: the error the tool downgraded to a warning, if any. */
export interface StructuralOutcome {
  readonly pushError: unknown;
}

/** A structural write command: global lock, pull, body, push without context, release. */
export async function structuralCommand(
  host: Host,
  body: (service: ExtensionSyncService) => Promise<void>,
): Promise<StructuralOutcome> {
  const lock = host.provider().createLock(host.datastorePath, { maxWaitMs: TOOL_MAX_WAIT_MS });
  await lock.acquire();
  try {
    const service = host.service();
    await service.pullChanged();
    await body(service);
    const pushError = await service.pushChanged().then(() => null, (e) => e);
    return { pushError };
  } finally {
    await lock.release();
  }
}

/** A bulk-push command (the token commands): `markDirty()` with no path, the body, a push with no lock. */
export async function bulkPushCommand(
  host: Host,
  body: (service: ExtensionSyncService) => Promise<void>,
): Promise<number | void> {
  const service = host.service();
  await service.markDirty();
  await body(service);
  return await service.pushChanged();
}

/** `datastore sync`: a new service under the global lock, pull then push; the push count. */
export async function datastoreSync(host: Host): Promise<number | void> {
  const lock = host.provider().createLock(host.datastorePath, { maxWaitMs: TOOL_MAX_WAIT_MS });
  return await lock.withLock(async () => {
    const service = host.service();
    await service.pullChanged();
    return await service.pushChanged();
  });
}

/** `datastore lock release --force --model <type>/<id>`; true when the lock was released. */
export async function breakglass(host: Host, model: string): Promise<boolean> {
  const at = model.lastIndexOf("/");
  const ref = { modelType: model.slice(0, at), modelId: model.slice(at + 1) };
  const lock = host.provider().createLock(host.datastorePath, { lockKey: modelLockKey(ref) });
  const info = await lock.inspect();
  if (!info?.nonce) return false;
  return await lock.forceRelease(info.nonce);
}
