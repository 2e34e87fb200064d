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
 * writes (at least {@link MetadataPaceOptions.minWrites} of them) each took
 * longer than {@link MetadataPaceOptions.slowMs}. Most, not some: on a busy
 * machine a write on a fast filesystem is now and then slow because the
 * thread lost its core (measured: 8 slow writes of 200 to 1,900 in one
 * pull on tmpfs, where asynchronous calls cost more than they save), while
 * on a filesystem slow at metadata nearly every write is. A run (a pull)
 * starts over with {@link MetadataPace.reset}. Both ways make the same
 * checks: only the calls differ.
 *
 * @module
 */

/** `"auto"`: synchronous until the filesystem proves slow; or always one way. */
export type MetadataOps = "auto" | "sync" | "async";

/** Options of {@link MetadataPace}. */
export interface MetadataPaceOptions {
  /** Default `"auto"`. */
  readonly mode?: MetadataOps;
  /**
   * A small write slower than this (ms) counts as slow. Default 0.5: on a
   * local disk one write of a pull (two new directories, the temp file, its
   * rename) takes well under 0.2 ms; on a network mount, a millisecond or more.
   */
  readonly slowMs?: number;
  /** How many of the last writes are weighed. Default 32. */
  readonly window?: number;
  /** Writes timed before `"auto"` may turn asynchronous. Default 8. */
  readonly minWrites?: number;
  /** Clock in ms (fractional); default `performance.now`. */
  readonly now?: () => number;
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
  }

  /** True when the next write should use asynchronous calls. */
  get async(): boolean {
    return this.#mode === "async" || (this.#mode === "auto" && this.#turned);
  }

  /** Runs one synchronous write and counts it when it was slow (also when it throws). */
  timed<T>(write: () => T): T {
    const start = this.#now();
    try {
      return write();
    } finally {
      this.#note(this.#now() - start > this.#slowMs);
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
