/**
 * How the cache makes directories and writes small files: in synchronous
 * calls, or in asynchronous ones.
 *
 * Synchronous calls are the cheapest where the filesystem answers in
 * microseconds (a local disk, tmpfs): no operation is dispatched to a thread
 * and awaited. But they run on the main thread, so where the filesystem is
 * slow at metadata (a network mount, a disk busy with its journal or with
 * discards), every transfer in flight waits while one directory is made.
 * Asynchronous calls run on the runtime's thread pool, beside the transfers.
 *
 * `"auto"` (the default) starts synchronous, times each small write (its
 * directories, the temp file, the rename), and turns asynchronous for the
 * rest of the run once most of the last {@link MetadataPaceOptions.window}
 * writes (at least {@link MetadataPaceOptions.minWrites} of them) each
 * waited longer than {@link MetadataPaceOptions.slowMs}. Most, not some: on
 * a busy machine a write on a fast filesystem is now and then slow because
 * the thread lost its core (measured: 8 slow writes of 200 to 1,900 in one
 * pull on tmpfs, where asynchronous calls cost more than they save), while
 * on a filesystem slow at metadata nearly every write is. Waited, not took:
 * what the process spent on the CPU meanwhile is not counted. A filesystem
 * may be slow at metadata by computing (measured: an ext4 disk where a
 * pull's write took 0.5 to 1 ms, over 90 % of it on the CPU, in the
 * kernel): the same work moved to the runtime's threads still needs a core,
 * and each asynchronous call adds its own cost (1,000-file pulls there that
 * turned asynchronous took 1.23 times a bare loop's CPU, against 1.04 for
 * those kept synchronous). Nor is a wait for a core: on a loaded machine a
 * write on tmpfs may take a millisecond, most of it with its thread ready to
 * run and no core free, and the CPU time does not show that. Before it turns,
 * `"auto"` therefore confirms: the next {@link MetadataPaceOptions.minWrites}
 * writes are timed against the main thread's own time running and waiting
 * for a core (Linux's `/proc/thread-self/schedstat`), and it turns only if
 * most of them still waited longer than `slowMs`; if not, it weighs a whole
 * window again before it may confirm again. Reading that file costs more
 * than a `getrusage`, so only those writes read it; where it cannot be read
 * (Deno reads `/proc` only with all permissions: the command line has them,
 * a host that grants fewer may not), it turns as before, on the CPU time alone. A run (a pull) starts over with
 * {@link MetadataPace.reset}.
 * Both ways make the same checks: only the calls differ.
 *
 * @module
 */

import process from "node:process";

/** `"auto"`: synchronous until the filesystem proves slow; or always one way. */
export type MetadataOps = "auto" | "sync" | "async";

/** Options of {@link MetadataPace}. */
export interface MetadataPaceOptions {
  /** Default `"auto"`. */
  readonly mode?: MetadataOps;
  /**
   * A small write that waited longer than this (ms: its time less the
   * process's CPU time meanwhile) counts as slow. Default 0.5: on a local
   * disk one write of a pull (two new directories, the temp file, its
   * rename) takes well under 0.2 ms; on a network mount, a millisecond or more.
   */
  readonly slowMs?: number;
  /** How many of the last writes are weighed. Default 32. */
  readonly window?: number;
  /** Writes timed before `"auto"` may turn asynchronous. Default 8. */
  readonly minWrites?: number;
  /** Clock in ms (fractional); default `performance.now`. */
  readonly now?: () => number;
  /**
   * This process's CPU time in ms (user and system), subtracted from each
   * write's time. Default `process.cpuUsage`'s with the default
   * {@link now}; none (a write's whole time counts) when `now` is given
   * without it.
   */
  readonly cpu?: () => number;
  /**
   * The main thread's time so far on a core and ready but waiting for one,
   * in ms; `undefined` where it cannot be known. Read only by the writes that
   * confirm a turn. Default: from `/proc/thread-self/schedstat` with the
   * default {@link now}; none (turn without confirming) when `now` is given
   * without it.
   */
  readonly held?: () => number | undefined;
}

/** This process's CPU time so far, in ms (one `getrusage` call). */
function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * The main thread's time running and waiting for a core, in ms, from the
 * first two fields of `/proc/thread-self/schedstat` (ns); `undefined` where
 * that file cannot be read (not Linux, or a process without all permissions:
 * Deno asks for them to read `/proc`).
 */
export function mainThreadHeldMs(): number | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync("/proc/thread-self/schedstat");
  } catch {
    return undefined;
  }
  const [running, waiting] = text.split(" ", 2).map(Number);
  return Number.isFinite(running) && Number.isFinite(waiting)
    ? (running + waiting) / 1e6
    : undefined;
}

