/**
 * The tool process of a core-driven clone (`core_driven.ts`): one
 * `datastore` export over the clone's store view and the runtime's Sluice
 * service of its cache ({@link coreCloneService}), the locks the tool creates
 * (the global lock, a model's), its wait for a held global lock before a
 * per-model command, its writes into the cache (a version directory
 * allocated, a temporary file and a rename), and the turns two units of one
 * process take at their sync calls ({@link oneAtATime}).
 *
 * @module
 */
import { LockTimeoutError } from "../../sync/lock_errors.ts";
import { createEmitter } from "../../sync/events.ts";
import { type StoreLock, storeLockBackend } from "../../sync/locks/lock_engine.ts";
import { LockBackendRegistry, lockTimingsFromConfig } from "../../sync/locks/lock_registry.ts";
import type { Clock } from "../../sync/ports.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { ExtensionProvider } from "../../packages/extension/provider.ts";
import { defineStoreDatastore } from "../../packages/extension/store_datastore.ts";
import { createSluice } from "../../sluice.ts";
import { absentOnError } from "../../packages/testing/absent_on_error.ts";
import {
  CHAOS_CONFIG,
  CHAOS_FILE_CLOCK,
  type CloneServiceOptions,
  watchWarnings,
} from "./clone_setup.ts";
import { CHAOS_LOCK } from "./commands.ts";
import { mixSeed, mulberry32 } from "./prng.ts";

/** How the tool flushes a per-model command: two-phase, or single-phase (an older core). */
export type CoreFlush = "two-phase" | "single-phase";

/** The extension config every core-driven clone sets up (the chaos clones' settings). */
export const CORE_CONFIG = {
  bucket: "chaos",
  concurrency: CHAOS_CONFIG.concurrency,
  retry: CHAOS_CONFIG.retry,
  streamThresholdBytes: CHAOS_CONFIG.streamThresholdBytes,
  lock: { backend: "store", ...CHAOS_LOCK },
} as const;

/** How often the tool polls a held global lock before a per-model command (core: 1 s). */
export const CORE_GLOBAL_POLL_MS = 1_000;

/** One process of the tool on a clone. */
export interface CoreHost {
  /** `datastore.createProvider(config)`, as the tool calls it at each site. */
  provider(): ExtensionProvider;
  /** `<repo>/.swamp`, what the tool passes to `createLock`. */
  readonly datastorePath: string;
  /** The repository directory the tool passes to `createSyncService`. */
  readonly repoDir: string;
  /** The cache root the tool passes to `createSyncService` (the clone's cache dir). */
  readonly cachePath: string;
  /** The fake clock. */
  readonly clock: Clock;
  /** How this clone's tool flushes a per-model command. */
  readonly flush: CoreFlush;
  /**
   * The model lock objects this process takes again for each run of their
   * model (`History.reusedLocks`), with whether a run holds one now and
   * whether the last run under it was refused; absent: each run creates its
   * own.
   */
  readonly modelLocks?: Map<string, ReusedLock>;
}

/** A model lock object a process takes again for each run (see {@link CoreHost.modelLocks}). */
interface ReusedLock {
  readonly lock: ReturnType<ExtensionProvider["createLock"]>;
  /** A run of the process holds it now (another, beside it, gets a lock object of its own). */
  busy: boolean;
  /** Runs that took it so far. */
  runs: number;
  /** The last run that took it was refused with `model_lock_lost`. */
  refused: boolean;
}

const hosts = new WeakMap<SyncService, CoreHost>();

/** The tool process whose runtime owns `svc`, if `svc` is a core-driven clone's service. */
export function coreHostOf(svc: SyncService): CoreHost | undefined {
  return hosts.get(svc);
}

/**
 * A core-driven clone incarnation: the extension export over the clone's
 * store view (its lock backend the same engine as the API clones', seeded
 * the same way), and the runtime's Sluice service of the clone's cache with
 * every lock it creates (so that a crash can stop their heartbeats).
 *
 * @example
 * ```ts ignore
 * import { coreCloneService } from "./core_driven.ts";
 * const { svc, locks } = await coreCloneService({ dir, name: "c1", index: 1, … }, "two-phase");
 * ```
 */
