/**
 * The world the incident scenarios (`incident_scenarios.ts`) run in: a
 * backend's fresh bucket, and clones of one repository over it, each with its
 * own cache directory, identity, conditional-write registry and SDK client
 * (made by the backend's provider from the datastore config), optionally
 * through a loopback fault proxy of their own ({@link openWorld}).
 *
 * @module
 */
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import type { WarningEvent } from "../sync/events.ts";
import type { Identity, ObjectStore } from "../sync/ports.ts";
import { type ProviderDeps, type StoreProvider, toSyncConfig } from "../packages/provider/mod.ts";
import type { SyncService } from "../sync/service/service.ts";
import { createSluice } from "../sluice.ts";
import { type FaultProxy, startFaultProxy } from "./proxy.ts";

/** Lock timings of the scenarios (real time; a TTL well above S3's 1 s Last-Modified resolution). */
export const SCENARIO_LOCK = { ttlMs: 3_000, maxWaitMs: 10_000, retryDelayMs: 50 } as const;

/** The provider settings every clone shares (the backend adds bucket and endpoint keys). */
export const SCENARIO_SETTINGS = {
  prefix: "datastore",
  conditionalWrites: "required",
  concurrency: 4,
  requestTimeoutMs: 5_000,
  retry: { retries: 1, minTimeoutMs: 20, maxTimeoutMs: 50 },
  lock: { backend: "store", ...SCENARIO_LOCK },
} as const;

/** The common part of a clone's provider config (and the settings a clone may add). */
export type ScenarioSettings = typeof SCENARIO_SETTINGS & CloneSettings;

/** Settings one clone adds to {@link SCENARIO_SETTINGS}. */
export interface CloneSettings {
  /** See `SyncConfig.firstIndexAtUploads`. */
  readonly firstIndexAtUploads?: number;
}

/** One bucket of a backend, ready for a scenario. */
export interface ScenarioBucket {
  /** The server's own URL (clients that do not go through the fault proxy use it). */
  readonly endpoint: string;
  /**
   * Creates a provider of this bucket whose client talks to `endpoint` (the
   * server's URL or the fault proxy's), with `settings` merged into the config.
   */
  provider(endpoint: string, settings: ScenarioSettings, deps: ProviderDeps): StoreProvider;
}

/** What a backend test file supplies: a label, whether to skip, and fresh buckets. */
export interface ScenarioBackend {
  /** Shown in test names, e.g. `MinIO`. */
  readonly label: string;
  /** True when the server is not installed (the tests are then ignored). */
  readonly ignore: boolean;
  /** A fresh bucket on the file's shared server (started on first use). */
  bucket(): Promise<ScenarioBucket>;
}

/** One clone: its own repository directory, identity, provider (SDK client) and sync service. */
export interface Clone {
  /** `a`, `b`, `c`. */
  readonly name: string;
  /** Who this clone writes and locks as. */
  readonly identity: Identity;
  /** The clone's repository directory (its cache lives inside). */
  readonly repoDir: string;
  /** The clone's provider; its store is the clone's own client. */
  readonly provider: StoreProvider;
  /** The clone's sync service (default gates unless some were disabled). */
  readonly service: SyncService;
  /** Warnings the clone's provider and service emitted. */
  readonly warnings: WarningEvent[];
  /** Writes `text` at cache path `path` and marks it dirty. */
  write(path: string, text: string): Promise<void>;
  /** The cache copy of `path`, or null when absent. */
  readLocal(path: string): Promise<string | null>;
}

/** Options of {@link ScenarioWorld.clone}. */
export interface CloneOptions {
  /** Talk to the server through the world's fault proxy; default false (direct). */
  readonly throughProxy?: boolean;
  /** Gate names left out of the clone's pipelines (the "gate off" runs). */
  readonly disable?: readonly string[];
  /** Added to the clone's provider config. */
  readonly settings?: CloneSettings;
}

/** A scenario's world: one fresh bucket, its fault proxy, its clones. */
export interface ScenarioWorld {
  /** Fault control for clones made `throughProxy`. */
  readonly proxy: FaultProxy;
  /** Makes a clone named `name` (the name fixes its identity). */
  clone(name: string, options?: CloneOptions): Promise<Clone>;
  /** The remote object's text, read by a direct observer; null when absent. */
  remote(key: string): Promise<string | null>;
  /** Closes the proxy and every client, removes every repository directory. */
  dispose(): Promise<void>;
}

