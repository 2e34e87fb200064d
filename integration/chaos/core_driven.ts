/**
 * Core-driven clones: a clone whose model runs and syncs go through the
 * swamp datastore extension (`packages/extension/`), called in the order
 * swamp core calls it (`/work/shared/SWAMP_CONTRACT.md` §3.3 and §3.6, as
 * `integration/swamp_replay.ts` replays it on real servers), over the same
 * scheduler-wrapped store, fake clock, lock engine and per-clone identity as
 * the clones that use Sluice's own API.
 *
 * One clone incarnation is one process of the tool: one `datastore` export
 * (so one extension runtime), with `createProvider` called afresh at every
 * site. The clone's other moves (edits, lockfile transactions, the final
 * syncs) use the runtime's Sluice service of the clone's cache, the same one
 * the extension's sync services share.
 *
 * - {@link coreRunCommand}: wait while the global lock is held (breaking it
 *   when its body's `acquiredAt + ttlMs` has passed, giving up after twice
 *   its `ttlMs`), take the model lock `data/<type>/<id>/.lock`, re-inspect
 *   the global lock (held: release and start again), scoped pull with
 *   `context.models`, the method body (markDirty of the data-name directory,
 *   version N+1 allocated from the local cache, `raw` and `metadata.yaml`
 *   written with a temporary file and a rename, markDirty of the version
 *   directory, the `latest` marker), then the flush: two-phase (`preparePush`
 *   under the model lock only, then `commitPush` under a fresh global lock)
 *   or single-phase (`pushChanged` with the context under the global lock);
 *   the model lock is released in a finally. A `parallel` run has another
 *   step of its workflow beside it on the same service (`parallelStep`),
 *   and a `structural` one also a structural command of the process on the
 *   same extension instance (`structuralCommand`): the global lock, a pull
 *   and a push naming no model, while both runs hold their model locks. A
 *   `saveGap` run saves as the tool's `save` does, no version directory
 *   marked, its step flushing between the mark and the first write
 *   (`moves_save_gap.ts`).
 * - {@link coreSyncCommand}: `swamp datastore sync`: the global lock, a new
 *   sync service, pull then push, release.
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
import type { ExtensionSyncService } from "../../packages/extension/sync_service.ts";
import { absentOnError } from "../../packages/testing/absent_on_error.ts";
import {
  CHAOS_CONFIG,
  CHAOS_FILE_CLOCK,
  cloneService,
  type CloneServiceOptions,
  watchWarnings,
} from "./clone_setup.ts";
import {
  CHAOS_LOCK,
  codeOf,
  type Command,
  type CommandEnv,
  freezeRun,
  migrateCommand,
  plainCommand,
  runCommand,
  runFiles,
  runStarted,
  siblingDies,
  siblingRun,
} from "./commands.ts";
import { moveCommand } from "./commands_user.ts";
import { type ClientKind, DATA_NAMES, MODELS, type Op } from "./history.ts";
import { pendingRun, type RunRecord } from "./invariants.ts";
import { mixSeed, mulberry32 } from "./prng.ts";
import { SaveGap } from "./moves_save_gap.ts";

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

/**
 * A clone incarnation of `kind`: {@link cloneService} for `api`, else
 * {@link coreCloneService} with the kind's flush.
 */
export function clientService(
  o: CloneServiceOptions,
  kind: ClientKind,
): Promise<{ svc: SyncService; locks: StoreLock[] }> {
  if (kind === "api") return cloneService(o);
  return coreCloneService(o, kind === "core" ? "two-phase" : "single-phase");
}

/** The command of a run or sync on a clone of `kind`: through the extension unless `api`. */
export function clientCommand(
  env: CommandEnv,
  op: Extract<Op, { kind: "run" | "sync" | "migrate" }>,
  kind: ClientKind,
): Command {
  if (op.kind === "run") return kind === "api" ? runCommand(env, op) : coreRunCommand(env, op);
  if (op.kind === "migrate") {
    return kind === "api" ? migrateCommand(env, op) : coreMigrateCommand(env, op);
  }
  return kind === "api" ? moveCommand(env, op) : coreSyncCommand(env, op);
}

