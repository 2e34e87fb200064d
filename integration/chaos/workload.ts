/**
 * Runs one chaos history: K clones (each its own cache dir and identity)
 * over one shared store, driven by the {@link SimScheduler}, with the
 * history's breakglasses, outages, latency, flaky calls and crashes; then
 * heals everything, syncs every clone and checks the invariants (see
 * `invariants.ts`).
 *
 * A clone runs its commands one after another (as one user at one
 * terminal); clones and the operator's breakglasses run concurrently. A crash
 * freezes the clone's current command where it is parked, stops its lock
 * heartbeats (`abandon()`), and restarts the clone from its cache dir with a
 * new pid; its queued commands then run on the new process.
 *
 * @module
 */
import {
  markerUnfinishedReason,
  markerUnlistedReason,
} from "../../middleware/marker_after_version.ts";
import { isDeepStrictEqual } from "node:util";
import { readErasureJournal } from "../../middleware/erasure_journal.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { UNCOMMITTED_HOLDS } from "../../sync/service/push_result.ts";
import { type IndexEntry, META_KEY, metaBody } from "../../sync/transfer/bucket_layout.ts";
import { findStateDir } from "../../sync/transfer/cache_paths.ts";
import { MANIFEST_FILE, MANIFEST_LOG } from "../../sync/service/manifest_disk.ts";
import {
  logLines,
  readBase,
  replayLog,
  type SyncedEntry,
} from "../../sync/service/manifest_log.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import type { StoreLock } from "../../sync/locks/lock_engine.ts";
import { modelLockKey, releaseLock } from "../../sync/locks/model_locks.ts";
import { isManagedLockfilePath } from "../../sync/locks/lockfile_txn.ts";
import { type Clock, type ObjectStore, PutModes } from "../../sync/ports.ts";
import { PreconditionFailedError, UnreachableError } from "../../sync/errors.ts";
import { peerPush, shiftedClock } from "../../packages/testing/mod.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { commitCrashPoint, fingerprintOf, isIndexObject, watchedStore } from "./clone_setup.ts";
import { harnessDeps, watchLostUpdates } from "./lost_updates.ts";
import {
  codeOf,
  type Command,
  type CommandEnv,
  FOREIGN_WRITER,
  GLOBAL_LOCK_COMMITS,
  isMoveCommand,
  isOldClientCommand,
  isOldPullCommand,
  lockfileCommand,
  moveCommand,
  oldPullCommand,
  oldPushCommand,
  plainCommand,
  pushOf,
  resolveAsUser,
  siblingCommand,
  unwrittenCommand,
} from "./commands.ts";
import { clientCommand, clientService, coreSiblingCommand } from "./core_driven.ts";
import {
  foreignObjects,
  formatOp,
  type History,
  kindOf,
  locklessObjects,
  MODELS,
  type Op,
  SHARED_FILES,
} from "./history.ts";
import {
  checkFreshClone,
  checkIndexNamesHeld,
  checkNothingUnnamed,
  indexEntriesOf,
} from "./index_checks.ts";
import { readWriterId, WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import {
  checkOutside,
  GroundTruth,
  plantSentinel,
  sameBytes,
  type Violation,
} from "./invariants.ts";
import { LocalChanges } from "./local_changes.ts";
import { mulberry32 } from "./prng.ts";
import { holdsOtherShape, ShapeWatch } from "./shapes.ts";
import { OwnWrites } from "./own_conflicts.ts";
import { NamedDeletions } from "./named_deletions.ts";
import { checkSwitchBack } from "./switch_back.ts";
import { SimScheduler, StuckError, type Unit } from "./scheduler.ts";
import { type ChaosStats, emptyStats, type HistoryResult, type WorkloadOptions } from "./stats.ts";
import { type ChaosTarget, memoryTarget } from "./target.ts";

export {
  addStats,
  type ChaosStats,
  emptyStats,
  type HistoryResult,
  type WorkloadOptions,
} from "./stats.ts";

/** The start of the reason a push gives for a refused run's file or marker it holds out. */
const REFUSED_RUN_HELD = "written by a run refused for losing its model lock";
export { CHAOS_LOCK } from "./commands.ts";
export { CHAOS_CONFIG } from "./clone_setup.ts";

/** Scheduler decisions an edit made during a command waits at most for its moment. */
const DURING_DECISIONS = 40;

/** Scheduler decisions an old client's write of a refused run's bytes waits at most for its moment. */
const OLD_SAME_DECISIONS = 300;

/** Scheduler decisions a torn line of another process's waits at most for a download of the clone's pull. */
const TORN_DECISIONS = 60;

/** Scheduler decisions a damaged line of a clone's manifest log waits at most for the clone's command to end. */
const DAMAGED_DECISIONS = 60;

/** Scheduler decisions another tool's lockless publication waits at most for its moment. */
const LOCKLESS_DECISIONS = 300;

interface Busy {
  readonly unit: Unit;
  readonly onFreeze: (why: "crashed" | "hung") => void;
}

interface CloneSlot {
  readonly index: number;
  readonly dir: string;
  incarnation: number;
  owner: string;
  svc: SyncService;
  locks: StoreLock[];
  busy?: Busy;
  readonly queue: Command[];
}

const MAX_QUEUE = 3;

/** The fake time between a checked delete's look and its delete (a network round trip, widened). */
const CHECKED_DELETE_WINDOW_MS = 300;

/**
 * `store` as an endpoint that ignores a delete's condition (MinIO): a
 * delete conditional on a version reads the version (one call), then
 * deletes (another, which names the version checked for the harness's
 * checks): a write can land between the two, and is deleted.
 */
function checkThenDelete(store: ObjectStore, clock: Clock): ObjectStore {
  return {
    ...store,
    endpoint: store.endpoint,
    deletesChecked: true,
    delete: async (key, o = {}) => {
      if (o.ifVersion === undefined) return await store.delete(key, o);
      const now = await store.head(key, { signal: o.signal });
      if (!now) throw new PreconditionFailedError(key, "it does not exist");
      if (now.version !== o.ifVersion) {
        throw new PreconditionFailedError(key, `version ${now.version}, expected ${o.ifVersion}`);
      }
      // The window between the two, in fake time: other commands go on in it.
      await clock.sleep(CHECKED_DELETE_WINDOW_MS, o.signal);
      const checked = { signal: o.signal, checkedVersion: o.ifVersion };
      return await store.delete(key, checked);
    },
  };
}

/** One history's world: scheduler, target, clones, operator, ground truth. */
class World {
  readonly history: History;
  readonly root: string;
  readonly options: WorkloadOptions;
  readonly truth = new GroundTruth();
  readonly changes = new LocalChanges(
    (key) => this.target.inspect.read(key),
    async (key) => (await indexEntriesOf(this.target.inspect))[key]?.h,
  );
  readonly shapes = new ShapeWatch();
  /** I29: each clone's own writes (`own_conflicts.ts`). */
  readonly ownWrites = new OwnWrites();
  /** I23: deletions on the datastore are named by a user (`named_deletions.ts`). */
  readonly namedDeletes = new NamedDeletions();
  /**
   * Deletions a clone's resolution made, by path: the clone and the version
   * it deleted (the other shape of a name it resolved, deleted before its
   * own shape's writes and its index update).
   */
  readonly #resolutionDeleted = new Map<string, { clone: number; version?: string }>();
  /** Writer ids of caches a `copy` move replaced: their uploads no commit named are left for good. */
  readonly #abandonedWriters = new Set<string>();
  /**
   * The objects each clone's present cache deleted on the store, by clone:
   * path to the versions deleted (a deletion's commit may not have come).
   */
  readonly #deletedBy = new Map<number, Map<string, Set<string>>>();
  /**
   * The same of caches a `copy` move replaced: a deletion whose commit never
   * came leaves the index naming the version deleted, until a pull past the
   * dangling-entry grace removes the entry (I7's and I8's exception).
   */
  readonly #abandonedDeletes = new Map<string, Set<string>>();
  /**
   * The uploads of a refused run whose deletion was still pending in a
   * cache a `copy` move replaced (its erasure journal's `uploads`), by path:
   * the versions. The journal goes with the old directory, so they are left
   * for good, named by no index (I2's final exception).
   */
  readonly #abandonedErasures = new Map<string, Set<string>>();
  readonly stats: ChaosStats = emptyStats();
  readonly sched: SimScheduler;
  readonly registry = new ConditionalWrites();
  readonly clones: CloneSlot[] = [];
  target!: ChaosTarget;
  gated!: ObjectStore;
  operator!: SyncService;
  #opId = -1;
  #aborted = false;
  readonly #env: CommandEnv;
  /** Clones armed to crash between a commit-step write and the index update: saw that write? */
  readonly #armed = new Map<CloneSlot, boolean>();
  /**
   * Clones armed to stop after their next v1 index write (`companions`) or
   * after their move's read of the v1 index (`move`): `seen` once it was.
   */
  readonly #stallArmed = new Map<CloneSlot, { at: "companions" | "move"; seen: boolean }>();
  /** Armed clones now parked at the index update (on the call named), to crash after this decision. */
  readonly #due = new Map<CloneSlot, string>();
  /** Clones armed to crash as their next index write lands (`crash` at `answer`). */
  readonly #answerArmed = new Set<CloneSlot>();
  /** Clones whose index write landed while armed so: they crash at the next decision. */
  readonly #answerDue = new Set<CloneSlot>();
  /** Clones whose cache a second process shared (`sibling` moves). */
  readonly #shared = new Set<CloneSlot>();
  /** Clones whose manifest log another process's write ahead left torn (`torn` moves). */
  readonly #torn = new Set<CloneSlot>();
  /**
   * The paths, clone by clone, whose latest record a damaged line of the
   * clone's manifest log held (`damaged` moves): each counts as synced at
   * its record before, or as never synced (I30 checks no other record is
   * lost; the other invariants spare what that leads to at that path alone).
   */
  readonly #damagedPaths = new Map<number, Set<string>>();

  constructor(history: History, root: string, options: WorkloadOptions) {
    this.history = history;
    this.root = root;
    this.options = options;
    // Each copy a user removes here is told of to I23.
    const record = this.changes.record.bind(this.changes);
    this.changes.record = (e, bytes) => {
      if (bytes === null) this.namedDeletes.removed(e.clone, e.path);
      return record(e, bytes);
    };
    this.sched = new SimScheduler({
      realTimeoutMs: options.realTimeoutMs,
      onSettle: (u) => this.#settled(u),
      onPark: (u, what) => this.#parked(u, what),
    });
    this.#env = {
      seed: history.seed,
      oldClients: history.oldClients,
      globalLockCommits: history.oldClients === true &&
        !options.disable?.includes(GLOBAL_LOCK_COMMITS),
      truth: this.truth,
      changes: this.changes,
      shapes: this.shapes,
      stats: this.stats,
      outcome: (o, what, error) => this.#outcome(o, what, error),
      opId: () => this.#opId,
      spawn: (clone, label, body) => {
        const slot = this.clones[clone];
        this.sched.spawn(`c${clone} ${label}`, slot.owner, async () => {
          try {
            await body();
          } finally {
            if (!slot.busy) await this.#checkLocal(slot);
          }
        });
      },
    };
  }

  async setup(): Promise<void> {
    const factory = this.options.target ?? memoryTarget;
    this.target = await factory({
      clock: this.sched.clock,
      setLatency: (ms) => (this.sched.latencyMs = ms),
      ...(this.history.etag ? { versionFromBytes: true } : {}),
    });
    if (this.history.v2) {
      const meta = { version: 2, partitions: [], commitSeq: 0, raw: {} } as const;
      await this.target.direct.put(META_KEY, metaBody(meta), PutModes.create);
    }
    const checked = watchLostUpdates(
      this.#watched(this.target.store),
      harnessDeps({
        read: (key) => this.target.inspect.read(key),
        changes: this.changes,
        direct: this.target.direct,
        owner: () => this.sched.owner,
        label: () => this.sched.label,
        clones: this.clones,
        violate: (v) => this.truth.violate(v),
        opId: () => this.#opId,
        vanished: (path, e) => this.truth.namesVanished(path, e),
        raced: (path, bytes, version) => this.#raced(path, bytes, version),
        markerRollback: (path, hash) => this.truth.markerRollbacks.has(`${path}\0${hash}`),
      }),
    );
    const owned = this.ownWrites.watch(
      this.#namedDeletions(checked),
      () => {
        if (this.history.etag || isOldClientCommand(this.sched.label ?? "")) return undefined;
        return this.clones.find((c) => c.owner === this.sched.owner)?.index;
      },
      (key) => this.target.direct.head(key),
    );
    const shaped = this.shapes.watch(this.#answerLoss(owned), () => {
      if (isOldClientCommand(this.sched.label ?? "")) return undefined;
      const slot = this.clones.find((c) => c.owner === this.sched.owner);
      return slot && { clone: slot.index, state: slot.svc.state };
    }, () => this.#opId);
    this.gated = this.history.checkedDeletes
      ? checkThenDelete(this.sched.wrap(shaped), this.sched.clock)
      : this.sched.wrap(shaped);
    this.shapes.head = (key) => this.target.direct.head(key);
    // Probe once, directly: every later decision is then a memo hit, never a wait on another unit.
    await this.registry.probe(this.target.store);
    await plantSentinel(this.root);
    for (let i = 0; i < this.history.clones; i++) {
      const dir = `${this.root}/c${i}`;
      const { svc, locks } = await this.#service(dir, `c${i}`, i, 0);
      this.#named(svc, i);
      this.clones.push({ index: i, dir, incarnation: 0, owner: `c${i}.0`, svc, locks, queue: [] });
    }
    this.operator = (await this.#service(`${this.root}/operator`, "operator", 999, 0)).svc;
  }

  /**
   * I23 (`named_deletions.ts`): the marks by name and resolutions of clone
   * `index`'s users are told of as they are made, and each push that ends
   * settles the marks it did not leave.
   */
  #named(svc: SyncService, index: number): void {
    const mark = svc.markDirty.bind(svc);
    svc.markDirty = (o = {}) => {
      const paths = [...(o.relPath !== undefined ? [o.relPath] : []), ...(o.relPaths ?? [])];
      if (paths.length > 0) this.namedDeletes.named(index, paths);
      return mark(o);
    };
    const resolve = svc.resolveConflict.bind(svc);
    svc.resolveConflict = (path, how, ...rest) => {
      this.namedDeletes.named(index, [path]);
      return resolve(path, how, ...rest);
    };
    const push = svc.pushChanged.bind(svc);
    svc.pushChanged = async (o) => {
      const r = await push(o);
      if (!o?.dryRun) {
        this.namedDeletes.pushed(index, [
          ...r.skipped.filter((s) => s.keepDirty).map((s) => s.path),
          ...r.conflicts,
        ]);
      }
      return r;
    };
  }

  /** `store`, checking each deletion a clone makes against I23 (`named_deletions.ts`). */
  #namedDeletions(store: ObjectStore): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        const r = await store.put(key, body, mode, o);
        // Written again since a resolution deleted it: no hole of that resolution's.
        this.#resolutionDeleted.delete(key);
        return r;
      },
      delete: async (key, o) => {
        const slot = isOldClientCommand(this.sched.label ?? "")
          ? undefined
          : this.clones.find((c) => c.owner === this.sched.owner);
        const why = slot && this.namedDeletes.check(slot.index, key);
        if (slot && why) {
          // A clone's own uncommitted write is its to withdraw.
          const held = await this.target.direct.head(key);
          const own = await readWriterId(slot.svc.cache);
          if (held && held.metadata?.[WRITER_METADATA] !== own) {
            this.truth.violate({ invariant: "I23", message: why, afterOp: this.#opId });
          }
        }
        // The version deleted: the condition, or the one a checked delete
        // checked; recorded only where it is the version this cache synced
        // (a deletion of a synced file, not a withdrawal of an upload of its
        // own, which no commit may name).
        const version = o?.ifVersion ??
          (o as { checkedVersion?: string } | undefined)?.checkedVersion;
        const ofSynced = slot !== undefined && version !== undefined &&
          slot.svc.state.synced(key)?.version === version;
        try {
          await store.delete(key, o);
        } catch (e) {
          // A delete whose answer was lost after it took effect deleted it all the same.
          if (ofSynced && e instanceof UnreachableError) {
            if ((await this.target.inspect.read(key)) === undefined) {
              this.#deleted(slot.index, key, version);
            }
          }
          throw e;
        }
        if (ofSynced) this.#deleted(slot.index, key, version);
        if (slot && / resolve /.test(` ${this.sched.label ?? ""} `)) {
          this.#resolutionDeleted.set(key, { clone: slot.index, version: o?.ifVersion });
        }
      },
    };
  }

  /** Clone `clone`'s present cache deleted `version` of `key` on the store. */
  #deleted(clone: number, key: string, version: string): void {
    const byPath = this.#deletedBy.get(clone) ?? new Map<string, Set<string>>();
    this.#deletedBy.set(clone, byPath);
    byPath.set(key, (byPath.get(key) ?? new Set<string>()).add(version));
  }

  /**
   * `store`, where the index write (the v1 index, a shard) of a clone armed
   * to crash at `answer` lands and never answers: the clone crashes at the
   * decision that made it, its command never knowing its commit was made.
   * Not an old client's: its push is no Sluice commit, and its pull does
   * nothing after its write (a crash there is its return), while the
   * checker learns what that write dropped only from its return.
   */
  #answerLoss(store: ObjectStore): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        // Who writes is known only now, before the first await.
        const label = this.sched.label ?? "";
        const slot = isOldClientCommand(label) || isOldPullCommand(label)
          ? undefined
          : this.clones.find((c) => c.owner === this.sched.owner && this.#answerArmed.has(c));
        const info = await store.put(key, body, mode, o);
        if (!slot || !isIndexObject(key) || key === META_KEY) return info;
        this.#answerArmed.delete(slot);
        // The command parks on a look at what it wrote, as its answer is
        // on its way: the process dies there, at the decision that parks it.
        this.#answerDue.add(slot);
        await this.gated.head(key).catch(() => null);
        return info;
      },
    };
  }

  /** The crashes of clones whose index write landed while armed to crash at `answer`. */
  async #answerCrashes(): Promise<void> {
    for (const slot of this.#answerDue) {
      this.#answerDue.delete(slot);
      this.stats.crashes++;
      this.stats.answerCrashes++;
      this.#note(
        `c${slot.index} crashes as its index write lands, before the answer (${slot.busy?.unit.label})`,
      );
      await this.#crash(slot, "crashed");
    }
  }

  #watched(store: ObjectStore): ObjectStore {
    return watchedStore(store, this.changes, (key) => this.target.inspect.read(key));
  }

  /** The scheduler parked `unit` on `what`: a commit crash of an armed clone may be due. */
  #parked(unit: Unit, what: string): void {
    const stalling = this.clones.find((s) => s.owner === unit.owner && this.#stallArmed.has(s));
    const armed = stalling && this.#stallArmed.get(stalling)!;
    if (armed && !armed.seen) {
      armed.seen = armed.at === "companions"
        ? /^put \.datastore-index\.json/.test(what)
        : isMoveCommand(unit.label) && /^get \.datastore-index\.json/.test(what);
    } else if (armed) {
      // The index object is written (read, by a move); what follows it (the
      // shards and meta beside it; the move's shard writes) waits until the
      // clone goes on.
      this.#stallArmed.delete(stalling!);
      this.stats.stalls++;
      if (armed.at === "companions") this.stats.companionStalls++;
      else this.stats.moveStalls++;
      this.#note(
        `c${stalling!.index} stops after ${
          armed.at === "companions" ? "its v1 index write" : "its move read the v1 index"
        } (${unit.label} on ${what})`,
      );
      this.sched.stop(unit.owner);
    }
    const slot = this.clones.find((s) => s.owner === unit.owner && this.#armed.has(s));
    const point = slot && commitCrashPoint(what);
    if (point === "write") this.#armed.set(slot!, true);
    else if (point === "index" && this.#armed.get(slot!)) this.#due.set(slot!, what);
  }

  #service(dir: string, name: string, index: number, incarnation: number) {
    return clientService({
      dir,
      name,
      index,
      incarnation,
      store: this.gated,
      registry: this.registry,
      clock: this.#clockOf(name === "operator" ? undefined : index),
      seed: this.history.seed,
      thirdPartyLocks: this.history.absentOnError === true && name !== "operator",
      warnings: this.stats.warnings,
      // A marker the library reset after erasing a refused run, saying so:
      // the edit named that run's erased version (it is discarded, and told).
      onWarning: (w) => {
        if (w.code === "latest_reset" && w.path && name !== "operator") {
          this.changes.reported(index, w.path);
        }
        if (w.code === "lock_stale_stolen") this.#checkTakeover(name, w.message);
        // I30: the checker never leaves a manifest unreadable (a torn last
        // line, a `torn` move's, is read past): a process that finds it so
        // starts with every record its cache's processes synced lost.
        if (
          w.code === "state_unreadable" && name !== "operator" &&
          /^synced manifest unreadable/.test(w.message)
        ) {
          this.truth.violate({
            invariant: "I30",
            message:
              `a process opening ${name}'s cache found its synced manifest unreadable, every record of what its processes synced lost (${w.message})`,
            afterOp: this.#opId,
          });
        }
        // Told that its own file or directory (not a clash the datastore holds) is in the way.
        if (
          w.code === "path_blocked" && w.path && name !== "operator" &&
          /this cache's own/.test(w.message)
        ) {
          this.shapes.told(index, w.path);
        }
      },
      disable: this.options.disable?.filter((g) => g !== GLOBAL_LOCK_COMMITS),
      oldClients: this.#env.globalLockCommits,
      indexFirst: this.history.indexFirst,
    }, kindOf(this.history, index));
  }

  async #boot(slot: CloneSlot): Promise<void> {
    if (this.#torn.has(slot)) this.stats.tornLogsReopened++;
    const { svc, locks } = await this.#service(
      slot.dir,
      `c${slot.index}`,
      slot.index,
      slot.incarnation,
    );
    slot.svc = svc;
    this.#named(svc, slot.index);
    slot.locks = locks;
    slot.owner = `c${slot.index}.${slot.incarnation}`;
  }

  /**
   * The clock clone `index` runs on: the scheduler's, shifted by the
   * history's `skewMs` (the store's stamps stay on the scheduler's time).
   */
  #clockOf(index: number | undefined): Clock {
    const ms = index === undefined ? 0 : this.history.skewMs?.[index] ?? 0;
    return ms === 0 ? this.sched.clock : shiftedClock(this.sched.clock, ms);
  }

  /**
   * I17: a lock is taken over only once its holder has left it unrenewed for
   * its TTL by the store's clock (the scheduler's), whatever the clock of
   * the clone that takes it over.
   */
  #checkTakeover(name: string, message: string): void {
    const m = /not renewed since (\S+), TTL (\d+) ms/.exec(message);
    const since = m ? Date.parse(m[1]) : NaN;
    const idle = this.sched.clock.now() - since;
    if (m && idle > Number(m[2])) return;
    this.truth.violate({
      invariant: "I17",
      message: m
        ? `${name} took over a live lock: renewed ${idle} ms before by the store's clock, TTL ${
          m[2]
        } ms (${message})`
        : `${name}'s take-over warning names no renewal time and TTL: ${message}`,
      afterOp: this.#opId,
    });
  }

  #outcome(o: string, what?: string, error?: unknown): void {
    this.stats.outcomes[o] = (this.stats.outcomes[o] ?? 0) + 1;
    if (what) this.#note(`${what}: ${o}${error instanceof Error ? `: ${error.message}` : ""}`);
    // I10: no fault here corrupts bytes, so an unreadable index or a download unlike its entry is a bug.
    const message = `${what ?? "a command"} failed with corrupt_download: ${
      (error as Error)?.message
    }`;
    if (o === "corrupt_download") {
      this.truth.violate({ invariant: "I10", message, afterOp: this.#opId });
    }
    // I16: a failure with no stable code tells the user nothing to act on.
    if (o.startsWith("exception:")) {
      this.truth.violate({
        invariant: "I16",
        message: `${what ?? "a command"} failed with an error that has no stable code (${o}): ${
          (error as Error)?.message
        }`,
        afterOp: this.#opId,
      });
    }
  }

  #note(line: string): void {
    if (!this.options.trace) return;
    const t = ((this.sched.now() - Date.UTC(2026, 0, 1)) / 1000).toFixed(1);
    this.options.trace(`[${t}s] ${line}`);
  }

  #settled(unit: Unit): void {
    const slot = this.clones.find((s) => s.busy?.unit === unit);
    if (!slot) return;
    slot.busy = undefined;
    this.#startNext(slot);
  }

  #startNext(slot: CloneSlot): void {
    if (slot.busy || slot.queue.length === 0) return;
    const cmd = slot.queue.shift()!;
    const svc = slot.svc;
    this.stats.commands++;
    const unit = this.sched.spawn(`c${slot.index} ${cmd.label}`, slot.owner, async () => {
      try {
        await cmd.body(svc);
      } finally {
        await this.#checkLocal(slot);
      }
    });
    slot.busy = { unit, onFreeze: cmd.onFreeze };
  }

  #enqueue(clone: number, cmd: Command): void {
    const slot = this.clones[clone];
    if (slot.queue.length >= MAX_QUEUE) return;
    slot.queue.push(cmd);
    this.#startNext(slot);
  }

  /** I6 for one clone. */
  async #checkLocal(slot: CloneSlot): Promise<void> {
    // A path whose latest record a damaged line of the manifest log held
    // counts as synced at its record before, or as never synced (`damaged`
    // moves): what the README says that leads to is spared there alone.
    const lost = this.#damagedPaths.get(slot.index);
    const recordLost = (path: string) => lost?.has(path) ?? false;
    for (const v of await this.changes.check(slot.index, slot.dir, this.#opId, recordLost)) {
      this.truth.violate(v);
    }
    // I29: no conflict with itself (`own_conflicts.ts`).
    for (
      const v of this.ownWrites.check(slot.index, slot.svc.conflicts(), this.#opId, recordLost)
    ) {
      this.truth.violate(v);
    }
  }

  /** Crash and restart: the clone's process dies where it is parked. */
  async #crash(slot: CloneSlot, why: "crashed" | "hung"): Promise<void> {
    this.#armed.delete(slot);
    this.#answerArmed.delete(slot);
    this.#answerDue.delete(slot);
    this.#due.delete(slot);
    this.#stallArmed.delete(slot);
    this.sched.resume(slot.owner); // a stopped process can die too: its restart runs
    this.sched.freeze(slot.owner);
    for (const l of slot.locks) l.abandon();
    slot.svc.state.exit(); // the dead process's files are closed, its owner lock released
    if (slot.busy) {
      slot.busy.onFreeze(why);
      slot.busy = undefined;
    }
    await this.#checkLocal(slot);
    slot.incarnation++;
    await this.#boot(slot);
    this.#startNext(slot);
  }

  /**
   * Another tool's writes, straight to the store (past faults and
   * scheduling: no clone's call waits on them). A shared file it writes is
   * a committed change of a writer of its own (`FOREIGN_WRITER`) once an
   * index names it: I9 holds Sluice's writers to have seen it before they
   * replace it. I18 checks the rest at the end.
   */
  async #foreign(op: Extract<Op, { kind: "foreign" }>): Promise<void> {
    for (const o of foreignObjects(op)) {
      const bytes = new TextEncoder().encode(o.text);
      await this.target.direct.put(o.path, bytes, PutModes.overwrite);
      this.stats.foreignWrites++;
      this.truth.foreign.push({ op: op.id, path: o.path, text: o.text, own: op.what === "file" });
      if (SHARED_FILES.includes(o.path)) {
        await this.changes.record(
          { op: op.id, clone: FOREIGN_WRITER, path: o.path, how: "another tool" },
          bytes,
        );
      }
    }
  }

  /**
   * Another tool's deletion of a shared file's object (or of a run's raw
   * output), straight from the store (past the scheduling). I19 checks at the end that the
   * bytes it deleted are not lost where a clone held them.
   */
  async #vanish(op: Extract<Op, { kind: "vanish" }>): Promise<void> {
    let path = SHARED_FILES[op.file];
    if (op.run !== undefined) {
      // The raw output of a run that succeeded (a run still under way, or
      // failed, leaves nothing to delete).
      const run = this.truth.runs.find((r) => r.op === op.run && r.outcome === "success");
      const raw = run?.files.find((f) => f.path.endsWith("/raw"));
      if (!raw) return;
      path = raw.path;
    }
    // Its calls meet the outages and flaky calls the clones meet: one that
    // fails deletes nothing (or, failing after taking effect, deletes).
    const got = await this.target.direct.get(path).catch(() => null);
    if (!got) return;
    // Read past faults and scheduling: the checker's look, not a client's.
    const indexed = (await indexEntriesOf(this.target.inspect))[path]?.v;
    if (op.rewrite) {
      // Another client of the layout publishes the version again, its own
      // bytes over them, at once (between two scheduling decisions).
      const text = `another client's run, numbered as run #${op.run}'s (op #${op.id})\n`;
      await this.target.unfaulted((s) =>
        peerPush(s, { [path]: text }, { now: () => this.sched.clock.now() })
      );
      this.stats.rewrites++;
    } else if (op.blind) {
      // An older client's push that never had it deletes it, object and
      // entry, at once (between two scheduling decisions): a deletion every
      // pull meets, told from no user's.
      await this.target.unfaulted((s) =>
        peerPush(s, {}, { now: () => this.sched.clock.now(), remove: [path] })
      );
      this.shapes.gone(path);
      if (await this.target.inspect.read(path)) return;
      this.stats.vanishes++;
      this.stats.blindDeletes++;
    } else {
      await this.target.direct.delete(path).catch(() => {});
      this.shapes.gone(path);
      if (await this.target.inspect.read(path)) return;
      this.stats.vanishes++;
    }
    const holders: number[] = [];
    let pending = false;
    for (const slot of this.clones) {
      const here = await Deno.readFile(`${slot.dir}/${path}`).catch((e) =>
        e instanceof Deno.errors.IsADirectory ? "directory" : null
      );
      if (here instanceof Uint8Array && sameBytes(here, got.body)) {
        holders.push(slot.index);
        continue;
      }
      // A user's deletion of the file its clone synced there (by hand, or
      // a directory made in its place) not pushed yet: its push, a user's
      // deletion, may yet remove the path everywhere. (An unpushed edit
      // needs no sparing: pushed, the store holds it; else it is a conflict,
      // and the holder must keep its copy.)
      if (here !== "directory" && here !== null) continue;
      if (await this.#removedHere(slot, path, got.body)) pending = true;
    }
    if (op.run !== undefined && !op.rewrite) this.stats.vanishedOutputs++;
    if (holders.length > 0 && !pending) this.stats.vanishesChecked++;
    await this.truth.vanished(
      op.id,
      path,
      got.body,
      got.version,
      holders,
      this.changes.touched.length,
      pending,
      indexed,
      op.rewrite === true,
    );
  }

  /**
   * Whether clone `slot`'s user removed what it had at `path` (nothing, or a
   * directory, is there now): the file it synced there, or its own write of
   * `bytes` (the bytes another tool's deletion took), which its state never
   * recorded as synced (the push's commit landed, its answer lost to a
   * crash). Its push, a user's deletion, may yet remove the path everywhere:
   * it withdraws such a write of its own, entry with it.
   */
  async #removedHere(slot: CloneSlot, path: string, bytes: Uint8Array): Promise<boolean> {
    if (slot.svc.state.synced(path)) return true;
    return this.changes.replacedOwn(slot.index, path, await sha256Hex(bytes));
  }

  /**
   * A delete that checked the version of a shared file, then deleted a
   * write landed in between (see {@link checkThenDelete}): its bytes are
   * held to I19 as those of another tool's deletion are, from now on.
   */
  async #raced(path: string, bytes: Uint8Array, version: string): Promise<void> {
    this.stats.checkedDeleteRaces++;
    const indexed = (await indexEntriesOf(this.target.inspect))[path]?.v;
    const holders: number[] = [];
    let pending = false;
    for (const slot of this.clones) {
      const here = await Deno.readFile(`${slot.dir}/${path}`).catch(() => null);
      if (here && sameBytes(here, bytes)) holders.push(slot.index);
      else if (!here && await this.#removedHere(slot, path, bytes)) pending = true;
    }
    await this.truth.vanished(
      this.#opId,
      path,
      bytes,
      version,
      holders,
      this.changes.touched.length,
      pending,
      indexed,
    );
  }

  /**
   * A second process over a clone's cache (see the `sibling` move): a
   * service of its own over the clone's directory, as the tool's, running
   * beside the clone's own commands (a unit of its own), its service
   * dropped when its command ends. The clone's final sync then runs in a
   * process started afresh on that cache (see {@link finish}).
   */
  /**
   * A clone's cache replaced by a copy of another's (see the `copy` Op):
   * only while neither runs a command, between clones of one kind. The
   * clone's process stops, its own changes not pushed are given up with its
   * old directory (its user chose the copy), and it starts again on the copy.
   */
  async #copy(op: Extract<Op, { kind: "copy" }>): Promise<void> {
    const slot = this.clones[op.clone];
    const from = this.clones[op.from];
    const kind = (i: number) => this.history.kinds?.[i] ?? "api";
    if (slot.busy || from.busy || kind(op.clone) !== kind(op.from)) return;
    if (this.#shared.has(slot) || this.#shared.has(from)) return; // another process over either
    this.stats.copies++;
    const gone = await readWriterId(slot.svc.cache);
    if (gone) this.#abandonedWriters.add(gone);
    const journal = await readErasureJournal(slot.svc.cache).catch(() => undefined);
    for (const u of journal?.uploads ?? []) {
      const all = this.#abandonedErasures.get(u.path) ?? new Set<string>();
      all.add(u.version);
      this.#abandonedErasures.set(u.path, all);
    }
    for (const [path, versions] of this.#deletedBy.get(slot.index) ?? []) {
      const all = this.#abandonedDeletes.get(path) ?? new Set<string>();
      for (const v of versions) all.add(v);
      this.#abandonedDeletes.set(path, all);
    }
    this.#deletedBy.delete(slot.index);
    for (const l of slot.locks) l.abandon();
    slot.svc.state.exit();
    for (const e of this.changes.edits) {
      if (e.clone === slot.index) this.changes.replaced(slot.index, e.path);
    }
    this.truth.cacheReplaced(slot.index);
    this.ownWrites.forget(slot.index);
    this.changes.asides.copied(slot.index, from.index);
    await Deno.remove(slot.dir, { recursive: true });
    await copyTree(from.dir, slot.dir);
    slot.incarnation++;
    await this.#boot(slot);
    this.#startNext(slot);
  }

  async #sibling(op: Extract<Op, { kind: "sibling" }>): Promise<void> {
    const slot = this.clones[op.clone];
    this.#shared.add(slot);
    this.stats.siblings++;
    this.stats.commands++;
    const { svc, locks } = await this.#service(
      slot.dir,
      `c${slot.index}`,
      slot.index,
      1000 + op.id,
    );
    const die = () => {
      for (const l of locks) l.abandon();
    };
    const cmd = kindOf(this.history, op.clone) === "api"
      ? siblingCommand(this.#env, op, die)
      : coreSiblingCommand(this.#env, op, die);
    this.sched.spawn(`c${slot.index} ${cmd.label}`, `c${slot.index}.s${op.id}`, async () => {
      try {
        await cmd.body(svc);
      } finally {
        svc.state.exit(); // the process ends: its files closed, its owner lock released
      }
    });
  }

  /**
   * An old client's write of a refused deterministic run's bytes (see the
   * `oldsame` move), aimed at the moment that run's erasure is about to
   * delete its upload: a plain put of the same bytes and its index entry,
   * at once (between two scheduling decisions, past faults). Recorded as an
   * old client's push (I12), which must never be gone from the store while
   * the index names it. Only at a moment no other writer holds the run's
   * model lock (its object is absent): an old client writes a model's data
   * versions under that model's lock, as Sluice's runs do (old and new
   * clients honour each other's locks), so it makes no such write while
   * another holds it (seed 131100102: the move wrote while the run that took
   * the lock after the breakglass held it, and that run's own version 1
   * filled the path the erasure's delete had emptied).
   */
  async #oldSame(op: Extract<Op, { kind: "oldsame" }>): Promise<void> {
    const aimed = async () => {
      const run = this.truth.runs.find((r) => r.op === op.run && r.same && r.files.length > 0);
      if (!run) return undefined;
      for (const u of this.sched.active()) {
        const on = /^delete (\S+)$/.exec(u.parkedOn)?.[1];
        const f = on === undefined ? undefined : run.files.find((f) => f.path === on);
        if (!f) continue;
        if (await this.target.direct.head(modelLockKey(run.model)) !== null) return undefined;
        return f;
      }
      return undefined;
    };
    const next = mulberry32(op.pick);
    for (
      let i = 0;
      i < OLD_SAME_DECISIONS && !(await aimed()) && this.sched.active().length > 0;
      i++
    ) {
      await this.sched.startReady();
      await this.sched.step(next(), next());
      await this.#afterDecision();
      if (this.#aborted) return;
    }
    const f = await aimed();
    if (!f) return;
    const text = new TextDecoder().decode(f.bytes);
    await this.target.unfaulted((s) =>
      peerPush(s, { [f.path]: text }, { now: () => this.sched.clock.now() })
    );
    this.stats.oldSameWrites++;
    this.#note(
      `c${op.clone}'s old client wrote run #${op.run}'s ${f.path} as its erasure deletes it`,
    );
    this.truth.oldPushes.push({ op: op.id, path: f.path, text });
    this.truth.oldCommitted.push({ op: op.id, path: f.path, bytes: f.bytes });
  }

  /**
   * Another tool's publication of a version at run `op.run`'s number (see
   * the `lockless` move), aimed at the moment that run holds its model lock
   * with its version written in its clone's cache in full and none of it on
   * the store (not flushed), while no move of the index runs (a tool
   * honouring no lock would lose its index write to a move's, by design):
   * its objects, with its index entries as another client of the layout
   * writes them (`peerPush`) or without, at once (between two scheduling
   * decisions, past faults). I18 holds Sluice never to delete nor write
   * over them (a data version is never rewritten) and the index to name
   * those it indexed; I1 holds the run to be refused (`version_exists`) or
   * to publish another number, never acknowledged over them; I27 counts a
   * version of theirs the index does not name, on the store, as the one the
   * run lost to.
   */
  async #lockless(op: Extract<Op, { kind: "lockless" }>): Promise<void> {
    const aimed = async () => {
      const run = this.truth.runs.find((r) =>
        r.op === op.run && r.outcome === "pending" && r.files.length > 0
      );
      if (!run || this.sched.active().some((u) => isMoveCommand(u.label))) return undefined;
      if (!(await this.target.inspect.read(modelLockKey(run.model)))) return undefined;
      const dir = this.clones[run.clone].dir;
      for (const f of run.files) {
        const here = await Deno.readFile(`${dir}/${f.path}`).catch(() => undefined);
        if (!sameBytes(here, f.bytes) || await this.target.inspect.read(f.path)) return undefined;
      }
      return run;
    };
    const over = () => {
      const r = this.truth.runs.find((r) => r.op === op.run);
      return r !== undefined && r.outcome !== "pending";
    };
    const next = mulberry32(op.pick);
    for (
      let i = 0;
      i < LOCKLESS_DECISIONS && !over() && !(await aimed()) && this.sched.active().length > 0;
      i++
    ) {
      await this.sched.startReady();
      await this.sched.step(next(), next());
      await this.#afterDecision();
      if (this.#aborted) return;
    }
    const run = await aimed();
    if (!run) return;
    const raw = run.files.find((f) => f.path.endsWith("/raw"))!.path;
    const dir = raw.slice(0, -"/raw".length);
    const base = dir.slice(0, dir.lastIndexOf("/"));
    const n = Number(dir.slice(dir.lastIndexOf("/") + 1));
    const objects = locklessObjects(op, base, n);
    const now = () => this.sched.clock.now();
    await this.target.unfaulted(async (s) => {
      if (op.indexed) {
        await peerPush(s, Object.fromEntries(objects.map((o) => [o.path, o.text])), { now });
        return;
      }
      for (const o of objects) {
        await s.put(o.path, new TextEncoder().encode(o.text), PutModes.overwrite);
      }
    });
    this.stats.locklessWrites++;
    if (op.indexed) this.stats.locklessIndexed++;
    this.#note(
      `another tool published ${dir} (run #${op.run}'s number) honouring no lock${
        op.indexed ? ", with its index entries" : ", no index entry"
      }`,
    );
    for (const o of objects) {
      this.truth.lockless.push({
        op: op.id,
        path: o.path,
        text: o.text,
        indexed: op.indexed,
        marker: o.path.endsWith("/latest"),
      });
    }
  }

  /**
   * Another process's write ahead to clone `op.clone`'s manifest log cut off
   * part way (see the `torn` move): a prefix of a well-formed line of the
   * base's generation (the record of `op.file` this clone holds, or one of
   * its own), no newline, appended between two scheduling decisions (a
   * process of its own wrote it), aimed at the clone's command parked on a
   * download (a pull's, which writes its record ahead right after) or else
   * made once that command ends. Only where a base is on disk (no process
   * writes ahead before). That cache is then synced at the end by a process started
   * afresh on it, which reads the manifest (I30).
   */
  async #tornLog(op: Extract<Op, { kind: "torn" }>): Promise<void> {
    const slot = this.clones[op.clone];
    const downloading = () => {
      const key = /^get (\S+)/.exec(slot.busy?.unit.parkedOn ?? "")?.[1];
      return key !== undefined && !isIndexObject(key) && !key.endsWith(".lock");
    };
    const next = mulberry32(op.pick);
    for (let i = 0; i < TORN_DECISIONS && slot.busy && !downloading(); i++) {
      await this.sched.startReady();
      await this.sched.step(next(), next());
      await this.#afterDecision();
      if (this.#aborted) return;
    }
    const aimed = downloading();
    const dir = findStateDir(slot.dir);
    const base = await Deno.readTextFile(`${dir}/${MANIFEST_FILE}`).catch(() => undefined);
    if (base === undefined) return;
    const gen = Number(/"gen":(\d+)/.exec(base)?.[1] ?? 0);
    const path = SHARED_FILES[op.file];
    const entry = slot.svc.state.synced(path) ??
      { hash: await sha256Hex(new TextEncoder().encode(path)), version: "1", size: path.length };
    const line = logLines(new Map([[path, entry]]), gen, [path])[0];
    const cut = line.slice(0, 1 + (op.pick % (line.length - 1)));
    await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, cut, { append: true });
    this.#torn.add(slot);
    this.#shared.add(slot);
    this.stats.tornLogs++;
    if (aimed) this.stats.tornLogsAimed++;
    this.#note(
      `c${op.clone}'s manifest log gains a torn line of another process's${
        aimed ? ` (its ${slot.busy?.unit.parkedOn})` : ""
      }: ${cut}`,
    );
  }

  /**
   * A damaged disk block under clone `op.clone`'s cache (see the `damaged`
   * move): once its command ended (or after a few decisions), one whole line
   * of its manifest log that is not the last, drawn from `op.pick`, is
   * replaced by garbage bytes of its length, its newline kept; then its
   * process restarts. I30: the process started afresh reads the manifest,
   * every record what the files held before the damage kept but the damaged
   * line's, whose path counts as synced at its record before or as never
   * synced (that path alone is then spared by the other invariants).
   */
  async #damagedLog(op: Extract<Op, { kind: "damaged" }>): Promise<void> {
    const slot = this.clones[op.clone];
    const next = mulberry32(op.pick);
    for (let i = 0; i < DAMAGED_DECISIONS && slot.busy; i++) {
      await this.sched.startReady();
      await this.sched.step(next(), next());
      await this.#afterDecision();
      if (this.#aborted) return;
    }
    const dir = findStateDir(slot.dir);
    const base = await Deno.readTextFile(`${dir}/${MANIFEST_FILE}`).catch(() => undefined);
    const log = await Deno.readTextFile(`${dir}/${MANIFEST_LOG}`).catch(() => undefined);
    if (base === undefined || log === undefined) return;
    const lines = log.split("\n");
    // Every whole line but the last one (a torn line after them is the last).
    const candidates = lines.length - (log.endsWith("\n") ? 2 : 1);
    if (candidates < 1) {
      this.stats.damagedLogsShort++;
      return;
    }
    // What a reader made of the files before the damage, and without the line.
    const read = (text: string) => {
      try {
        const m = new Map<string, SyncedEntry>();
        const gen = readBase(base, m).gen;
        replayLog(text, gen, m);
        return { m, gen };
      } catch {
        return undefined;
      }
    };
    const whole = read(log);
    const recordOf = (line: string): string | undefined => {
      try {
        const r = JSON.parse(line);
        return typeof r?.p === "string" && r.g === whole?.gen ? r.p : undefined;
      } catch {
        return undefined; // not a line of the manifest's: nothing of it to lose
      }
    };
    // The line of the latest record of `op.file`, when it is not the last.
    const latest = lines.findLastIndex((l, k) =>
      k < lines.length - 1 && recordOf(l) === SHARED_FILES[op.file]
    );
    const at = latest >= 0 && latest < candidates ? latest : Math.floor(next() * candidates);
    const without = read(lines.filter((_, k) => k !== at).join("\n"));
    const path = recordOf(lines[at]);
    const size = new TextEncoder().encode(lines[at]).length;
    const zeros = next() < 0.5;
    // Any byte but a newline (10).
    const noise = () => {
      const b = Math.floor(next() * 255);
      return b >= 10 ? b + 1 : b;
    };
    const garbage = Uint8Array.from({ length: Math.max(1, size) }, () => zeros ? 0 : noise());
    const enc = new TextEncoder();
    const parts = lines.map((l, k) => k === at ? garbage : enc.encode(l));
    const bytes = new Uint8Array(parts.reduce((n, b) => n + b.length, 0) + parts.length - 1);
    let o = 0;
    for (const [k, b] of parts.entries()) {
      bytes.set(b, o);
      o += b.length;
      if (k < parts.length - 1) bytes[o++] = 10;
    }
    await Deno.writeFile(`${dir}/${MANIFEST_LOG}`, bytes);
    this.stats.damagedLogs++;
    // Its latest record was there (no later line records it again).
    if (path !== undefined && !isDeepStrictEqual(whole?.m.get(path), without?.m.get(path))) {
      const set = this.#damagedPaths.get(op.clone) ?? new Set<string>();
      set.add(path);
      this.#damagedPaths.set(op.clone, set);
      this.stats.damagedLogsLost++;
    }
    this.#note(
      `c${op.clone}'s manifest log line ${at + 1} of ${candidates + 1} is damaged on disk (${
        path === undefined ? "no record of a path" : `the record of ${path}`
      }: ${lines[at]}), and its process restarts`,
    );
    await this.#crash(slot, "crashed");
    this.stats.damagedLogsReopened++;
    if (!whole || !without) return; // unreadable before the damage: no record to keep
    const state = slot.svc.state;
    const paths = new Set([...whole.m.keys(), ...without.m.keys(), ...state.syncedPaths()]);
    const lost: string[] = [];
    for (const p of [...paths].sort()) {
      const now = state.synced(p);
      if (isDeepStrictEqual(now, whole.m.get(p))) continue;
      if (p === path && isDeepStrictEqual(now, without.m.get(p))) continue;
      lost.push(p);
    }
    if (lost.length > 0) {
      this.truth.violate({
        invariant: "I30",
        message: `the process started on c${op.clone}'s cache after line ${
          at + 1
        } of its manifest log was damaged (${
          path === undefined ? "no record of a path" : `the record of ${path}`
        }) holds other records than the files did but for that line: ${
          lost.slice(0, 8).map((p) =>
            `${p} ${JSON.stringify(state.synced(p) ?? null)} (was ${
              JSON.stringify(whole.m.get(p) ?? null)
            })`
          ).join(", ")
        }${lost.length > 8 ? `, and ${lost.length - 8} more` : ""}`,
        afterOp: this.#opId,
      });
    }
  }

  #breakglass(op: Extract<Op, { kind: "breakglass" }>): void {
    this.stats.breakglasses++;
    this.stats.commands++;
    const model = op.model === null ? undefined : MODELS[op.model];
    const who = `operator breakglass #${op.id} ${model ?? "global lock"}`;
    this.sched.spawn(who, "operator", async () => {
      try {
        const r = await releaseLock(this.operator, { model, force: true });
        if (r.released) this.stats.locksBroken++;
        this.#outcome(
          "success",
          `${who} (${r.released ? `broke ${r.broken?.holder}'s lock` : "no lock"})`,
        );
      } catch (e) {
        this.#outcome(codeOf(e), who, e);
      }
    });
  }

  async apply(op: Op): Promise<void> {
    this.#opId = op.id;
    this.stats.operations++;
    if (op.kind !== "crash" && op.kind !== "outage") this.#note(formatOp(op, this.history.kinds));
    switch (op.kind) {
      case "run":
      case "sync":
      case "migrate":
        this.#enqueue(op.clone, clientCommand(this.#env, op, kindOf(this.history, op.clone)));
        break;
      case "edit":
      case "delete":
        if (op.how === "during") {
          // By hand, while the clone's command runs: the user does not wait
          // for it. Aimed: the scheduler goes on (a few decisions at most)
          // until that command is parked on the download or the look of a
          // shared file, which is then the file edited (the window between
          // a pull's check of the local copy and its write or removal).
          const slot = this.clones[op.clone];
          const parkedOn = () => {
            const on = /^(?:get|head) (\S+)/.exec(slot.busy?.unit.parkedOn ?? "")?.[1];
            return on === undefined ? -1 : SHARED_FILES.indexOf(on);
          };
          const next = mulberry32(op.pick ?? 0);
          for (let i = 0; i < DURING_DECISIONS && parkedOn() < 0 && slot.busy; i++) {
            await this.sched.startReady();
            await this.sched.step(next(), next());
            await this.#afterDecision();
          }
          const aimed = parkedOn();
          if (aimed >= 0) this.stats.editsDuring++;
          const file = aimed >= 0 ? aimed : op.file;
          await moveCommand(this.#env, { ...op, file, how: "hand" }).body(slot.svc);
          if (!slot.busy) await this.#checkLocal(slot);
          break;
        }
        this.#enqueue(op.clone, moveCommand(this.#env, op));
        break;
      case "bulk":
      case "config":
      case "marker":
      case "resolve":
      case "adopt":
      case "reshape":
        this.#enqueue(op.clone, moveCommand(this.#env, op));
        break;
      case "lockfile":
        this.#enqueue(op.clone, lockfileCommand(this.#env, op));
        break;
      case "foreign":
        await this.#foreign(op);
        break;
      case "vanish":
        await this.#vanish(op);
        break;
      case "oldpush":
        this.#enqueue(op.clone, oldPushCommand(this.#env, op));
        break;
      case "oldpull":
        this.#enqueue(op.clone, oldPullCommand(this.#env, op));
        break;
      case "unwritten":
        this.#enqueue(op.clone, unwrittenCommand(this.#env, op));
        break;
      case "sibling":
        await this.#sibling(op);
        break;
      case "copy":
        await this.#copy(op);
        break;
      case "oldsame":
        await this.#oldSame(op);
        break;
      case "lockless":
        await this.#lockless(op);
        break;
      case "torn":
        await this.#tornLog(op);
        break;
      case "damaged":
        await this.#damagedLog(op);
        break;
      case "breakglass":
        this.#breakglass(op);
        break;
      case "outage":
        if (op.on) this.stats.outages++;
        this.#note(`outage ${op.on ? "on" : "off"}`);
        await this.target.faults.outage(op.on);
        break;
      case "latency":
        this.target.faults.latency(op.ms);
        break;
      case "stall": {
        const owner = this.clones[op.clone].owner;
        if (op.on && op.at) {
          this.#note(`c${op.clone} is armed to stop (${op.at})`);
          this.#stallArmed.set(this.clones[op.clone], { at: op.at, seen: false });
        } else if (op.on && !this.sched.isStopped(owner)) {
          this.stats.stalls++;
          this.sched.stop(owner);
        } else if (!op.on) {
          this.#stallArmed.delete(this.clones[op.clone]);
          this.sched.resume(owner);
        }
        break;
      }
      case "flaky":
        this.target.faults.flaky(op.call, op.count, op.afterEffect);
        break;
      case "crash": {
        const slot = this.clones[op.clone];
        if (op.at && op.queued) {
          const at = op.at;
          this.#enqueue(
            op.clone,
            plainCommand(this.#env, op.clone, `arm a crash at ${at}`, () => {
              // Reached only in the final sync (its queue drained there): no crash then.
              if (this.#opId === -1) return Promise.resolve();
              if (at === "answer") this.#answerArmed.add(slot);
              else this.#armed.set(slot, this.#armed.get(slot) ?? false);
              return Promise.resolve();
            }),
          );
          break;
        }
        if (op.at === "answer") {
          this.#note(`c${op.clone} is armed to crash as its next index write lands`);
          this.#answerArmed.add(slot);
          break;
        }
        if (op.at === "commit") {
          this.#note(`c${op.clone} is armed to crash between a commit write and the index update`);
          this.#armed.set(slot, this.#armed.get(slot) ?? false);
          break;
        }
        this.stats.crashes++;
        const where = slot.busy
          ? ` during ${slot.busy.unit.label} (on ${slot.busy.unit.parkedOn})`
          : "";
        this.#note(`c${op.clone} crashes${where}`);
        await this.#crash(slot, "crashed");
        break;
      }
      case "tick": {
        const next = mulberry32(op.pick);
        for (let i = 0; i < op.n && !this.#aborted; i++) {
          await this.sched.startReady();
          await this.sched.step(next(), next());
          await this.#afterDecision();
        }
        break;
      }
      case "wait":
        await this.sched.advanceBy(op.ms);
        break;
    }
    await this.sched.startReady();
    await this.#afterDecision();
    // I14 at quiet points only: a commit in flight may have written part of a v2 index.
    if (this.#checksMarkers && this.sched.active().length === 0 && !this.#aborted) {
      await this.truth.checkMarkersNow(this.target.inspect, this.#opId);
    }
    // I12 for an old client's write of a refused run's bytes, at quiet points
    // too: an erasure that met that write deletes and puts back in one command,
    // or, where that put-back could not be made (an outage), records it as
    // pending in its journal for the next push (not "for good" yet).
    if (this.sched.active().length === 0 && !this.#aborted) {
      const pending = new Set<string>();
      for (const c of this.clones) {
        const j = await readErasureJournal(c.svc.cache).catch(() => undefined);
        for (const u of j?.uploads ?? []) pending.add(u.path);
      }
      await this.truth.checkOldCommittedNow(this.target.inspect, this.#opId, pending);
    }
  }

  /**
   * I14 is checked (see `invariants.ts`) with no old client and no adoption
   * or move (an old client writes markers its own way; an adoption or a move
   * publishes what another writer left).
   */
  get #checksMarkers(): boolean {
    return !this.history.oldClients &&
      !this.history.ops.some((o) => o.kind === "adopt" || o.kind === "migrate");
  }

  async #afterDecision(): Promise<void> {
    if (this.sched.stats.decisions > (this.options.maxDecisions ?? 60_000) && !this.#aborted) {
      this.#aborted = true;
      this.truth.violate({
        invariant: "I4",
        message: `more than ${
          this.options.maxDecisions ?? 60_000
        } scheduling decisions: livelock (${
          this.sched.active().map((u) => `${u.label} on ${u.parkedOn}`).join("; ")
        })`,
        afterOp: this.#opId,
      });
    }
    await this.#answerCrashes();
    for (const [slot, on] of this.#due) {
      this.stats.crashes++;
      this.stats.commitCrashes++;
      this.#note(
        `c${slot.index} crashes between a commit write and the index update (${slot.busy?.unit.label} on ${on})`,
      );
      await this.#crash(slot, "crashed");
    }
    await this.#deadlines();
    await this.truth.checkRefusedNow(
      this.target.inspect,
      this.clones.map((c) => c.dir),
      this.#opId,
    );
  }

  async #deadlines(): Promise<void> {
    const budget = this.options.commandBudgetMs ?? 15 * 60_000;
    for (const u of this.sched.active()) {
      // A stopped process's commands are not late: their time counts from when it goes on.
      if (this.sched.isStopped(u.owner)) continue;
      if (this.sched.ownTime(u) <= budget) continue;
      this.truth.violate({
        invariant: "I4",
        message: `${u.label} did not end within ${budget} ms of its own fake time (parked on ${
          u.parkedOn || "nothing"
        })`,
        afterOp: this.#opId,
      });
      const slot = this.clones.find((s) => s.busy?.unit === u);
      if (slot) await this.#crash(slot, "hung");
      else this.sched.freezeUnit(u);
    }
  }

  /** Runs every command to its end: oldest store call first, else the next timer. */
  async drain(): Promise<void> {
    await this.sched.startReady();
    while (this.sched.active().length > 0 && !this.#aborted) {
      const progressed = await this.sched.stepInOrder();
      await this.#afterDecision();
      if (!progressed) {
        for (const u of this.sched.active()) {
          this.truth.violate({
            invariant: "I4",
            message: `${u.label} waits on ${u.parkedOn || "nothing"} and nothing can wake it`,
            afterOp: this.#opId,
          });
          this.sched.freezeUnit(u);
        }
      }
    }
  }

  /**
   * Heals, drains, syncs every clone (twice: push all, pull all; a third
   * time when a pull of the second found the way clear for a held-back
   * path), and checks.
   */
  async finish(): Promise<void> {
    this.#opId = -1;
    this.stats.chaosDecisions = this.sched.stats.decisions;
    this.#armed.clear();
    this.#answerArmed.clear();
    this.#answerDue.clear();
    this.#due.clear();
    this.#stallArmed.clear();
    for (const slot of this.clones) this.sched.resume(slot.owner);
    await this.target.faults.heal();
    await this.drain();
    // A cache a second process shared is synced by a process started afresh
    // on it, as the next command on that checkout is: it loads the marks
    // every process left there.
    for (const slot of this.#shared) {
      for (const l of slot.locks) l.abandon();
      slot.svc.state.exit();
      slot.incarnation++;
      await this.#boot(slot);
    }
    // Old clients whose push stopped push again, as they do when they come back.
    for (const op of this.truth.oldUnfinished.values()) {
      this.stats.oldPushesRetried++;
      this.#enqueue(op.clone, oldPushCommand(this.#env, { kind: "oldpush", ...op }));
    }
    await this.drain();
    // A reshape left for a walk: the walk's exit (2) names the synced paths
    // it did not delete, and the user pushes them by name, and the path too.
    for (const slot of this.clones) {
      const left = this.shapes.leftByHand(slot.index);
      if (left.length === 0) continue;
      this.#enqueue(
        slot.index,
        plainCommand(this.#env, slot.index, "mark reshaped paths by name", async (svc) => {
          const isFile = (p: string) => {
            try {
              return Deno.lstatSync(`${svc.cacheDir}/${p}`).isFile;
            } catch {
              return false;
            }
          };
          const gone = svc.state.syncedPaths().filter((p) =>
            left.some((l) => p.startsWith(`${l}/`)) && !isFile(p)
          );
          await svc.markDirty({ relPaths: [...left, ...gone] });
        }),
      );
    }
    await this.drain();
    /** Each clone's last final pull's paths left out as blocked. */
    const blocked = new Map<number, string[]>();
    /** Each clone's last final pull's files kept to publish again (their entries dropped). */
    const kept = new Map<number, Set<string>>();
    // Twice, and once more when the second round's pulls found the way clear
    // for a path a push held back (a path dropped from a clone's record of
    // paths in the way, `blocked_record.ts`): that push's reason says the
    // next push publishes it, and its own upload, left by a commit that met
    // the other shape, waits unnamed until then (I11 spares it only while
    // held back). The round after is that next push, checked by I11 too,
    // for those clones alone (any other's failure to settle in two rounds
    // stays a violation).
    const released = new Set<number>();
    for (let round = 0; (round < 2 || (round === 2 && released.size)) && !this.#aborted; round++) {
      if (round === 2) this.stats.finalRoundsAfterRelease++;
      const these = round === 2 ? this.clones.filter((c) => released.has(c.index)) : this.clones;
      released.clear();
      for (const slot of these) {
        this.#enqueue(
          slot.index,
          lockfileCommand(this.#env, { id: -1 - round, clone: slot.index }),
        );
        this.#enqueue(
          slot.index,
          plainCommand(
            this.#env,
            slot.index,
            "final push",
            (svc) => pushOf(this.#env, svc).then(() => {}),
          ),
        );
      }
      await this.drain();
      for (const slot of these) {
        this.#enqueue(
          slot.index,
          plainCommand(
            this.#env,
            slot.index,
            "final pull",
            async (svc) => {
              const before = svc.state.blocked.paths();
              const r = await svc.pullChanged();
              blocked.set(slot.index, r.blocked ?? []);
              kept.set(slot.index, new Set(r.dropped));
              const after = new Set(svc.state.blocked.paths());
              if (before.some((p) => !after.has(p))) released.add(slot.index);
            },
          ),
        );
      }
      await this.drain();
    }
    if (this.#aborted) return;
    // A refused run's upload whose deletion was pending in a cache its user
    // replaced by a copy: the journal naming it went with the old directory,
    // so it is left for good, as that cache's other uploads whose commit
    // never came (I11's exception). Spared by I2's final store scan only
    // while the store holds that very version there and no index entry
    // names it (no clone can pull it; I2's scan of the clones still runs).
    const leftByCopy = new Set<string>();
    if (this.#abandonedErasures.size > 0) {
      const indexed = await indexEntriesOf(this.target.inspect);
      for (const [path, versions] of this.#abandonedErasures) {
        // A failed look spares nothing.
        const head = await this.target.direct.head(path).catch(() => null);
        if (!head || !versions.has(head.version) || indexed[path]?.v === head.version) continue;
        leftByCopy.add(path);
      }
    }
    this.stats.refusedLeftByCopy += await this.truth.checkFinal(
      this.target.inspect,
      this.clones.map((c) => c.dir),
      (key) => leftByCopy.has(key),
    );
    for (const slot of this.clones) {
      await this.#checkLocal(slot);
      const named = this.changes.asides.check(slot.index, slot.dir, slot.svc.conflicts(), -1);
      for (const v of await named) this.truth.violate(v);
      // I21: only where the extension keeps the state (a library user chooses where).
      if ((this.history.kinds?.[slot.index] ?? "api") !== "api") {
        for (const v of checkSwitchBack(slot.index, slot.dir)) this.truth.violate(v);
      }
    }
    const writers = await Promise.all(this.clones.map(async (slot) => {
      const state = slot.svc.state;
      // A run held for `erasure_refused`: what its push uploaded stays on the
      // datastore until its user keeps or discards it (I11's exception).
      const journal = await readErasureJournal(slot.svc.cache).catch(() => undefined);
      return {
        writer: await readWriterId(slot.svc.cache),
        heldUploads: journal?.held.flatMap((h) => h.uploads) ?? [],
        conflicts: state.conflicts,
        // A path its push holds back (in the way of the other shape, or of
        // the new shape of a name whose old shape's deletion met a conflict):
        // its own upload waits there until the way is clear or the conflict
        // resolved (I11's exception).
        heldBack: (path: string) =>
          state.blocked.clashOf(path, (p) => state.synced(p) !== undefined) !== undefined ||
          state.conflicts.list().some((c) =>
            c.mine === null && (path.startsWith(`${c.path}/`) || c.path.startsWith(`${path}/`))
          ),
      };
    }));
    // The uploads of a cache its user replaced by a copy of another's (a
    // `copy` move), whose commit never came (a crash before it): left for
    // good, waiting for an adoption no history makes (I11's exception).
    const abandoned = [...this.#abandonedWriters].map((writer) => ({
      writer,
      conflicts: { has: () => false },
      heldBack: () => true,
    }));
    // A clone's own write over the version the index names, at a path that
    // clone has an open conflict on (a resolution cut off before its index
    // update): its pending change, which the resolution publishes or drops
    // (I11's exception, seen from the index; I13 then resolves it).
    const pendingOwn = new Set<string>();
    for (const w of writers) {
      for (const c of w.conflicts.list()) {
        const head = await this.target.direct.head(c.path).catch(() => null);
        if (w.writer && head?.metadata?.[WRITER_METADATA] === w.writer) pendingOwn.add(c.path);
      }
    }
    // So too the other shape of a name a clone's resolution deleted, at the
    // version the index names, before an outage cut it off ahead of its own
    // shape's writes and its index update, while that clone's conflict there
    // is still open: the resolution, made again, commits the deletion.
    const near = (a: string, b: string) =>
      a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
    const resolvedAway = new Map<string, string | undefined>();
    for (const [path, d] of this.#resolutionDeleted) {
      const open = writers[d.clone]?.conflicts.list().some((c) => near(c.path, path));
      if (open && !(await this.target.direct.head(path).catch(() => null))) {
        resolvedAway.set(path, d.version);
      }
    }
    const pendingGone = (path: string, e: IndexEntry | undefined) =>
      !!e && resolvedAway.has(path) &&
      (resolvedAway.get(path) === undefined || resolvedAway.get(path) === e.v);
    // An old client's stopped push left as it left it (see `GroundTruth.oldStranded`),
    // or an old client's write another old client's pull dropped from the index.
    const spared = (path: string) =>
      this.truth.oldStranded.has(path) || this.truth.oldPullDropped.has(path);
    // An entry naming an object another tool deleted, not yet past the grace
    // after which a pull removes it (I19 checks that object's bytes instead).
    const gone = (path: string, e: IndexEntry | undefined) =>
      !!e && this.truth.namesVanished(path, e);
    // A path where the store holds an upload of a cache its user replaced
    // by a copy (a `copy` move) over the version the index names, its commit
    // cut off before: waiting for an adoption no history makes, as I11's
    // exception above; readers skip it as uncommitted until one is made.
    const overAbandoned = new Set<string>();
    if (this.#abandonedWriters.size > 0) {
      for (const path of Object.keys(await indexEntriesOf(this.target.inspect))) {
        const head = await this.target.direct.head(path).catch(() => null);
        const writer = head?.metadata?.[WRITER_METADATA];
        if (writer && this.#abandonedWriters.has(writer)) overAbandoned.add(path);
      }
    }
    // An entry naming the very version a cache its user replaced by a copy
    // deleted, its deletion's commit cut off before, the store holding
    // nothing there: the deletion went with the old directory, and a pull
    // that has seen the entry so past the dangling-entry grace removes it,
    // as after another tool's deletion (seed 121000113).
    const deletedAbandoned = new Set<string>();
    if (this.#abandonedDeletes.size > 0) {
      const indexed = await indexEntriesOf(this.target.inspect);
      for (const [path, versions] of this.#abandonedDeletes) {
        const e = indexed[path];
        if (!e || !versions.has(e.v)) continue;
        // A failed look spares nothing.
        if ((await this.target.direct.head(path).catch(() => "unknown")) === null) {
          deletedAbandoned.add(path);
        }
      }
    }
    const { entries, violations } = await checkIndexNamesHeld(
      this.target.direct,
      (path, e) =>
        spared(path) || pendingOwn.has(path) || pendingGone(path, e) || gone(path, e) ||
        overAbandoned.has(path) || deletedAbandoned.has(path),
    );
    for (const v of violations) this.truth.violate(v);
    // Another tool's objects written with no index entry (`lockless` moves):
    // no index is bound to name them once one was made (I18's rule holds
    // only for what is there when an index is made).
    const unindexed = (key: string) =>
      this.truth.lockless.some((l) => !l.indexed && l.path === key);
    const oldClientFile = (key: string) =>
      key.startsWith("logs/old-") || spared(key) || unindexed(key);
    for (
      const v of await checkNothingUnnamed(
        this.target.direct,
        entries,
        [...writers, ...abandoned],
        oldClientFile,
      )
    ) {
      this.truth.violate(v);
    }
    // I15: one shape per path (see `shapes.ts`).
    const oldWrote = (path: string) =>
      this.history.ops.some((o) =>
        o.kind === "oldpush" && o.file !== undefined && SHARED_FILES[o.file] === path
      );
    const conflicts = this.clones.map((c) => c.svc.conflicts());
    const { violations: clashes, clashed } = this.shapes.checkClashes(entries, conflicts, oldWrote);
    for (const v of clashes) this.truth.violate(v);
    for (const slot of this.clones) {
      for (
        const v of await this.shapes.checkBlocked(
          slot.index,
          slot.dir,
          slot.svc.state,
          slot.svc.conflicts(),
          blocked.get(slot.index) ?? [],
          clashed,
          kept.get(slot.index),
        )
      ) this.truth.violate(v);
    }
    // A fresh clone can hold only one shape of a path the datastore holds both of (I15's).
    const fresh = { root: this.root, store: this.target.direct, clock: this.sched.clock };
    const freshSpared = (path: string) =>
      spared(path) || clashed.has(path) || pendingOwn.has(path) ||
      pendingGone(path, entries[path]) || gone(path, entries[path]) || overAbandoned.has(path) ||
      deletedAbandoned.has(path);
    for (const v of await checkFreshClone(fresh, entries, freshSpared)) this.truth.violate(v);
    await this.truth.checkOldCommittedNow(this.target.inspect, -1);
    await this.truth.checkOldPushes(entries, this.clones.map((c) => c.dir));
    await this.truth.checkMarked(
      entries,
      (key) => this.target.inspect.read(key),
      this.clones.map((c) => c.dir),
    );
    await this.truth.checkLostVersions(entries, (key) => this.target.inspect.read(key));
    await this.truth.checkForeign(
      entries,
      (key) => this.target.inspect.read(key),
      this.clones.map((c) => c.dir),
      (clone, path) => this.changes.edits.some((e) => e.clone === clone && e.path === path),
    );
    await this.truth.checkVanished(
      (key) => this.target.inspect.read(key),
      this.clones.map((c) => c.dir),
      this.changes.touched,
    );
    this.truth.checkUnwritten((c) => this.clones[c].svc.conflicts(), this.changes.touched);
    const allowed = [...this.clones.map((c) => `c${c.index}`), "operator", "fresh"];
    for (const v of await checkOutside(this.root, allowed)) this.truth.violate(v);
    await this.#resolveLeft();
  }

  /**
   * I13, last (it publishes): each clone in turn resolves every conflict it
   * has left with `--mine`, which must publish, or meet a version a
   * resolution of another clone published before it as a new conflict. A
   * data version is never written over: there `--mine` is refused
   * (`version_exists`) and `--theirs` must settle it, as it must a copy
   * deleted by hand since its conflict recorded it (`not_found`). A resolution that is
   * refused otherwise, or waits on nothing, is a conflict its user cannot
   * get out of. The managed lockfile is resolved only by taking theirs (its
   * entries go through its transaction), so it is left out. A resolution
   * held back by another writer's uncommitted write does what its warning
   * says when that writer is gone for good (`push --adopt-uncommitted`,
   * which makes it a conflict with this copy), then resolves again, once.
   * Nor is a copy published beside another shape of its name that the
   * datastore holds (`unsafe_path`: theirs, as told; see I15), its object or
   * just its index entry (a file another tool deleted since: the index still
   * names it).
   */
  async #resolveLeft(): Promise<void> {
    // Twice: a --theirs held by another clone's upload in flight goes
    // through once that clone's own resolution withdrew or published it,
    // which may come after this clone's turn.
    for (const last of [false, true]) await this.#resolveLeftOnce(last);
  }

  async #resolveLeftOnce(last: boolean): Promise<void> {
    for (const slot of this.clones) {
      if (this.#aborted) return;
      if (last && !slot.svc.conflicts().some((x) => !isManagedLockfilePath(x.path))) continue;
      this.#enqueue(
        slot.index,
        plainCommand(this.#env, slot.index, "final resolve --mine", async (svc) => {
          const tried = new Set<string>();
          const adopted = new Set<string>();
          // Held back until another open conflict of the other shape is
          // resolved, as its reason says: tried again once the rest were.
          const waiting = new Set<string>();
          const retried = new Set<string>();
          for (;;) {
            // Read again each time: one resolution can settle others (a data version's files).
            let c = svc.conflicts().find((x) =>
              !tried.has(x.path) && !isManagedLockfilePath(x.path)
            );
            if (!c && waiting.size > 0) {
              for (const p of waiting) {
                tried.delete(p);
                retried.add(p);
              }
              waiting.clear();
              c = svc.conflicts().find((x) => !tried.has(x.path) && !isManagedLockfilePath(x.path));
            }
            if (!c) return;
            tried.add(c.path);
            this.stats.finalResolutions++;
            let why: string | undefined;
            try {
              // Refused on what the last pull recorded in the way, which may be
              // gone since (another clone's resolution): pulled, then tried
              // again, as the refusal says.
              const mine = () => resolveAsUser(this.#env, svc, slot.index, c, "mine");
              const r = await mine().catch(async (e) => {
                if (
                  codeOf(e) !== "unsafe_path" ||
                  !/run `sluice pull` and then this again/.test((e as Error).message)
                ) throw e;
                await svc.pullChanged();
                const now = svc.conflicts().find((x) => x.path === c.path);
                if (!now) return null;
                return await resolveAsUser(this.#env, svc, slot.index, now, "mine");
              }).catch(
                async (e) => {
                  // A data version is never written over; a copy deleted here by hand
                  // since the conflict is not published as a deletion, nor a directory
                  // that replaced the file (a reshape) as a file: theirs, as told.
                  const dirHere = codeOf(e) === "unsafe_path" &&
                    (await Deno.lstat(`${svc.cacheDir}/${c.path}`).catch(() => null))
                      ?.isDirectory;
                  // Nor beside another shape of its name the datastore holds (I15):
                  // an object, or an entry of the index, which Sluice reads for it
                  // (one whose object another tool deleted since included).
                  const otherShape = codeOf(e) === "unsafe_path" &&
                    holdsOtherShape(
                      c.path,
                      await this.target.inspect.keys(),
                      Object.keys(await indexEntriesOf(this.target.inspect)),
                    );
                  if (
                    codeOf(e) !== "version_exists" && codeOf(e) !== "not_found" && !dirHere &&
                    !otherShape
                  ) {
                    throw e;
                  }
                  const now = svc.conflicts().find((x) => x.path === c.path);
                  return now
                    ? await resolveAsUser(this.#env, svc, slot.index, now, "theirs")
                    : null;
                },
              );
              const left = r?.push?.skipped.find((s) => s.path === c.path);
              // Left out beside the other shape of its name that the datastore
              // holds (published since): theirs, as its reason says (see I15),
              // as for the refusal of the same before any upload.
              if (
                r && !r.resolved &&
                /would leave a file and files under a directory of one name/.test(
                  left?.reason ?? "",
                )
              ) {
                const now = svc.conflicts().find((x) => x.path === c.path);
                const taken = now && await resolveAsUser(this.#env, svc, slot.index, now, "theirs");
                if (!now || taken?.resolved) continue;
              }
              // A marker naming a version that exists nowhere (a hand move
              // "one back" past the first version), or one still being
              // written here whose writer stopped for good (a crashed run's
              // raw with no metadata.yaml, moved "one back" onto: seed
              // 143500042), is never published (marker-after-version):
              // theirs, as its reason says.
              if (r && !r.resolved && left && isMarkerUnlisted(left.reason, c.path)) {
                const now = svc.conflicts().find((x) => x.path === c.path);
                const taken = now && await resolveAsUser(this.#env, svc, slot.index, now, "theirs");
                if (!now || taken?.resolved) continue;
              }
              // A copy written by a run refused for losing its model lock is never
              // published: its conflict is left by taking theirs.
              if (r && !r.resolved && left?.reason.startsWith(REFUSED_RUN_HELD)) {
                const now = svc.conflicts().find((x) => x.path === c.path);
                const taken = now && await resolveAsUser(this.#env, svc, slot.index, now, "theirs");
                if (!taken || taken.resolved) continue;
                why = `--mine left it out (${left.reason}) and --theirs did not resolve it`;
              } else if (
                r && !r.resolved && !retried.has(c.path) &&
                /has an open conflict \(changed on the datastore meanwhile\): resolve it first/
                  .test(left?.reason ?? "")
              ) {
                waiting.add(c.path);
                continue;
              } else if (
                r && !r.resolved && left?.reason === UNCOMMITTED_HOLDS && !adopted.has(c.path)
              ) {
                adopted.add(c.path);
                await svc.pushChanged({ adoptUncommitted: [c.path] });
                tried.delete(c.path);
                continue;
              } else if (
                r && !r.resolved && r.resolution === "theirs" && !retried.has(c.path) &&
                r.pull?.uncommitted.includes(c.path)
              ) {
                // Theirs not taken while another writer's upload there waits
                // for its commit (or its withdrawal, by that clone's own
                // resolution): tried again once the rest were, as a user
                // does after the pull's note that it was skipped.
                waiting.add(c.path);
                continue;
              }
              if (
                !last && r && !r.resolved && r.resolution === "theirs" &&
                r.pull?.uncommitted.includes(c.path)
              ) {
                // Still held by another clone's upload: its turn may withdraw it.
                continue;
              }
              if (r && !r.resolved && r.conflicts.length === 0) {
                why = left ? `its push left it out: ${left.reason}` : "it was not published";
              } else if (r && !r.resolved) {
                // A new conflict is another writer's doing: never this clone's own write.
                const held = await this.target.direct.head(c.path);
                const own = await readWriterId(svc.cache);
                if (own !== null && held?.metadata?.[WRITER_METADATA] === own) {
                  why =
                    `it met its own uncommitted write (version ${held.version}) as theirs, a new conflict it cannot get out of`;
                }
              }
            } catch (e) {
              why = `it failed: ${codeOf(e)}: ${e instanceof Error ? e.message : String(e)}`;
            }
            if (why) {
              this.truth.violate({
                invariant: "I13",
                message:
                  `c${slot.index} cannot resolve its conflict on ${c.path} (${c.reason}; theirs ${
                    c.theirs ? `version ${c.theirs.version}` : "deleted"
                  }) with --mine: ${why}`,
                afterOp: -1,
              });
            }
          }
        }),
      );
      await this.drain();
    }
  }

  abort(v: Violation): void {
    this.#aborted = true;
    this.truth.violate(v);
  }

  get opId(): number {
    return this.#opId;
  }

  fingerprint(): Promise<string> {
    return fingerprintOf(this.truth, this.target.inspect);
  }
}

/**
 * Runs one history and checks it.
 *
 * @example
 * ```ts
 * import { generateHistory } from "./history.ts";
 * import { runHistory } from "./workload.ts";
 * const result = await runHistory(generateHistory(1));
 * console.log(result.violations.length, result.stats.acknowledged);
 * ```
 */
export async function runHistory(
  history: History,
  options: WorkloadOptions = {},
): Promise<HistoryResult> {
  const started = performance.now();
  const root = await Deno.makeTempDir({ prefix: "sluice-chaos-", dir: options.tempDir });
  const world = new World(history, root, options);
  let fingerprint = "";
  try {
    await world.setup();
    for (const op of history.ops) {
      await world.apply(op);
    }
    await world.finish();
    fingerprint = await world.fingerprint();
  } catch (e) {
    if (!(e instanceof StuckError)) throw e;
    world.abort({ invariant: "I4", message: e.message, afterOp: world.opId });
  } finally {
    await world.target?.close();
    if (!options.keepDirs) await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  const stats = world.stats;
  stats.histories = 1;
  if (history.oldClients) stats.mixedFleets = 1;
  if (history.skewMs?.some((ms) => ms !== 0)) stats.skewedClocks = 1;
  if (history.indexFirst) stats.indexFirst = 1;
  if (history.etag) stats.etagHistories = 1;
  if (history.checkedDeletes) stats.checkedDeleteHistories = 1;
  if (history.ops.some((o) => o.kind === "foreign")) stats.foreignHistories = 1;
  if (history.ops.some((o) => o.kind === "vanish")) stats.vanishHistories = 1;
  if (history.ops.some((o) => o.kind === "lockless")) stats.locklessHistories = 1;
  stats.acknowledged = world.truth.runs.filter((r) => r.outcome === "success").length;
  stats.refused = world.truth.runs.filter((r) => r.outcome === "model_lock_lost").length;
  stats.crashedRuns = world.truth.runs.filter((r) => r.outcome === "crashed").length;
  stats.storeCalls = world.sched.stats.calls;
  stats.decisions = world.sched.stats.decisions;
  stats.strays = world.sched.stats.strays;
  stats.fakeMs = world.sched.now() - Date.UTC(2026, 0, 1);
  stats.violations = world.truth.violations.length;
  return {
    history,
    violations: world.truth.violations,
    stats,
    elapsedMs: performance.now() - started,
    fingerprint,
  };
}

/**
 * True for the reasons `marker-after-version` gives a marker no push will
 * publish: one naming a version that exists nowhere, or one still being
 * written here (no reader could follow either).
 */
function isMarkerUnlisted(reason: string, marker: string): boolean {
  const m = /: it names (\S+), /.exec(reason);
  return m !== null &&
    (reason === markerUnlistedReason(m[1]) || reason === markerUnfinishedReason(marker, m[1]));
}

/** Copies the directory `from` into `to` (made), files and directories, in process. */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}
