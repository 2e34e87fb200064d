/**
 * Running a push through the service's pipelines: one pass (`runPush`: the
 * plan, the push context, the gates and the terminal), and a push of
 * `pushChanged` and `commitPush` (`pushTwice`), which runs a second pass at
 * once over files a first pass found in place and that were erased before
 * its commit took hold.
 *
 * @module
 */
import { AbortedError, SluiceError } from "../errors.ts";
import { randomId } from "../hash.ts";
import type { Clock, Identity, ObjectStore } from "../ports.ts";
import type { LocalCache } from "../transfer/cache.ts";
import type { SluiceEmitter } from "../events.ts";
import type { Pipeline } from "../pipeline.ts";
import {
  createPushContext,
  type PlanEntry,
  type PushContext,
  type SyncConfig,
  type UploadRecord,
  type WriteContext,
} from "../context.ts";
import type { IndexMemo } from "../transfer/remote_index.ts";
import type { SyncState } from "./state.ts";
import { planPush } from "./push_plan.ts";
import { pushError } from "./cancelled.ts";
import {
  emptyPushResult,
  type PendingCommit,
  type ProgressSoFar,
  type PushResult,
  pushTerminal,
  terminalWrite,
} from "./push.ts";
import { mergeCommitResult, mergeSecondPass, unpublishedIn } from "./push_result.ts";
import type { PreparedPush, PushOptions } from "./push_options.ts";

/** What a push runs over: the service's parts. */
export interface PushRunDeps {
  readonly store: ObjectStore;
  readonly cache: LocalCache;
  readonly state: SyncState;
  readonly events: SluiceEmitter;
  readonly config: SyncConfig;
  readonly identity: Identity;
  readonly clock: Clock;
  readonly pushPipeline: Pipeline<PushContext>;
  readonly writePipeline: Pipeline<WriteContext>;
  readonly indexMemo: IndexMemo;
  /** A pull of `prefixes` (a gate's refresh), fetching nothing into the directories `leave` names. */
  refresh(
    signal: AbortSignal,
    prefixes: readonly string[],
    leave?: readonly string[],
  ): Promise<unknown>;
}

/** A push's options, with the service's own: a walk, or only some paths. */
export type RunOptions = PushOptions & { walk?: boolean };

/** What a caller takes out of one pass, or gives it: its plan, a preparation, a commit. */
export interface PassOut {
  plan?: PlanEntry[];
  prepare?: {
    pending?: PendingCommit;
    uploaded?: UploadRecord[];
    lost?: unknown;
    atCommit?: Array<() => Promise<void>>;
  };
  commit?: PreparedPush;
  /** The pass's result, also when it throws. */
  result?: PushResult;
}

/**
 * What the first pass of a push hands its second (see {@link pushTwice}):
 * the objects it uploaded, and its `unpublished_before_commit` warning, held
 * back (the second pass, with `emit`, warns of what it leaves itself).
 */
export interface PassCarry {
  uploaded: UploadRecord[];
  /** The progress figures the first pass reached, which the second counts on from. */
  progress?: ProgressSoFar;
  warning?: { code: string; message: string; path: string };
  emit?: boolean;
}

/** One pass of a push through the pipelines. */
export async function runPush(
  deps: PushRunDeps,
  options: RunOptions,
  out?: PassOut,
  carry?: PassCarry,
): Promise<PushResult> {
  const { cache, state, events } = deps;
  const signal = options.signal ?? new AbortController().signal;
  if (signal.aborted) throw new AbortedError("The push");
  const result = emptyPushResult();
  if (out) out.result = result;
  cache.resetChecks();
  const snapshot = state.snapshot();
  const walk = options.only === undefined &&
    (state.bulkPending() || (options.dryRun === true && options.walk === true));
  const { plan, expandedDirs } = await planPush(
    { cache, state, events, rules: deps.config.classifierRules },
    {
      paths: options.only ?? [...snapshot.paths.keys()],
      walk,
      commit: out?.commit,
      full: options.only === undefined,
      dryRun: options.dryRun,
    },
    result,
  );
  if (out) out.plan = plan;
  // An empty plan still runs the pipeline: a gate may have durable work left
  // (the refused-run eraser completes a journaled erasure before anything else).
  if (plan.length === 0 && options.dryRun) return result;
  const writeRun = deps.writePipeline.build(terminalWrite, writeStopped);
  const ctx = createPushContext({
    id: randomId(8),
    kind: walk ? "walk" : "paths",
    dryRun: options.dryRun ?? false,
    ...(out?.prepare ? { preparing: true } : {}),
    ...(options.checkCreates ? { oldClients: true } : {}),
    store: deps.store,
    cache,
    state,
    plan,
    locks: options.locks,
    written: options.written,
    preexisting: options.preexisting,
    models: options.models,
    holdBack: typeof options.holdBack === "function" ? options.holdBack() : options.holdBack,
    adoptUncommitted: new Set(options.adoptUncommitted ?? []),
    identity: deps.identity,
    clock: deps.clock,
    events,
    signal,
    config: deps.config,
    // A commit starts from what its preparation uploaded (a second pass from
    // what its first did), so that a refusal erases those too.
    uploaded: [...(out?.commit?.uploaded ?? []), ...(carry?.uploaded ?? [])],
    refresh: async (prefixes, leave) => {
      await deps.refresh(signal, prefixes, leave);
    },
    writePipeline: deps.writePipeline,
    snapshot,
  });
  if (out?.prepare) {
    out.prepare.uploaded = ctx.uploaded;
    out.prepare.atCommit = ctx.atCommit;
  }
  if (carry) carry.uploaded = ctx.uploaded;
  let stoppedBy: string | undefined;
  const run = deps.pushPipeline.build(
    pushTerminal({
      cache,
      state,
      result,
      runWrite: writeRun,
      indexMemo: deps.indexMemo,
      expandedDirs,
      prepare: out?.prepare,
      commitOnly: out?.commit ? out.commit.pending ?? null : undefined,
      checkCreates: options.checkCreates ?? false,
      unpublishedWarning: carry?.emit ? undefined : carry,
      progressSoFar: carry?.progress,
    }),
    (gate) => (stoppedBy = gate),
  );
  try {
    await run(ctx);
  } catch (e) {
    throw pushError(e, signal);
  }
  if (stoppedBy !== undefined) leftByStoppedGate(result, plan, stoppedBy);
  return result;
}

