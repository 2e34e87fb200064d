/**
 * The commands that write under a lock of the library: a model run (the
 * model lock, version N+1 and its marker, the push under the lock), a
 * second process's run over a clone's cache that may die before its push,
 * and a managed lockfile transaction.
 *
 * @module
 */
import {
  MANAGED_LOCKFILE_PATH,
  pendingLockfileDelta,
  retryPendingLockfile,
  updateManagedLockfile,
} from "../../sync/locks/lockfile_txn.ts";
import { type LockfileChange, mergeLockfileChanges } from "../../sync/locks/lockfile_change.ts";
import { acquireModelLocks, type ModelLockSet } from "../../sync/locks/model_locks.ts";
import { setAsideCopies } from "../../sync/service/conflicts.ts";
import { isRetryable } from "../../sync/errors.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { DATA_NAMES, MODELS, type Op } from "./history.ts";
import { pendingRun, type RunRecord, type TxnRecord } from "./invariants.ts";
import {
  CHAOS_LOCK,
  codeOf,
  type Command,
  type CommandEnv,
  globalLockOf,
  highestVersion,
} from "./commands_env.ts";

const enc = new TextEncoder();

/** A model run: take the model lock, write version N+1 and the marker, push under the lock. */
export function runCommand(env: CommandEnv, op: Extract<Op, { kind: "run" }>): Command {
  const model = MODELS[op.model];
  const dataName = DATA_NAMES[op.data];
  const token = `[chaos-run s${env.seed} op${op.id}]`;
  const rec: RunRecord = { ...pendingRun(op, model, token), ...(op.same ? { same: true } : {}) };
  const label = `run #${op.id} ${model}/${dataName}${op.same ? " (same output)" : ""}`;
  const who = `c${op.clone} ${label}`;
  return {
    label,
    onFreeze: freezeRun(env, rec, who),
    body: async (svc) => {
      runStarted(env, rec);
      const set = await runLock(env, svc, model, rec, who);
      if (!set) return;
      try {
        const base = `data/${model}/${dataName}`;
        const n = (await highestVersion(svc.cacheDir, base)) + 1;
        const dir = `${base}/${n}`;
        // A deterministic run's output names only what it is the output of.
        const by = op.same ? `[chaos-same s${env.seed} ${dir}]` : `${token} of c${op.clone}`;
        rec.files = runFiles(by, dir, n);
        for (const f of rec.files) await svc.cache.write(f.path, f.bytes);
        await svc.cache.write(`${base}/latest`, enc.encode(`${n}`));
        env.changes.replaced(op.clone, `${base}/latest`);
        await svc.markDirty({ relPaths: [...rec.files.map((f) => f.path), `${base}/latest`] });
        if (op.workMs > 0) await svc.clock.sleep(op.workMs);
        let failure: unknown;
        const push = () =>
          set.push([dir], env.globalLockCommits ? { globalLock: globalLockOf(svc) } : {});
        try {
          await push().catch(async (e) => {
            // Cut off (`again`): pushed once more under the lock, after a while.
            if (!op.again || !isRetryable(e)) throw e;
            env.outcome(codeOf(e), `${who} (version ${n}; it pushes again)`, e);
            await svc.clock.sleep(op.again);
            return await push();
          });
          rec.outcome = "success";
        } catch (e) {
          rec.outcome = codeOf(e);
          rec.refusedKeys = (e as { keys?: readonly string[] }).keys;
          failure = e;
        }
        env.outcome(rec.outcome, `${who} (version ${n})`, failure);
      } finally {
        await set.release();
      }
    },
  };
}

/**
 * A run's two files in version directory `dir` (number `n`), whose bytes
 * name the run (`by`).
 */
export function runFiles(
  by: string,
  dir: string,
  n: number,
): { path: string; bytes: Uint8Array }[] {
  return [
    { path: `${dir}/raw`, bytes: enc.encode(`${by} raw output\n`) },
    { path: `${dir}/metadata.yaml`, bytes: enc.encode(`token: "${by}"\nversion: ${n}\n`) },
  ];
}

/** A run's `onFreeze`: its process crashed or hung while the run was pending. */
export function freezeRun(env: CommandEnv, rec: RunRecord, who: string): (why: string) => void {
  return (why) => {
    if (rec.outcome !== "pending") return;
    rec.outcome = why;
    env.outcome(why, who);
  };
}

/** The run `rec` starts (counted; `core`: driven as the tool drives it). */
export function runStarted(env: CommandEnv, rec: RunRecord, core = false): void {
  env.truth.runs.push(rec);
  env.stats.runs++;
  if (core) env.stats.coreRuns++;
}

/** A second process that dies before its push (`die` stops it), as its run's outcome says. */
export function siblingDies(
  env: CommandEnv,
  rec: RunRecord,
  who: string,
  die: () => void,
  before: string,
): void {
  die();
  rec.outcome = "crashed";
  env.stats.siblingsDied++;
  env.outcome("crashed", `${who} (died before its ${before})`);
}

/** The model lock of a run over the library (null, its outcome told, when it could not be had). */
async function runLock(
  env: CommandEnv,
  svc: SyncService,
  model: string,
  rec: RunRecord,
  who: string,
): Promise<ModelLockSet | null> {
  try {
    return await acquireModelLocks(svc, [model], {
      lock: CHAOS_LOCK,
      globalWaitMs: 60_000,
      globalPollMs: 2_000,
    });
  } catch (e) {
    rec.outcome = codeOf(e);
    env.outcome(rec.outcome, who, e);
    return null;
  }
}

