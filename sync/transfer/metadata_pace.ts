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
 * rest of the run once {@link MetadataPaceOptions.slowWrites} of them each
 * took longer than {@link MetadataPaceOptions.slowMs}. A run (a pull) starts
 * over with {@link MetadataPace.reset}. Both ways make the same checks: only
 * the calls differ.
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
  /** Slow writes in one run before `"auto"` turns asynchronous. Default 8. */
  readonly slowWrites?: number;
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
  readonly #slowWrites: number;
  readonly #now: () => number;
  #slow = 0;

  constructor(options: MetadataPaceOptions = {}) {
    this.#mode = options.mode ?? "auto";
    this.#slowMs = options.slowMs ?? 0.5;
    this.#slowWrites = options.slowWrites ?? 8;
    this.#now = options.now ?? (() => performance.now());
  }

  /** True when the next write should use asynchronous calls. */
  get async(): boolean {
    return this.#mode === "async" || (this.#mode === "auto" && this.#slow >= this.#slowWrites);
  }

  /** Runs one synchronous write and counts it when it was slow (also when it throws). */
  timed<T>(write: () => T): T {
    const start = this.#now();
    try {
      return write();
    } finally {
      if (this.#now() - start > this.#slowMs) this.#slow++;
    }
  }

  /** Starts a new run: synchronous again under `"auto"`. */
  reset(): void {
    this.#slow = 0;
  }
}
