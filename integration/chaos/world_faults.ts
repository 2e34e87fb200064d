/**
 * The faults a chaos history's moves arm at a clone's calls, due as the
 * scheduler parks the clone on a call: a crash between a commit-step write
 * and the index update, a crash as an index write lands before its answer,
 * a stop after an index write or a move's read, and the crash itself, the
 * clone's process restarted. A parked call also tells when a clone's
 * command attempts the global lock, which an old client stopped inside its
 * read-modify-write waits for (see `world_slots.ts`).
 *
 * @module
 */
import { globalLockKey } from "../../sync/locks/model_locks.ts";
import { commitCrashPoint, isIndexObject } from "./clone_setup.ts";
import { isMoveCommand, isOldClientCommand } from "./commands.ts";
import type { Unit } from "./scheduler.ts";
import { type CloneSlot, WorldSlots } from "./world_slots.ts";

/** The clone slots with the faults armed at their calls (see `WorldSlots`). */
export abstract class WorldFaults extends WorldSlots {
  /** Clones armed to crash between a commit-step write and the index update: saw that write? */
  protected readonly armed = new Map<CloneSlot, boolean>();
  /**
   * Clones armed to stop after their next v1 index write (`companions`) or
   * after their move's read of the v1 index (`move`): `seen` once it was.
   */
  protected readonly stallArmed = new Map<
    CloneSlot,
    {
      at: "companions" | "move" | "withdraw" | "commit" | "marker";
      seen: boolean;
      run?: number;
    }
  >();
  /** Armed clones now parked at the index update (on the call named), to crash after this decision. */
  protected readonly due = new Map<CloneSlot, string>();
  /** Clones armed to crash as their next index write lands (`crash` at `answer`). */
  protected readonly answerArmed = new Set<CloneSlot>();
  /** Clones whose index write landed while armed so: they crash at the next decision. */
  protected readonly answerDue = new Set<CloneSlot>();

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
        : armed.at === "marker"
        ? call === "delete" && key.endsWith("/latest")
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
      else if (armed.at === "marker") this.stats.markerStalls++;
      else this.stats.moveStalls++;
      this.note(
        `c${stalling!.index} stops after ${
          armed.at === "companions"
            ? "its v1 index write"
            : armed.at === "withdraw"
            ? "an index write, before its delete"
            : armed.at === "commit"
            ? "its uploads, before its commit (its lock's check, or its marker)"
            : armed.at === "marker"
            ? "its delete of a latest marker's object, before its next call"
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
}
