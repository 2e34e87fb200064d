/**
 * The save-gap move: a core-driven `parallel` run saves its version as the
 * tool's `save` does (`/work/shared/SWAMP_CONTRACT.md` §3.4): the data
 * name's directory marked (the version is not known yet), the directory
 * and the version's made, then, after a wait, `raw`, `metadata.yaml` and
 * the `latest` marker written, and no mark of the version directory after
 * (only `finalizeVersion` makes one). The run's parallel step, in the same
 * process and on the same service, flushes inside that wait: its push,
 * naming its own model, plans while the run's directory is marked, made
 * and still empty, and holds the run's model directory back (another run
 * of the process holds that lock). Whatever that push does with the mark,
 * the run's version, acknowledged by its own flush, must reach every peer
 * (I1).
 *
 * The wait lasts until the step's flush is over (or {@link SAVE_GAP_MAX_MS}
 * of fake time, a flush waiting that long for the global lock), and the
 * step waits for it to begin before its flush: one timing the scheduler
 * could draw, chosen every time.
 *
 * @module
 */
import type { Clock } from "../../sync/ports.ts";
import { mixSeed, Rng } from "./prng.ts";
import type { Op } from "./history_ops.ts";

/**
 * In a share of histories, marks every `parallel` run (see the `run`
 * {@link Op}'s `parallel`) as saving with a gap (`saveGap`), drawn from a
 * generator of its own: the other operations stay as they were.
 *
 * @example
 * ```ts
 * import { markSaveGap } from "./moves_save_gap.ts";
 * import type { Op } from "./history_ops.ts";
 * const ops: Op[] = [{ id: 1, kind: "run", clone: 0, model: 0, data: 0, workMs: 0, parallel: true }];
 * markSaveGap(ops, 7, 1);
 * console.log(ops[0]); // { …, parallel: true, saveGap: true }
 * ```
 */
export function markSaveGap(ops: Op[], seed: number, share: number): void {
  if (!new Rng(mixSeed(seed, 0x73676170)).chance(share)) return;
  for (const [i, op] of ops.entries()) {
    if (op.kind === "run" && op.parallel) ops[i] = { ...op, saveGap: true };
  }
}

/** The longest a save's gap lasts (fake time): past a flush's longest wait for the global lock. */
export const SAVE_GAP_MAX_MS = 90_000;

/** How often each side looks whether the other has moved on. */
const POLL_MS = 100;

/**
 * The gap of one run's save, shared by the run and its parallel step.
 *
 * @example
 * ```ts ignore
 * const gap = new SaveGap(clock);
 * // the step:  await gap.opened(); await flush(); gap.stepOver();
 * // the run:   mark, mkdir; await gap.hold(); write the files
 * ```
 */
export class SaveGap {
  #phase: "before" | "open" | "closed" = "before";
  #stepOver = false;
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * The run, its data name's directory marked and made, nothing written
   * under it yet: waits until the step's flush is over, or
   * {@link SAVE_GAP_MAX_MS}. True when the step's flush ended inside the gap.
   */
  async hold(): Promise<boolean> {
    if (this.#phase === "closed") return false;
    this.#phase = "open";
    const start = this.#clock.now();
    while (!this.#stepOver && this.#clock.now() - start < SAVE_GAP_MAX_MS) {
      await this.#clock.sleep(POLL_MS);
    }
    const inside = this.#stepOver;
    this.#phase = "closed";
    return inside;
  }

  /** The run is past its save, or ends before it: the step waits no more. */
  close(): void {
    this.#phase = "closed";
  }

  /** The step, before its flush: waits until the run's gap begins (or the run is past it). True when it is open. */
  async opened(): Promise<boolean> {
    while (this.#phase === "before") await this.#clock.sleep(POLL_MS);
    return this.#phase === "open";
  }

  /** The step's flush is over (or the step ended without one): the run's save goes on. */
  stepOver(): void {
    this.#stepOver = true;
  }
}
