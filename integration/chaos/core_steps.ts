/**
 * Units beside a core-driven run (`core_driven.ts`), in the same process
 * and on the same service: the streamed run's other step
 * ({@link otherStep}), a `parallel` run's step ({@link parallelStep}), and a
 * structural command of the process ({@link structuralCommand}); with the
 * I26 check of a flush refused for locks none of them its own
 * ({@link refusedForOthers}).
 *
 * @module
 */
import type { ExtensionProvider } from "../../packages/extension/provider.ts";
import { codeOf, type CommandEnv, runFiles } from "./commands.ts";
import {
  atomicWrite,
  type CoreHost,
  enc,
  globalLock,
  modelLock,
  oneAtATime,
  waitForGlobalLock,
} from "./core_host.ts";
import type { Op } from "./history.ts";
import { pendingRun, type RunRecord } from "./invariants.ts";
import type { SaveGap } from "./moves_save_gap.ts";

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
export async function otherStep(
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
export function refusedForOthers(env: CommandEnv, e: unknown, ownKey: string, who: string): void {
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
export async function parallelStep(
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
export async function structuralCommand(
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
