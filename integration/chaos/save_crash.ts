/**
 * A process's death inside its save of the synced manifest, after the new
 * base's rename into place and before the log's replacement (the `damaged`
 * move with `dies`): the rename of a base into an armed state directory
 * first runs the move's own step (another process's line written ahead,
 * after the save's take-in read the log), is made, then throws; until the
 * checker crashes the process (at the next decision), no other rename of
 * the manifest's files in that directory is made (the process is dead: it
 * writes nothing more). Processes share the Deno process, so one wrapper of
 * `Deno.rename` serves every armed directory.
 *
 * @module
 */

/** The armed state directories: what runs just before the base's rename, and whether it ran. */
const armed = new Map<string, { step: () => Promise<boolean>; fired: boolean }>();
let installed = false;

const FILES = new Set(["manifest.json", "manifest.log"]);

/**
 * Arms the next rename of a base into state directory `dir`: `before` runs
 * first; the rename is made, then throws, unless `before` said no (the
 * process it was armed for is gone).
 */
export function armBaseRename(dir: string, before: () => Promise<boolean>): void {
  if (!installed) {
    installed = true;
    const rename = Deno.rename;
    Deno.rename = async (from: string | URL, to: string | URL) => {
      const target = String(to);
      const at = target.lastIndexOf("/");
      const a = armed.get(target.slice(0, at));
      const name = target.slice(at + 1);
      if (!a || !FILES.has(name)) return await rename(from, to);
      if (a.fired) throw new Error("the process ended (chaos)");
      if (name !== "manifest.json") return await rename(from, to);
      const dies = await a.step();
      await rename(from, to);
      if (!dies) {
        armed.delete(target.slice(0, at));
        return;
      }
      a.fired = true;
      throw new Error("the process ended after its base's rename (chaos)");
    };
  }
  armed.set(dir, { step: before, fired: false });
}

/** Disarms state directory `dir` (its dying process crashed, or the history ends). */
export function disarmBaseRename(dir: string): void {
  armed.delete(dir);
}
