/**
 * The units a chaos history's `SimScheduler` (`scheduler.ts`) runs and
 * what it keeps of them: their states, the error for one stuck in real
 * time, the scheduler's counters and options, and its records of parked
 * store calls, timers and what runs now.
 *
 * @module
 */

/** Where a unit is. */
export type UnitState = "ready" | "running" | "parked" | "done" | "frozen";

/** A command run by the scheduler. */
export interface Unit {
  /** Sequence number. */
  readonly id: number;
  /** What it runs, for messages. */
  readonly label: string;
  /** The process it belongs to (a clone incarnation, or the operator); crashes freeze by owner. */
  readonly owner: string;
  /** Fake time it was spawned (moved on by the time its owner spent stopped). */
  startedAt: number;
  /**
   * Fake time the latency of other commands' store calls added while it
   * ran, counted when it started (negative) and at each of their calls: the
   * scheduler releases calls one at a time, where a store serves them side
   * by side, so that time is not its own.
   */
  othersLatency: number;
  /**
   * Fake time it spent parked on its own store calls before the scheduler
   * released them, less the latency of other commands' calls released
   * meanwhile (in {@link Unit.othersLatency} already): a store answers a
   * call at once (or after its latency), so time the scheduler lets pass
   * while holding one back (a `wait`, a step to the next timer, other
   * units' turns) is not the command's own either.
   */
  withheld: number;
  /** Where it is. */
  state: UnitState;
  /** The store call or wait it is parked on. */
  parkedOn: string;
}

/** A unit did not reach a store call, a clock wait or its end within the real-time budget. */
export class StuckError extends Error {
  /** The unit. */
  readonly unit: Unit;
  constructor(unit: Unit, ms: number) {
    super(
      `${unit.label} neither reached a store call, a clock wait nor its end within ${ms} ms of real time (last parked on ${
        unit.parkedOn || "nothing"
      })`,
    );
    this.unit = unit;
  }
}

/** Counters of a scheduler. */
export interface SchedulerStats {
  /** Scheduling decisions taken. */
  decisions: number;
  /** Store calls made through the wrapped store (commands and heartbeats). */
  calls: number;
  /** Calls that arrived when no unit was running (a broken determinism assumption; should be 0). */
  strays: number;
  /** Timers fired. */
  timersFired: number;
}

/** Options of {@link SimScheduler}. */
export interface SimSchedulerOptions {
  /** Fake start time; default 2026-01-01T00:00:00Z. */
  readonly start?: number;
  /** Real-time budget for a unit to park again; default 20 000 ms. */
  readonly realTimeoutMs?: number;
  /** Probability that a decision lets time pass although store calls are parked; default 0.1. */
  readonly advanceProbability?: number;
  /** Called when a unit ends (the workload starts the clone's next command here). */
  readonly onSettle?: (unit: Unit) => void;
  /** Called when a unit parks on a store call or a wait (`what`), before any other unit runs. */
  readonly onPark?: (unit: Unit, what: string) => void;
}

/** A store call parked until the scheduler releases it. */
export interface PendingCall {
  readonly unit: Unit;
  readonly what: string;
  readonly release: () => void;
}

/** A timer of the fake clock: a clock wait of a command, or a background task (a heartbeat). */
export interface Timer {
  readonly id: number;
  readonly at: number;
  readonly owner: string;
  /** Set for a clock wait of a command: firing resumes that unit. */
  readonly unit?: Unit;
  readonly fn: () => void;
}

/** A unit ready to run, and what resumes it. */
export interface Runnable {
  readonly unit: Unit;
  readonly kick: () => void;
}

/** Marks the background window a timer task runs in. */
export const BACKGROUND = Symbol("background");
/** What runs now: a unit, a background task of an owner, or nothing. */
export type Current = Unit | { readonly [BACKGROUND]: true; readonly owner: string } | undefined;
