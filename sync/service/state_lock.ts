/**
 * The locks of a cache's state directory that processes sharing the cache
 * take: the state lock (`state.lock`), held for the few calls of one write
 * of the journal, the manifest or the conflict records, and each process's
 * owner lock (`owners/<pid>.<id>.lock`), held from its first write of the
 * journal until it ends, by which another process tells whether the owner
 * of a journal line still runs. Both are advisory `flock`s, which the
 * system releases when a process ends; where the filesystem has none, the
 * work runs without them.
 *
 * @module
 */

/**
 * The state directory's lock file: every write of the dirty journal holds
 * it (an advisory `flock`), so that processes sharing one cache (swamp runs
 * models of one repository at once, each process with its own service)
 * never lose each other's marks.
 */
export const STATE_LOCK_FILE = "state.lock";

/**
 * The state directory's folder of owner locks: each process that writes the
 * dirty journal holds `<owner>.lock` there (an advisory `flock`, released
 * when the process ends), so that another process tells whether the owner
 * of a journal line still runs.
 */
export const OWNERS_DIR = "owners";

/**
 * True when the process that wrote journal lines as `owner` (`<pid>.<id>`)
 * still runs: another process than this one, holding its owner lock. False
 * for this process's own (several services of one process take each other's
 * marks over, as a process's next service would), for a lock nobody holds
 * (its process ended: the file is removed), and where it cannot be told.
 *
 * @example
 * ```ts
 * import { ownerRuns } from "./state.ts";
 * ownerRuns(await Deno.makeTempDir(), `${Deno.pid}.abc`); // false
 * ```
 */
export function ownerRuns(stateDir: string, owner: string): boolean {
  const pid = Number(owner.slice(0, owner.indexOf(".")));
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === Deno.pid) return false;
  return ownerLockHeld(stateDir, owner);
}

/**
 * Whether `owner` (`<pid>.<id>`) of journal lines is another process than
 * `self` (this one's owner): one of another process id, or of this one's
 * whose owner lock nobody holds (an ended process whose id this one has
 * again, as a container's processes do).
 *
 * @example
 * ```ts
 * import { otherProcess } from "./state_lock.ts";
 * otherProcess(await Deno.makeTempDir(), `${Deno.pid}.me`, "1.x"); // true unless this is pid 1
 * ```
 */
export function otherProcess(stateDir: string, self: string, owner: string): boolean {
  return Number(owner.slice(0, owner.indexOf("."))) !== Deno.pid ||
    (owner !== self && !ownerLockHeld(stateDir, owner));
}

/**
 * True when some process holds the owner lock of `owner` (see
 * {@link OWNERS_DIR}); a lock file nobody holds is removed.
 */
export function ownerLockHeld(stateDir: string, owner: string): boolean {
  if (!/^[\w.-]+$/.test(owner)) return false;
  const file = `${stateDir}/${OWNERS_DIR}/${owner}.lock`;
  let f: Deno.FsFile;
  try {
    f = Deno.openSync(file, { read: true, write: true });
  } catch {
    return false; // none: its process never wrote, or is gone
  }
  try {
    if (!f.tryLockSync(true)) return true;
    f.unlockSync();
    try {
      Deno.removeSync(file);
    } catch { /* removed by another look */ }
    return false;
  } catch {
    return false;
  } finally {
    f.close();
  }
}

/**
 * The locks one process (one `SyncState`) takes in the state directory
 * `dir`, as `owner` (`<pid>.<id>`).
 *
 * @example
 * ```ts
 * import { StateLock } from "./state_lock.ts";
 * const lock = new StateLock(await Deno.makeTempDir(), `${Deno.pid}.abc`);
 * await lock.exclusive(() => Promise.resolve());
 * ```
 */
export class StateLock {
  readonly #dir: string;
  readonly #owner: string;
  /** This process's owner lock, once taken. */
  #ownerLock: Deno.FsFile | undefined;

  constructor(dir: string, owner: string) {
    this.#dir = dir;
    this.#owner = owner;
  }

  /**
   * Runs `fn` holding the state lock ({@link STATE_LOCK_FILE}), which every
   * process's writes of the shared state take. Where the filesystem has no
   * such locks, `fn` runs without it. Never nested: a second hold of it in
   * one process waits for the first.
   */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    let lock: Deno.FsFile | undefined;
    try {
      await Deno.mkdir(this.#dir, { recursive: true });
      lock = await Deno.open(`${this.#dir}/${STATE_LOCK_FILE}`, {
        read: true,
        write: true,
        create: true,
      });
      await lock.lock(true);
    } catch {
      lock?.close();
      lock = undefined;
    }
    try {
      return await fn();
    } finally {
      if (lock) {
        try {
          await lock.unlock();
        } catch { /* released by the close */ }
        lock.close();
      }
    }
  }

  /**
   * Takes this process's owner lock, once: held until the process ends (or
   * {@link release}), so that others tell its journal lines from a gone
   * process's. Where it cannot be taken, others take its lines over, as
   * they did before there were owner locks.
   */
  holdOwner(): void {
    if (this.#ownerLock) return;
    try {
      Deno.mkdirSync(`${this.#dir}/${OWNERS_DIR}`, { recursive: true });
      const f = Deno.openSync(`${this.#dir}/${OWNERS_DIR}/${this.#owner}.lock`, {
        read: true,
        write: true,
        create: true,
      });
      if (f.tryLockSync(true)) this.#ownerLock = f;
      else f.close();
    } catch { /* no owner lock: as before */ }
  }

  /** Locks taken with {@link hold} and not let go yet. */
  readonly #held = new Set<Deno.FsFile>();

  /**
   * Takes the file lock `name` in the state directory, which a process may
   * hold across store calls (a change of the erasure journal): while another
   * process holds it, looks again after each `wait()`. Returns what lets it
   * go; the process's exit ({@link release}) lets go of any still held, as
   * the system does for a process that dies. Where the filesystem has no
   * such locks, returns at once, holding nothing.
   */
  async hold(name: string, wait: () => Promise<void>): Promise<() => void> {
    let f: Deno.FsFile;
    try {
      await Deno.mkdir(this.#dir, { recursive: true });
      f = await Deno.open(`${this.#dir}/${name}`, { read: true, write: true, create: true });
    } catch {
      return () => {};
    }
    try {
      for (;;) {
        let taken: boolean;
        try {
          taken = f.tryLockSync(true);
        } catch {
          f.close(); // no such locks here
          return () => {};
        }
        if (taken) break;
        await wait();
      }
    } catch (e) {
      f.close();
      throw e;
    }
    this.#held.add(f);
    return () => {
      if (!this.#held.delete(f)) return;
      try {
        f.close();
      } catch { /* closed already */ }
    };
  }

  /** Releases this process's owner lock and the locks it holds (what its exit does). */
  release(): void {
    try {
      this.#ownerLock?.close();
    } catch { /* closed already */ }
    this.#ownerLock = undefined;
    for (const f of this.#held) {
      try {
        f.close();
      } catch { /* closed already */ }
    }
    this.#held.clear();
  }

  /** Removes the owner locks no process holds (theirs ended). */
  sweepOwners(): void {
    let names: string[];
    try {
      names = [...Deno.readDirSync(`${this.#dir}/${OWNERS_DIR}`)].map((e) => e.name);
    } catch {
      return;
    }
    for (const n of names) {
      if (n.endsWith(".lock")) ownerLockHeld(this.#dir, n.slice(0, -".lock".length));
    }
  }
}
