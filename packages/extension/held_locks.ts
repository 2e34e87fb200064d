/**
 * What this process holds: the model locks and global locks it acquired
 * through the extension's `createLock`, and for each model lock the data
 * version directories that were already in each cache when it was acquired
 * (or that a pull brought since). The tool passes no lock set and no list of
 * written files to a push; this is where the extension gets them.
 *
 * A version directory under a held model's prefix that is in the cache at
 * push time and was neither there at acquisition nor pulled since was
 * written by this run (made by it, files or none yet: the tool's save makes
 * it before it writes there): those are the `written` versions the
 * refused-run eraser may remove, and the rest are `preexisting`.
 *
 * A model lock is settled when this process released it after a push
 * fenced by it committed, with no push under it started since: the tool
 * releases a model's lock right after that model's flush, and runs the
 * steps of a workflow in parallel over one sync service, so a push another
 * step prepared under the lock may commit after it (see
 * {@link HeldLocks.settled}).
 *
 * All paths here are relative to the cache root the tool gives
 * (`<cachePath>`), so they include `<ns>/` when namespaced.
 *
 * @module
 */
import type { DistributedLock } from "../../sync/ports.ts";

/** One held model lock, as the push of one namespace sees it. */
export interface HeldModelLock {
  /** The Sluice lock (its key is the full key, `[<ns>/]data/<type…>/<id>/.lock`). */
  readonly lock: DistributedLock;
  /** The namespace of the push (`""` in solo mode). */
  readonly namespace: string;
  /** `<type…>/<id>`, read in that namespace. */
  readonly model: string;
  /** Cache-relative directory of the model's data: `[<ns>/]data/<type…>/<id>`. */
  readonly prefix: string;
  /** Per cache path: version directories not written by this run. */
  readonly preexisting: Map<string, Set<string>>;
}

/** A held model lock before a namespace reads it: its key is all it knows. */
interface HeldEntry {
  readonly lock: DistributedLock;
  readonly prefix: string;
  readonly preexisting: Map<string, Set<string>>;
}

/** A parsed model lock key. */
export interface ModelKey {
  readonly namespace: string;
  readonly model: string;
  readonly prefix: string;
}

/**
 * Parses a model lock key of `namespace` (`""`: solo): the key belongs to it
 * when it starts with `<namespace>/data/` (solo: `data/`) and ends with
 * `/<type…>/<id>/.lock`; null for any other key (another namespace's, and
 * the global locks). The namespace must be given: type segments may hold
 * `/`, so `data/data/t/m/.lock` is the model `t/m` of a namespace named
 * `data` and the model `data/t/m` in solo mode alike.
 *
 * @example
 * ```ts
 * import { parseModelLockKey } from "./held_locks.ts";
 * parseModelLockKey("prod/data/@acme/ec2/i-1/.lock", "prod");
 * // { namespace: "prod", model: "@acme/ec2/i-1", prefix: "prod/data/@acme/ec2/i-1" }
 * parseModelLockKey("prod/data/@acme/ec2/i-1/.lock", ""); // null
 * ```
 */
export function parseModelLockKey(key: string, namespace: string): ModelKey | null {
  const head = namespace ? `${namespace}/data/` : "data/";
  if (!key.startsWith(head) || !key.endsWith("/.lock")) return null;
  const prefix = key.slice(0, -"/.lock".length);
  if (prefix.length < head.length) return null;
  const model = prefix.slice(head.length).split("/");
  if (model.length < 2 || model.some((s) => s === "")) return null;
  return { namespace, model: model.join("/"), prefix };
}

/** True when `key` is a model lock key in solo mode or in some namespace. */
function isModelLockKey(key: string): boolean {
  const first = key.slice(0, Math.max(0, key.indexOf("/")));
  return parseModelLockKey(key, "") !== null ||
    (first !== "" && parseModelLockKey(key, first) !== null);
}

/** True for a global lock key: `.datastore.lock` or `.locks/<ns>.lock`. */
export function isGlobalLockKey(key: string): boolean {
  return key === ".datastore.lock" || /^\.locks\/[^/]+\.lock$/.test(key);
}

/** The version directory (`<prefix>/<data>/<N>`) of a cache file under `prefix`, or null. */
export function versionDirOf(prefix: string, file: string): string | null {
  if (!file.startsWith(`${prefix}/`)) return null;
  const rest = file.slice(prefix.length + 1).split("/");
  if (rest.length < 3 || !/^\d+$/.test(rest[1])) return null;
  return `${prefix}/${rest[0]}/${rest[1]}`;
}