/**
 * Decides, from how long synchronous writes took, whether the next write is
 * made asynchronously.
 *
 * @example
 * ```ts
 * import { MetadataPace } from "./metadata_pace.ts";
 * const pace = new MetadataPace();
 * if (!pace.async) pace.timed(() => Deno.mkdirSync(Deno.makeTempDirSync() + "/d"));
 * ```
 */
export class MetadataPace {
  readonly #mode: MetadataOps;
  readonly #slowMs: number;
  readonly #window: number;
  readonly #minWrites: number;
  readonly #now: () => number;
  readonly #cpu: (() => number) | undefined;
  #held: (() => number | undefined) | undefined;
  /** Writes left to confirm a turn with; 0 when not confirming. */
  #confirming = 0;
  /** Writes weighed before the rule may fire: a whole window after a turn not confirmed. */
  #needed: number;
  /** Whether each of the last `window` writes was slow (a ring once full). */
  #recent: boolean[] = [];
  #oldest = 0;
  #slowInWindow = 0;
  #turned = false;

  constructor(options: MetadataPaceOptions = {}) {
    this.#mode = options.mode ?? "auto";
    this.#slowMs = options.slowMs ?? 0.5;
    this.#window = Math.max(1, options.window ?? 32);
    this.#minWrites = Math.max(1, options.minWrites ?? 8);
    this.#now = options.now ?? (() => performance.now());
    this.#cpu = options.cpu ?? (options.now ? undefined : processCpuMs);
    this.#held = options.held ?? (options.now ? undefined : mainThreadHeldMs);
    this.#needed = this.#minWrites;
  }

  /** True when the next write should use asynchronous calls. */
  get async(): boolean {
    return this.#mode === "async" || (this.#mode === "auto" && this.#turned);
  }

  /**
   * Runs one synchronous write and counts it when it waited long (also when
   * it throws): its time less the process's CPU time meanwhile. The CPU
   * time is read again at the end only for a write that took longer than
   * `slowMs`: one that did not cannot have waited longer.
   */
  timed<T>(write: () => T): T {
    if (this.#confirming > 0) return this.#confirm(write);
    const cpu = this.#cpu;
    const start = this.#now();
    const cpuStart = cpu ? cpu() : 0;
    try {
      return write();
    } finally {
      const took = this.#now() - start;
      this.#note(took > this.#slowMs && took - (cpu ? cpu() - cpuStart : 0) > this.#slowMs);
    }
  }

  /** One write of a confirmation: its time less the thread's time running or waiting for a core. */
  #confirm<T>(write: () => T): T {
    const held = this.#held!;
    const start = this.#now();
    const heldStart = held();
    try {
      return write();
    } finally {
      const took = this.#now() - start;
      const heldEnd = heldStart === undefined ? undefined : held();
      if (heldStart === undefined || heldEnd === undefined) {
        // Not known after all: turn as without confirming.
        this.#held = undefined;
        this.#confirming = 0;
        this.#turned = true;
      } else {
        this.#confirming--;
        this.#push(took - (heldEnd - heldStart) > this.#slowMs);
        if (this.#confirming === 0) {
          if (this.#slowInWindow * 2 > this.#recent.length) this.#turned = true;
          else this.#clear(this.#window);
        }
      }
    }
  }

  #note(slow: boolean): void {
    this.#push(slow);
    const weighed = this.#recent.length;
    if (weighed < this.#needed || this.#slowInWindow * 2 <= weighed) return;
    if (this.#held === undefined) this.#turned = true;
    else {
      this.#clear(this.#needed);
      this.#confirming = this.#minWrites;
    }
  }

  #push(slow: boolean): void {
    if (this.#recent.length < this.#window) this.#recent.push(slow);
    else {
      if (this.#recent[this.#oldest]) this.#slowInWindow--;
      this.#recent[this.#oldest] = slow;
      this.#oldest = (this.#oldest + 1) % this.#window;
    }
    if (slow) this.#slowInWindow++;
  }

  /** Forgets the writes weighed; `needed` of them must be weighed before the rule fires again. */
  #clear(needed: number): void {
    this.#recent = [];
    this.#oldest = 0;
    this.#slowInWindow = 0;
    this.#needed = needed;
  }

  /** Starts a new run: synchronous again under `"auto"`. */
  reset(): void {
    this.#clear(this.#minWrites);
    this.#confirming = 0;
    this.#turned = false;
  }
}
