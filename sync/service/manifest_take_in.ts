/**
 * The take-in of the synced manifest's files: what another process over the
 * cache wrote to them (a base, and its log) read into this process's
 * records, with its own unsaved records over them. `ManifestFiles` calls it
 * before a base it writes and when it refreshes; the log's extent read is
 * kept for the base writer (`manifest_base.ts`).
 *
 * @module
 */
import { readBase, replayLog, type SyncedEntry } from "./manifest_log.ts";
import { baseStamp, leftByBase, MANIFEST_FILE, MANIFEST_LOG } from "./manifest_disk.ts";
import type { ManifestState } from "./manifest_state.ts";

/**
 * Takes in what the files hold now (a base, and its log: another process
 * may have written either since this one read them), with this process's
 * own records of `unsaved` paths over them (a record written ahead is in
 * the log taken in, or superseded there by another process's since);
 * `manifest` then holds the result. Returns the paths whose lines this
 * process must write again (its own, under the base taken in), or
 * undefined when there is no readable base on disk (nothing taken in).
 */
export async function takeIn(
  s: ManifestState,
  manifest: Map<string, SyncedEntry>,
  unsaved: ReadonlySet<string>,
): Promise<string[] | undefined> {
  const fresh = new Map<string, SyncedEntry>();
  let gen: number;
  let applied = 0;
  let torn = false;
  let glued = false;
  let damaged = false;
  let left = false;
  let read: { ino: number | null; size: number };
  s.readThrough = undefined;
  let baseRead = false;
  // Before the read: a base replaced in between is found changed at the next write ahead.
  const stamp = await baseStamp(s.dir);
  try {
    const raw = await Deno.readTextFile(`${s.dir}/${MANIFEST_FILE}`);
    const base = readBase(raw, fresh);
    gen = base.gen;
    baseRead = true;
    const logFile = `${s.dir}/${MANIFEST_LOG}`;
    const st = await Deno.lstat(logFile).catch(() => null);
    if (st?.isSymlink) return undefined; // never read through: the next base replaces it
    const bytes = st ? await Deno.readFile(logFile) : new Uint8Array();
    // Lines the base's writer left in the log it read, ending before it
    // replaced it: taken in before the base's own lines, the next save
    // writes them under a base.
    left = leftByBase(base.carry, st ? { bytes, ino: st.ino } : undefined, fresh).length > 0;
    const r = replayLog(new TextDecoder().decode(bytes), gen, fresh);
    applied = r.applied;
    torn = r.torn;
    glued = r.glued;
    damaged = r.damaged.length > 0;
    // Their records are lost: told (once for each line), as at a load.
    for (const n of r.damaged) {
      const key = `${st?.ino ?? ""}:${n}`;
      if (s.damagedFound.has(key)) continue;
      s.damagedFound.add(key);
      s.damagedUntold.push(n);
    }
    // Read on from the end of the last whole line: a last line that looks
    // torn may be another process's write ahead still under way.
    const whole = bytes.lastIndexOf(10) + 1;
    read = { ino: st ? st.ino : null, size: whole };
  } catch {
    // A readable base whose log is not (a line newer than that base, of
    // one never written whole): the next save replaces them with this
    // process's records.
    if (baseRead) s.rewrite = true;
    return undefined;
  }
  // This process's unsaved records only: one it wrote ahead is in the log
  // taken in, where another process may have recorded the path since.
  const own = new Set([...unsaved, ...s.lateUnsaved]);
  for (const p of own) {
    const e = manifest.get(p);
    if (e) fresh.set(p, e);
    else fresh.delete(p);
  }
  manifest.clear();
  for (const [p, e] of fresh) manifest.set(p, e);
  if (gen !== s.gen) {
    // Lines written ahead under the older base were in the log that base's
    // writer took in (or superseded by a newer record there).
    s.ahead.settled();
  }
  s.gen = gen;
  s.baseStamp = stamp;
  s.hasBase = true;
  s.emptyBase = false;
  s.logLines = applied;
  // A line glued to a torn one is read, the log replaced by the next save;
  // so is a log with a damaged line, every other line of it taken in.
  s.rewrite ||= torn || glued || damaged || left;
  s.readThrough = read;
  return [...own];
}
