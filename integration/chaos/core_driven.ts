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
 * The tool process and its locks and writes are in `core_host.ts`; the
 * units beside a run (its other step, a parallel step, a structural
 * command) in `core_steps.ts`; a second process, the sync and the index
 * move in `core_commands.ts`.
 *
 * @module
 */
import type { SyncService } from "../../sync/service/service.ts";
import type { StoreLock } from "../../sync/locks/lock_engine.ts";
import type { ExtensionProvider } from "../../packages/extension/provider.ts";
import { cloneService, type CloneServiceOptions } from "./clone_setup.ts";
import {
  codeOf,
  type Command,
  type CommandEnv,
  freezeRun,
  migrateCommand,
  runCommand,
  runFiles,
  runStarted,
} from "./commands.ts";
import { moveCommand } from "./commands_user.ts";
import { coreMigrateCommand, coreSyncCommand } from "./core_commands.ts";
import {
  allocateVersion,
  atomicWrite,
  coreCloneService,
  type CoreHost,
  enc,
  globalLock,
  hostFor,
  modelLock,
  oneAtATime,
  STEP_POLL_MS,
  waitForGlobalLock,
} from "./core_host.ts";
import { otherStep, parallelStep, refusedForOthers, structuralCommand } from "./core_steps.ts";
import { type ClientKind, DATA_NAMES, MODELS, type Op } from "./history.ts";
import { pendingRun, type RunRecord } from "./invariants.ts";
import { SaveGap } from "./moves_save_gap.ts";

export {
  CORE_CONFIG,
  CORE_GLOBAL_POLL_MS,
  coreCloneService,
  type CoreFlush,
  type CoreHost,
  coreHostOf,
} from "./core_host.ts";
export { coreMigrateCommand, coreSiblingCommand, coreSyncCommand } from "./core_commands.ts";

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
