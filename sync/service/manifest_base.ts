/**
 * The base writer of the synced manifest: a new base of the next
 * generation written atomically, naming the log its take-in read, then
 * that log replaced by one holding the lines another process wrote ahead
 * to it since the take-in read it, taken in and written again under the
 * new base.
 *
 * @module
 */
import { atomicWrite } from "../transfer/atomic_write.ts";
import { baseText, logLines, type SyncedEntry } from "./manifest_log.ts";
import { writingState } from "./state_files.ts";
import {
  baseStamp,
  diskGen,
  filesSnapshot,
  lateLines,
  logMaxGen,
  MANIFEST_FILE,
  MANIFEST_LOG,
  openLogIfSame,
} from "./manifest_disk.ts";
import type { ManifestState } from "./manifest_state.ts";

const ENCODER = new TextEncoder();

/**
 * Writes a new base of the next generation, then replaces the log (whose
 * lines it supersedes). Lines another process wrote ahead to that log
 * after the take-in before it read it (none holds the lock to write
 * ahead) are taken into `manifest`, except those of `own` paths (this
 * process's records stand over them, as at a take-in), and written to the
 * new log under the new base; a write of them that fails throws, as a
 * failed append of a save does, and they are this process's own records
 * until its next save writes them. The base names the log read (see
 * `BaseCarry`): a process that ends before that log is replaced leaves
 * those lines to whoever reads the base next.
 */
export async function writeBase(
  s: ManifestState,
  manifest: Map<string, SyncedEntry>,
  indexVersion: string | undefined,
  own: ReadonlySet<string> = new Set(),
): Promise<void> {
  const before = s.gen;
  const readThrough = s.readThrough;
  s.readThrough = undefined;
  let old: Deno.FsFile | undefined;
  try {
    // Past every generation on disk (another process's base, or lines of a
    // base no longer readable): a number no other base ever had.
    const gen = Math.max(s.gen, (await diskGen(s.dir)) ?? -1, await logMaxGen(s.dir)) +
      1;
    // The log read, named in the base: were this process to end before it
    // replaced that log, whoever reads the base takes in the lines written
    // ahead there since.
    const carry = readThrough
      ? { g: before, ino: readThrough.ino, at: readThrough.size }
      : undefined;
    const text = baseText(manifest, gen, indexVersion, carry);
    s.hooks.beforeBase?.();
    await writingState(
      s.dir,
      MANIFEST_FILE,
      () => atomicWrite(`${s.dir}/${MANIFEST_FILE}`, new TextEncoder().encode(text)),
    );
    // The log read (or, none read, one a line written ahead created since),
    // opened once the base is in place: every line written ahead to it
    // before then is in it (one written after is found replaced by its
    // writer), and no other base's writer replaces it (the lock).
    old = readThrough ? await openLogIfSame(s.dir, readThrough.ino) : undefined;
    // Every line this process wrote ahead so far is in this base (none is
    // written while it is), and every record taken in from a replaced log.
    s.ahead.settled();
    s.lateUnsaved.clear();
    s.gen = gen;
    // Under the state directory's lock, which every base's writer holds.
    s.baseStamp = await baseStamp(s.dir);
    s.hasBase = true;
    s.emptyBase = manifest.size === 0 && indexVersion === undefined;
    s.logLines = 0;
    s.rewrite = false;
    // Lines another process wrote ahead to the replaced log since it was
    // read: no longer written there (its writer finds the log replaced),
    // they are taken in and written again under this base, in the log that
    // replaces that one (one write: the replaced log stays in place, and
    // names them, until the new one holds them).
    // Lines of `own` paths written there since are passed over (this
    // process's records stand over them), yet the base names that log: a
    // reader takes them in from it as long as it is in place.
    const passed = new Set<string>();
    const late = old && readThrough
      ? await lateLines(old, readThrough.size, before, manifest, own, passed)
      : [];
    const bytes = late.length > 0
      ? ENCODER.encode(`${logLines(manifest, gen, late).join("\n")}\n`)
      : new Uint8Array();
    // Replaced, not truncated: a link in its place is never followed.
    const replaced = await writingState(
      s.dir,
      MANIFEST_LOG,
      () => atomicWrite(`${s.dir}/${MANIFEST_LOG}`, bytes),
    ).then(() => true, (e) => {
      // With no line written ahead to the log read since the take-in, this
      // fails harmlessly: the base holds every record that log holds.
      if (late.length === 0 && passed.size === 0) return false;
      // The next save writes a base, which holds these records (in
      // `manifest`, kept there as this process's own until then: no log
      // that applies holds them now), and this process's own records of
      // the paths passed over (the log left in place, which the base names,
      // holds another process's records of them, which any reader takes in
      // over the base's until then).
      for (const p of [...late, ...passed]) s.lateUnsaved.add(p);
      s.rewrite = true;
      s.seen.forget();
      throw e;
    });
    if (replaced) s.logLines = late.length;
    // What the files hold is this process's manifest, unless a line was
    // written to the new log since (read again at the next look).
    const now = await filesSnapshot(s.dir);
    if (replaced && now.log?.size === bytes.length) s.seen.take(now);
    else s.seen.forget();
  } finally {
    old?.close();
  }
}