/** Every file under `<root>/<dir>`, as `root`-relative paths; none when absent. */
export async function listCacheFiles(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(`${root}/${rel}`));
    } catch {
      return;
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`;
      if (e.isDirectory) await walk(child);
      else if (e.isFile) out.push(child);
    }
  };
  await walk(dir);
  return out.sort();
}

/**
 * The version directories under `prefix` in `cachePath` that hold a file;
 * with `made`, also those made and holding none yet (the tool's save makes
 * a version's directory before it writes there).
 */
async function versionDirs(
  cachePath: string,
  prefix: string,
  made = false,
): Promise<Set<string>> {
  const out = new Set<string>();
  for (const f of await listCacheFiles(cachePath, prefix)) {
    const d = versionDirOf(prefix, f);
    if (d) out.add(d);
  }
  if (made) { for (const d of await subdirs(cachePath, prefix, 2)) out.add(d); }
  return out;
}

/** The directories `depth` levels under `<root>/<dir>` whose last name is a number (root-relative). */
async function subdirs(root: string, dir: string, depth: number): Promise<string[]> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(`${root}/${dir}`));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory) continue;
    if (depth > 1) out.push(...await subdirs(root, `${dir}/${e.name}`, depth - 1));
    else if (/^\d+$/.test(e.name)) out.push(`${dir}/${e.name}`);
  }
  return out;
}

/** What a push under the held model locks needs (cache-relative paths). */
export interface HeldPushOptions {
  readonly locks: readonly HeldModelLock[];
  /** Version directories written while the locks were held. */
  readonly written: readonly string[];
  /** Version directories not written by this run. */
  readonly preexisting: ReadonlySet<string>;
}

/**
 * The locks this process holds on one datastore.
 *
 * @example
 * ```ts
 * import { HeldLocks } from "./held_locks.ts";
 * const held = new HeldLocks();
 * held.addCache("/tmp/cache");
 * console.log(held.models("").length); // 0
 * ```
 */
export class HeldLocks {
  readonly #models = new Map<DistributedLock, HeldEntry>();
  readonly #globals = new Map<string, DistributedLock>();
  /** Global locks held and shared: how many shares, and their end, which a release waits for. */
  readonly #shares = new Map<
    DistributedLock,
    { count: number; readonly ended: Promise<void>; readonly end: () => void }
  >();
  readonly #caches = new Set<string>();
  /** Model locks whose last push committed (no push under them started since). */
  readonly #committed = new WeakSet<DistributedLock>();
  /** Model locks released while committed and not lost. */
  readonly #settled = new WeakSet<DistributedLock>();
  /** Model locks a refused push was fenced by: their runs' versions were erased. */
  readonly #spent = new WeakSet<DistributedLock>();

  /** Records a lock this process now holds; snapshots each known cache for a model lock. */
  async acquired(lock: DistributedLock): Promise<void> {
    if (isGlobalLockKey(lock.key)) {
      this.#globals.set(lock.key, lock);
      return;
    }
    if (!isModelLockKey(lock.key)) return;
    // A lock object taken again (its `acquire` after `release`, as `withLock`
    // does) is a new run's: a refusal of the run before it spends it no more,
    // nor does a commit of that run settle it (the new run's pushes are
    // fenced by it as it is now, their commits too).
    this.#spent.delete(lock);
    this.#settled.delete(lock);
    this.#committed.delete(lock);
    // The data directory is the key's, whichever namespace reads it.
    const held: HeldEntry = {
      lock,
      prefix: lock.key.slice(0, -"/.lock".length),
      preexisting: new Map(),
    };
    for (const cache of this.#caches) {
      held.preexisting.set(cache, await versionDirs(cache, held.prefix, true));
    }
    this.#models.set(lock, held);
  }

  /**
   * Forgets a lock (released, or never acquired): it is shared no more (see
   * {@link HeldLocks.shareGlobal}). Resolves once every share of it has
   * ended, before which its release must not be made.
   */
  released(lock: DistributedLock): Promise<void> {
    if (this.#models.has(lock) && this.#committed.has(lock) && !lock.lost) {
      this.#settled.add(lock);
    }
    this.#models.delete(lock);
    if (this.#globals.get(lock.key) === lock) this.#globals.delete(lock.key);
    return this.#shares.get(lock)?.ended ?? Promise.resolve();
  }

  /**
   * A share of the global lock `key` while this process holds it and has
   * not lost it (undefined otherwise): the hold's release, however soon
   * asked, waits until `leave` is called (see `shared_global.ts`).
   */
  shareGlobal(key: string): { lock: DistributedLock; leave: () => void } | undefined {
    const lock = this.global(key);
    if (!lock) return undefined;
    let shares = this.#shares.get(lock);
    if (!shares) {
      let end = () => {};
      const ended = new Promise<void>((resolve) => (end = resolve));
      shares = { count: 0, ended, end };
      this.#shares.set(lock, shares);
    }
    const s = shares;
    s.count++;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      if (--s.count > 0) return;
      this.#shares.delete(lock);
      s.end();
    };
    return { lock, leave };
  }

  /** A push under `locks` starts: none of them is settled by an earlier commit any more. */
  pushing(locks: readonly DistributedLock[]): void {
    for (const l of locks) this.#committed.delete(l);
  }

  /** A push under `locks` committed: the fence found each still this run's after its writes. */
  committed(locks: readonly DistributedLock[]): void {
    for (const l of locks) this.#committed.add(l);
  }

  /**
   * True when this process released `lock` after a push under it committed,
   * and began none under it since: every write made under it was published
   * under its fence, so a push another step prepared while it was held need
   * not fence it again at its commit (it is gone from the store: the fence
   * would take it for lost and erase that step's run). A lock released
   * otherwise (its push failed or was refused, or never came) is not settled.
   */
  settled(lock: DistributedLock): boolean {
    return this.#settled.has(lock);
  }

  /** Registers a cache path; held model locks not yet snapshotted there are snapshotted now. */
  addCache(cachePath: string): Promise<void> {
    this.#caches.add(cachePath);
    return this.snapshot(cachePath);
  }

  /** Snapshots `cachePath` for every held model lock that has no snapshot of it. */
  async snapshot(cachePath: string): Promise<void> {
    for (const held of this.#models.values()) {
      if (!held.preexisting.has(cachePath)) {
        held.preexisting.set(cachePath, await versionDirs(cachePath, held.prefix, true));
      }
    }
  }

  /** Files a pull fetched into `cachePath`: their version directories are not this run's. */
  pulled(cachePath: string, files: readonly string[]): void {
    for (const held of this.#models.values()) {
      const set = held.preexisting.get(cachePath);
      if (!set) continue;
      for (const f of files) {
        const d = versionDirOf(held.prefix, f);
        if (d) set.add(d);
      }
    }
  }

  /**
   * After a push under the model locks of `namespace` was refused: the
   * refused-run eraser has removed the run's versions from `cachePath` (or
   * journaled them, and the journal now speaks for them), and its refresh
   * may have pulled the datastore's copies, which are not this run's. Every
   * version directory in the cache under those locks now counts as not
   * written by this run, so that a further push under a lost lock is
   * refused again without taking a peer's version for this run's. And each
   * of those locks is spent (see {@link HeldLocks.spent}).
   */
  async refused(
    cachePath: string,
    namespace: string,
    only?: readonly DistributedLock[],
  ): Promise<void> {
    for (const held of this.models(namespace)) {
      // A lock left out of the refused push (another step's, lost: its run's
      // versions were held back, not erased) keeps its own: its run's push erases them.
      if (only && !only.includes(held.lock)) continue;
      this.#spent.add(held.lock);
      // A directory left empty holds no copy of another writer's: what the
      // run writes there later is its own, for its refused flush to erase.
      held.preexisting.set(cachePath, await versionDirs(cachePath, held.prefix));
    }
  }

  /**
   * True when a push fenced by `lock` was refused (see
   * {@link HeldLocks.refused}): the run holding it counts as having lost it
   * from then on, whatever the lock object says now, until the lock is
   * acquired again (a new run's: see {@link HeldLocks.acquired}). That push erased what
   * the run had written under it, so the run's own flush must be refused
   * too, never acknowledged with its version gone. A push naming no model
   * is fenced by the held locks found lost as it starts, and a lock that
   * reports a failed read as absent is found lost by a read that failed
   * while its run still holds it; refused for another of those locks, that
   * push still erases this run's version.
   */
  spent(lock: DistributedLock): boolean {
    return this.#spent.has(lock);
  }

  /** The held model locks of `namespace` (`""`: solo), their keys read in it. */
  models(namespace: string): HeldModelLock[] {
    const out: HeldModelLock[] = [];
    for (const held of this.#models.values()) {
      const parsed = parseModelLockKey(held.lock.key, namespace);
      if (parsed) out.push({ ...held, namespace, model: parsed.model });
    }
    return out;
  }

  /** The global lock `key` while this process holds it and has not lost it. */
  global(key: string): DistributedLock | undefined {
    const lock = this.#globals.get(key);
    return lock && !lock.lost ? lock : undefined;
  }

  /** The global lock `key` this process acquired and has not released, lost or not. */
  acquiredGlobal(key: string): DistributedLock | undefined {
    return this.#globals.get(key);
  }

  /**
   * The push options for `namespace` in `cachePath`: held locks (those
   * `only` keeps, all by default), written and preexisting versions.
   */
  async pushOptions(
    cachePath: string,
    namespace: string,
    only: (held: HeldModelLock) => boolean = () => true,
  ): Promise<HeldPushOptions> {
    const locks = this.models(namespace).filter(only);
    const written: string[] = [];
    const preexisting = new Set<string>();
    for (const held of locks) {
      const before = held.preexisting.get(cachePath) ?? new Set<string>();
      for (const d of before) preexisting.add(d);
      // A version directory made and still empty is the run's too: a
      // refusal erases it, and its refresh leaves it empty (see
      // `refused_run_steps.ts`), never filled with another writer's copy
      // of that version for the run's save to write over.
      for (const d of await versionDirs(cachePath, held.prefix, true)) {
        if (!before.has(d)) written.push(d);
      }
    }
    return { locks, written: [...new Set(written)].sort(), preexisting };
  }
}