function hostFor(svc: SyncService): CoreHost {
  const host = hosts.get(svc);
  if (!host) throw new Error("a core-driven command ran on a clone that is not core-driven");
  return host;
}

/** A global lock as the tool creates it (no key: `.datastore.lock`). */
function globalLock(host: CoreHost) {
  return host.provider().createLock(host.datastorePath, { maxWaitMs: CHAOS_LOCK.maxWaitMs });
}

/** A model's lock as the tool creates it for a run of `model` (`type…/id`). */
function modelLock(host: CoreHost, model: string) {
  return host.provider().createLock(host.datastorePath, {
    lockKey: `data/${model}/.lock`,
    maxWaitMs: CHAOS_LOCK.maxWaitMs,
  });
}

/**
 * The lock object a run of `model` takes: the one the process keeps for the
 * model when it takes them again (counted; made on first use; one of its
 * own when another run of the process holds it), else a new one.
 */
function runLock(
  env: CommandEnv,
  host: CoreHost,
  model: string,
): { lock: ReturnType<ExtensionProvider["createLock"]>; done: (outcome: string) => void } {
  if (!host.modelLocks) return { lock: modelLock(host, model), done: () => {} };
  let kept = host.modelLocks.get(model);
  if (kept?.busy) return { lock: modelLock(host, model), done: () => {} };
  if (!kept) {
    host.modelLocks.set(
      model,
      kept = { lock: modelLock(host, model), busy: false, runs: 0, refused: false },
    );
  }
  if (kept.runs > 0) env.stats.reusedLockRuns++;
  if (kept.refused) env.stats.reusedAfterRefusal++;
  kept.busy = true;
  kept.runs++;
  const k = kept;
  return {
    lock: kept.lock,
    done: (outcome) => {
      k.busy = false;
      k.refused = outcome === "model_lock_lost";
    },
  };
}

/**
 * I31: a core-driven run refused with `model_lock_lost` lost its lock: the
 * lock object says so (a heartbeat found it gone or taken), or its record on
 * the store no longer names this acquisition (broken, taken over). A lock
 * whose record still names its nonce, never found lost, refused no flush
 * rightly. Locks that expose no nonce (third-party) are spared; so is a
 * record that cannot be read.
 */
async function refusedUnlost(
  env: CommandEnv,
  lock: ReturnType<ExtensionProvider["createLock"]>,
  who: string,
): Promise<void> {
  const nonce = lock.inner.nonce;
  if (nonce === undefined || lock.inner.lost !== false) return;
  const info = await lock.inspect().catch(() => undefined);
  if (!info || info.nonce !== nonce) return;
  env.truth.violate({
    invariant: "I31",
    message:
      `${who} was refused with model_lock_lost, though its lock ${lock.key} was never lost: its record still names this acquisition and no heartbeat found it gone`,
    afterOp: env.opId(),
  });
}

/**
 * Step 1 of the tool's per-model command: poll while the global lock is
 * held; force-release it once `now - acquiredAt > ttlMs` (when it has a
 * nonce); give up after twice the holder's `ttlMs`.
 */
