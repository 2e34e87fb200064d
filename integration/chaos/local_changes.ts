/**
 * I6, no local change is lost by a pull or a resolution: the ground truth of
 * the edits and deletions users make in the clones' caches, and the check.
 *
 * Every edit writes bytes no other edit writes (its operation id is in
 * them; a latest marker is the exception, it holds a version number), so an
 * edit can be followed wherever it goes. An edit of clone X at path P is
 * kept when, later:
 *
 * - X's cache holds its bytes at P (or, for a deletion, no file at P: a
 *   directory there, a file replaced by a directory of its name, is none); or
 * - a copy of its bytes is set aside under X's `.sluice/set-aside/`; or
 * - the store held its bytes at P (or, for a deletion, had no object at P
 *   after a delete) at some point after the edit, or already held them when
 *   the edit was made, as its object or as what the index names (a marker
 *   can repeat a number a peer published; a peer may have deleted the file
 *   first: no object there, or the index naming no entry while the object
 *   there holds other bytes than the clone synced, a peer's upload whose
 *   commit has not come): it was published, and a peer that then changed P
 *   based its change on it; or
 * - X itself replaced it (a later edit, a run's own marker, a merge), or,
 *   for a deletion, X took theirs in a resolution.
 *
 * Anything else is a loss: a pull overwrote or removed the change, or a
 * resolution dropped it. The workload checks after every command that can
 * pull or resolve, after a crash, and at the end.
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import type { Violation } from "./truth_records.ts";
import { SetAsideWatch } from "./set_aside_named.ts";
import { findStateDir as stateDirOf } from "../../sync/transfer/cache.ts";

/** One edit or deletion a user made in a clone's cache. */
export interface LocalEdit {
  /** History operation id. */
  readonly op: number;
  readonly clone: number;
  readonly path: string;
  /** SHA-256 of the bytes written, or null for a deletion. */
  readonly hash: string | null;
  /** `hand`, `hand-tick`, `mark`, `push`, `revert`, `merged` or `marker`. */
  readonly how: string;
  /** Order among edits and observed store writes. */
  readonly seq: number;
  /**
   * `live`; `replaced` by the clone itself; `waived` (a deletion undone by
   * resolve --theirs); `reported` (discarded by the library with a warning
   * naming the path).
   */
  state: "live" | "replaced" | "waived" | "reported";
}

/** What {@link hashOf} gives for a directory. */
const DIRECTORY = "(a directory)";

async function hashOf(file: string): Promise<string | null> {
  try {
    return await sha256Hex(await Deno.readFile(file));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) return null;
    if (e instanceof Deno.errors.IsADirectory) return DIRECTORY;
    throw e;
  }
}

async function setAsideHashes(cacheDir: string, path: string): Promise<string[]> {
  const root = `${stateDirOf(cacheDir)}/set-aside`;
  const out: string[] = [];
  let dirs: Deno.DirEntry[];
  try {
    dirs = [...Deno.readDirSync(root)];
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return out;
    throw e;
  }
  for (const d of dirs) {
    if (!d.isDirectory) continue;
    const h = await hashOf(`${root}/${d.name}/${path}`);
    if (h) out.push(h);
  }
  return out;
}

/**
 * The edits of one history and what the store held of them.
 *
 * @example
 * ```ts
 * import { LocalChanges } from "./local_changes.ts";
 * const changes = new LocalChanges();
 * await changes.record({ op: 1, clone: 0, path: "notes/a.md", how: "hand" }, new Uint8Array([1]));
 * ```
 */
export class LocalChanges {
  /** Every edit, in order. */
  readonly edits: LocalEdit[] = [];
  /** The copies pulls set aside, each named by a conflict record until resolved (`set_aside_named.ts`). */
  readonly asides = new SetAsideWatch();
  #seq = 0;
  /** `path\0hash` of bytes the store was seen to hold, with the last seq it was seen at. */
  readonly #held = new Map<string, number>();
  /** Paths the store was seen without after a delete, with the last seq. */
  readonly #gone = new Map<string, number>();
  readonly #paths = new Set<string>();
  /** The bytes of every edit recorded, by hash (a revert writes some back). */
  readonly #bytes = new Map<string, Uint8Array>();
  readonly #read?: (key: string) => Promise<Uint8Array | undefined>;
  readonly #committed?: (key: string) => Promise<string | null | undefined>;

