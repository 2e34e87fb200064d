/**
 * Chaos histories: a seed, a number of clones and a list of operations. A
 * history is generated from its seed alone and replayed exactly: every
 * scheduling choice is part of it (the `tick` operations), so a shrunk
 * history printed by a failing run reproduces without the generator.
 *
 * @module
 */
import { mixSeed, Rng } from "./prng.ts";
import {
  type ClientKind,
  DATA_NAMES,
  type History,
  MODELS,
  type Op,
  SHARED_FILES,
} from "./history_ops.ts";
import { type GenerateOptions, SKEW_RANGE_MS, WEIGHTS } from "./history_options.ts";
import {
  insertMarkerRaces,
  insertMoveStall,
  insertOldPulls,
  insertOldPushes,
  insertOldSame,
  insertOldWindow,
  insertStalls,
} from "./moves_fleet.ts";
import {
  insertForeign,
  insertLockless,
  insertOwnLost,
  insertOwnWithdrawn,
  insertReshapes,
  insertSetAsideRerun,
  insertUnwritten,
  insertVanish,
} from "./moves_bucket.ts";
import { insertCopies, insertDamagedLogs, insertSiblings, insertTornLogs } from "./moves_cache.ts";
import { insertBlips } from "./moves_blip.ts";
import { insertTheirsShape } from "./moves_theirs.ts";
import { insertDroppedDeletion } from "./moves_dropped.ts";
import { insertPutBackLost } from "./moves_put_back.ts";
import { insertLockfileRace } from "./moves_lockfile.ts";
import { insertLostMarkerWindow } from "./moves_lost_marker.ts";
import { insertUnderMarker } from "./moves_under_marker.ts";
import { insertRollbackPast } from "./moves_rollback.ts";
import { insertLostRace } from "./moves_lost_race.ts";
import { insertShardCut } from "./moves_shard_cut.ts";
import { insertCheckedWindow } from "./moves_checked_window.ts";
import { insertRepublished } from "./moves_republished.ts";
import { insertTakeBackFault } from "./moves_take_back.ts";
import { insertLastBlocks } from "./history_last_blocks.ts";
import {
  markBlinds,
  markParallel,
  markRewrites,
  markSiblingStructural,
  markStreamed,
  markStructural,
} from "./moves_marks.ts";

export {
  CLIENT_KINDS,
  type ClientKind,
  DATA_NAMES,
  type EditHow,
  type FlakyCall,
  type History,
  kindOf,
  MODELS,
  type Op,
  type OpKind,
  type ResolveHow,
  SHARED_FILES,
} from "./history_ops.ts";
export { type DrawnKind, type GenerateOptions, SKEW_RANGE_MS, WEIGHTS } from "./history_options.ts";
export { foreignObjects, locklessObjects, RESHAPED_FILES } from "./moves_bucket.ts";
export { formatHistory, formatOp, parseHistory } from "./history_format.ts";

/**
 * Generates the history of `seed`: 2 to 5 clones and a mix of model runs,
 * syncs, bulk pushes, config edits, lockfile transactions, breakglasses,
 * outages, latency, flaky calls, brief outages, crashes, waits and
 * scheduling ticks.
 *
 * @example
 * ```ts
 * import { generateHistory, formatHistory } from "./history.ts";
 * console.log(formatHistory(generateHistory(7)));
 * ```
 */
