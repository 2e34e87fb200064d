/**
 * A chaos history's world and its clone slots: the scheduler, each clone's
 * service (booted again after a crash) and the warnings it tells, its
 * queue of commands, and the checks of a clone's local state as each
 * command ends (see `workload.ts`). The crashes and stalls armed at a
 * clone's calls (`world_faults.ts`), the store views its calls go through
 * and the world's setup (`world_stores.ts`) extend it.
 *
 * @module
 */
import { isUnversioned } from "../../sync/transfer/bucket_layout.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import type { StoreLock } from "../../sync/locks/lock_engine.ts";
import type { Clock, ObjectStore } from "../../sync/ports.ts";
import { shiftedClock } from "../../packages/testing/mod.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { PushResult } from "../../sync/service/push_result.ts";
import type { SyncedEntry } from "../../sync/service/manifest_log.ts";
import { diskGen } from "../../sync/service/manifest_disk.ts";
import { findStateDir as stateDirOf } from "../../sync/transfer/cache.ts";
import { type Command, type CommandEnv, GLOBAL_LOCK_COMMITS } from "./commands.ts";
import { clientService } from "./core_driven.ts";
import { type History, kindOf, SHARED_FILES } from "./history.ts";
import { indexEntriesOf, readIndexEntriesOf } from "./index_checks.ts";
import { WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { GroundTruth } from "./invariants.ts";
import { LocalChanges } from "./local_changes.ts";
import { checkDamagedOpen, damagedLineOnDisk, type DamagedOpen } from "./damaged_open.ts";
import { ShapeWatch } from "./shapes.ts";
import { OwnWrites } from "./own_conflicts.ts";
import { NamedDeletions } from "./named_deletions.ts";
import { Withdrawals } from "./withdrawals.ts";
import { SimScheduler, type Unit } from "./scheduler.ts";
import { type ChaosStats, emptyStats, type WorkloadOptions } from "./stats.ts";
import { type ChaosTarget, heldVersionOf } from "./target.ts";

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

/**
 * The clone slots of a history's world; the faults armed at their calls,
 * the store views and setup, the moves, the command runners and the final
 * sync and checks extend it (see `World`).
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
      indexEntries: () => indexEntriesOf(this.target.inspect),
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
      heldVersion: (path) => heldVersionOf(this.target, path),
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
        // The path a pull told of as kept for its entry dropped or rolled back (its first).
        if (w.code === "index_entry_dropped" && w.path && name !== "operator") {
          this.truth.droppedTold.add(`${index}\0${w.path}`);
        }
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

  /** The scheduler parked `unit` on `what` (see `WorldFaults`). */
  protected abstract parked(unit: Unit, what: string): void;

  /** I23: clone `index`'s marks and resolutions on `svc` are told of (see `WorldStores`). */
  protected abstract named(svc: SyncService, index: number): void;

  /** I23: a push of clone `index` ended (see `WorldStores`). */
  protected abstract settleNamed(index: number, r: PushResult): void;

  /** Another tool's deletion raced a clone's write (see `WorldTools`). */
  protected abstract raced(path: string, bytes: Uint8Array, version: string): Promise<void>;
}

/**
 * The incarnations of the second processes over a clone's cache (`sibling`
 * moves): this plus the move's id, past any of the clone's own process.
 */
export const SIBLING_INCARNATION = 1000;
