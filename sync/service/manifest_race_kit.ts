/**
 * The setting of the tests of a base written while another process writes
 * ahead: two `ManifestFiles` over one state directory, the first one's next
 * save due to write a base (its log as long as its manifest), and a hook
 * that runs inside that base's write, once its take-in has read the log.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ManifestFiles } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";

/** A record whose fields all say `n`. */
export const entry = (n: number): SyncedEntry => ({
  hash: `h${n}`,
  version: `v${n}`,
  size: n,
  mtimeMs: n,
});

/** A save's index version: unchanged. */
export const NO_INDEX = { changed: false, version: undefined };

/** What {@link baseDue} sets up. */
export interface BaseDue {
  readonly dir: string;
  /** The process whose next save of {@link many} writes a base. */
  readonly one: ManifestFiles;
  /** Another process over the same files, which has read them. */
  readonly two: ManifestFiles;
  readonly mine: Map<string, SyncedEntry>;
  readonly theirs: Map<string, SyncedEntry>;
  /** The paths `one` saved once and changed since (each record one more). */
  readonly many: string[];
  /** Runs `then` once, inside `one`'s next base write, after its take-in read the log. */
  arm(then: () => void): void;
  /** True once the armed hook ran. */
  readonly ran: boolean;
}

/**
 * Two processes over a fresh state directory: `one` wrote a base of one
 * record (a: 1) and saved 1,100 records (g0…) as log lines, which `two`
 * read; `one` changed them all since, so its next save writes a base.
 */
export async function baseDue(): Promise<BaseDue> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  let armed: (() => void) | undefined;
  let ran = false;
  const one = new ManifestFiles(dir, {
    beforeBase: () => {
      const then = armed;
      armed = undefined;
      if (!then) return;
      ran = true;
      then();
    },
  });
  const mine = new Map([["a", entry(1)]]);
  await one.load(new Map());
  await one.ensureBase(mine, undefined);
  const two = new ManifestFiles(dir);
  const theirs = new Map<string, SyncedEntry>();
  await two.load(theirs);
  // Twice as many lines as entries at the next save: it writes a base.
  const many: string[] = [];
  for (let i = 0; i < 1100; i++) {
    mine.set(`g${i}`, entry(i));
    many.push(`g${i}`);
  }
  await one.save(mine, many, NO_INDEX);
  await two.refresh(theirs, []);
  for (const p of many) mine.set(p, entry(Number(p.slice(1)) + 1));
  return {
    dir,
    one,
    two,
    mine,
    theirs,
    many,
    arm: (then) => void (armed = then),
    get ran() {
      return ran;
    },
  };
}

/** `two` writes its record of `p` (99) ahead, as {@link baseDue}'s armed hook does in the tests. */
export function writeAheadP(r: BaseDue, message: string): void {
  r.theirs.set("p", entry(99));
  assert.equal(r.two.writeAhead(r.theirs, ["p"]), true, message);
}
