/**
 * A process's death inside its save of the synced manifest, after the new
 * base's rename into place and before the log's replacement (the `damaged`
 * move with `dies`): the rename of a base into an armed state directory
 * first runs the move's own step (another process's line written ahead,
 * after the save's take-in read the log), is made, then throws; until the
 * checker crashes the process (at the next decision), no other rename of
 * the manifest's files in that directory is made (the process is dead: it
 * writes nothing more). Processes share the Deno process, so one wrapper of
 * `Deno.rename` serves every armed directory. Armed the other way
 * ({@link armLogReplaceFail}), the process lives on past that rename, and
 * the replacement of the log after it fails.
 *
 * @module
 */

/**
 * The armed state directories: what runs just before the base's rename,
 * and whether it ran; with `fails`, the process lives on and the log's
 * replacement after that rename fails instead (see {@link armLogReplaceFail}).
 */
const armed = new Map<
  string,
  { step: () => Promise<boolean | undefined>; fired: boolean; fails?: boolean }
>();
let installed = false;

const FILES = new Set(["manifest.json", "manifest.log"]);

/**
 * Arms the next rename of a base into state directory `dir`: `before` runs
 * first; the rename is made, then throws, unless `before` said no (the
 * process it was armed for is gone).
 */
export function armBaseRename(dir: string, before: () => Promise<boolean>): void {
  install();
  armed.set(dir, { step: before, fired: false });
}

/** Wraps `Deno.rename` once (see the module's note). */
function install(): void {
  if (!installed) {
    installed = true;
    const rename = Deno.rename;
    Deno.rename = async (from: string | URL, to: string | URL) => {
      const target = String(to);
      const at = target.lastIndexOf("/");
      const a = armed.get(target.slice(0, at));
      const name = target.slice(at + 1);
      if (!a || !FILES.has(name)) return await rename(from, to);
      if (a.fails) {
        if (name === "manifest.log" && a.fired) {
          armed.delete(target.slice(0, at));
          // As the runtime's error of a full disk is: its `code` says so.
          throw Object.assign(new Error("No space left on device (os error 28)"), {
            code: "ENOSPC",
          });
        }
        if (name !== "manifest.json") return await rename(from, to);
        const fired = await a.step();
        // No: gone; undefined: not this base (armed still).
        if (fired === false) armed.delete(target.slice(0, at));
        if (fired) a.fired = true;
        return await rename(from, to);
      }
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
}

/**
 * Arms the next rename of a base into state directory `dir` whose `before`
 * says yes (it wrote another process's line ahead): the base is renamed,
 * and the replacement of the log that follows fails (no space left on the
 * device), the process living on. `before` saying no disarms (the process
 * it was armed for is gone); undefined leaves the next base to it.
 */
export function armLogReplaceFail(
  dir: string,
  before: () => Promise<boolean | undefined>,
): void {
  install();
  armed.set(dir, { step: before, fired: false, fails: true });
}

/** Disarms state directory `dir` (its dying process crashed, or the history ends). */
export function disarmBaseRename(dir: string): void {
  armed.delete(dir);
}