/**
 * What a second process's run over a clone's cache records (`siblingCommand`
 * and the core-driven one): its model, the token its bytes carry, its run
 * record, its label, and its outcome when it is frozen.
 */
export function siblingRun(env: CommandEnv, op: Extract<Op, { kind: "sibling" }>, model: string) {
  const by = `[chaos-sibling s${env.seed} op${op.id}] of c${op.clone}`;
  const rec = pendingRun(op, model, by);
  const label = `second process #${op.id} ${model}/out (${op.how === "dies" ? "dies" : "pushes"})`;
  const who = `c${op.clone} ${label}`;
  return { by, rec, label, who, onFreeze: freezeRun(env, rec, who) };
}

/**
 * A second process of the tool over clone `op.clone`'s cache (the `sibling`
 * move), on `svc`, a service of its own over that cache: the lock of a model
 * of its own, version 1 of its data written and marked dirty, then, after
 * `op.workMs`, its push under that lock, or its death before it (`die`
 * stops its lock's heartbeats; the lock is left to expire). Its version is
 * a run's: acknowledged, I1 holds it; marked and never pushed by it (it
 * died, or its push failed), I28 holds the next process on that cache to
 * publish it.
 */
export function siblingCommand(
  env: CommandEnv,
  op: Extract<Op, { kind: "sibling" }>,
  die: () => void,
): Command {
  const model = `chaos/sibling/op${op.id}`;
  const { by, rec, label, who, onFreeze } = siblingRun(env, op, model);
  return {
    label,
    onFreeze,
    body: async (svc) => {
      runStarted(env, rec);
      const set = await runLock(env, svc, model, rec, who);
      if (!set) return;
      let died = false;
      try {
        const base = `data/${model}/out`;
        const dir = `${base}/1`;
        rec.files = runFiles(by, dir, 1);
        for (const f of rec.files) await svc.cache.write(f.path, f.bytes);
        await svc.cache.write(`${base}/latest`, enc.encode("1"));
        await svc.markDirty({ relPaths: [...rec.files.map((f) => f.path), `${base}/latest`] });
        env.truth.marked.push(rec);
        if (op.workMs > 0) await svc.clock.sleep(op.workMs);
        if (op.how === "dies") {
          died = true;
          siblingDies(env, rec, who, die, "push");
          return;
        }
        let failure: unknown;
        try {
          await set.push([dir], env.globalLockCommits ? { globalLock: globalLockOf(svc) } : {});
          rec.outcome = "success";
        } catch (e) {
          rec.outcome = codeOf(e);
          failure = e;
        }
        env.outcome(rec.outcome, who, failure);
      } finally {
        if (!died) await set.release();
      }
    },
  };
}

/** A managed lockfile transaction (set, remove, or a retry of the pending delta). */
export function lockfileCommand(
  env: CommandEnv,
  op: Extract<Op, { kind: "lockfile" }> | { id: number; clone: number },
): Command {
  const o = op as { id: number; clone: number; set?: string; remove?: string };
  const change: LockfileChange | undefined = o.set
    ? { set: { [o.set]: { by: `c${o.clone}`, op: o.id } } }
    : o.remove
    ? { remove: [o.remove] }
    : undefined;
  if (o.remove) env.truth.removals.add(o.remove);
  let rec: TxnRecord | undefined;
  const label = `lockfile #${o.id} ${
    o.set ? `set ${o.set}` : o.remove ? `remove ${o.remove}` : "retry"
  }`;
  const who = `c${o.clone} ${label}`;
  return {
    label,
    takesIn: false,
    onFreeze: (why) => {
      if (!rec || rec.outcome !== "pending") return;
      rec.outcome = why;
      env.outcome(why, who);
    },
    body: async (svc) => {
      const pending = await pendingLockfileDelta(svc).catch(() => null);
      const merged = mergeLockfileChanges(pending ?? {}, change ?? {});
      if (Object.keys(merged.set ?? {}).length === 0 && (merged.remove ?? []).length === 0) {
        return;
      }
      for (const name of merged.remove ?? []) env.truth.removals.add(name);
      rec = {
        op: o.id,
        clone: o.clone,
        set: merged.set ?? {},
        remove: merged.remove ?? [],
        outcome: "pending",
      };
      env.truth.txns.push(rec);
      env.stats.lockfileTxns++;
      // A record naming a copy set aside stays until a resolution drops it.
      const lockfileConflict = () =>
        svc.conflicts().some((c) =>
          c.path === MANAGED_LOCKFILE_PATH && setAsideCopies(c).length === 0
        );
      if (lockfileConflict()) env.stats.lockfileTxnsOverConflict++;
      let failure: unknown;
      try {
        if (change) await updateManagedLockfile(svc, change, { lockOptions: CHAOS_LOCK });
        else await retryPendingLockfile(svc, { lockOptions: CHAOS_LOCK });
        rec.outcome = "acked";
        env.stats.lockfileAcked++;
        // I34: the transaction wrote the datastore's copy here, holding this
        // change: a conflict a pull recorded at the lockfile is over.
        if (lockfileConflict()) {
          env.truth.violate({
            invariant: "I34",
            message:
              `${who} published, and wrote the datastore's copy here, yet c${o.clone} still holds a conflict open at ${MANAGED_LOCKFILE_PATH}: every later pull and push warns conflicts_left over a path whose two sides agree`,
            afterOp: env.opId(),
          });
        }
      } catch (e) {
        rec.outcome = codeOf(e);
        failure = e;
      }
      env.outcome(rec.outcome === "acked" ? "success" : rec.outcome, who, failure);
    },
  };
}
