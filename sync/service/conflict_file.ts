/**
 * The conflict records file (`<cache>/.sluice/conflicts.json`) as text, and
 * the records read from it (see `ConflictSet` in `conflicts.ts`).
 *
 * @module
 */
import type { ConflictRecord, LocalSide } from "./conflicts.ts";

/** The file's shape. */
export interface ConflictFile {
  format: 1;
  conflicts: Record<string, ConflictRecord>;
}

/** The records of the file's text `text`; throws when it is no such file. */
export function parseRecords(text: string): Map<string, ConflictRecord> {
  const out = new Map<string, ConflictRecord>();
  const j = JSON.parse(text) as ConflictFile;
  if (j?.format !== 1 || typeof j.conflicts !== "object" || j.conflicts === null) {
    throw new Error("unknown format");
  }
  for (const [p, r] of Object.entries(j.conflicts)) {
    if (typeof r?.path !== "string" || r.path !== p) continue;
    // A malformed list of earlier copies is dropped, not the record.
    const { keptAside, ...rest } = r;
    const kept = keptCopies(keptAside);
    out.set(p, kept.length ? { ...rest, keptAside: kept } : rest);
  }
  return out;
}

/** True when two records, as read from the file, are the same (or both absent). */
export function sameRecord(
  a: ConflictRecord | undefined,
  b: ConflictRecord | undefined,
): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The well-formed entries of a record's `keptAside` (none when it is not a list). */
export function keptCopies(list: unknown): LocalSide[] {
  if (!Array.isArray(list)) return [];
  return list.filter((c) =>
    typeof c?.location === "string" && typeof c.hash === "string" && typeof c.size === "number"
  );
}