/**
 * Makes a scenario world on a fresh bucket of `backend`.
 *
 * @example
 * ```ts
 * import { openWorld, type ScenarioBackend } from "./scenario_world.ts";
 * async function demo(backend: ScenarioBackend) {
 *   const w = await openWorld(backend);
 *   try {
 *     const a = await w.clone("a", { throughProxy: true });
 *     await a.write("logs/x", "hi");
 *     await a.service.pushChanged();
 *   } finally {
 *     await w.dispose();
 *   }
 * }
 * ```
 */
export async function openWorld(backend: ScenarioBackend): Promise<ScenarioWorld> {
  const bucket = await backend.bucket();
  const target = new URL(bucket.endpoint);
  const proxy = await startFaultProxy(target.hostname, Number(target.port));
  const clones: Clone[] = [];
  const observer = bucket.provider(bucket.endpoint, SCENARIO_SETTINGS, {
    identity: identityOf("observer"),
    conditional: new ConditionalWrites(),
  });
  return {
    proxy,
    async clone(name, options = {}) {
      const endpoint = options.throughProxy ? proxy.url : bucket.endpoint;
      const c = await makeClone(bucket, endpoint, name, options.disable ?? [], options.settings);
      clones.push(c);
      return c;
    },
    remote: (key) => readRemote(observer.store, key),
    async dispose() {
      await proxy.heal().catch(() => {});
      for (const c of clones) {
        c.provider.close();
        await Deno.remove(c.repoDir, { recursive: true }).catch(() => {});
      }
      observer.close();
      await proxy.close();
    },
  };
}

function identityOf(name: string): Identity {
  return {
    holder: `${name}@host-${name}`,
    hostname: `host-${name}`,
    pid: 1000 + [...name].reduce((n, ch) => n * 31 + ch.charCodeAt(0), 7) % 9000,
  };
}

/**
 * What `provider.createSyncService` builds, from the same parts of the
 * provider, with its store replaced (a counting wrapper) or some gates left
 * out.
 */
export function serviceFromParts(
  provider: StoreProvider,
  cachePath: string,
  parts: {
    identity: Identity;
    conditional: ConditionalWrites;
    store?: ObjectStore;
    disable?: readonly string[];
  },
): Promise<SyncService> {
  return createSluice({
    cacheDir: cachePath,
    store: parts.store ?? provider.store,
    lockBackend: provider.lockBackend,
    identity: parts.identity,
    clock: provider.clock,
    events: provider.events,
    config: toSyncConfig(provider.config),
    conditional: parts.conditional,
    disable: parts.disable,
  });
}

async function makeClone(
  bucket: ScenarioBucket,
  endpoint: string,
  name: string,
  disable: readonly string[],
  settings: CloneSettings = {},
): Promise<Clone> {
  const identity = identityOf(name);
  // Each clone is its own process in real life: its own probe memo and warning memo.
  const conditional = new ConditionalWrites();
  const provider = bucket.provider(endpoint, { ...SCENARIO_SETTINGS, ...settings }, {
    identity,
    conditional,
  });
  const warnings: WarningEvent[] = [];
  provider.events.on("warning", (w) => warnings.push(w));
  const repoDir = await Deno.makeTempDir({ prefix: `sluice-clone-${name}-` });
  const cachePath = provider.resolveCachePath(repoDir);
  // Gates on: the provider's own service. Gates off: the same parts with some gates left out.
  const service = disable.length === 0
    ? await provider.createSyncService(repoDir, cachePath)
    : await serviceFromParts(provider, cachePath, { identity, conditional, disable });
  return {
    name,
    identity,
    repoDir,
    provider,
    service,
    warnings,
    async write(path, text) {
      const full = `${service.cacheDir}/${path}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(full, text);
      await service.markDirty({ relPath: path });
    },
    readLocal: (path) => Deno.readTextFile(`${service.cacheDir}/${path}`).catch(() => null),
  };
}

const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** The text of `key` on the store; null when absent. */
async function readRemote(store: ObjectStore, key: string): Promise<string | null> {
  const head = await store.head(key);
  return head ? dec((await store.get(key)).body) : null;
}

/**
 * A test of `backend` named `<label>: <name>`: `fn` runs in a fresh world,
 * disposed of afterwards; ignored when the backend's server is not installed.
 */
export function worldTest(
  label: string,
  backend: ScenarioBackend,
  name: string,
  fn: (w: ScenarioWorld) => Promise<void>,
): void {
  Deno.test({
    name: `${label}: ${name}`,
    ignore: backend.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const w = await openWorld(backend);
      try {
        await fn(w);
      } finally {
        await w.dispose();
      }
    },
  });
}
