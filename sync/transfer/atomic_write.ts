/**
 * Atomic, durable file writes for the cache and its sync state: a temp file
 * beside the target, fsync, rename, then fsync of the directory.
 *
 * @module
 */
import { randomId } from "../hash.ts";

/**
 * Writes `body` to `file` atomically: a temp file in the same directory,
 * fsync, rename, then fsync of the directory when `durable`.
 *
 * @example
 * ```ts
 * import { atomicWrite } from "./atomic_write.ts";
 * const dir = await Deno.makeTempDir();
 * await atomicWrite(`${dir}/state/a.json`, new TextEncoder().encode("{}"));
 * ```
 */
export async function atomicWrite(file: string, body: Uint8Array, durable = true): Promise<void> {
  const dir = file.slice(0, file.lastIndexOf("/")) || "/";
  await Deno.mkdir(dir, { recursive: true });
  // The temp name must fit the 255-byte limit of one name even when the
  // file's own name nearly fills it (a long name then gets a short temp name).
  const name = file.slice(dir.length + 1);
  const stem = new TextEncoder().encode(name).length > 200 ? "" : name;
  const tmp = `${dir}/${stem}.${randomId(6)}.tmp`;
  const f = await Deno.open(tmp, { write: true, createNew: true });
  try {
    let off = 0;
    while (off < body.length) off += await f.write(body.subarray(off));
    if (durable) await f.sync();
  } finally {
    f.close();
  }
  try {
    await Deno.rename(tmp, file);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
  if (durable) await fsyncDir(dir);
}

/** Fsyncs a directory (its entries); filesystems that refuse it are skipped. */
export async function fsyncDir(dir: string): Promise<void> {
  try {
    const d = await Deno.open(dir, { read: true });
    try {
      await d.sync();
    } finally {
      d.close();
    }
  } catch { /* some filesystems refuse fsync on directories */ }
}