  /**
   * `read` (optional) reads what the store holds at a key, and `committed`
   * the hash the remote index names for it (undefined when a readable index
   * names no entry there, null when no index could be read), both past
   * faults and scheduling: an edit whose bytes the store already holds, or
   * that the index already names (while another writer's object waits
   * uncommitted there), counts as held; so does a deletion where the store
   * holds no object, or the index names none while the store holds other
   * bytes than the clone synced (see {@link record}).
   */
  constructor(
    read?: (key: string) => Promise<Uint8Array | undefined>,
    committed?: (key: string) => Promise<string | null | undefined>,
  ) {
    this.#read = read;
    this.#committed = committed;
  }

  /** The bytes of a recorded edit with this SHA-256; undefined when none had it. */
  bytesOf(hash: string): Uint8Array | undefined {
    return this.#bytes.get(hash);
  }

  /** True when `path` is one the edits touch (the store's writes to it are watched). */
  watches(path: string): boolean {
    return this.#paths.has(path);
  }

  /**
   * Records an edit (`bytes`) or a deletion (`null`) of `path` in clone
   * `clone`'s cache. `syncedHash`, for a deletion, is the hash of what the
   * clone had synced there: where the index names no entry and the store
   * holds other bytes (a peer deleted the file, its deletion committed, and
   * a creation's upload landed whose commit has not come), the deletion is
   * in effect already, as where the store holds no object; the creation,
   * once committed, is published after it. The same bytes with no entry
   * are no deletion (an entry dropped by another client, its object left).
   */
  async record(
    e: { op: number; clone: number; path: string; how: string },
    bytes: Uint8Array | null,
    syncedHash?: string,
  ): Promise<void> {
    this.replaced(e.clone, e.path);
    this.#paths.add(e.path);
    const hash = bytes ? await sha256Hex(bytes) : null;
    if (hash && bytes) this.#bytes.set(hash, bytes);
    this.edits.push({ ...e, hash, seq: ++this.#seq, state: "live" });
    if (hash && this.#read) {
      const now = await this.#read(e.path);
      const held = (now && await sha256Hex(now) === hash) ||
        (this.#committed && await this.#committed(e.path) === hash);
      if (held) this.#held.set(`${e.path}\0${hash}`, ++this.#seq);
    } else if (this.#read) {
      const now = await this.#read(e.path);
      // A deletion of what the store no longer holds (a peer deleted it
      // first), or of what the index no longer names while the store holds
      // a peer's new upload there, not yet committed.
      const gone = now === undefined || (
        syncedHash !== undefined && this.#committed !== undefined &&
        await this.#committed(e.path) === undefined && await sha256Hex(now) !== syncedHash
      );
      if (gone) this.#gone.set(e.path, ++this.#seq);
    }
  }

  /** Every path a clone's user or run replaced, edited or deleted, in order (each edit recorded included). */
  readonly touched: string[] = [];
  /** The same, each with the clone whose cache it was in (`touched` names no clone). */
  readonly touchedIn: { readonly clone: number; readonly path: string }[] = [];

  /** Clone `clone` itself replaced whatever it had at `path` (a run's marker, a merge). */
  replaced(clone: number, path: string): void {
    this.touched.push(path);
    this.touchedIn.push({ clone, path });
    for (const e of this.edits) {
      if (e.clone === clone && e.path === path && e.state === "live") e.state = "replaced";
    }
  }

  /**
   * Clone `clone`'s cache was replaced by a copy of another's that lacks
   * `path`, a file its synced record names: a deletion made in the cache
   * copied, taken with the copy its user chose, so its user's from now on.
   */
  inherited(clone: number, path: string): void {
    this.touchedIn.push({ clone, path });
  }

  /**
   * True when clone `clone` wrote the bytes `hash` at `path` and itself
   * replaced that write since (a later edit, a deletion, a directory made in
   * its place): the bytes are no longer its user's choice there.
   */
  replacedOwn(clone: number, path: string, hash: string): boolean {
    return this.edits.some((e) =>
      e.clone === clone && e.path === path && e.hash === hash && e.state === "replaced"
    );
  }

  /**
   * The library discarded clone `clone`'s change at `path` and said so by a
   * warning naming it (a marker naming a refused run's erased version).
   */
  reported(clone: number, path: string): void {
    for (const e of this.edits) {
      if (e.clone === clone && e.path === path && e.state === "live") e.state = "reported";
    }
  }

  /**
   * Clone `clone` published a set-aside copy of `path` (resolve --mine over a
   * copy a pull set aside): a deletion of the working copy it made since no
   * longer stands, by its own choice (an edited working copy is set aside
   * in turn, and checked there).
   */
  choseSetAside(clone: number, path: string): void {
    this.tookTheirs(clone, path);
  }

  /**
   * The paths each clone's `resolve --theirs` set aside what was there for
   * (a directory set aside whole, theirs a file of its name), with the seq:
   * a file its user wrote under one before went aside with it by that
   * choice, which the resolution's result names (I33's marked files; I6
   * still finds its bytes in the set-aside area).
   */
  readonly asideByTheirs: {
    readonly clone: number;
    readonly path: string;
    readonly seq: number;
  }[] = [];

  /** Clone `clone`'s `resolve --theirs` of `path` set aside what was there (see {@link asideByTheirs}). */
  tookTheirsAside(clone: number, path: string): void {
    this.asideByTheirs.push({ clone, path, seq: ++this.#seq });
  }

  /** True when clone `clone`'s `resolve --theirs` set aside a directory above `path` after `seq`. */
  setAsideAbove(clone: number, path: string, seq: number): boolean {
    return this.asideByTheirs.some((t) =>
      t.clone === clone && path.startsWith(`${t.path}/`) && t.seq > seq
    );
  }

  /** Clone `clone` took theirs for `path`: a deletion of it no longer stands. */
  tookTheirs(clone: number, path: string): void {
    for (const e of this.edits) {
      if (e.clone === clone && e.path === path && e.state === "live" && e.hash === null) {
        e.state = "waived";
      }
    }
  }

  /** What the store holds at a watched `path` after a write to it (undefined: no object). */
  async observedPut(path: string, bytes: Uint8Array | undefined): Promise<void> {
    if (bytes) this.#held.set(`${path}\0${await sha256Hex(bytes)}`, ++this.#seq);
  }

  /** What the store holds at a watched `path` after a delete of it (undefined: no object). */
  async observedDelete(path: string, bytes: Uint8Array | undefined): Promise<void> {
    if (!bytes) this.#gone.set(path, ++this.#seq);
    else await this.observedPut(path, bytes);
  }

  /**
   * I6 for clone `clone` (cache `cacheDir`): every live edit is kept (see
   * the module doc), but a deletion at a path `recordLost` names (its latest
   * synced record lost with a damaged line of the clone's manifest log: a
   * file with no record left may be fetched again by a pull, as documented).
   * Returns the violations.
   */
  async check(
    clone: number,
    cacheDir: string,
    afterOp: number,
    recordLost: (path: string) => boolean = () => false,
  ): Promise<Violation[]> {
    const out: Violation[] = [];
    for (const e of this.edits) {
      if (e.clone !== clone || e.state !== "live") continue;
      const here = await hashOf(`${cacheDir}/${e.path}`);
      if (e.hash === null) {
        // A directory at the path (the file replaced by a directory of its
        // name) is no copy of the deleted file.
        if (here === null || here === DIRECTORY || (this.#gone.get(e.path) ?? 0) > e.seq) continue;
        if (recordLost(e.path)) continue;
        out.push({
          invariant: "I6",
          message:
            `c${clone}'s deletion of ${e.path} (op #${e.op}, ${e.how}) was undone: the file is back in its cache, no delete of it reached the store, and c${clone} did not take theirs`,
          afterOp,
        });
        continue;
      }
      if (here === e.hash || (this.#held.get(`${e.path}\0${e.hash}`) ?? 0) > e.seq) continue;
      if ((await setAsideHashes(cacheDir, e.path)).includes(e.hash)) continue;
      out.push({
        invariant: "I6",
        message: `c${clone}'s edit of ${e.path} (op #${e.op}, ${e.how}) was lost: its cache holds ${
          here === null ? "no file there" : `other bytes (${here.slice(0, 12)}…)`
        }, no set-aside copy holds it, and the store never held it`,
        afterOp,
      });
    }
    return out;
  }
}