export function generateHistory(seed: number, options: GenerateOptions = {}): History {
  const rng = new Rng(seed);
  // A generator of its own, by its tag, for each move inserted later, so
  // that the operations drawn before it stay as they were.
  const own = (tag: number) => new Rng(mixSeed(seed, tag));
  const weights = options.weights ? { ...WEIGHTS, ...options.weights } : WEIGHTS;
  const clones = rng.range(options.minClones ?? 2, options.maxClones ?? 5);
  const length = rng.range(options.minOps ?? 15, options.maxOps ?? 45);
  const absentOnError = rng.chance(0.3);
  const v2 = rng.chance(0.3);
  const ops: Op[] = [];
  const entries: string[] = [];
  let outage = false;
  let lastModel = 0;
  let migrated = false;
  // Follow-ups planned by earlier operations: [due at ops.length, kind].
  const planned: {
    due: number;
    kind: "outage-off" | "breakglass" | "adopt" | "edit" | "run" | "stall";
    model: number;
    clone?: number;
    data?: number;
    on?: boolean;
  }[] = [];
  for (let id = 0; ops.length < length; id++) {
    const due = planned.findIndex((p) => p.due <= ops.length);
    if (due >= 0) {
      const [p] = planned.splice(due, 1);
      if (p.kind === "breakglass") ops.push({ id, kind: "breakglass", model: p.model });
      else if (p.kind === "adopt") {
        ops.push({ id, kind: "adopt", clone: p.clone!, file: p.model });
      } else if (p.kind === "stall") {
        ops.push({ id, kind: "stall", clone: p.clone!, on: p.on! });
      } else if (p.kind === "run") {
        ops.push({
          id,
          kind: "run",
          clone: p.clone!,
          model: p.model,
          data: p.data!,
          workMs: 0,
          same: true,
        });
      } else if (p.kind === "edit") {
        ops.push({ id, kind: "edit", clone: p.clone!, file: p.model, how: "push" });
      } else if (outage) {
        outage = false;
        ops.push({ id, kind: "outage", on: false });
      }
      continue;
    }
    const kind = rng.weighted(weights);
    const clone = rng.int(clones);
    switch (kind) {
      case "run": {
        lastModel = rng.chance(0.7) ? lastModel : rng.int(MODELS.length);
        const data = rng.int(DATA_NAMES.length);
        const same = rng.chance(0.25);
        ops.push({
          id,
          kind,
          clone,
          model: lastModel,
          data,
          workMs: rng.pick([0, 1_000, 5_000, 15_000, 15_000, 45_000]),
          ...(same ? { same: true } : {}),
        });
        if (rng.chance(0.3)) {
          const due = ops.length + rng.range(1, 4);
          // The run's process stops (in its push, perhaps) while its lock
          // is broken, and the lock's new holder runs the same
          // deterministic method, of the same version: it writes what the
          // stopped run wrote. The stopped run goes on afterwards.
          const stop = same && clones > 1 && rng.chance(0.5);
          if (stop) planned.push({ due, kind: "stall", model: 0, clone, on: true });
          planned.push({ due, kind: "breakglass", model: lastModel });
          // It goes on after the new holder's run, or at once, beside it (whose
          // writes may then meet its uploads just before its erasure).
          if (stop) {
            const resume = due + (rng.chance(0.5) ? 2 : 3);
            planned.push({ due: resume, kind: "stall", model: 0, clone, on: false });
          }
          if (same && clones > 1) {
            planned.push({
              due: due + 1,
              kind: "run",
              model: lastModel,
              data,
              clone: (clone + rng.range(1, clones - 1)) % clones,
            });
          }
        }
        break;
      }
      case "tick":
        ops.push({ id, kind, n: rng.range(1, 40), pick: rng.int(2 ** 31) });
        break;
      case "wait":
        ops.push({ id, kind, ms: rng.pick([1_000, 5_000, 11_000, 31_000, 65_000]) });
        break;
      case "breakglass":
        ops.push({
          id,
          kind,
          model: rng.chance(0.1) ? null : rng.chance(0.8) ? lastModel : rng.int(MODELS.length),
        });
        break;
      case "outage":
        outage = !outage;
        ops.push({ id, kind, on: outage });
        if (outage && rng.chance(0.7)) {
          planned.push({ due: ops.length + rng.range(1, 5), kind: "outage-off", model: 0 });
        }
        break;
      case "latency":
        ops.push({ id, kind, ms: rng.pick([0, 0, 500, 3_000]) });
        break;
      case "flaky":
        ops.push({
          id,
          kind,
          call: rng.pick(["get", "head", "put", "put", "delete"] as const),
          count: rng.range(1, 3),
          afterEffect: rng.chance(0.5),
        });
        break;
      case "crash":
        ops.push(
          rng.chance(0.35)
            ? { id, kind, clone, at: rng.chance(0.7) ? "commit" : "answer" }
            : { id, kind, clone },
        );
        // A peer takes the crashed clone for gone: it adopts its uncommitted writes.
        if (clones > 1 && rng.chance(0.3)) {
          planned.push({
            due: ops.length + rng.range(1, 4),
            kind: "adopt",
            model: rng.int(SHARED_FILES.length),
            clone: (clone + rng.range(1, clones - 1)) % clones,
          });
        }
        break;
      case "edit":
        ops.push({
          id,
          kind,
          clone,
          file: rng.int(SHARED_FILES.length),
          how: rng.pick(["hand", "hand", "hand-tick", "mark", "push", "push", "revert"] as const),
        });
        break;
      case "delete": {
        const file = rng.int(SHARED_FILES.length);
        const how = rng.pick(["hand", "hand", "hand", "push", "push", "push", "dir"] as const);
        ops.push({ id, kind, clone, file, how });
        // Another clone edits the same file and pushes while the deletion's
        // push is under way: the two race for the object and the index.
        if (how !== "hand" && clones > 1 && rng.chance(0.4)) {
          planned.push({
            due: ops.length,
            kind: "edit",
            model: file,
            clone: (clone + rng.range(1, clones - 1)) % clones,
          });
        }
        break;
      }
      case "marker":
        ops.push({
          id,
          kind,
          clone,
          model: rng.chance(0.7) ? lastModel : rng.int(MODELS.length),
          data: rng.int(DATA_NAMES.length),
          back: rng.chance(0.3),
          how: rng.pick(["push", "push", "push", "hand", "revert"] as const),
        });
        break;
      case "resolve":
        ops.push({
          id,
          kind,
          clone,
          pick: rng.int(8),
          how: rng.pick(["mine", "theirs", "merged"] as const),
        });
        break;
      case "lockfile": {
        const r = rng.next();
        if (r < 0.65 || entries.length === 0) {
          const name = `@chaos/ext-${id}`;
          entries.push(name);
          ops.push({ id, kind, clone, set: name });
        } else if (r < 0.9) {
          ops.push({ id, kind, clone, remove: rng.pick(entries) });
        } else {
          ops.push({ id, kind, clone });
        }
        break;
      }
      case "bulk":
        ops.push({ id, kind, clone });
        break;
      case "adopt":
        ops.push({ id, kind, clone, file: rng.int(SHARED_FILES.length) });
        break;
      case "config":
        ops.push({ id, kind, clone, file: rng.int(3) });
        break;
      case "sync":
        ops.push({ id, kind, clone });
        if (rng.chance(0.25)) {
          // The user edits or deletes a file by hand while the sync is under
          // way (see the workload: aimed at a download in flight).
          const file = rng.int(SHARED_FILES.length);
          const pick = rng.int(2 ** 31);
          ops.push(
            rng.chance(0.7)
              ? { id: ++id, kind: "edit", clone, file, how: "during", pick }
              : { id: ++id, kind: "delete", clone, file, how: "during", pick },
          );
        }
        break;
      case "migrate":
        // Once, on a v1 bucket; otherwise a sync.
        ops.push({ id, kind: v2 || migrated ? "sync" : kind, clone });
        migrated = true;
        break;
    }
  }
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const oldRng = own(0x6f6c6421);
  const oldClients = oldRng.chance(options.oldShare ?? 0.25);
  let etag = false;
  if (oldClients) {
    // No stall beside old clients (a stalled holder of the global lock has
    // it taken over, which loses writes by design): the planned ones go.
    for (let i = ops.length - 1; i >= 0; i--) if (ops[i].kind === "stall") ops.splice(i, 1);
    insertOldPushes(ops, clones, oldRng);
    // From a generator of their own: the pushes above stay as they were.
    insertOldPulls(ops, clones, own(0x6f6c7050));
    // From a generator of their own: the operations above stay as they were.
    const etagRng = own(0x65746167);
    etag = etagRng.chance(options.etagShare ?? 0.5);
    if (etag) insertOldSame(ops, clones, etagRng);
  } else {
    insertStalls(ops, clones, own(0x7374616c), options.stallShare ?? 0.35, !v2);
    const moveShare = (options.stallShare ?? 0.35) / 3;
    insertMoveStall(ops, clones, own(0x6d6f7665), moveShare, !v2);
  }
  // Last, from a generator of their own: the operations above stay as they were.
  insertReshapes(ops, clones, own(0x72736870), options.reshapeShare ?? 0.2);
  // From a generator of their own: the operations above stay as they were.
  // Before another tool's first writes, which must come first of all.
  if (!oldClients) {
    insertVanish(ops, clones, own(0x76616e69), options.vanishShare ?? 0.2);
  }
  // Last, from a generator of their own: the operations above stay as they were.
  if (!v2 && !oldClients) {
    insertForeign(ops, clones, own(0x666f7267), options.foreignShare ?? 0.25);
  }
  // From a generator of their own: the operations above stay as they were.
  markStreamed(ops, seed, options.streamedShare ?? 0.3);
  markParallel(ops, seed, options.parallelShare ?? 0.3);
  markStructural(ops, seed, options.structuralShare ?? 0.3);
  markRewrites(ops, seed, options.rewriteShare ?? 0.4);
  markBlinds(ops, seed, options.blindShare ?? 0.4);
  insertUnwritten(ops, clones, own(0x756e7772), options.unwrittenShare ?? 0.25);
  insertSiblings(ops, clones, own(0x73696273), options.sharedCacheShare ?? 0.1);
  // From a generator of their own: the operations above stay as they were.
  insertCopies(ops, clones, own(0x636f7079), options.copyShare ?? 0.1);
  // From a generator of their own: the operations above stay as they were.
  insertOwnLost(ops, clones, own(0x6f776e6c), options.ownLostShare ?? 0.1);
  // From a generator of their own: the operations above stay as they were.
  insertOwnWithdrawn(ops, clones, own(0x6f776477), options.ownWithdrawnShare ?? 0.1);
  // From a generator of its own: the operations above stay as they were.
  if (oldClients) {
    insertOldWindow(ops, clones, own(0x6f6c6477), options.oldWindowShare ?? 0.2);
  }
  // From a generator of their own: the operations above stay as they were.
  insertMarkerRaces(ops, clones, own(0x6d6b7263), options.markerRaceShare ?? 0.5);
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const kindRng = own(0x636f7265);
  const share = options.coreShare ?? 0.4;
  const kinds = Array.from({ length: clones }, (): ClientKind => {
    const r = kindRng.next();
    return r >= share ? "api" : r < share / 3 ? "core-single-phase" : "core";
  });
  // From a generator of their own: the operations above stay as they were.
  markSiblingStructural(ops, seed, kinds, options.structuralShare ?? 0.3);
  // From a generator of its own: the operations above stay as they were.
  if (!oldClients) {
    insertLockless(ops, kinds, own(0x6c6b6c73), options.locklessShare ?? 0.1);
  }
  // From a generator of its own: the operations above stay as they were.
  insertTornLogs(ops, clones, own(0x746f726e), options.tornLogShare ?? 0.1);
  // From a generator of its own: the operations above stay as they were.
  insertDamagedLogs(ops, clones, own(0x646d6764), options.damagedLogShare ?? 0.1);
  // From a generator of its own: the operations above stay as they were.
  insertDamagedLogs(ops, clones, own(0x646d6f70), options.damagedOpenShare ?? 0.1, "open");
  // From a generator of its own: the operations above stay as they were.
  insertDamagedLogs(ops, clones, own(0x73766372), options.saveCrashShare ?? 0.1, "dies");
  // From a generator of its own: the operations above stay as they were.
  insertDamagedLogs(ops, clones, own(0x6c676673), options.logFailShare ?? 0.1, "fails");
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const skewRng = own(0x736b6577);
  let skewMs: number[] | undefined;
  if (skewRng.chance(options.skewShare ?? 0.2)) {
    const [lo, hi] = SKEW_RANGE_MS;
    skewMs = Array.from({ length: clones }, () => 0);
    skewMs[skewRng.int(clones)] = (skewRng.chance(0.5) ? 1 : -1) * (lo + skewRng.int(hi - lo));
  }
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const indexFirst = own(0x69647866).chance(options.indexFirstShare ?? 0.3);
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const checkedDeletes = own(0x63686b64).chance(options.checkedDeleteShare ?? 0.15);
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const reusedLocks = own(0x72756c6b).chance(options.reusedLockShare ?? 0.3);
  // Drawn from a generator of their own, so that the operations of a seed stay as they were.
  const setAsideRng = own(0x73616664);
  const setAsideFlaky = setAsideRng.chance(options.setAsideFlakyShare ?? 0.2);
  if (setAsideFlaky) insertSetAsideRerun(ops, clones, setAsideRng);
  // From a generator of its own: the operations above stay as they were.
  insertBlips(ops, clones, own(0x626c6970), options.blipShare ?? 0.1);
  // From a generator of its own: the operations above stay as they were.
  insertTheirsShape(ops, clones, own(0x74687368), options.theirsShapeShare ?? 0.1);
  // From generators of their own: the operations above stay as they were.
  if (oldClients && !v2) {
    insertDroppedDeletion(ops, clones, own(0x64726f70), options.droppedDeletionShare ?? 0.05);
  }
  insertTheirsShape(ops, clones, own(0x7468626b), options.theirsBlockedShare ?? 0.05, "blocked");
  insertTheirsShape(ops, clones, own(0x7468756e), options.theirsUnderShare ?? 0.05, "under");
  insertPutBackLost(
    ops,
    clones,
    own(0x70626c73),
    options.putBackLostShare ?? 0.05,
  );
  insertLockfileRace(ops, clones, own(0x6c6b7263), options.lockfileRaceShare ?? 0.1);
  // From a generator of its own: the operations above stay as they were.
  insertLostMarkerWindow(
    ops,
    kinds,
    oldClients,
    own(0x6c6d6b77),
    options.lostMarkerWindowShare ?? 0.1,
  );
  // From a generator of its own: the operations above stay as they were.
  if (oldClients && !v2) {
    insertUnderMarker(ops, clones, own(0x756e6d6b), options.underMarkerShare ?? 0.05);
  }
  // From generators of their own: the operations above stay as they were.
  const takeBackBlip = options.takeBackBlipShare ?? 0.05;
  insertTakeBackFault(ops, clones, own(0x74626270), takeBackBlip, "delete");
  const putBackAnswer = options.putBackAnswerShare ?? 0.05;
  insertTakeBackFault(ops, clones, own(0x70626177), putBackAnswer, "put");
  // From a generator of its own: the operations above stay as they were.
  insertRollbackPast(ops, kinds, own(0x726c6270), options.rollbackPastShare ?? 0.05);
  // From a generator of its own: the operations above stay as they were.
  insertLostRace(ops, kinds, own(0x6c726370), options.lostRaceShare ?? 0.05);
  // From a generator of its own: the operations above stay as they were.
  insertShardCut(ops, kinds, v2, own(0x73686374), options.shardCutShare ?? 0.05);
  // From a generator of its own: the operations above stay as they were.
  const checkedWindow = options.checkedWindowShare ?? 0.05;
  // Without old clients: under their global lock a take-back's order is another.
  const checkedWindowed = checkedDeletes && !oldClients;
  insertCheckedWindow(ops, kinds, checkedWindowed, own(0x63687769), checkedWindow);
  // From a generator of its own: the operations above stay as they were.
  const republished = etag && oldClients && !v2;
  insertRepublished(ops, kinds, republished, own(0x72707562), options.republishedShare ?? 0.05);
  // The last moves, each from a generator of its own: the operations above stay as they were.
  insertLastBlocks(ops, { seed, clones, kinds, oldClients, v2, republished }, options);
  return {
    seed,
    clones,
    ...(absentOnError ? { absentOnError } : {}),
    ...(v2 ? { v2 } : {}),
    ...(kinds.some((k) => k !== "api") ? { kinds } : {}),
    ...(oldClients ? { oldClients } : {}),
    ...(skewMs ? { skewMs } : {}),
    ...(indexFirst ? { indexFirst } : {}),
    ...(etag ? { etag } : {}),
    ...(checkedDeletes ? { checkedDeletes } : {}),
    ...(reusedLocks && kinds.some((k) => k !== "api") ? { reusedLocks } : {}),
    ...(setAsideFlaky ? { setAsideFlaky } : {}),
    ops,
  };
}
