/**
 * I22 for a resolution that did not resolve while a second process over
 * the clone's cache recorded a newer conflict of its path inside it (see
 * `world_moves.ts`): the record left open on disk must not be the older one
 * the resolution read, saved over the newer one.
 *
 * @module
 */
import type { ConflictRecord } from "../../sync/service/conflicts.ts";
import type { Violation } from "./truth_records.ts";

/** The version of theirs a record names ("a deletion" for none). */
function theirsOf(rec: ConflictRecord): string {
  return rec.theirs?.version ?? "a deletion";
}

/**
 * The records of each clone's paths as its own resolution was about to
 * clear them, and as a second process over its cache left them, for
 * {@link ReopenedRecords.check}.
 */
export class ReopenedRecords {
  /** By clone: the records on disk as its own process was about to clear one. */
  readonly #read = new Map<number, readonly ConflictRecord[]>();
  /** By clone: the records on disk as the second process's command ended. */
  readonly #saved = new Map<number, readonly ConflictRecord[]>();

  /** Clone `clone`'s own process is about to clear a record: `records` are those on disk. */
  read(clone: number, records: readonly ConflictRecord[]): void {
    this.#read.set(clone, records);
  }

  /** A second process over clone `clone`'s cache ended its command: `records` are those on disk. */
  saved(clone: number, records: readonly ConflictRecord[]): void {
    this.#saved.set(clone, records);
  }

  /**
   * I22 for clone `clone`'s resolution `--how` of `path` that did not
   * resolve, `records` those on disk as it ended: where the second process
   * left a record of the path naming another version of theirs than the
   * one the resolution was about to clear, the record open must not name
   * that older one again (the resolution's own record saved over the
   * newer). What was taken down is forgotten either way.
   */
  check(
    clone: number,
    path: string,
    how: string,
    records: readonly ConflictRecord[],
    afterOp: number,
  ): Violation | undefined {
    const older = this.#read.get(clone)?.find((r) => r.path === path);
    const newer = this.#saved.get(clone)?.find((r) => r.path === path);
    this.#read.delete(clone);
    this.#saved.delete(clone);
    const open = records.find((r) => r.path === path);
    if (!older || !newer || !open || theirsOf(older) === theirsOf(newer)) return undefined;
    if (theirsOf(open) !== theirsOf(older)) return undefined;
    return {
      invariant: "I22",
      message:
        `c${clone}'s resolve --${how} of ${path} did not resolve it and left open the record it read (theirs ${
          theirsOf(older)
        }) over the newer one a second process over its cache recorded as it ran (theirs ${
          theirsOf(newer)
        }): a later resolution acts on an older version of theirs`,
      afterOp,
    };
  }
}
