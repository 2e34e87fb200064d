/**
 * The command runners of a chaos history: each operation applied to the
 * world (a clone's command queued, a fault switched, a move made), the
 * checks after each scheduling decision, and the drain that runs every
 * command to its end.
 *
 * @module
 */
import { readErasureJournal } from "../../middleware/erasure_journal.ts";
import { lockfileCommand, oldPullCommand, oldPushCommand, plainCommand } from "./commands.ts";
import { moveCommand, unwrittenCommand } from "./commands_user.ts";
import { clientCommand } from "./core_driven.ts";
import { formatOp, kindOf, type Op, SHARED_FILES } from "./history.ts";
import { mulberry32 } from "./prng.ts";
import { WorldMoves } from "./world_moves.ts";

/** Scheduler decisions a `stall` at `commit` waits at most for its run to stop there. */
const COMMIT_STOP_DECISIONS = 400;

/** Scheduler decisions an edit made during a command waits at most for its moment. */
const DURING_DECISIONS = 40;

/** Decisions at most until an old client stopping inside its read-modify-write read the index (`window`). */
const OLD_WINDOW_DECISIONS = 300;

/** How a history's world applies each operation and runs the clones' commands. */
export abstract class WorldCommands extends WorldMoves {
  async apply(op: Op): Promise<void> {
    this.currentOpId = op.id;
    this.stats.operations++;
    if (op.kind !== "crash" && op.kind !== "outage") this.note(formatOp(op, this.history.kinds));
    // A second process over an API clone's cache syncs or resolves (see `second`).
    const second = (op.kind === "sync" || op.kind === "resolve") && op.second === true &&
      kindOf(this.history, op.clone) === "api";
    switch (op.kind) {
      case "sync":
      case "resolve":
        if (second) await this.second(op);
        else if (op.kind === "resolve") this.enqueue(op.clone, moveCommand(this.env, op));
        else this.enqueue(op.clone, clientCommand(this.env, op, kindOf(this.history, op.clone)));
        break;
      case "run":
      case "migrate":
        this.enqueue(op.clone, clientCommand(this.env, op, kindOf(this.history, op.clone)));
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
            await this.afterDecision();
          }
          const aimed = parkedOn();
          if (aimed >= 0) this.stats.editsDuring++;
          const file = aimed >= 0 ? aimed : op.file;
          await moveCommand(this.env, { ...op, file, how: "hand" }).body(slot.svc);
          if (!slot.busy) await this.checkLocal(slot);
          break;
        }
        this.enqueue(op.clone, moveCommand(this.env, op));
        break;
      case "bulk":
      case "config":
      case "marker":
      case "adopt":
      case "reshape":
        this.enqueue(op.clone, moveCommand(this.env, op));
        break;
      case "lockfile":
        this.enqueue(op.clone, lockfileCommand(this.env, op));
        break;
      case "foreign":
        await this.foreign(op);
        break;
      case "vanish":
        await this.vanish(op);
        break;
      case "oldpush":
      case "oldpull":
        this.enqueue(
          op.clone,
          op.kind === "oldpush" ? oldPushCommand(this.env, op) : oldPullCommand(this.env, op),
        );
        // Aimed: the scheduler goes on (in arrival order, a few hundred
        // decisions at most) until the old client read the index and stopped
        // (`window`), so that the operations after it run in that window.
        for (
          let i = 0;
          op.window !== undefined && i < OLD_WINDOW_DECISIONS && !this.aborted &&
          !this.oldWindowsOpen.has(op.id) && this.sched.active().length > 0;
          i++
        ) {
          await this.sched.startReady();
          await this.sched.stepInOrder();
          await this.afterDecision();
        }
        break;
      case "unwritten":
        this.enqueue(op.clone, unwrittenCommand(this.env, op));
        break;
      case "sibling":
        await this.sibling(op);
        break;
      case "copy":
        await this.copy(op);
        break;
      case "oldsame":
        await this.oldSame(op);
        break;
      case "lockless":
        await this.lockless(op);
        break;
      case "torn":
        await this.tornLog(op);
        break;
      case "damaged":
        await this.damagedLog(op);
        break;
      case "breakglass":
        this.breakglass(op);
        break;
      case "outage":
        if (op.on) this.stats.outages++;
        this.note(`outage ${op.on ? "on" : "off"}`);
        await this.target.faults.outage(op.on);
        break;
      case "latency":
        this.target.faults.latency(op.ms);
        break;
      case "stall": {
        const owner = this.clones[op.clone].owner;
        if (op.on && op.at === "commit") {
          await this.stopBeforeCommit(op);
        } else if (op.on && op.at) {
          this.note(`c${op.clone} is armed to stop (${op.at})`);
          this.stallArmed.set(this.clones[op.clone], { at: op.at, seen: false });
        } else if (op.on && !this.sched.isStopped(owner)) {
          this.stats.stalls++;
          this.sched.stop(owner);
        } else if (!op.on) {
          this.stallArmed.delete(this.clones[op.clone]);
          this.sched.resume(owner);
        }
        break;
      }
      case "flaky":
        this.target.faults.flaky(op.call, op.count, op.afterEffect);
        break;
      case "blip": {
        const slot = this.clones[op.clone];
        if (op.call === "head" && !op.putBack) {
          // Armed at once: it strikes the command under way.
          this.note(`c${op.clone} is armed to meet a brief outage at its next look at a file`);
          this.blipArmed.set(slot, { call: op.call, left: 0 });
          break;
        }
        // Armed when the clone's queue gets to it: it strikes the command after.
        this.enqueue(
          op.clone,
          plainCommand(this.env, op.clone, `arm a brief outage (${op.call})`, () => {
            // Reached only in the final sync (its queue drained there): none then.
            if (this.currentOpId !== -1) {
              this.blipArmed.set(slot, {
                call: op.call,
                left: 0,
                ...(op.marker ? { marker: true } : {}),
                ...(op.landed ? { landed: true } : {}),
                ...(op.putBack ? { putBack: true } : {}),
              });
            }
            return Promise.resolve();
          }, true), // arming calls nothing of the library: no line of the log read (I30)
        );
        break;
      }
      case "crash": {
        const slot = this.clones[op.clone];
        if (op.at && op.queued) {
          const at = op.at;
          this.enqueue(
            op.clone,
            plainCommand(this.env, op.clone, `arm a crash at ${at}`, () => {
              // Reached only in the final sync (its queue drained there): no crash then.
              if (this.currentOpId === -1) return Promise.resolve();
              if (at === "answer") this.answerArmed.add(slot);
              else this.armed.set(slot, this.armed.get(slot) ?? false);
              return Promise.resolve();
            }, true), // arming calls nothing of the library: no line of the log read (I30)
          );
          break;
        }
        if (op.at === "answer") {
          this.note(`c${op.clone} is armed to crash as its next index write lands`);
          this.answerArmed.add(slot);
          break;
        }
        if (op.at === "commit") {
          this.note(`c${op.clone} is armed to crash between a commit write and the index update`);
          this.armed.set(slot, this.armed.get(slot) ?? false);
          break;
        }
        this.stats.crashes++;
        const where = slot.busy
          ? ` during ${slot.busy.unit.label} (on ${slot.busy.unit.parkedOn})`
          : "";
        this.note(`c${op.clone} crashes${where}`);
        await this.crash(slot, "crashed");
        break;
      }
      case "tick": {
        const next = mulberry32(op.pick);
        for (let i = 0; i < op.n && !this.aborted; i++) {
          await this.sched.startReady();
          await this.sched.step(next(), next());
          await this.afterDecision();
        }
        break;
      }
      case "wait":
        await this.sched.advanceBy(op.ms);
        break;
    }
    await this.sched.startReady();
    await this.afterDecision();
    // I14 at quiet points only: a commit in flight may have written part of a v2 index.
    if (this.checksMarkers && this.sched.active().length === 0 && !this.aborted) {
      await this.truth.checkMarkersNow(this.target.inspect, this.currentOpId);
    }
    // I12 for an old client's write of a refused run's bytes, at quiet points
    // too: an erasure that met that write deletes and puts back in one command,
    // or, where that put-back could not be made (an outage), records it as
    // pending in its journal for the next push (not "for good" yet).
    if (this.sched.active().length === 0 && !this.aborted) {
      const pending = new Set<string>();
      for (const c of this.clones) {
        const j = await readErasureJournal(c.svc.cache).catch(() => undefined);
        for (const u of j?.uploads ?? []) pending.add(u.path);
      }
      await this.truth.checkOldCommittedNow(this.target.inspect, this.currentOpId, pending);
    }
  }

  /**
   * I14 is checked (see `invariants.ts`) with no old client and no adoption
   * or move (an old client writes markers its own way; an adoption or a move
   * publishes what another writer left).
   */
  protected get checksMarkers(): boolean {
    return !this.history.oldClients &&
      !this.history.ops.some((o) => o.kind === "adopt" || o.kind === "migrate");
  }

  /**
   * A `stall` at `commit`: armed for the clone's run `op.run`, the
   * scheduler goes on (at most {@link COMMIT_STOP_DECISIONS} decisions, with
   * choices drawn from `op.pick`) until that run stops there, or is neither
   * under way nor queued.
   */
  private async stopBeforeCommit(op: Extract<Op, { kind: "stall" }>): Promise<void> {
    const slot = this.clones[op.clone];
    const run = new RegExp(`\\brun #${op.run} `);
    this.note(`c${op.clone} is armed to stop (commit, run #${op.run})`);
    this.stallArmed.set(slot, { at: "commit", seen: false, run: op.run });
    const next = mulberry32(op.pick ?? 0);
    const pending = () =>
      run.test(slot.busy?.unit.label ?? "") || slot.queue.some((c) => run.test(c.label));
    for (let i = 0; i < COMMIT_STOP_DECISIONS && this.stallArmed.has(slot) && pending(); i++) {
      await this.sched.startReady();
      await this.sched.step(next(), next());
      await this.afterDecision();
      if (this.aborted) return;
    }
    if (this.stallArmed.get(slot)?.at === "commit") this.stallArmed.delete(slot);
  }

  protected async afterDecision(): Promise<void> {
    if (this.sched.stats.decisions > (this.options.maxDecisions ?? 60_000) && !this.aborted) {
      this.aborted = true;
      this.truth.violate({
        invariant: "I4",
        message: `more than ${
          this.options.maxDecisions ?? 60_000
        } scheduling decisions: livelock (${
          this.sched.active().map((u) => `${u.label} on ${u.parkedOn}`).join("; ")
        })`,
        afterOp: this.currentOpId,
      });
    }
    await this.answerCrashes();
    await this.saveCrashes();
    await this.truth.seeOldPutBack(this.target.inspect);
    for (const [slot, on] of this.due) {
      this.stats.crashes++;
      this.stats.commitCrashes++;
      this.note(
        `c${slot.index} crashes between a commit write and the index update (${slot.busy?.unit.label} on ${on})`,
      );
      await this.crash(slot, "crashed");
    }
    await this.deadlines();
    await this.truth.checkRefusedNow(
      this.target.inspect,
      this.clones.map((c) => c.dir),
      this.currentOpId,
    );
  }

  protected async deadlines(): Promise<void> {
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
        afterOp: this.currentOpId,
      });
      const slot = this.clones.find((s) => s.busy?.unit === u);
      if (slot) await this.crash(slot, "hung");
      else this.sched.freezeUnit(u);
    }
  }

  /** Runs every command to its end: oldest store call first, else the next timer. */
  async drain(): Promise<void> {
    await this.sched.startReady();
    while (this.sched.active().length > 0 && !this.aborted) {
      const progressed = await this.sched.stepInOrder();
      await this.afterDecision();
      if (!progressed) {
        for (const u of this.sched.active()) {
          this.truth.violate({
            invariant: "I4",
            message: `${u.label} waits on ${u.parkedOn || "nothing"} and nothing can wake it`,
            afterOp: this.currentOpId,
          });
          this.sched.freezeUnit(u);
        }
      }
    }
  }
}
