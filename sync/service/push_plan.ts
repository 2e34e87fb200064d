/**
 * The plan step of a push, as the service runs it: the plan of a prepared
 * push's commit (its written entries done, its deferred commit-step writes
 * still to do), or a new plan from the dirty set or a walk; with what the
 * push reports of it before any gate runs (local deletions, files no push
 * can publish).
 *
 * @module
 */
import type { ClassifierRule, PlanEntry } from "../context.ts";
import type { SluiceEmitter } from "../events.ts";
import type { LocalCache } from "../transfer/cache.ts";
import { buildPlan } from "./plan.ts";
import type { PreparedPush } from "./push_options.ts";
import type { PushResult } from "./push_result.ts";
import type { SyncState } from "./state.ts";
import { holdBackClashes, holdBackReshapes } from "./shape_holds.ts";
import type { WalkedFile } from "../transfer/cache_walk.ts";
import { clearLeftTemps, clearRecordedTemps } from "./left_temps.ts";

/** What {@link planPush} needs. */
export interface PushPlanDeps {
  readonly cache: LocalCache;
  readonly state: SyncState;
  readonly events: SluiceEmitter;
  /** The path classifier's extra rules: a walk passes over what they class `internal`, and only that. */
  readonly rules?: readonly ClassifierRule[];
}

/** Why a walk left out a file another running process over the cache marked. */
export const MARKED_ELSEWHERE_REASON =
  "marked by another process over this cache that still runs: its own push publishes it (or, should it end without, the next process to open the cache)";

/**
 * Plans a push of `paths` (or a walk): for the commit of `commit`, its plan
 * replayed; otherwise a new one. Reports the local deletions and the files
 * no push can publish into `result`; returns the plan and the marked
 * directories it expanded.
 */
export async function planPush(
  deps: PushPlanDeps,
  o: {
    readonly paths: readonly string[];
    readonly walk: boolean;
    readonly commit?: PreparedPush;
    /** A push of everything pending (see `buildPlan`). */
    readonly full?: boolean;
    /** A dry run: nothing recorded. */
    readonly dryRun?: boolean;
  },
  result: PushResult,
): Promise<{ plan: PlanEntry[]; expandedDirs: string[] }> {
  const { cache, state, events } = deps;
  const expandedDirs: string[] = [];
  const deletedHere: string[] = [];
  const skippedHere: { path: string; reason: string }[] = [];
  const leftTemps: WalkedFile[] = [];
  // The commit of a prepared push comes back with its plan: the entries its
  // preparation wrote are done (skipped, so the gates still see them), and
  // the commit-step writes it deferred (markers, index files) are still to
  // do, as are the checks of this cache's stranded uploads it left to the
  // commit (`atCommit`), which run as a plain push's.
  const plan = o.commit
    ? o.commit.plan.map((e) =>
      (e.commit && e.action === "put") || e.atCommit
        ? { ...e, handledBy: [] }
        : { ...e, action: "skip" as const, keepDirty: true, prepared: true, handledBy: [] }
    )
    : await buildPlan(
      cache,
      state,
      o.paths,
      o.walk,
      (path, reason) => {
        skippedHere.push({ path, reason });
        events.emit("warning", {
          code: "path_skipped",
          message: `Skipped ${path}: ${reason}.`,
          path,
        });
      },
      expandedDirs,
      deletedHere,
      (p) => events.listenerCount("progress") > 0 && events.emit("progress", p),
      o.full,
      deps.rules,
      leftTemps,
    );
  // Temporary files cut-off transfers left: removed once an hour untouched.
  if (leftTemps.length > 0) {
    await clearLeftTemps(cache, leftTemps, Date.now(), events, o.dryRun ?? false);
  }
  // Those of streamed downloads, by their records (a walk found them itself).
  if (!o.commit) {
    await clearRecordedTemps(
      cache,
      Date.now(),
      events,
      o.dryRun ?? false,
      "a pull or push",
      o.walk ?? false,
    );
  }
  let leftElsewhere = false;
  if (!o.commit && o.walk) {
    // A file a walk found that another process over this cache marked and
    // has not pushed (it still runs) is that process's to push: its run
    // may yet be refused (its lock lost), and its bytes never published.
    const elsewhere = await state.markedElsewhere();
    // A mark of a directory takes every file under it.
    const theirs = (path: string) => {
      if (elsewhere.has(path)) return true;
      for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
        if (elsewhere.has(path.slice(0, i))) return true;
      }
      return false;
    };
    for (const e of plan) {
      if (e.source !== "walk" || e.action === "skip" || !theirs(e.path)) continue;
      e.action = "skip";
      e.reason = MARKED_ELSEWHERE_REASON;
      leftElsewhere = true;
    }
  }
  if (!o.commit) {
    // Held back; one a walk found keeps the whole cache marked for a walk
    // (the walk's mark goes with this push), never a mark of its name, which
    // a directory of theirs may take later: a walk never deletes.
    const held = new Set(holdBackClashes(plan, state));
    for (const p of holdBackReshapes(plan, state, deletedHere)) held.add(p);
    // So too one left to another process: should its push not take this
    // file's bytes as they are now, the next walk here looks again.
    const walked = leftElsewhere || plan.some((e) => e.source === "walk" && held.has(e.path));
    if (walked && !o.dryRun) await state.markDirty();
  }
  // A deletion here that met a change there is an open conflict, reported as one.
  for (const p of deletedHere.sort()) {
    (state.conflicts.has(p) ? result.conflicts : result.localDeletions).push(p);
  }
  // What the plan left out for good is the push's to report: a path it kept
  // (a named link stays dirty) is reported with the plan's skips instead.
  const planned = new Set(plan.map((e) => e.path));
  result.localOnly.push(...skippedHere.filter((s) => !planned.has(s.path)));
  return { plan, expandedDirs };
}
