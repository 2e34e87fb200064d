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
 * those kept synchronous). A run (a pull) starts over with
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
}

/** This process's CPU time so far, in ms (one `getrusage` call). */
function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
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

  #note(slow: boolean): void {
    if (this.#recent.length < this.#window) this.#recent.push(slow);
    else {
      if (this.#recent[this.#oldest]) this.#slowInWindow--;
      this.#recent[this.#oldest] = slow;
      this.#oldest = (this.#oldest + 1) % this.#window;
    }
    if (slow) this.#slowInWindow++;
    const weighed = this.#recent.length;
    if (weighed >= this.#minWrites && this.#slowInWindow * 2 > weighed) this.#turned = true;
  }

  /** Starts a new run: synchronous again under `"auto"`. */
  reset(): void {
    this.#recent = [];
    this.#oldest = 0;
    this.#slowInWindow = 0;
    this.#turned = false;
  }
}
