/**
 * I30's account of a damaged line of a clone's manifest log made while its
 * process stayed open (`damaged` moves with `open`): whether the process
 * told the line by the end of the first command that took the log in, and
 * whether that line is still on disk, unreadable.
 *
 * @module
 */
import { diskGen, MANIFEST_LOG } from "../../sync/service/manifest_disk.ts";
import { findStateDir as stateDirOf } from "../../sync/transfer/cache.ts";
import type { GroundTruth } from "./invariants.ts";
import type { ChaosStats } from "./stats.ts";

/**
 * A damaged line of a clone's manifest log made while its process stayed
 * open: the line's number, the process's incarnation, whether a command of
 * that process began since (it takes the log in first, unless it calls
 * nothing of the library that does: see `Command.tookNothingIn`), whether
 * that command succeeded, and whether the process told the line (I30: by
 * the end of that command, as an open tells it; a command that failed may
 * have failed before it took the log in, such as a sync that found the
 * datastore unreachable, and the next one is awaited).
 */
export interface DamagedOpen {
  line: number;
  incarnation: number;
  started: boolean;
  told: boolean;
  succeeded?: boolean;
  path?: string;
  /** The base's generation on disk before a command that may take nothing in (see `Command.takesIn`). */
  genBefore?: number;
  /** Another process wrote a base after the damage: any save takes the log in. */
  baseAhead?: boolean;
  /**
   * A second process over the cache told the line while it was still on
   * disk (at its open, say): told, once the line is gone from the log (that
   * process's next save writes a base over it, and the clone's process,
   * taking that base in, has no line left to read).
   */
  toldBySecond?: boolean;
}

/** What {@link checkDamagedOpen} needs of the world: a clone slot's process and cache. */
export interface DamagedOpenSlot {
  readonly index: number;
  readonly dir: string;
  readonly incarnation: number;
}

/**
 * I30 as a command of clone `slot` ends: a damaged line of the manifest's
 * log taken in by a process open since before it (at the first command it
 * began since) is told, as at an open: its record is lost.
 *
 * @example
 * ```ts
 * import { checkDamagedOpen } from "./damaged_open.ts";
 * import { GroundTruth } from "./invariants.ts";
 * import { emptyStats } from "./stats.ts";
 * const slot = { index: 0, dir: "/tmp/none", incarnation: 0 };
 * await checkDamagedOpen(slot, {
 *   damagedOpen: new Map(),
 *   stats: emptyStats(),
 *   truth: new GroundTruth(),
 *   currentOpId: () => 0,
 * }); // nothing damaged: nothing to check
 * ```
 */
export async function checkDamagedOpen<S extends DamagedOpenSlot>(
  slot: S,
  world: {
    readonly damagedOpen: Map<S, DamagedOpen>;
    readonly stats: ChaosStats;
    readonly truth: GroundTruth;
    /** The operation now being run, read when a violation is found. */
    readonly currentOpId: () => number;
  },
): Promise<void> {
  const open = world.damagedOpen.get(slot);
  if (open?.genBefore !== undefined && open.incarnation === slot.incarnation) {
    const before = open.genBefore;
    open.genBefore = undefined;
    if (!open.told && (await diskGen(stateDirOf(slot.dir)) ?? -1) === before) {
      open.started = false; // no base written: the log appended to, none of it read
      open.succeeded = undefined;
    }
  }
  if (open?.started && open.incarnation === slot.incarnation) {
    if (!open.told && open.toldBySecond && !damagedLineOnDisk(slot.dir, open.line)) {
      open.told = true;
    }
    if (!open.told && !open.succeeded) open.started = false; // the next command's, then
    else if (open.told) {
      world.damagedOpen.delete(slot);
      world.stats.damagedOpenTold++;
    } else {
      world.damagedOpen.delete(slot);
      world.truth.violate({
        invariant: "I30",
        message:
          `c${slot.index}'s process, open since before line ${open.line} of its manifest log was damaged (${
            open.path === undefined ? "no record of a path" : `the record of ${open.path}`
          }) and another process wrote a line ahead after it, took the log in at a command that succeeded without telling the line (no state_unreadable warning): its record lost unsaid`,
        afterOp: world.currentOpId(),
      });
    }
  }
}

/**
 * True when line `line` (from 1) of the manifest log of the cache at `dir` is
 * on disk and unreadable. Nothing after the log's last newline is a line: a
 * log of four whole lines has no fifth (a base written over a damaged line,
 * a few records appended since, may leave its number just past the end).
 */
export function damagedLineOnDisk(dir: string, line: number): boolean {
  let text: string;
  try {
    text = Deno.readTextFileSync(`${stateDirOf(dir)}/${MANIFEST_LOG}`);
  } catch {
    return false;
  }
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const l = lines[line - 1];
  if (l === undefined) return false;
  try {
    JSON.parse(l);
    return false;
  } catch {
    return true;
  }
}