export async function coreCloneService(
  o: CloneServiceOptions,
  flush: CoreFlush,
): Promise<{ svc: SyncService; locks: StoreLock[] }> {
  const events = createEmitter();
  watchWarnings(events, o);
  const locks: StoreLock[] = [];
  const random = mulberry32(mixSeed(o.seed, o.index, o.incarnation));
  const lockRegistry = new LockBackendRegistry().register("store", (ctx) => {
    const engine = storeLockBackend(ctx.store, {
      clock: ctx.clock,
      events: ctx.events,
      random,
      defaults: lockTimingsFromConfig(ctx.config),
    });
    return {
      name: engine.name,
      createLock: (key, identity, options) => {
        const lock = engine.createLock(key, identity, options);
        locks.push(lock);
        return o.thirdPartyLocks ? absentOnError(lock) : lock;
      },
    };
  });
  const ds = defineStoreDatastore({
    store: o.store,
    // Each process of a clone is a service here: its marks are its own while it runs.
    createService: (o) =>
      createSluice({ ...o, ownersInProcess: true, fileClock: CHAOS_FILE_CLOCK }),
    identity: {
      holder: `${o.name}@chaos`,
      hostname: `${o.name}-host`,
      pid: 1000 * o.incarnation + 1,
    },
    clock: o.clock,
    events,
    conditional: o.registry,
    lockRegistry,
    env: () => undefined,
    ...(o.disable ? { disableGatesForTesting: o.disable } : {}),
  });
  const provider = () =>
    ds.createProvider({
      ...CORE_CONFIG,
      ...(o.oldClients ? { oldClients: true } : {}),
      ...(o.indexFirst ? { firstIndexAtUploads: 1 } : {}),
    });
  const repoDir = o.dir;
  const host: CoreHost = {
    provider,
    repoDir,
    datastorePath: provider().resolveDatastorePath(repoDir),
    cachePath: o.dir,
    clock: o.clock,
    flush,
    ...(o.reusedLocks ? { modelLocks: new Map() } : {}),
  };
  const svc = await provider().runtime.service(o.dir, "");
  hosts.set(svc, host);
  return { svc, locks };
}

export function hostFor(svc: SyncService): CoreHost {
  const host = hosts.get(svc);
  if (!host) throw new Error("a core-driven command ran on a clone that is not core-driven");
  return host;
}

/** A global lock as the tool creates it (no key: `.datastore.lock`). */
export function globalLock(host: CoreHost) {
  return host.provider().createLock(host.datastorePath, { maxWaitMs: CHAOS_LOCK.maxWaitMs });
}

/** A model's lock as the tool creates it for a run of `model` (`type…/id`). */
export function modelLock(host: CoreHost, model: string) {
  return host.provider().createLock(host.datastorePath, {
    lockKey: `data/${model}/.lock`,
    maxWaitMs: CHAOS_LOCK.maxWaitMs,
  });
}

/**
 * Step 1 of the tool's per-model command: poll while the global lock is
 * held; force-release it once `now - acquiredAt > ttlMs` (when it has a
 * nonce); give up after twice the holder's `ttlMs`.
 */
export async function waitForGlobalLock(host: CoreHost): Promise<void> {
  const global = globalLock(host);
  const start = host.clock.now();
  for (;;) {
    const info = await global.inspect();
    if (!info) return;
    if (host.clock.now() - Date.parse(info.acquiredAt) > info.ttlMs && info.nonce) {
      await global.forceRelease(info.nonce);
      return;
    }
    if (host.clock.now() - start >= 2 * info.ttlMs) {
      throw new LockTimeoutError(global.key, host.clock.now() - start, `${info.holder}`);
    }
    await host.clock.sleep(CORE_GLOBAL_POLL_MS);
  }
}

/** The highest version directory of `dir` in the cache plus one, created as the tool does. */
export async function allocateVersion(cachePath: string, dir: string): Promise<number> {
  await Deno.mkdir(`${cachePath}/${dir}`, { recursive: true });
  let max = 0;
  for await (const e of Deno.readDir(`${cachePath}/${dir}`)) {
    if (e.isDirectory && /^\d+$/.test(e.name)) max = Math.max(max, Number(e.name));
  }
  for (let n = max + 1;; n++) {
    try {
      await Deno.mkdir(`${cachePath}/${dir}/${n}`);
      return n;
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
  }
}

/** Writes as the tool does: `.<uuid>.tmp` in the same directory, then a rename. */
export async function atomicWrite(root: string, rel: string, bytes: Uint8Array): Promise<void> {
  const file = `${root}/${rel}`;
  const dir = file.slice(0, file.lastIndexOf("/"));
  await Deno.mkdir(dir, { recursive: true });
  const tmp = `${dir}/.${crypto.randomUUID()}.tmp`;
  await Deno.writeFile(tmp, bytes);
  await Deno.rename(tmp, file);
}

export const enc = new TextEncoder();

/** How often a unit of a process with parallel steps looks whether the other's sync call ended. */
export const STEP_POLL_MS = 100;

/** Per process (a clone incarnation's host): whether a parallel step's sync call is under way. */
const syncCalls = new WeakMap<CoreHost, { busy: boolean }>();

/**
 * Runs `fn`, a sync call of one of two units of a process (a `parallel`
 * run and its step), once the other's is over. The service serialises its
 * pulls and pushes itself: a call that waits for another unit's there waits
 * on nothing the scheduler sees (it is neither parked nor ended), so the
 * units take turns here instead, looking again after a clock wait.
 */
export async function oneAtATime<T>(host: CoreHost, fn: () => Promise<T>): Promise<T> {
  let gate = syncCalls.get(host);
  if (!gate) syncCalls.set(host, gate = { busy: false });
  while (gate.busy) await host.clock.sleep(STEP_POLL_MS);
  gate.busy = true;
  try {
    return await fn();
  } finally {
    gate.busy = false;
  }
}
