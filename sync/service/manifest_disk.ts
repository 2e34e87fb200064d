/**
 * Reads of the synced manifest's files on disk (`manifest.json`, the base,
 * and `manifest.log`, its log) that change nothing: their identity, whether
 * the log ends in a torn line, its highest generation, its text. Writes are
 * `ManifestFiles`'.
 *
 * @module
 */
import { maxLogGen } from "./manifest_log.ts";

/** The base file of the synced manifest, in the state directory. */
export const MANIFEST_FILE = "manifest.json";
/** The log of changes since the base, in the state directory. */
export const MANIFEST_LOG = "manifest.log";

/**
 * The base's and the log's identities, sizes and change times in `dir`
 * ("-" for one absent): two `lstat`s, which tell a file written since.
 *
 * @example
 * ```ts
 * import { filesSignature } from "./manifest_disk.ts";
 * console.log(await filesSignature(await Deno.makeTempDir())); // "-/-"
 * ```
 */
export async function filesSignature(dir: string): Promise<string> {
  const one = async (name: string) => {
    try {
      const st = await Deno.lstat(`${dir}/${name}`);
      return `${st.ino}:${st.size}:${st.mtime?.getTime()}:${st.ctime?.getTime() ?? ""}`;
    } catch {
      return "-";
    }
  };
  return `${await one(MANIFEST_FILE)}/${await one(MANIFEST_LOG)}`;
}

/**
 * True when the log's last byte ends no line (a write cut off part way,
 * another process's); false when it does, or there is no log.
 */
export async function logTorn(dir: string): Promise<boolean> {
  let f: Deno.FsFile;
  try {
    f = await Deno.open(`${dir}/${MANIFEST_LOG}`, { read: true });
  } catch {
    return false;
  }
  try {
    const size = (await f.stat()).size;
    if (size === 0) return false;
    await f.seek(size - 1, Deno.SeekMode.Start);
    const last = new Uint8Array(1);
    return (await f.read(last)) === 1 && last[0] !== 10;
  } catch {
    return false;
  } finally {
    f.close();
  }
}

/** The highest generation among the log's readable lines; -1 when none. */
export async function logMaxGen(dir: string): Promise<number> {
  return maxLogGen(await Deno.readTextFile(`${dir}/${MANIFEST_LOG}`).catch(() => ""));
}

/**
 * The log's text; undefined when there is none. A log that is a symbolic
 * link is never read (nor appended through): an error, and the next save
 * replaces it.
 */
export async function readLog(dir: string): Promise<string | undefined> {
  const file = `${dir}/${MANIFEST_LOG}`;
  try {
    if ((await Deno.lstat(file)).isSymlink) {
      throw new Error("the manifest log is a symbolic link");
    }
    return await Deno.readTextFile(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}