async function waitForGlobalLock(host: CoreHost): Promise<void> {
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
async function allocateVersion(cachePath: string, dir: string): Promise<number> {
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
async function atomicWrite(root: string, rel: string, bytes: Uint8Array): Promise<void> {
  const file = `${root}/${rel}`;
  const dir = file.slice(0, file.lastIndexOf("/"));
  await Deno.mkdir(dir, { recursive: true });
  const tmp = `${dir}/.${crypto.randomUUID()}.tmp`;
  await Deno.writeFile(tmp, bytes);
  await Deno.rename(tmp, file);
}

const enc = new TextEncoder();

/**
 * A model run through the extension, as the tool runs `model method run`.
 * Its outcome is the flush's: `success` (acknowledged), `model_lock_lost`
 * (refused), or another error code; a failure before the body (a lock
 * timeout, a failed pull) is recorded with no files.
 */
export function coreRunCommand(env: CommandEnv, op: Extract<Op, { kind: "run" }>): Command {
  const model = MODELS[op.model];
  const dataName = DATA_NAMES[op.data];
  const ref = {
    modelType: model.slice(0, model.lastIndexOf("/")),
    modelId: model.slice(model.lastIndexOf("/") + 1),
  };
  const token = `[chaos-run s${env.seed} op${op.id}]`;
  const rec: RunRecord = { ...pendingRun(op, model, token), ...(op.same ? { same: true } : {}) };
  const label = `core run #${op.id} ${model}/${dataName}${op.same ? " (same output)" : ""}`;
  const who = `c${op.clone} ${label}`;
  return {
    label,
    onFreeze: freezeRun(env, rec, who),
    body: async (svc) => {
      const host = hostFor(svc);
      runStarted(env, rec, true);
      const service = host.provider().createSyncService(host.repoDir, host.cachePath);
      const context = { models: [ref] };
      const taken = runLock(env, host, model);
      const lock = taken.lock;
      try {
        for (;;) {
          await waitForGlobalLock(host);
          await lock.acquire();
          const held = await globalLock(host).inspect().catch(async (e) => {
            await lock.release(); // the command fails: its model lock is let go
            throw e;
          });
          if (held === null) break;
          await lock.release(); // the global lock was taken meanwhile: start again
        }
      } catch (e) {
        rec.outcome = codeOf(e);
        taken.done(rec.outcome);
        env.outcome(rec.outcome, who, e);
        return;
      }
      // Another step of the workflow beside it (and a structural command of
      // the process, beside both): the units' sync calls take turns (see
      // `oneAtATime`), and the run ends with the last of them.
      let beside = 0;
      const sync = <T>(fn: () => Promise<T>) => beside === 0 ? fn() : oneAtATime(host, fn);
      let gap: SaveGap | undefined;
      if (op.parallel && !op.streamed && env.spawn) {
        env.stats.parallelRuns++;
        beside++;
        const g = gap = op.saveGap ? new SaveGap(host.clock) : undefined;
        env.spawn(
          op.clone,
          `parallel step of core run #${op.id}`,
          () =>
            parallelStep(env, host, service, op, g).finally(() => {
              g?.stepOver();
              beside--;
            }),
        );
        if (op.structural) {
          beside++;
          env.spawn(
            op.clone,
            `structural command beside core run #${op.id}`,
            () =>
              structuralCommand(
                env,
                host,
                op,
                `c${op.clone} structural command beside core run #${op.id}`,
                op.workMs / 2,
              ).finally(() => beside--),
          );
        }
      }
      let version = 0;
      try {
        const caps = service.capabilities();
        await sync(() => service.pullChanged({ context }));
        const base = `data/${model}/${dataName}`;
        await service.markDirty({ relPath: base });
        const n = version = await allocateVersion(host.cachePath, base);
        const dir = `${base}/${n}`;
        // A deterministic run's output names only what it is the output of.
        const by = op.same ? `[chaos-same s${env.seed} ${dir}]` : `${token} of c${op.clone}`;
        rec.files = runFiles(by, dir, n);
        if (gap) {
          env.stats.saveGapRuns++;
          if (await gap.hold()) env.stats.saveGapHits++;
        }
        if (op.streamed && !op.same) {
          // As the tool's data writer: `raw` is written part way first, with
          // no `metadata.yaml` yet, while another step of the workflow, on
          // the same service, flushes; the version is finalized after.
          const part = enc.encode(`${by} raw output, part 1\n`);
          rec.files[0] = {
            path: `${dir}/raw`,
            bytes: enc.encode(`${by} raw output, part 1\n${by} raw output, part 2\n`),
          };
          await Deno.mkdir(`${host.cachePath}/${dir}`, { recursive: true });
          await Deno.writeFile(`${host.cachePath}/${dir}/raw`, part);
          env.stats.streamedRuns++;
          await otherStep(env, host, service, op, lock);
          // The writer goes on appending to `raw`, never making it again: a
          // version erased meanwhile (that flush refused for this run's lost
          // lock) fails the writer there, as the tool's does, unfinalized.
          const file = await Deno.open(`${host.cachePath}/${dir}/raw`, { append: true }).catch(
            (e) => {
              if (e instanceof Deno.errors.NotFound) return null;
              throw e;
            },
          );
          if (!file) {
            rec.outcome = "model_lock_lost";
            env.stats.coreRefused++;
            env.outcome(rec.outcome, `${who} (version ${n}, erased while being written)`);
            return;
          }
          try {
            await file.write(enc.encode(`${by} raw output, part 2\n`));
          } finally {
            file.close();
          }
        }
        for (const f of rec.files) {
          // A streamed `raw` is written in place, already whole.
          if (op.streamed && !op.same && f.path.endsWith("/raw")) continue;
          await atomicWrite(host.cachePath, f.path, f.bytes);
        }
        // The tool's `save` marks no version directory (`finalizeVersion` does).
        if (!gap) await service.markDirty({ relPath: dir });
        await atomicWrite(host.cachePath, `${base}/latest`, enc.encode(`${n}`));
        env.changes.replaced(op.clone, `${base}/latest`);
        if (op.workMs > 0) await host.clock.sleep(op.workMs);
        if (host.flush === "two-phase" && caps.twoPhaseSync) {
          const manifest = await sync(() => service.preparePush({ context }));
          await globalLock(host).withLock(() => sync(() => service.commitPush(manifest)));
        } else {
          await globalLock(host).withLock(() => sync(() => service.pushChanged({ context })));
        }
        rec.outcome = "success";
        env.stats.coreAcknowledged++;
        env.outcome(rec.outcome, `${who} (version ${n})`);
      } catch (e) {
        rec.outcome = codeOf(e);
        rec.refusedKeys = (e as { keys?: readonly string[] }).keys;
        if (rec.outcome === "model_lock_lost") {
          env.stats.coreRefused++;
          await refusedUnlost(env, lock, who);
        }
        // Its version lost while an old client stands inside the global lock
        // (its read-modify-write of the index under way).
        if (rec.outcome === "version_exists" && env.truth.oldInside.size > 0) {
          env.stats.coreLostBesideOld++;
        }
        refusedForOthers(env, e, `data/${model}/.lock`, who);
        env.outcome(rec.outcome, `${who}${version ? ` (version ${version})` : ""}`, e);
      } finally {
        gap?.close();
        await lock.release();
        taken.done(rec.outcome);
        while (beside > 0) await host.clock.sleep(STEP_POLL_MS);
      }
    },
  };
}

/** How often a unit of a process with parallel steps looks whether the other's sync call ended. */
const STEP_POLL_MS = 100;

/** Per process (a clone incarnation's host): whether a parallel step's sync call is under way. */
const syncCalls = new WeakMap<CoreHost, { busy: boolean }>();

/**
 * Runs `fn`, a sync call of one of two units of a process (a `parallel`
 * run and its step), once the other's is over. The service serialises its
 * pulls and pushes itself: a call that waits for another unit's there waits
 * on nothing the scheduler sees (it is neither parked nor ended), so the
 * units take turns here instead, looking again after a clock wait.
 */
async function oneAtATime<T>(host: CoreHost, fn: () => Promise<T>): Promise<T> {
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

/**
 * A second process of the tool over a core-driven clone's cache (the
 * `sibling` move; see `siblingCommand` for an API clone's), run as the tool
 * runs `model method run` of a model of its own: its model lock, a scoped
 * pull, version 1 written and marked, then, after `op.workMs`, its flush
 * (two-phase or single-phase, as the clone's tool does), or its death before
 * it (`die` stops its lock's heartbeats; the lock is left to expire).
 */
export function coreSiblingCommand(
  env: CommandEnv,
  op: Extract<Op, { kind: "sibling" }>,
  die: () => void,
): Command {
  if (op.how === "structural") {
    const label = `second process #${op.id} (structural command)`;
    const who = `c${op.clone} ${label}`;
    let done = false;
    return {
      label,
      onFreeze: (why) => {
        if (!done) env.outcome(why, who);
      },
      body: (svc) =>
        structuralCommand(env, hostFor(svc), op, who, op.workMs).finally(() => done = true),
    };
  }
  const ref = { modelType: "chaos/sibling", modelId: `op${op.id}` };
  const model = `${ref.modelType}/${ref.modelId}`;
  const { by, rec, label, who, onFreeze } = siblingRun(env, op, model);
  return {
    label,
    onFreeze,
    body: async (svc) => {
      const host = hostFor(svc);
      runStarted(env, rec, true);
      const service = host.provider().createSyncService(host.repoDir, host.cachePath);
      const context = { models: [ref] };
      const lock = modelLock(host, model);
      try {
        await waitForGlobalLock(host);
        await lock.acquire();
      } catch (e) {
        rec.outcome = codeOf(e);
        env.outcome(rec.outcome, who, e);
        return;
      }
      let died = false;
      try {
        await service.pullChanged({ context });
        const base = `data/${model}/out`;
        const dir = `${base}/1`;
        await service.markDirty({ relPath: base });
        rec.files = runFiles(by, dir, 1);
        for (const f of rec.files) await atomicWrite(host.cachePath, f.path, f.bytes);
        await service.markDirty({ relPath: dir });
        await atomicWrite(host.cachePath, `${base}/latest`, enc.encode("1"));
        env.truth.marked.push(rec);
        if (op.workMs > 0) await host.clock.sleep(op.workMs);
        if (op.how === "dies") {
          died = true;
          siblingDies(env, rec, who, die, "flush");
          return;
        }
        if (host.flush === "two-phase" && service.capabilities().twoPhaseSync) {
          const manifest = await service.preparePush({ context });
          await globalLock(host).withLock(() => service.commitPush(manifest));
        } else {
          await globalLock(host).withLock(() => service.pushChanged({ context }));
        }
        rec.outcome = "success";
        env.stats.coreAcknowledged++;
        env.outcome(rec.outcome, who);
      } catch (e) {
        rec.outcome = codeOf(e);
        env.outcome(rec.outcome, who, e);
      } finally {
        if (!died) await lock.release().catch(() => {});
      }
    },
  };
}

/**
 * A step's version 1 of `data/<model>/out`, as the tool's data writer makes
 * it: the directory marked, the run recorded (before its bytes, which a
 * crash may cut off), its files written, the version marked, its marker.
 */
async function writeStepVersion(
  env: CommandEnv,
  host: CoreHost,
  service: ReturnType<ExtensionProvider["createSyncService"]>,
  model: string,
  rec: RunRecord,
): Promise<void> {
  const dir = `data/${model}/out/1`;
  await service.markDirty({ relPath: `data/${model}/out` });
  rec.files = runFiles(rec.token, dir, 1);
  env.truth.runs.push(rec);
  for (const f of rec.files) await atomicWrite(host.cachePath, f.path, f.bytes);
  await service.markDirty({ relPath: dir });
  await atomicWrite(host.cachePath, `data/${model}/out/latest`, enc.encode("1"));
}

/**
 * Another step of the streamed run's workflow, on the same service: its own
 * model's lock (which no breakglass ever breaks), a version of its own, and
 * its flush, scoped to its model, while the streamed run's `raw` is part
 * written. I26: it is never refused for a lock it does not hold (the
 * streamed run's, broken before that flush began), only for its own; its
 * version, acknowledged, is held to I1 as any run's.
 */
async function otherStep(
  env: CommandEnv,
  host: CoreHost,
  service: ReturnType<ExtensionProvider["createSyncService"]>,
  op: Extract<Op, { kind: "run" }>,
  runLock: ReturnType<ExtensionProvider["createLock"]>,
): Promise<void> {
  const ref = { modelType: "chaos/other", modelId: `step-of-op${op.id}` };
  const model = `${ref.modelType}/${ref.modelId}`;
  // A token of its own: none of the streamed run's bytes.
  const by = `[chaos-step s${env.seed} op${op.id}] of c${op.clone}`;
  const rec = pendingRun(op, model, by);
  const lock = modelLock(host, model);
  try {
    await lock.acquire();
  } catch {
    return; // its failure is its own (an outage)
  }
  let lostBefore = false;
  try {
    await writeStepVersion(env, host, service, model, rec);
    // Whether the streamed run's lock was already lost when this flush began
    // (one broken while the flush is under way may still refuse it: the
    // flush looks at the other locks once, as it starts).
    const seen = await runLock.inspect().catch(() => undefined);
    const ours = host.provider().runtime.provider.identity.holder;
    lostBefore = seen === null || (seen !== undefined && seen.holder !== ours);
    await globalLock(host).withLock(() => service.pushChanged({ context: { models: [ref] } }));
    rec.outcome = "success";
  } catch (e) {
    rec.outcome = codeOf(e);
    // Refused for its own lock (lost to failed renewals, an outage) is no I26 matter.
    const ownLost = e instanceof Error && e.message.includes(`data/${model}/.lock`);
    if (
      lostBefore && !ownLost &&
      (rec.outcome === "model_lock_lost" || rec.outcome === "erasure_refused")
    ) {
      env.truth.violate({
        invariant: "I26",
        message:
          `c${op.clone}'s other step of run #${op.id} (${model}, whose lock nobody broke) was refused with ${rec.outcome}: another run's lost lock refused its flush`,
        afterOp: env.opId(),
      });
    }
  } finally {
    await lock.release().catch(() => {});
  }
}

/**
 * I26 for a core-driven run refused (`model_lock_lost`, `erasure_refused`)
 * though none of the locks it lost is its own (`ownKey`): another run's
 * lock refused its flush.
 */
function refusedForOthers(env: CommandEnv, e: unknown, ownKey: string, who: string): void {
  const lost = (e as { lost?: readonly { key: string }[] }).lost;
  const code = codeOf(e);
  if (code !== "model_lock_lost" && code !== "erasure_refused") return;
  if (!lost || lost.length === 0 || lost.some((l) => l.key === ownKey)) return;
  env.truth.violate({
    invariant: "I26",
    message: `${who} was refused with ${code} for ${
      lost.map((l) => l.key).join(", ")
    }, none of them its own lock (${ownKey}): another run's lock refused its flush`,
    afterOp: env.opId(),
  });
}

/**
 * Another step of the workflow of a `parallel` run, in the same process and
 * on the same service, as a unit of its own beside the run: it waits while
 * the global lock is held, takes its own model's lock, pulls, writes version
 * 1 of its model, and after the run's `workMs` flushes the other way from
 * the run (single-phase beside a two-phase run, two-phase beside a
 * single-phase one), then releases its lock, whichever of the run's flush
 * steps is under way; with a `gap`, its flush waits for the run's save to
 * begin. Its version, acknowledged, is held to I1 as any run's;
 * refused for a lock not its own, I26.
 */
async function parallelStep(
  env: CommandEnv,
  host: CoreHost,
  service: ReturnType<ExtensionProvider["createSyncService"]>,
  op: Extract<Op, { kind: "run" }>,
  gap?: SaveGap,
): Promise<void> {
  const ref = { modelType: "chaos/other", modelId: `par-of-op${op.id}` };
  const model = `${ref.modelType}/${ref.modelId}`;
  const by = `[chaos-par s${env.seed} op${op.id}] of c${op.clone}`;
  const who = `c${op.clone} parallel step of core run #${op.id} ${model}`;
  const rec = pendingRun(op, model, by);
  const context = { models: [ref] };
  const lock = modelLock(host, model);
  try {
    await waitForGlobalLock(host);
    await lock.acquire();
  } catch {
    return; // its failure is its own (an outage)
  }
  const sync = <T>(fn: () => Promise<T>) => oneAtATime(host, fn);
  try {
    await sync(() => service.pullChanged({ context }));
    await writeStepVersion(env, host, service, model, rec);
    if (op.workMs > 0) await host.clock.sleep(op.workMs);
    // Timed into the run's save, between its mark and its first write.
    await gap?.opened();
    if (host.flush === "single-phase" && service.capabilities().twoPhaseSync) {
      const manifest = await sync(() => service.preparePush({ context }));
      await globalLock(host).withLock(() => sync(() => service.commitPush(manifest)));
    } else {
      await globalLock(host).withLock(() => sync(() => service.pushChanged({ context })));
    }
    rec.outcome = "success";
    env.outcome(rec.outcome, who);
  } catch (e) {
    rec.outcome = codeOf(e);
    env.outcome(rec.outcome, who, e);
    refusedForOthers(env, e, `data/${model}/.lock`, who);
  } finally {
    await lock.release().catch(() => {});
  }
}

/**
 * A structural command of the tool (a global-lock command such as `model
 * evaluate` or `data gc`, §3.2) in the process of a `structural` run, on the
 * same extension instance, while the run and its parallel step hold their
 * model locks (or in a second process over the cache, beside the runs of
 * the clone's own: a `structural` sibling): after `waitMs`, a sync service of its own (as
 * the tool makes one per command), the global lock, a pull naming no model,
 * a file of its own marked and written, and its flush, a push naming no
 * model (no `context`), then the global lock released. The tool takes a
 * failed push of such a command for a warning: its file stays dirty, for a
 * later push. No run's acknowledged version may be lost by it (I1), nor a
 * refused run's version published (I2).
 */
async function structuralCommand(
  env: CommandEnv,
  host: CoreHost,
  op: { readonly id: number; readonly clone: number },
  who: string,
  waitMs: number,
): Promise<void> {
  env.stats.structuralCommands++;
  if (waitMs > 0) await host.clock.sleep(waitMs);
  const service = host.provider().createSyncService(host.repoDir, host.cachePath);
  const global = globalLock(host);
  try {
    await global.acquire();
  } catch (e) {
    env.outcome(codeOf(e), who, e);
    return;
  }
  try {
    await oneAtATime(host, () => service.pullChanged({}));
    const rel = `workflow-runs/chaos-structural/workflow-run-op${op.id}.yaml`;
    await service.markDirty({ relPath: rel });
    await atomicWrite(host.cachePath, rel, enc.encode(`structural command of op ${op.id}\n`));
    await oneAtATime(host, () => service.pushChanged({}));
    env.outcome("success", who);
  } catch (e) {
    env.outcome(codeOf(e), who, e);
  } finally {
    await global.release().catch(() => {});
  }
}

/** `swamp datastore sync` on a core-driven clone: global lock, a new service, pull, push. */
/** `swamp datastore migrate-index`: the extension's migrateMonolithToShards under the global lock. */
export function coreMigrateCommand(env: CommandEnv, op: Extract<Op, { kind: "migrate" }>): Command {
  return plainCommand(env, op.clone, `core migrate-index #${op.id}`, async (svc) => {
    const host = hostFor(svc);
    await globalLock(host).withLock(async () => {
      const service: ExtensionSyncService = host.provider().createSyncService(
        host.repoDir,
        host.cachePath,
      );
      env.stats.migrations++;
      await service.migrateMonolithToShards();
      env.stats.migrated++;
    });
  });
}

export function coreSyncCommand(env: CommandEnv, op: Extract<Op, { kind: "sync" }>): Command {
  // Beside old clients, every other sync is one of the tool's token commands,
  // which push with no global lock held (the extension's `oldClients` takes it).
  if (env.oldClients && op.id % 2 === 0) {
    return plainCommand(env, op.clone, `core token push #${op.id}`, async (svc) => {
      const host = hostFor(svc);
      const service = host.provider().createSyncService(host.repoDir, host.cachePath);
      const rel = `outputs/c${op.clone}-token-op${op.id}.txt`;
      await service.markDirty({ relPath: rel });
      await Deno.mkdir(`${host.cachePath}/outputs`, { recursive: true });
      await Deno.writeTextFile(`${host.cachePath}/${rel}`, `token of op ${op.id}\n`);
      await service.pushChanged();
    });
  }
  return plainCommand(env, op.clone, `core sync #${op.id}`, async (svc) => {
    const host = hostFor(svc);
    await globalLock(host).withLock(async () => {
      const service: ExtensionSyncService = host.provider().createSyncService(
        host.repoDir,
        host.cachePath,
      );
      await service.pullChanged();
      await service.pushChanged();
    });
  });
}
