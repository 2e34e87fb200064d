/**
 * A push pass's progress: files and bytes done against its totals, counting
 * on from what an earlier pass of the same push did (`ProgressSoFar`), the
 * bytes of large files on their way up included, told as `progress` events
 * (`op: "push"`) when anyone listens.
 *
 * @module
 */
import type { SluiceEmitter } from "../events.ts";

/** A push's progress figures so far, across its passes. */
export interface ProgressSoFar {
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  /** Of `filesDone`, those whose write failed (absent: none). */
  filesFailed?: number;
}

const NO_PROGRESS: ProgressSoFar = { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 };

/**
 * One pass's figures. `soFar`, when given, is where the pass counts on from
 * and where it leaves its own figures at each file's end.
 *
 * @example
 * ```ts
 * import { PushProgress } from "./push_progress.ts";
 * import { createEmitter } from "../events.ts";
 * const p = new PushProgress(createEmitter(), { files: 2, bytes: 10 });
 * p.step(4);
 * console.log(p.figures()); // { filesDone: 1, filesTotal: 2, bytesDone: 4, bytesTotal: 10 }
 * ```
 */
export class PushProgress {
  readonly #events: SluiceEmitter;
  readonly #from: ProgressSoFar;
  readonly #soFar?: ProgressSoFar;
  readonly #filesTotal: number;
  readonly #bytesTotal: number;
  #filesDone = 0;
  /** Of them, failed ones (this pass). */
  #filesFailed = 0;
  /** Bytes of the files whose write ended, whatever its outcome (found in place too). */
  #bytesFinished = 0;
  /** Bytes of large files on their way up, by path (a retry starts its file again). */
  readonly #moving = new Map<string, number>();

  constructor(
    events: SluiceEmitter,
    totals: { readonly files: number; readonly bytes: number },
    soFar?: ProgressSoFar,
  ) {
    this.#events = events;
    this.#from = { ...(soFar ?? NO_PROGRESS) };
    this.#soFar = soFar;
    this.#filesTotal = totals.files;
    this.#bytesTotal = totals.bytes;
    this.#leave();
  }

  /** The figures now, bytes on their way up included. */
  figures(): ProgressSoFar {
    let moving = 0;
    for (const b of this.#moving.values()) moving += b;
    return {
      filesDone: this.#from.filesDone + this.#filesDone,
      filesTotal: this.#from.filesTotal + this.#filesTotal,
      bytesDone: this.#from.bytesDone + this.#bytesFinished + moving,
      bytesTotal: this.#from.bytesTotal + this.#bytesTotal,
      ...(this.#filesFailed > 0 ? { filesFailed: this.#filesFailed } : {}),
    };
  }

  /** `delivered` bytes of `path` are on their way up so far. */
  moving(path: string, delivered: number): void {
    this.#moving.set(path, delivered);
    this.#tell();
  }

  /**
   * One more file's write (of `bytes`, its upload over: `path`) or deletion
   * ended; `failed` when it failed (counted apart, so that a bar at its end
   * never reads as all done).
   */
  step(bytes = 0, path?: string, failed = false): void {
    if (path !== undefined) this.#moving.delete(path);
    this.#filesDone++;
    if (failed) this.#filesFailed++;
    this.#bytesFinished += bytes;
    this.#leave();
    this.#tell();
  }

  /** Files (of `bytes` in all) counted as ended that are written again: counted once more as they end. */
  again(files: number, bytes: number): void {
    this.#filesDone -= files;
    this.#bytesFinished -= bytes;
  }

  // Written in place once per file (no object made): a second pass counts on from here.
  #leave(): void {
    const to = this.#soFar;
    if (!to) return;
    to.filesDone = this.#from.filesDone + this.#filesDone;
    to.filesTotal = this.#from.filesTotal + this.#filesTotal;
    to.bytesDone = this.#from.bytesDone + this.#bytesFinished;
    to.bytesTotal = this.#from.bytesTotal + this.#bytesTotal;
  }

  // Nobody listening (a library caller without a progress bar): the event is not built.
  #tell(): void {
    if (this.#events.listenerCount("progress") > 0) {
      this.#events.emit("progress", { op: "push", ...this.figures() });
    }
  }
}
