/**
 * The text of the dirty journal (`.sluice/dirty.log`), one line per mark:
 * `*` marks everything (a walk), a JSON string marks a path dirty, and `?`
 * before a JSON string records a path a push is about to write without its
 * being dirty by name (see `SyncState.markAttempted`). `SyncState` appends
 * lines as marks are made and rewrites the whole journal when it compacts;
 * a rewritten journal begins with `#` and a random generation, so that a
 * process sharing the cache tells a rewrite from appends to the journal it
 * read (a file's inode may be reused by the next rewrite). Each mark is
 * written with `@<owner> ` before it, the id of the process that made it
 * (processes sharing a cache each carry the others' marks, and clear only
 * their own); a line without one is read as before.
 *
 * @module
 */

const BULK = "*";
const ATTEMPTED = "?";
const GENERATION = "#";
const OWNER = "@";

/** One line of the journal, read. */
export type JournalLine =
  | { readonly kind: "bulk"; readonly owner?: string }
  | { readonly kind: "dirty" | "attempted"; readonly path: string; readonly owner?: string }
  | { readonly kind: "generation"; readonly id: string }
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
  if (line.startsWith(OWNER)) {
    const space = line.indexOf(" ");
    if (space < 0) return { kind: "unreadable" };
    const read = readJournalLine(line.slice(space + 1));
    return read.kind === "unreadable" || read.kind === "generation"
      ? { kind: "unreadable" }
      : { ...read, owner: line.slice(OWNER.length, space) };
  }
  if (line === BULK) return { kind: "bulk" };
  if (line.startsWith(GENERATION)) return { kind: "generation", id: line.slice(GENERATION.length) };
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
    /** The generation of a rewritten journal, its first line. */
    readonly generation?: string;
    /** The process that made the marks (see the module's note). */
    readonly owner?: string;
  },
): string {
  let out = marks.generation !== undefined ? `${GENERATION}${marks.generation}\n` : "";
  const by = marks.owner !== undefined ? `${OWNER}${marks.owner} ` : "";
  if (marks.bulk) out += `${by}${BULK}\n`;
  for (const p of marks.dirty ?? []) out += `${by}${JSON.stringify(p)}\n`;
  for (const p of marks.attempted ?? []) out += `${by}${ATTEMPTED}${JSON.stringify(p)}\n`;
  return out;
}

/** What a process opening the cache takes from the journal it read (see {@link takeJournal}). */
export interface TakenJournal {
  /** The journal's lines (not empty), each a mark numbered by its place (from 1). */
  readonly count: number;
  /** The marks this process takes, with the number of their line. */
  readonly marks: readonly {
    readonly at: number;
    readonly kind: "dirty" | "attempted" | "bulk" | "unreadable";
    readonly path?: string;
    /** The process that wrote it, where its line names one. */
    readonly owner?: string;
  }[];
  /** Lines of processes that still run: carried, never this process's to push or clear. */
  readonly foreign: readonly string[];
}

/**
 * Reads the journal `text` as a process opening the cache takes it: a mark
 * of a process that still runs (`runs` of its owner, asked once per owner;
 * a run whose lock may yet be broken) stays that process's; every other
 * mark (and a line no one can read, which makes the process walk
 * everything) is taken over. A generation line marks nothing.
 *
 * @example
 * ```ts
 * import { takeJournal } from "./dirty_journal.ts";
 * takeJournal('"a.txt"\n', () => false).marks; // [{ at: 1, kind: "dirty", path: "a.txt" }]
 * ```
 */
export function takeJournal(text: string, runs: (owner: string) => boolean): TakenJournal {
  const marks: {
    at: number;
    kind: "dirty" | "attempted" | "bulk" | "unreadable";
    path?: string;
    owner?: string;
  }[] = [];
  const foreign: string[] = [];
  const live = new Map<string, boolean>();
  let count = 0;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const at = ++count;
    const read = readJournalLine(line);
    if (read.kind === "generation") continue;
    if (read.kind !== "unreadable" && read.owner !== undefined) {
      let alive = live.get(read.owner);
      if (alive === undefined) live.set(read.owner, alive = runs(read.owner));
      if (alive) {
        foreign.push(line);
        continue;
      }
    }
    const owner = read.kind === "unreadable" ? undefined : read.owner;
    marks.push(
      read.kind === "dirty" || read.kind === "attempted"
        ? { at, kind: read.kind, path: read.path, ...(owner !== undefined ? { owner } : {}) }
        : { at, kind: read.kind, ...(owner !== undefined ? { owner } : {}) },
    );
  }
  return { count, marks, foreign };
}

/**
 * The paths marked dirty by name in `lines` (other processes' journal
 * lines) by an owner that still runs (`runs`): theirs to push.
 *
 * @example
 * ```ts
 * import { liveDirtyPaths } from "./dirty_journal.ts";
 * liveDirtyPaths(['@1.a "a.txt"', '@2.b "b.txt"'], (o) => o === "1.a"); // Set { "a.txt" }
 * ```
 */
export function liveDirtyPaths(
  lines: Iterable<string>,
  runs: (owner: string) => boolean,
): Set<string> {
  const paths = new Set<string>();
  for (const line of lines) {
    const read = readJournalLine(line);
    if (read.kind !== "dirty" || !read.owner || !runs(read.owner)) continue;
    paths.add(read.path);
  }
  return paths;
}
