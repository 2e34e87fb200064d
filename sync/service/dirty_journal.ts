/**
 * The text of the dirty journal (`.sluice/dirty.log`), one line per mark:
 * `*` marks everything (a walk), a JSON string marks a path dirty, and `?`
 * before a JSON string records a path a push is about to write without its
 * being dirty by name (see `SyncState.markAttempted`). `SyncState` appends
 * lines as marks are made and rewrites the whole journal when it compacts.
 *
 * @module
 */

const BULK = "*";
const ATTEMPTED = "?";

/** One line of the journal, read. */
export type JournalLine =
  | { readonly kind: "bulk" }
  | { readonly kind: "dirty" | "attempted"; readonly path: string }
  | { readonly kind: "unreadable" };

/**
 * Reads one line (without its newline).
 *
 * @example
 * ```ts
 * import { readJournalLine } from "./dirty_journal.ts";
 * console.log(readJournalLine('?"a.txt"')); // { kind: "attempted", path: "a.txt" }
 * ```
 */
export function readJournalLine(line: string): JournalLine {
  if (line === BULK) return { kind: "bulk" };
  const attempted = line.startsWith(ATTEMPTED);
  try {
    const path = JSON.parse(attempted ? line.slice(ATTEMPTED.length) : line);
    if (typeof path !== "string") return { kind: "unreadable" };
    return { kind: attempted ? "attempted" : "dirty", path };
  } catch {
    return { kind: "unreadable" };
  }
}

/**
 * Journal lines (each ending in a newline): the bulk mark when `bulk`, then
 * each path dirty by name, then each path recorded as attempted.
 *
 * @example
 * ```ts
 * import { journalLines } from "./dirty_journal.ts";
 * console.log(journalLines({ dirty: ["a.txt"], attempted: ["b.txt"] })); // "\"a.txt\"\n?\"b.txt\"\n"
 * ```
 */
export function journalLines(
  marks: {
    readonly bulk?: boolean;
    readonly dirty?: Iterable<string>;
    readonly attempted?: Iterable<string>;
  },
): string {
  let out = marks.bulk ? `${BULK}\n` : "";
  for (const p of marks.dirty ?? []) out += `${JSON.stringify(p)}\n`;
  for (const p of marks.attempted ?? []) out += `${ATTEMPTED}${JSON.stringify(p)}\n`;
  return out;
}
