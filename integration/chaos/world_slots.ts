/**
 * A chaos history's world, its clone slots and their setup: the scheduler,
 * the target and the store views each clone's calls go through, each
 * clone's service (booted again after a crash), its queue of commands, and
 * the checks of a clone's local state as each command ends (see
 * `workload.ts`).
 *
 * @module
 */
import {
  isLayoutInternal,
  isUnversioned,
  META_KEY,
  metaBody,
} from "../../sync/transfer/bucket_layout.ts";
import { MANAGED_LOCKFILE_PATH } from "../../sync/locks/lockfile_txn.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import type { StoreLock } from "../../sync/locks/lock_engine.ts";
import { type Clock, type ObjectStore, PutModes } from "../../sync/ports.ts";
import { PreconditionFailedError, UnreachableError } from "../../sync/errors.ts";
import { shiftedClock } from "../../packages/testing/mod.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { PushResult } from "../../sync/service/push_result.ts";
import type { SyncedEntry } from "../../sync/service/manifest_log.ts";
import { diskGen } from "../../sync/service/manifest_disk.ts";
import { CHAOS_CONFIG, commitCrashPoint, isIndexObject, watchedStore } from "./clone_setup.ts";
import { globalLockKey } from "../../sync/locks/model_locks.ts";
import { findStateDir as stateDirOf } from "../../sync/transfer/cache.ts";
import { harnessDeps, watchLostUpdates } from "./lost_updates.ts";
import {
  type Command,
  type CommandEnv,
  GLOBAL_LOCK_COMMITS,
  isMoveCommand,
  isOldClientCommand,
  isOldPullCommand,
} from "./commands.ts";
import { clientService } from "./core_driven.ts";
import { type History, kindOf, SHARED_FILES } from "./history.ts";
import { indexEntriesOf, readIndexEntriesOf } from "./index_checks.ts";
import { readWriterId, WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { GroundTruth, plantSentinel } from "./invariants.ts";
import { LocalChanges } from "./local_changes.ts";
import { checkDamagedOpen, damagedLineOnDisk, type DamagedOpen } from "./damaged_open.ts";
import { ShapeWatch } from "./shapes.ts";
import { OwnWrites } from "./own_conflicts.ts";
import { NamedDeletions } from "./named_deletions.ts";
import { Withdrawals } from "./withdrawals.ts";
import { SimScheduler, type Unit } from "./scheduler.ts";
import { type ChaosStats, emptyStats, type WorkloadOptions } from "./stats.ts";
import { type ChaosTarget, memoryTarget } from "./target.ts";

interface Busy {
  readonly unit: Unit;
  readonly onFreeze: (why: "crashed" | "hung") => void;
  /** Its number among the commands its clone began (see `WorldSlots.commandSeq`). */
  readonly seq: number;
}

export interface CloneSlot {
  readonly index: number;
  readonly dir: string;
  incarnation: number;
  owner: string;
  svc: SyncService;
  locks: StoreLock[];
  busy?: Busy;
  readonly queue: Command[];
}

export const MAX_QUEUE = 3;

/** The fake time between a checked delete's look and its delete (a network round trip, widened). */
const CHECKED_DELETE_WINDOW_MS = 300;

/**
 * `store` as an endpoint that ignores a delete's condition (MinIO): a
 * delete conditional on a version reads the version (one call), then
 * deletes (another, which names the version checked for the harness's
 * checks): a write can land between the two, and is deleted.
 */
export function checkThenDelete(store: ObjectStore, clock: Clock): ObjectStore {
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

/**
 * The clone slots of a history's world and their setup; the moves, the
 * command runners and the final sync and checks extend it (see `World`).
 */
export abstract class WorldSlots {
  readonly history: History;
  readonly root: string;
  readonly options: WorkloadOptions;
  readonly truth = new GroundTruth();
  readonly changes = new LocalChanges(
    (key) => this.target.inspect.read(key),
    async (key) => {
      const entries = await readIndexEntriesOf(this.target.inspect);
      return entries === null ? null : entries[key]?.h;
    },
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
  protected readonly resolutionDeleted = new Map<string, { clone: number; version?: string }>();
  /** Writer ids of caches a `copy` move replaced: their uploads no commit named are left for good. */
  protected readonly abandonedWriters = new Set<string>();
  /**
   * The objects each clone's present cache deleted on the store, by clone:
   * path to the versions deleted (a deletion's commit may not have come).
   */
  protected readonly deletedBy = new Map<number, Map<string, Set<string>>>();
  /**
   * The same of caches a `copy` move replaced, and of a clone whose record of
   * the version deleted a damaged line of its manifest log held, its process
   * restarted (a `damaged` move): a deletion whose commit never came, which
   * its cache no longer knows of, leaves the index naming the version
   * deleted, until a pull past the dangling-entry grace removes the entry
   * (I7's and I8's exception).
   */
  protected readonly abandonedDeletes = new Map<string, Set<string>>();
  /**
   * The uploads of a refused run whose deletion was still pending in a
   * cache a `copy` move replaced (its erasure journal's `uploads`), by path:
   * the versions. The journal goes with the old directory, so they are left
   * for good, named by no index (I2's final exception).
   */
  protected readonly abandonedErasures = new Map<string, Set<string>>();
  readonly stats: ChaosStats = emptyStats();
  readonly sched: SimScheduler;
  readonly registry = new ConditionalWrites();
  readonly clones: CloneSlot[] = [];
  target!: ChaosTarget;
  gated!: ObjectStore;
  operator!: SyncService;
  protected currentOpId = -1;
  protected aborted = false;
  protected readonly env: CommandEnv;
  /** Clones armed to crash between a commit-step write and the index update: saw that write? */
  protected readonly armed = new Map<CloneSlot, boolean>();
  /**
   * Clones armed to stop after their next v1 index write (`companions`) or
   * after their move's read of the v1 index (`move`): `seen` once it was.
   */
  protected readonly stallArmed = new Map<
    CloneSlot,
    { at: "companions" | "move" | "withdraw" | "commit"; seen: boolean; run?: number }
  >();
  /** Armed clones now parked at the index update (on the call named), to crash after this decision. */
  protected readonly due = new Map<CloneSlot, string>();
  /** Clones armed to crash as their next index write lands (`crash` at `answer`). */
  protected readonly answerArmed = new Set<CloneSlot>();
  /** Clones whose index write landed while armed so: they crash at the next decision. */
  protected readonly answerDue = new Set<CloneSlot>();
  /** Clones whose cache a second process shared (`sibling` moves). */
  protected readonly shared = new Set<CloneSlot>();
  /** Clones whose manifest log another process's write ahead left torn (`torn` moves). */
  protected readonly torn = new Set<CloneSlot>();
  /**
   * The paths, clone by clone, whose latest record a damaged line of the
   * clone's manifest log held (`damaged` moves): each counts as synced at
   * its record before, or as never synced (I30 checks no other record is
   * lost; the other invariants spare what that leads to at that path alone).
   */
  protected readonly damagedPaths = new Map<number, Set<string>>();
  /**
   * Clones whose process died inside its save, after its base's rename
   * (`damaged` moves with `dies`), to crash at the next decision: the line
   * another process wrote ahead since that save's take-in (its path and
   * record), and the dying process's record of that path then (I30: the
   * process started afresh holds the line's record, unless the dying one
   * recorded the path again before its crash).
   */
  protected readonly saveDue = new Map<
    CloneSlot,
    { path: string; entry: SyncedEntry; held: SyncedEntry; nolog: boolean } | undefined
  >();
  /**
   * Clones whose replacement of the manifest's log after a base failed
   * (`damaged` moves with `replaceFails`), their process living on: the
   * path another process wrote a line of ahead since that save's take-in,
   * the line's record, the process's own then, and its incarnation (I30
   * after the final sync).
   */
  protected readonly logFailed = new Map<
    CloneSlot,
    { path: string; entry: SyncedEntry; held: SyncedEntry; incarnation: number }
  >();
  /**
   * Damaged lines of a clone's manifest log made while its process stayed
   * open (`damaged` moves with `open`), by clone (see `damaged_open.ts`).
   */
  protected readonly damagedOpen = new Map<CloneSlot, DamagedOpen>();
  /** The index's history as clones' calls meet it, for I32 (see `withdrawals.ts`). */
  protected readonly withdrawals = new Withdrawals();
  /**
   * Per clone: how many commands it began and the last of them that ended
   * (or was frozen by its process's death) and that attempted the global
   * lock, by their numbers: what an old client's push stopped inside its
   * read-modify-write waits for (`oldpush` with `window`).
   */
  protected readonly commandSeq = new Map<
    number,
    { begun: number; ended: number; atLock: number }
  >();

  /** The old clients' pushes (op ids) that read the index and stopped before their write (`window`). */
  protected readonly oldWindowsOpen = new Set<number>();

  protected seqOf(clone: number): { begun: number; ended: number; atLock: number } {
    let s = this.commandSeq.get(clone);
    if (!s) this.commandSeq.set(clone, s = { begun: 0, ended: 0, atLock: 0 });
    return s;
  }

  constructor(history: History, root: string, options: WorkloadOptions) {
    this.history = history;
    this.root = root;
    this.options = options;
    // Each copy a user removes here is told of to I23.
    const record = this.changes.record.bind(this.changes);
    this.changes.record = (e, bytes, syncedHash) => {
      if (bytes === null) this.namedDeletes.removed(e.clone, e.path);
      return record(e, bytes, syncedHash);
    };
    this.sched = new SimScheduler({
      realTimeoutMs: options.realTimeoutMs,
      onSettle: (u) => this.settled(u),
      onPark: (u, what) => this.parked(u, what),
    });
    this.env = {
      seed: history.seed,
      oldClients: history.oldClients,
      globalLockCommits: history.oldClients === true &&
        !options.disable?.includes(GLOBAL_LOCK_COMMITS),
      truth: this.truth,
      changes: this.changes,
      shapes: this.shapes,
      stats: this.stats,
      outcome: (o, what, error) => this.outcome(o, what, error),
      opId: () => this.currentOpId,
      withdrawnNamed: async (path, holder) => {
        const entries = await indexEntriesOf(this.target.inspect);
        const slot = this.clones.find((c) => c.svc.identity.holder === holder);
        if (!slot) return Object.hasOwn(entries, path);
        const held = (await this.target.direct.head(path).catch(() => null))?.version ?? null;
        return this.withdrawals.answerable(slot.index, path, entries, held);
      },
      sluiceUnnamed: async (entries) => {
        const keys = (await this.target.inspect.keys()).filter((k) =>
          SHARED_FILES.includes(k) && !Object.hasOwn(entries, k)
        );
        const out: string[] = [];
        for (const k of keys) {
          const head = await this.target.unfaulted((s) => s.head(k)).catch(() => null);
          if (head?.metadata?.[WRITER_METADATA]) out.push(k);
        }
        return out;
      },
      storeRead: (path) => this.target.inspect.read(path),
      indexNames: async (path) => Object.hasOwn(await indexEntriesOf(this.target.inspect), path),
      pushedUnderGlobalLock: (svc, r) => {
        const slot = this.clones.find((c) => c.svc === svc);
        if (slot) this.settleNamed(slot.index, r);
      },
      markerEntries: async () => {
        const entries = await indexEntriesOf(this.target.inspect);
        return Object.fromEntries(
          Object.entries(entries).filter(([p, e]) => p.endsWith("/latest") && !isUnversioned(e))
            .map(([p, e]) => [p, e.v]),
        );
      },
      heldVersion: async (path) =>
        (await this.target.direct.head(path).catch(() => null))?.version ?? null,
      windowOf: (clone, op) => {
        this.oldWindowsOpen.add(op);
        const s = this.seqOf(clone);
        const from = s.begun;
        return () => s.ended > from || s.atLock > from;
      },
      spawn: (clone, label, body) => {
        const slot = this.clones[clone];
        this.sched.spawn(`c${clone} ${label}`, slot.owner, async () => {
          try {
            await body();
          } finally {
            if (!slot.busy) await this.checkLocal(slot);
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
      this.watched(this.target.store),
      harnessDeps({
        read: (key) => this.target.inspect.read(key),
        changes: this.changes,
        direct: this.target.direct,
        owner: () => this.sched.owner,
        label: () => this.sched.label,
        clones: this.clones,
        violate: (v) => this.truth.violate(v),
        opId: () => this.currentOpId,
        vanished: (path, e) => this.truth.namesVanished(path, e),
        raced: (path, bytes, version) => this.raced(path, bytes, version),
        markerRollback: (path, hash) => this.truth.markerRollbacks.has(`${path}\0${hash}`),
      }),
    );
    const owned = this.ownWrites.watch(
      this.namedDeletions(checked),
      () => {
        if (this.history.etag || isOldClientCommand(this.sched.label ?? "")) return undefined;
        return this.clones.find((c) => c.owner === this.sched.owner)?.index;
      },
      (key) => this.target.direct.head(key),
    );
    const withdrawing = this.withdrawals.watch(
      owned,
      () => {
        const label = this.sched.label ?? "";
        if (isOldClientCommand(label) || isOldPullCommand(label)) return undefined;
        return this.clones.find((c) => c.owner === this.sched.owner)?.index;
      },
      () => indexEntriesOf(this.target.inspect),
    );
    const shaped = this.shapes.watch(this.setAsideLooks(this.answerLoss(withdrawing)), () => {
      if (isOldClientCommand(this.sched.label ?? "")) return undefined;
      const slot = this.clones.find((c) => c.owner === this.sched.owner);
      return slot && { clone: slot.index, state: slot.svc.state };
    }, () => this.currentOpId);
    const blipped = this.blips(shaped);
    this.gated = this.history.checkedDeletes
      ? checkThenDelete(this.sched.wrap(blipped), this.sched.clock)
      : this.sched.wrap(blipped);
    this.shapes.head = (key) => this.target.direct.head(key);
    // Probe once, directly: every later decision is then a memo hit, never a wait on another unit.
    await this.registry.probe(this.target.store);
    await plantSentinel(this.root);
    for (let i = 0; i < this.history.clones; i++) {
      const dir = `${this.root}/c${i}`;
      const { svc, locks } = await this.service(dir, `c${i}`, i, 0);
      this.named(svc, i);
      this.clones.push({ index: i, dir, incarnation: 0, owner: `c${i}.0`, svc, locks, queue: [] });
    }
    this.operator = (await this.service(`${this.root}/operator`, "operator", 999, 0)).svc;
  }

  /**
   * I23 (`named_deletions.ts`): the marks by name and resolutions of clone
   * `index`'s users are told of as they are made, and each push that ends
   * settles the marks it did not leave.
   */
  protected named(svc: SyncService, index: number): void {
    const mark = svc.markDirty.bind(svc);
    svc.markDirty = async (o = {}) => {
      const paths = [...(o.relPath !== undefined ? [o.relPath] : []), ...(o.relPaths ?? [])];
      // Each mark's sequence in this process's dirty set, once made: while
      // this process runs the clone and holds the path at that sequence,
      // the user's mark stands (a push may keep it without naming it); a
      // mark the library cleaned and made again has another.
      const made = new Map<string, number>();
      const held = (p: string) => {
        const seq = made.get(p);
        return seq !== undefined && this.clones.find((c) => c.index === index)?.svc === svc &&
          svc.state.snapshot().paths.get(p) === seq;
      };
      if (paths.length > 0) this.namedDeletes.named(index, paths, held);
      await mark(o);
      const now = svc.state.snapshot().paths;
      for (const p of paths) {
        const seq = now.get(p);
        if (seq !== undefined) made.set(p, seq);
      }
    };
    const resolve = svc.resolveConflict.bind(svc);
    svc.resolveConflict = (path, how, ...rest) => {
      this.namedDeletes.named(index, [path]);
      return resolve(path, how, ...rest);
    };
    const push = svc.pushChanged.bind(svc);
    svc.pushChanged = async (o) => {
      const r = await push(o);
      if (!o?.dryRun) this.settleNamed(index, r);
      return r;
    };
  }

  /** I23: a push of clone `index` ended, settling the marks it did not leave. */
  protected settleNamed(index: number, r: PushResult): void {
    this.namedDeletes.pushed(index, [
      ...r.skipped.filter((s) => s.keepDirty).map((s) => s.path),
      ...r.conflicts,
    ]);
  }

  /** `store`, checking each deletion a clone makes against I23 (`named_deletions.ts`). */
  protected namedDeletions(store: ObjectStore): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        const r = await store.put(key, body, mode, o);
        // Written again since a resolution deleted it: no hole of that resolution's.
        this.resolutionDeleted.delete(key);
        return r;
      },
      delete: async (key, o) => {
        const slot = isOldClientCommand(this.sched.label ?? "")
          ? undefined
          : this.clones.find((c) => c.owner === this.sched.owner);
        const why = slot && this.namedDeletes.check(slot.index, key);
        if (slot && why) {
          // A clone's own uncommitted write is its to withdraw; one it holds
          // synced at that very version was committed (peers may hold it
          // too), and is held to its user's names as another writer's is.
          const held = await this.target.direct.head(key);
          const own = await readWriterId(slot.svc.cache);
          const committed = held?.version === slot.svc.state.synced(key)?.version;
          if (held && (held.metadata?.[WRITER_METADATA] !== own || committed)) {
            this.truth.violate({ invariant: "I23", message: why, afterOp: this.currentOpId });
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
              this.deleted(slot.index, key, version);
            }
          }
          throw e;
        }
        if (ofSynced) this.deleted(slot.index, key, version);
        if (slot && / resolve /.test(` ${this.sched.label ?? ""} `)) {
          this.resolutionDeleted.set(key, { clone: slot.index, version: o?.ifVersion });
        }
      },
    };
  }

  /** Clone `clone`'s present cache deleted `version` of `key` on the store. */
  protected deleted(clone: number, key: string, version: string): void {
    const byPath = this.deletedBy.get(clone) ?? new Map<string, Set<string>>();
    this.deletedBy.set(clone, byPath);
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
  protected answerLoss(store: ObjectStore): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        // Who writes is known only now, before the first await.
        const label = this.sched.label ?? "";
        const slot = isOldClientCommand(label) || isOldPullCommand(label)
          ? undefined
          : this.clones.find((c) => c.owner === this.sched.owner && this.answerArmed.has(c));
        const info = await store.put(key, body, mode, o);
        if (!slot || !isIndexObject(key) || key === META_KEY) return info;
        this.answerArmed.delete(slot);
        // The command parks on a look at what it wrote, as its answer is
        // on its way: the process dies there, at the decision that parks it.
        this.answerDue.add(slot);
        await this.gated.head(key).catch(() => null);
        return info;
      },
    };
  }

  /** Per clone slot: the lost versions' set-asides seen, and the index reads still to fail. */
  protected readonly setAsides = new Map<CloneSlot, { seen: number; failing: number }>();
  /** True once the final sync healed every fault: no index read fails after a set-aside then. */
  protected setAsideLooksHealed = false;

  /**
   * `store`, where in `setAsideFlaky` histories a clone's first reads of an
   * index object after a copy of its was set aside as a lost version's (a
   * new `version_exists` reason in its state's set-aside area) fail as
   * unreachable, as many as its retries allow (one more than them): the
   * look that settles the record of its write there fails.
   */
  protected setAsideLooks(store: ObjectStore): ObjectStore {
    if (!this.history.setAsideFlaky) return store;
    return {
      ...store,
      endpoint: store.endpoint,
      get: (key, o) => {
        // Who reads is known only now, before the first await.
        const slot = isIndexObject(key) && !this.setAsideLooksHealed
          ? this.clones.find((c) => c.owner === this.sched.owner)
          : undefined;
        if (slot) {
          const n = lostSetAsides(slot.dir);
          const s = this.setAsides.get(slot) ?? { seen: 0, failing: 0 };
          this.setAsides.set(slot, s);
          if (n > s.seen) [s.seen, s.failing] = [n, CHAOS_CONFIG.retry.retries + 1];
          if (s.failing > 0) {
            s.failing--;
            this.stats.setAsideFlakyLooks++;
            return Promise.reject(
              new UnreachableError("injected flaky look right after a set-aside"),
            );
          }
        }
        return store.get(key, o);
      },
    };
  }

  /**
   * Clones armed by a `blip` move: the key of the call failing (once the
   * first eligible call met it) and how many of its calls are still to fail.
   */
  readonly blipArmed = new Map<
    CloneSlot,
    { key?: string; call: "put" | "delete"; left: number; marker?: boolean; landed?: boolean }
  >();

  /**
   * `store`, where a clone armed by a `blip` move meets a brief outage: its
   * next write (or deletion) of a file's object, no index, lock or lockfile
   * object, fails as unreachable, and so does each retry of that very call
   * (one more than the retries: its attempts spent), while every other call
   * goes through. Disarmed once the last of them failed.
   */
  protected blips(store: ObjectStore): ObjectStore {
    /** 0: the call goes through; 1: it fails; 2: it lands, its answer lost. */
    const strike = (call: "put" | "delete", key: string, create = false): 0 | 1 | 2 => {
      // Who calls is known only now, before the first await.
      const label = this.sched.label ?? "";
      if (isOldClientCommand(label) || isOldPullCommand(label)) return 0;
      const slot = this.clones.find((c) => c.owner === this.sched.owner);
      const armed = slot && this.blipArmed.get(slot);
      if (!slot || !armed || armed.call !== call) return 0;
      let first = false;
      if (armed.key === undefined) {
        if (!blippable(key)) return 0;
        if (armed.marker && (!key.endsWith("/latest") || (call === "put" && !create))) return 0;
        armed.key = key;
        armed.left = CHAOS_CONFIG.retry.retries + 1;
        first = true;
        this.stats.blips++;
        if (armed.marker) this.stats.markerBlips++;
        this.note(
          `c${slot.index} meets a brief outage at its ${call} of ${key}${
            armed.landed ? " (its first attempt lands)" : ""
          }`,
        );
      } else if (armed.key !== key) return 0;
      if (--armed.left <= 0) this.blipArmed.delete(slot);
      return first && armed.landed ? 2 : 1;
    };
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        const s = strike("put", key, mode.kind === "create");
        if (s === 0) return store.put(key, body, mode, o);
        if (s === 2) await store.put(key, body, mode, o);
        throw new UnreachableError(`put ${key}: injected brief outage`);
      },
      delete: (key, o) =>
        strike("delete", key) !== 0
          ? Promise.reject(new UnreachableError(`delete ${key}: injected brief outage`))
          : store.delete(key, o),
    };
  }

  /** The crashes of clones whose index write landed while armed to crash at `answer`. */
  protected async answerCrashes(): Promise<void> {
    for (const slot of this.answerDue) {
      this.answerDue.delete(slot);
      this.stats.crashes++;
      this.stats.answerCrashes++;
      this.note(
        `c${slot.index} crashes as its index write lands, before the answer (${slot.busy?.unit.label})`,
      );
      await this.crash(slot, "crashed");
    }
  }

  protected watched(store: ObjectStore): ObjectStore {
    return watchedStore(store, this.changes, (key) => this.target.inspect.read(key));
  }

  /** The scheduler parked `unit` on `what`: a commit crash of an armed clone may be due. */
  protected parked(unit: Unit, what: string): void {
    // A clone's command attempts the global lock (a push's commit, its
    // preparation done): an old client stopped inside its read-modify-write
    // for it goes on (`oldpush` with `window`).
    if (what.startsWith(`put ${globalLockKey()} `) && !isOldClientCommand(unit.label)) {
      const busy = this.clones.find((c) => c.busy?.unit === unit);
      if (busy) {
        const seq = this.seqOf(busy.index);
        seq.atLock = Math.max(seq.atLock, busy.busy!.seq);
      }
    }
    const stalling = this.clones.find((s) => s.owner === unit.owner && this.stallArmed.has(s));
    const armed = stalling && this.stallArmed.get(stalling)!;
    // `<call> <key>` (a put's mode after it).
    const [call, key = ""] = what.split(" ");
    // Once a data version's file was put, at the next call on a lock or a
    // latest marker: the uploads landed, the check of the run's lock before
    // its commit (or that commit) not made.
    if (armed?.at === "commit") {
      const lockOrMarker = key.endsWith("/.lock") || key.endsWith("/latest");
      if (!new RegExp(`\\brun #${armed.run} `).test(unit.label)) {
        return this.commitPoint(unit, what);
      }
      if (!armed.seen || !lockOrMarker) {
        armed.seen ||= call === "put" && key.startsWith("data/") && /\/\d+\//.test(key);
        return this.commitPoint(unit, what);
      }
    }
    if (armed && !armed.seen) {
      armed.seen = armed.at === "companions"
        ? /^put \.datastore-index\.json/.test(what)
        : armed.at === "withdraw"
        ? call === "put" && isIndexObject(key)
        : isMoveCommand(unit.label) && /^get \.datastore-index\.json/.test(what);
    } else if (armed && armed.at === "withdraw" && (call !== "delete" || isIndexObject(key))) {
      // Not yet: the push deletes no object of a path here.
    } else if (armed) {
      // The index object is written (read, by a move); what follows it (the
      // shards and meta beside it; the move's shard writes) waits until the
      // clone goes on.
      this.stallArmed.delete(stalling!);
      this.stats.stalls++;
      if (armed.at === "companions") this.stats.companionStalls++;
      else if (armed.at === "withdraw") this.stats.withdrawStalls++;
      else if (armed.at === "commit") this.stats.commitStalls++;
      else this.stats.moveStalls++;
      this.note(
        `c${stalling!.index} stops after ${
          armed.at === "companions"
            ? "its v1 index write"
            : armed.at === "withdraw"
            ? "an index write, before its delete"
            : armed.at === "commit"
            ? "its uploads, before its commit (its lock's check, or its marker)"
            : "its move read the v1 index"
        } (${unit.label} on ${what})`,
      );
      this.sched.stop(unit.owner);
    }
    this.commitPoint(unit, what);
  }

  /** A commit crash of an armed clone parked on `what` may be due. */
  private commitPoint(unit: Unit, what: string): void {
    const slot = this.clones.find((s) => s.owner === unit.owner && this.armed.has(s));
    const point = slot && commitCrashPoint(what);
    if (point === "write") this.armed.set(slot!, true);
    else if (point === "index" && this.armed.get(slot!)) this.due.set(slot!, what);
  }

  protected service(dir: string, name: string, index: number, incarnation: number) {
    return clientService({
      dir,
      name,
      index,
      incarnation,
      store: this.gated,
      registry: this.registry,
      clock: this.clockOf(name === "operator" ? undefined : index),
      seed: this.history.seed,
      thirdPartyLocks: this.history.absentOnError === true && name !== "operator",
      warnings: this.stats.warnings,
      // A marker the library reset after erasing a refused run, saying so:
      // the edit named that run's erased version (it is discarded, and told).
      onWarning: (w) => {
        if (w.code === "latest_reset" && w.path && name !== "operator") {
          this.changes.reported(index, w.path);
        }
        if (w.code === "lock_stale_stolen") this.checkTakeover(name, w.message);
        // I30: the checker never leaves a manifest unreadable (a torn last
        // line, a `torn` move's, is read past): a process that finds it so
        // starts with every record its cache's processes synced lost.
        // A damaged line of its log told (see `damagedOpen`).
        const lines = /^synced manifest: lines? ([\d, ]+) of its log/.exec(w.message)?.[1];
        const open = name === "operator" ? undefined : this.damagedOpen.get(this.clones[index]);
        const named = lines?.split(", ").map(Number).includes(open?.line ?? -1) ?? false;
        if (w.code === "state_unreadable" && named && open) {
          if (open.incarnation === incarnation) open.told = true;
          // Told by a second process over the cache (a `sibling` move's),
          // which took the log in first and wrote a base over it: the line is
          // gone from the files, its record lost and told there, and the
          // clone's own process has no line left to read and tell. Told at
          // its open, the line still on disk, it writes that base at its
          // next save: told, once the line is gone (see `damaged_open.ts`).
          else if (incarnation >= SIBLING_INCARNATION) {
            if (damagedLineOnDisk(dir, open.line)) open.toldBySecond = true;
            else open.told = true;
          }
        }
        if (
          w.code === "state_unreadable" && name !== "operator" &&
          /^synced manifest unreadable/.test(w.message)
        ) {
          this.truth.violate({
            invariant: "I30",
            message:
              `a process opening ${name}'s cache found its synced manifest unreadable, every record of what its processes synced lost (${w.message})`,
            afterOp: this.currentOpId,
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
      oldClients: this.env.globalLockCommits,
      indexFirst: this.history.indexFirst,
      reusedLocks: this.history.reusedLocks,
    }, kindOf(this.history, index));
  }

  protected async boot(slot: CloneSlot): Promise<void> {
    if (this.torn.has(slot)) this.stats.tornLogsReopened++;
    const { svc, locks } = await this.service(
      slot.dir,
      `c${slot.index}`,
      slot.index,
      slot.incarnation,
    );
    slot.svc = svc;
    this.named(svc, slot.index);
    slot.locks = locks;
    slot.owner = `c${slot.index}.${slot.incarnation}`;
  }

  /**
   * The clock clone `index` runs on: the scheduler's, shifted by the
   * history's `skewMs` (the store's stamps stay on the scheduler's time).
   */
  protected clockOf(index: number | undefined): Clock {
    const ms = index === undefined ? 0 : this.history.skewMs?.[index] ?? 0;
    return ms === 0 ? this.sched.clock : shiftedClock(this.sched.clock, ms);
  }

  /**
   * I17: a lock is taken over only once its holder has left it unrenewed for
   * its TTL by the store's clock (the scheduler's), whatever the clock of
   * the clone that takes it over.
   */
  protected checkTakeover(name: string, message: string): void {
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
      afterOp: this.currentOpId,
    });
  }

  protected outcome(o: string, what?: string, error?: unknown): void {
    this.stats.outcomes[o] = (this.stats.outcomes[o] ?? 0) + 1;
    // The clone's own command's (not a second process's), for `damagedOpen`.
    const own = /^c(\d+) (?!second process)/.exec(what ?? "")?.[1];
    const open = own === undefined ? undefined : this.damagedOpen.get(this.clones[Number(own)]);
    if (open?.started) open.succeeded = o === "success";
    if (what) this.note(`${what}: ${o}${error instanceof Error ? `: ${error.message}` : ""}`);
    // I10: no fault here corrupts bytes, so an unreadable index or a download unlike its entry is a bug.
    const message = `${what ?? "a command"} failed with corrupt_download: ${
      (error as Error)?.message
    }`;
    if (o === "corrupt_download") {
      this.truth.violate({ invariant: "I10", message, afterOp: this.currentOpId });
    }
    // I16: a failure with no stable code tells the user nothing to act on.
    if (o.startsWith("exception:")) {
      this.truth.violate({
        invariant: "I16",
        message: `${what ?? "a command"} failed with an error that has no stable code (${o}): ${
          (error as Error)?.message
        }`,
        afterOp: this.currentOpId,
      });
    }
  }

  protected note(line: string): void {
    if (!this.options.trace) return;
    const t = ((this.sched.now() - Date.UTC(2026, 0, 1)) / 1000).toFixed(1);
    this.options.trace(`[${t}s] ${line}`);
  }

  protected settled(unit: Unit): void {
    const slot = this.clones.find((s) => s.busy?.unit === unit);
    if (!slot) return;
    const seq = this.seqOf(slot.index);
    seq.ended = Math.max(seq.ended, slot.busy!.seq);
    slot.busy = undefined;
    this.startNext(slot);
  }

  protected startNext(slot: CloneSlot): void {
    if (slot.busy || slot.queue.length === 0) return;
    const cmd = slot.queue.shift()!;
    const svc = slot.svc;
    this.stats.commands++;
    const open = this.damagedOpen.get(slot);
    // A command that reads no line of the manifest's log (see `Command.takesIn`)
    // tells nothing, unless its save took the log in: another process's base
    // was on disk, or it wrote one (the base's generation moved under it).
    const maybe = open?.incarnation === slot.incarnation && cmd.takesIn === false &&
      !open.baseAhead;
    if (open?.incarnation === slot.incarnation) open.started = true;
    const unit = this.sched.spawn(`c${slot.index} ${cmd.label}`, slot.owner, async () => {
      try {
        if (maybe && open) open.genBefore = await diskGen(stateDirOf(slot.dir)) ?? -1;
        await cmd.body(svc);
        // One that called nothing of the library taking the manifest in (a
        // user's edit or deletion by hand: see `Command.tookNothingIn`) read
        // no line of the log and has none to tell: the next command's, then.
        if (open?.incarnation === slot.incarnation && !open.told && cmd.tookNothingIn?.()) {
          open.started = false;
          open.succeeded = undefined;
        }
      } finally {
        await this.checkLocal(slot);
      }
    });
    slot.busy = { unit, onFreeze: cmd.onFreeze, seq: ++this.seqOf(slot.index).begun };
  }

  protected enqueue(clone: number, cmd: Command): void {
    const slot = this.clones[clone];
    if (slot.queue.length >= MAX_QUEUE) return;
    slot.queue.push(cmd);
    this.startNext(slot);
  }

  /** I6 for one clone. */
  protected async checkLocal(slot: CloneSlot): Promise<void> {
    // I30: a damaged line of the manifest's log taken in by a process open
    // since before it (see `damaged_open.ts`).
    await checkDamagedOpen(slot, {
      damagedOpen: this.damagedOpen,
      stats: this.stats,
      truth: this.truth,
      currentOpId: () => this.currentOpId,
    });
    // A path whose latest record a damaged line of the manifest log held
    // counts as synced at its record before, or as never synced (`damaged`
    // moves): what the README says that leads to is spared there alone.
    const lost = this.damagedPaths.get(slot.index);
    const recordLost = (path: string) => lost?.has(path) ?? false;
    for (const v of await this.changes.check(slot.index, slot.dir, this.currentOpId, recordLost)) {
      this.truth.violate(v);
    }
    // I29: no conflict with itself (`own_conflicts.ts`).
    for (
      const v of this.ownWrites.check(
        slot.index,
        slot.svc.conflicts(),
        this.currentOpId,
        recordLost,
      )
    ) {
      this.truth.violate(v);
    }
  }

  /** Crash and restart: the clone's process dies where it is parked. */
  protected async crash(slot: CloneSlot, why: "crashed" | "hung"): Promise<void> {
    this.armed.delete(slot);
    this.answerArmed.delete(slot);
    this.answerDue.delete(slot);
    this.due.delete(slot);
    this.stallArmed.delete(slot);
    // The process started afresh tells a damaged line at its open.
    this.damagedOpen.delete(slot);
    this.sched.resume(slot.owner); // a stopped process can die too: its restart runs
    this.sched.freeze(slot.owner);
    for (const l of slot.locks) l.abandon();
    slot.svc.state.exit(); // the dead process's files are closed, its owner lock released
    if (slot.busy) {
      slot.busy.onFreeze(why);
      slot.busy = undefined;
    }
    const seq = this.seqOf(slot.index);
    seq.ended = seq.begun;
    await this.checkLocal(slot);
    slot.incarnation++;
    await this.boot(slot);
    this.startNext(slot);
  }

  /** Another tool's deletion raced a clone's write (see `WorldMoves`). */
  protected abstract raced(path: string, bytes: Uint8Array, version: string): Promise<void>;
}

/** How many copies the state of the cache `dir` set aside as lost versions' (`version_exists`). */
function lostSetAsides(dir: string): number {
  const area = `${stateDirOf(dir)}/set-aside`;
  let n = 0;
  try {
    for (const d of Deno.readDirSync(area)) {
      try {
        const why = JSON.parse(Deno.readTextFileSync(`${area}/${d.name}/REASON.json`));
        if (why?.code === "version_exists") n++;
      } catch {
        // Not a set-aside's reason (or being written).
      }
    }
  } catch {
    // No set-aside area.
  }
  return n;
}

/**
 * Whether a `blip` move strikes a call on `key`: a file's object a push
 * transfers (an upload, a deletion, a commit-step write), not the layout's
 * own (the index, locks) nor the managed lockfile, which a lockfile
 * transaction writes, not a push's transfer.
 */
function blippable(key: string): boolean {
  return !isLayoutInternal(key) && !key.startsWith(".locks/") && key !== MANAGED_LOCKFILE_PATH;
}

/**
 * The incarnations of the second processes over a clone's cache (`sibling`
 * moves): this plus the move's id, past any of the clone's own process.
 */
export const SIBLING_INCARNATION = 1000;
