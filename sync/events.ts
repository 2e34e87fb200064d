/**
 * Typed events. The library never writes to the console: a command line,
 * a datastore extension or a test listens here.
 *
 * @module
 */
import { EventEmitter } from "eventemitter3";
import type { LockInfo, LockLoss } from "./ports.ts";

/** Progress of a long push or pull. */
export interface ProgressEvent {
  readonly op: "push" | "pull" | "walk";
  readonly filesDone: number;
  readonly filesTotal: number;
  readonly bytesDone: number;
  readonly bytesTotal: number;
  /** Of `filesDone`, the files whose write or deletion failed (a push: it ends with an error). */
  readonly filesFailed?: number;
}

/** Something the user should know; nothing failed because of it. */
export interface WarningEvent {
  /** Stable code, e.g. `conditional_writes_fallback`, `config_changed_remotely`. */
  readonly code: string;
  readonly message: string;
  readonly path?: string;
  /**
   * How many warnings of its code this one stands for, when more than one:
   * a summary of the ones not given one by one ("and 422 more files…"), so
   * that a consumer that counts warnings counts those too.
   */
  readonly count?: number;
}

/** What a gate did (for `status`, the demo and audits). */
export interface GateEvent {
  readonly gate: string;
  readonly message: string;
  readonly path?: string;
}

/** A lock changed state. */
export interface LockEvent {
  readonly key: string;
  readonly holder?: string;
  readonly info?: LockInfo;
  readonly loss?: LockLoss;
  readonly error?: unknown;
}

/** All events, by name. */
export interface SluiceEvents {
  progress: [ProgressEvent];
  warning: [WarningEvent];
  gate: [GateEvent];
  "lock-acquired": [LockEvent];
  "lock-released": [LockEvent];
  "lock-lost": [LockEvent];
  "heartbeat-failed": [LockEvent];
  retry: [{ readonly what: string; readonly attempt: number; readonly error: unknown }];
}

/**
 * The event emitter type every Sluice component shares.
 *
 * @example
 * ```ts
 * import { createEmitter } from "./events.ts";
 * const events = createEmitter();
 * events.on("warning", (w) => console.error(w.message));
 * ```
 */
export type SluiceEmitter = EventEmitter<SluiceEvents>;

/** A new emitter. */
export function createEmitter(): SluiceEmitter {
  return new EventEmitter<SluiceEvents>();
}
