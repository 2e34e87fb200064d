/**
 * The base writer of the synced manifest: a new base of the next
 * generation written atomically, the log emptied after it, and the lines
 * another process wrote ahead to the replaced log since the take-in read
 * it taken in and written again under the new base.
 *
 * @module
 */
import { appendSynced, atomicWrite } from "../transfer/atomic_write.ts";
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
 * Writes a new base of the next generation, then empties the log (whose
 * lines it supersedes). Lines another process wrote ahead to that log
 * after the take-in before it read it (none holds the lock to write
 * ahead) are taken into `manifest`, except those of `own` paths (this
 * process's records stand over them, as at a take-in), and appended to
 * the new log under the new base; an append of them that fails throws,
 * as a failed append of a save does, and they are this process's own
 * records until its next save writes them.
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
  const old = readThrough ? await openLogIfSame(s.dir, readThrough.ino) : undefined;
  try {
    // Past every generation on disk (another process's base, or lines of a
    // base no longer readable): a number no other base ever had.
    const gen = Math.max(s.gen, (await diskGen(s.dir)) ?? -1, await logMaxGen(s.dir)) +
      1;
    const text = baseText(manifest, gen, indexVersion);
    s.hooks.beforeBase?.();
    await writingState(
      s.dir,
      MANIFEST_FILE,
      () => atomicWrite(`${s.dir}/${MANIFEST_FILE}`, new TextEncoder().encode(text)),
    );
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
    // Lines of an older generation are ignored when loading, so this may fail
    // harmlessly. Replaced, not truncated: a link in its place is never followed.
    await atomicWrite(`${s.dir}/${MANIFEST_LOG}`, new Uint8Array()).catch(() => {});
    // Lines another process wrote ahead to the replaced log since it was
    // read: no longer written there (its writer finds the log replaced),
    // they are taken in and written again under this base.
    const late = old && readThrough
      ? await lateLines(old, readThrough.size, before, manifest, own)
      : [];
    let appended = 0;
    if (late.length > 0) {
      const bytes = ENCODER.encode(`${logLines(manifest, gen, late).join("\n")}\n`);
      await writingState(s.dir, MANIFEST_LOG, async () => {
        await appendSynced(`${s.dir}/${MANIFEST_LOG}`, bytes);
      }).catch((e) => {
        // Part of a line may be in the log: the next save writes a base,
        // which holds these records (in `manifest`, kept there as this
        // process's own until then: no file holds them now).
        for (const p of late) s.lateUnsaved.add(p);
        s.rewrite = true;
        s.seen.forget();
        throw e;
      });
      appended = bytes.length;
      s.logLines = late.length;
    }
    // What the files hold is this process's manifest, unless a line was
    // appended to the new log since (read again at the next look).
    const now = await filesSnapshot(s.dir);
    if (now.log?.size === appended) s.seen.take(now);
    else s.seen.forget();
  } finally {
    old?.close();
  }
}