/**
 * A write gate returned without calling `next()`: right when it left the
 * entry out (`action = "skip"`) or gave the write's result itself; else
 * nothing was written for the path, and the gate is named.
 */
function writeStopped(gate: string, w: WriteContext): void {
  if (w.entry.action === "skip" || w.result !== undefined) return;
  throw new SluiceError(
    "internal",
    `Write gate "${gate}" returned without calling next(), without a result and without leaving ` +
      `${w.entry.path} out (entry.action = "skip"): nothing was written for it.`,
  );
}

/**
 * A push gate returned without calling `next()`: nothing of the plan was
 * written nor committed, and every path stays dirty. Says so in the result,
 * naming the gate, rather than a success that did nothing.
 */
function leftByStoppedGate(result: PushResult, plan: readonly PlanEntry[], gate: string): void {
  const listed = new Set(result.skipped.map((s) => s.path));
  for (const e of plan) {
    if (listed.has(e.path)) continue;
    result.skipped.push({
      path: e.path,
      reason:
        `the push stopped at gate "${gate}", which returned without calling next(): nothing was written; kept dirty`,
      keepDirty: true,
    });
  }
}

/**
 * A push (or the commit of a prepared one), and, when bytes it found in
 * place (another writer's upload) were deleted before its commit took hold,
 * a second pass over those paths at once: nothing holds them in the store
 * now, so they are written as this cache's own (a run's model locks are
 * checked again on the way), rather than left dirty for a later push that
 * another writer of the same data version could overtake. Once: what the
 * second pass leaves is warned of.
 */
export async function pushTwice(
  deps: PushRunDeps,
  options: RunOptions,
  commit?: PreparedPush,
): Promise<PushResult> {
  const held: PassCarry = {
    uploaded: [],
    progress: { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 },
  };
  // A pass that throws still says what it left unpublished.
  const warnHeld = (e: unknown) => {
    if (held.warning) deps.events.emit("warning", held.warning);
    throw e;
  };
  const carry = options.dryRun ? undefined : held;
  const first = commit
    ? mergeCommitResult(
      commit.result,
      await runPush(deps, options, { commit }, carry).catch(warnHeld),
    )
    : await runPush(deps, options, undefined, carry).catch(warnHeld);
  const again = unpublishedIn(first);
  if (again.length === 0 || options.dryRun) {
    if (held.warning) deps.events.emit("warning", held.warning);
    return first;
  }
  const { adoptUncommitted: _adopt, ...rest } = options;
  // Started with what the first pass uploaded: a refusal now (a run whose
  // lock was lost meanwhile) erases those uploads too, as it would have.
  const second = await runPush(deps, { ...rest, only: again }, undefined, {
    uploaded: held.uploaded,
    progress: held.progress,
    emit: true,
  }).catch((e) => warnHeld(firstPassKept(e, first)));
  return mergeSecondPass(first, second, again);
}

/**
 * A second pass refused for a lost lock: its error said nothing was pushed,
 * but the first pass had published files, under the lock checked at its
 * commit, and they stay. Says so.
 */
function firstPassKept(e: unknown, first: PushResult): unknown {
  const code = (e as { code?: unknown })?.code;
  if (!(e instanceof Error) || (code !== "model_lock_lost" && code !== "erasure_refused")) {
    return e;
  }
  const published = [...first.uploaded, ...first.deleted];
  if (published.length === 0) return e;
  const shown = published.slice(0, 5).join(", ") + (published.length > 5 ? ", …" : "");
  e.message = `${
    e.message.replace("Nothing was pushed", "Nothing more was pushed")
      .replace("Nothing was published,", "Nothing more was published,")
  } Before the lock was lost, this push had published ${published.length} file(s), its lock checked at that commit (${shown}); they stay published.`;
  return e;
}
