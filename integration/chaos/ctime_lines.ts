/**
 * Lines of a clone's manifest log that record a path again as its line
 * before did, but for the ctime (`c`). A walk writes such a line when a
 * file's ctime moved with its bytes unchanged (a marker put back as it was);
 * the filesystem stamps ctimes in real time and Deno reports them in whole
 * seconds, so whether the line is written hangs on whether a second of real
 * time ended in between, not on the history. The `damaged` move leaves them
 * out of its pick, and damages them with the record they repeat, so that it
 * does the same to a seed's log either way.
 *
 * @module
 */

/** For each of `lines`: true when it repeats the record its path's line before held, but for `c`. */
export function ctimeOnlyRepeats(lines: readonly string[]): boolean[] {
  const before = new Map<string, string | undefined>();
  return lines.map((line) => {
    let r: { g?: unknown; p?: unknown; e?: unknown };
    try {
      r = JSON.parse(line);
    } catch {
      return false;
    }
    if (typeof r !== "object" || r === null || typeof r.p !== "string") return false;
    const key = `${r.g}\0${r.p}`;
    if (typeof r.e !== "object" || r.e === null) {
      before.set(key, undefined); // a deletion's record
      return false;
    }
    const { c: _c, ...rest } = r.e as Record<string, unknown>;
    const text = JSON.stringify(rest);
    const repeat = before.get(key) === text;
    before.set(key, text);
    return repeat;
  });
}

/**
 * The lines of `lines` (a log split at its newlines, `torn` when it does not
 * end with one) the `damaged` move may pick: every whole line but the last,
 * those that repeat a record but for its ctime left out, and the last one
 * counted as the last once such repeats after it are left out.
 */
export function damageableLines(lines: readonly string[], torn: boolean): number[] {
  const repeat = ctimeOnlyRepeats(lines);
  // The line left alone: the torn one, or the last whole one but for repeats after it.
  let tail = lines.length - (torn ? 1 : 2);
  if (!torn) { while (tail > 0 && repeat[tail]) tail--; }
  const out: number[] = [];
  for (let k = 0; k < tail; k++) if (!repeat[k]) out.push(k);
  return out;
}

/** `at`, and the lines after it that repeat its record but for the ctime (none of its path between). */
export function withRepeats(lines: readonly string[], at: number): number[] {
  const repeat = ctimeOnlyRepeats(lines);
  const pathOf = (line: string): string | undefined => {
    try {
      const r = JSON.parse(line);
      return typeof r?.p === "string" ? `${r.g}\0${r.p}` : undefined;
    } catch {
      return undefined;
    }
  };
  const path = pathOf(lines[at]);
  const out = [at];
  if (path === undefined) return out;
  for (let k = at + 1; k < lines.length; k++) {
    if (pathOf(lines[k]) !== path) continue;
    if (!repeat[k]) break;
    out.push(k);
  }
  return out;
}
