/**
 * I15, one shape per path: no cache can hold a file `a` and files under
 * `a/` at once, so a datastore that holds both leaves one of them out of
 * every pull (`path_blocked`). Two writers that never saw each other's
 * shape can make such a clash (two caches pushed one each), and so can an
 * old client, which checks nothing; a writer that replaced one shape by the
 * other must not. After the final sync (faults healed, every clone synced,
 * a replacement left for a walk pushed by its name, as the walk's exit says):
 *
 * - the remote index names no path `p` beside paths under `p/` where a
 *   writer wrote one shape while it had synced a version of the other that
 *   still stands beside it (the push that replaced the shape left the old
 *   one), unless a clone holds an open conflict at `p` or under it (the
 *   replacement met another writer's change there, and kept it);
 * - no clone's final pull leaves a path out as blocked (`blocked`) when
 *   nothing of its own is in the way: a conflict open there, a file or
 *   directory changed here or never synced, or a clash on the datastore
 *   spared above (a replacement the datastore made, with the synced shape
 *   unchanged here, is one the pull follows).
 *
 * A writer a pull told of the other shape (`path_blocked`: the datastore
 * holds a path its own file or directory is in the way of, one the
 * datastore does not hold: the harness tells only of those) knows of it as
 * well as one that synced it: a put of its made after that warning, while
 * the path it was told of still stands (its object never deleted since: a
 * new version of it, another writer's edit, is the same path still in the
 * way, and a later pull that leaves it out for another reason, an upload
 * not committed yet, tells the writer nothing new), must not leave the two
 * shapes side by side either.
 *
 * The writes are watched as they are made ({@link ShapeWatch.watch}): for
 * each put, the versions of the other shape its writer had synced then, and
 * its turn among every put watched.
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import type { ConflictRecord } from "../../sync/service/conflicts.ts";
import type { SyncState } from "../../sync/service/state.ts";
import { type IndexEntry, isLayoutInternal } from "../../sync/transfer/bucket_layout.ts";
import type { Violation } from "./invariants.ts";

/**
 * Whether the datastore holds the other shape of `path`'s name (a file
 * above it, or a path under a directory of its name), as a resolution's
 * refusal (`unsafe_path`) may say: among the objects the store holds
 * (`keys`) or the paths its index names (`indexed`). Both count: Sluice
 * reads the index for it (`indexedShapeReader`), and an entry whose object
 * another tool deleted since (a lost file, `index_entry_dangling`) is still
 * a file of that name that `--mine` would publish beside.
 *
 * @example
 * ```ts
 * import { holdsOtherShape } from "./shapes.ts";
 * console.log(holdsOtherShape("a/b", [], ["a"])); // true: the index names a file a
 * ```
 */
export function holdsOtherShape(
  path: string,
  keys: Iterable<string>,
  indexed: Iterable<string>,
): boolean {
  const other = (k: string) => k.startsWith(`${path}/`) || path.startsWith(`${k}/`);
  for (const names of [keys, indexed]) {
    for (const k of names) if (other(k)) return true;
  }
  return false;
}

/** A put by a writer that had synced the other shape of its path. */
interface InformedWrite {
  readonly clone: number;
  readonly op: number;
  readonly key: string;
  /** The version the put wrote. */
  readonly version: string;
  /** The other shape's paths the writer had synced then (`key`'s ancestors, or paths under it), with their versions. */
  readonly knew: readonly { readonly path: string; readonly version: string }[];
  /** The put's turn among every put watched. */
  readonly turn: number;
}

/** A `path_blocked` warning of a clone's pull: the datastore holds `path`, which something here is in the way of. */
interface Told {
  readonly clone: number;
  readonly path: string;
  /** The number of puts watched before it. */
  readonly turn: number;
}

/** The writing clone, as the harness knows it when a call starts. */
export interface ShapeWriter {
  readonly clone: number;
  readonly state: Pick<SyncState, "synced" | "syncedPaths">;
}

/** The proper ancestors of `path` (`a/b/c` → `a`, `a/b`). */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i));
  return out;
}

const near = (a: string, p: string) => a === p || a.startsWith(`${p}/`);

/**
 * The writes made and the checks.
 *
 * @example
 * ```ts ignore
 * const shapes = new ShapeWatch();
 * const store = shapes.watch(inner, () => writerOfTheRunningUnit(), () => opId);
 * // after the final sync:
 * const { violations, clashed } = shapes.checkClashes(entries, conflicts, oldWrote);
 * ```
 */
export class ShapeWatch {
  readonly #informed: InformedWrite[] = [];
  /** Every put of a clone watched (informed or not), for the warnings' checks. */
  readonly #puts: InformedWrite[] = [];
  readonly #told: Told[] = [];
  /** The turns of the deletions of each key's object (watched, or by another tool: {@link gone}). */
  readonly #gone = new Map<string, number[]>();
  /**
   * The turns of those deletions that were answered (not failed: known to
   * have taken effect), with the clone that made each (none: another tool).
   */
  readonly #deleted = new Map<string, { turn: number; clone?: number }[]>();
  /** The turn of each put watched and its clone (none: another writer), by `<key>\0<version>`. */
  readonly #putTurn = new Map<string, { turn: number; clone?: number }>();
  #turns = 0;

  /** The store's object at a key, read beside the scheduler (set by the harness; needed by {@link checkWalk}). */
  head?: (key: string) => Promise<{ readonly version: string } | null>;

  /** How many puts were watched so far (a mark for {@link checkWalk}). */
  get puts(): number {
    return this.#puts.length;
  }

  /**
   * I15 at the end of a walk push of clone `clone` (a push of the whole
   * cache, which never deletes): none of its puts since `from` (a
   * {@link puts} mark) stands beside a shape of the other kind that it had
   * synced and that still stands at that version: the walk would have left
   * a file and files under a directory of one name on the datastore.
   */
  checkWalk(clone: number, from: number, op: number): Promise<Violation[]> {
    return this.#standingBeside(
      clone,
      from,
      (w, k) =>
        `c${clone}'s walk push (op #${op}) published ${w} while it had synced ${k}, which still stands beside it: a walk never deletes, so it left a file and files under a directory of one name`,
      op,
    );
  }

  /**
   * I15 at the end of any push of clone `clone`, one that failed too (a
   * write or deletion out of reach part way: a `blip` move): none of its
   * puts since `from` (a {@link puts} mark) stands beside a shape of the
   * other kind that it had synced and that still stands at that version. A
   * push that replaces a shape deletes the old one first, and holds back the
   * new one's writes where a deletion is not made (failed, refused, or never
   * tried), so it never leaves a file and files under a directory of one
   * name on the datastore, even for a while. A shape that stands at the
   * version the writer synced only because another writer wrote it again
   * after the writer's own deletion, answered before the writer's put (on a
   * store whose versions are the bytes' ETags, a peer's push that found its
   * object gone writes the same bytes back at the same version), is not the
   * one the writer left: its deletion came first, and its commit leaves the
   * write out (`path_blocked`). The writer's own put of it again, or a
   * deletion it never made (another's), spares nothing.
   */
  checkPush(clone: number, from: number, op: number): Promise<Violation[]> {
    return this.#standingBeside(
      clone,
      from,
      (w, k) =>
        `c${clone}'s push (op #${op}) wrote ${w} while it had synced ${k}, which still stands beside it as the push ends: a file and files under a directory of one name on the datastore, its deletion never made first`,
      op,
    );
  }

  /** The puts of `clone` since `from` that still stand beside a shape of the other kind it had synced, still standing. */
  async #standingBeside(
    clone: number,
    from: number,
    message: (write: string, knew: string) => string,
    op: number,
  ): Promise<Violation[]> {
    const out: Violation[] = [];
    if (!this.head) return out;
    for (const w of this.#puts.slice(from)) {
      if (w.clone !== clone || w.knew.length === 0) continue;
      if ((await this.head(w.key))?.version !== w.version) continue;
      for (const k of w.knew) {
        if ((await this.head(k.path))?.version !== k.version) continue;
        if (this.#writtenAgain(k.path, k.version, w.turn, clone)) continue;
        out.push({
          invariant: "I15",
          message: message(w.key, `${k.path} (version ${k.version})`),
          afterOp: op,
        });
        break;
      }
    }
    return out;
  }

  /**
   * Whether `version` of `path` was written by another writer than clone
   * `clone` after that clone's own deletion of `path`, answered before turn
   * `turn`: what stands at that version since is a later write of the same
   * bytes, not the object that deletion removed.
   */
  #writtenAgain(path: string, version: string, turn: number, clone: number): boolean {
    const own = (this.#deleted.get(path) ?? []).filter((d) => d.turn < turn && d.clone === clone);
    if (own.length === 0) return false;
    const put = this.#putTurn.get(`${path}\0${version}`);
    return put !== undefined && put.clone !== clone && put.turn > own[own.length - 1].turn;
  }

  /**
   * The object at `key` was deleted (by a writer watched, clone `clone`, or
   * by another tool beside them); `answered` false: the call failed, and
   * may or may not have taken effect.
   */
  gone(key: string, answered = true, clone?: number): void {
    const turn = ++this.#turns;
    const turns = this.#gone.get(key) ?? [];
    turns.push(turn);
    this.#gone.set(key, turns);
    if (!answered) return;
    const deleted = this.#deleted.get(key) ?? [];
    deleted.push({ turn, ...(clone === undefined ? {} : { clone }) });
    this.#deleted.set(key, deleted);
  }

  /** The turn of the last deletion of `key` before `turn` (0: none). */
  #goneBefore(key: string, turn = Infinity): number {
    const turns = this.#gone.get(key) ?? [];
    for (let i = turns.length - 1; i >= 0; i--) if (turns[i] < turn) return turns[i];
    return 0;
  }

  /** Clone `clone`'s pull warned that the datastore holds `path`, which something of its own is in the way of. */
  told(clone: number, path: string): void {
    this.#told.push({ clone, path, turn: this.#turns });
  }
  /** `<clone>\0<path>` of reshapes left for a walk (not pushed by name since). */
  readonly #byHand = new Set<string>();

  /** Clone `clone` replaced `path`'s shape; `pushed`: and pushed it by its name. */
  reshaped(clone: number, path: string, pushed: boolean): void {
    if (pushed) this.#byHand.delete(`${clone}\0${path}`);
    else this.#byHand.add(`${clone}\0${path}`);
  }

  /** The paths clone `clone` reshaped by hand and never pushed by name since. */
  leftByHand(clone: number): string[] {
    return [...this.#byHand].filter((k) => k.startsWith(`${clone}\0`)).map((k) =>
      k.slice(k.indexOf("\0") + 1)
    );
  }

  /** `store`, recording each put whose writer had synced the other shape of its key. */
  watch(
    store: ObjectStore,
    writer: () => ShapeWriter | undefined,
    opId: () => number,
  ): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        // Who writes is known only now, before the first await.
        const who = isLayoutInternal(key) ? undefined : writer();
        const op = opId();
        const knew: { path: string; version: string }[] = [];
        if (who) {
          for (const a of ancestors(key)) {
            const s = who.state.synced(a);
            if (s?.version) knew.push({ path: a, version: s.version });
          }
          for (const p of who.state.syncedPaths()) {
            const s = p.startsWith(`${key}/`) ? who.state.synced(p) : undefined;
            if (s?.version) knew.push({ path: p, version: s.version });
          }
        }
        const info = await store.put(key, body, mode, o);
        const turn = ++this.#turns;
        this.#putTurn.set(`${key}\0${info.version}`, {
          turn,
          ...(who === undefined ? {} : { clone: who.clone }),
        });
        if (who) {
          const write = { clone: who.clone, op, key, version: info.version, knew, turn };
          this.#puts.push(write);
          if (knew.length > 0) this.#informed.push(write);
        }
        return info;
      },
      delete: async (key, o) => {
        // Who deletes is known only now, before the first await.
        const who = isLayoutInternal(key) ? undefined : writer();
        let answered = false;
        try {
          await store.delete(key, o);
          answered = true;
        } finally {
          // Taken as gone even when the call failed: it may have taken effect.
          this.gone(key, answered, who?.clone);
        }
      },
    };
  }

  /**
   * The clashes the remote index (`entries`) holds after the final sync: a
   * violation each where a writer left a shape it had synced beside the one
   * it wrote (see the module), spared where a clone holds an open conflict
   * at or under the path (`conflicts`, every clone's) or an old client
   * wrote it (`oldWrote`). `clashed` holds every path of every clash.
   */
  checkClashes(
    entries: Readonly<Record<string, IndexEntry>>,
    conflicts: readonly (readonly ConflictRecord[])[],
    oldWrote: (path: string) => boolean,
  ): { violations: Violation[]; clashed: Set<string> } {
    const violations: Violation[] = [];
    const clashed = new Set<string>();
    const paths = Object.keys(entries).filter((p) => !isLayoutInternal(p)).sort();
    for (const p of paths) {
      const under = paths.filter((q) => q.startsWith(`${p}/`));
      if (under.length === 0) continue;
      for (const q of [p, ...under]) clashed.add(q);
      if (oldWrote(p)) continue;
      const stands = (path: string, version: string) => entries[path]?.v === version;
      const both = `after the final sync the remote index names both ${p} and ${under[0]}${
        under.length > 1 ? ` (and ${under.length - 1} more under it)` : ""
      }`;
      // The other shape stood, at the version named now, before the write
      // and before the writer's deletion of it, where it made one (a newer
      // version of the path the writer had synced: a peer's edit its
      // deletion met): a conflict open there does not make the write right,
      // the write had to wait for the deletion. (One put after a deletion
      // that went through is another writer's the writer never saw.)
      const before = (path: string, turn: number) => {
        const e = entries[path];
        const at = this.#goneBefore(path, turn) || turn;
        return !!e && (this.#putTurn.get(`${path}\0${e.v}`)?.turn ?? Infinity) < at;
      };
      const left = this.#informed.find((w) =>
        near(w.key, p) && stands(w.key, w.version) &&
        w.knew.some((k) => near(k.path, p) && before(k.path, w.turn))
      );
      if (left) {
        const old = left.knew.find((k) => near(k.path, p) && before(k.path, left.turn))!;
        violations.push({
          invariant: "I15",
          message:
            `${both}: c${left.clone} wrote ${left.key} (op #${left.op}) while it had synced ${old.path} (version ${old.version}), whose version named now (${
              entries[old.path]?.v
            }) stood before that write and still stands beside it`,
          afterOp: -1,
        });
        continue;
      }
      if (conflicts.some((list) => list.some((c) => near(c.path, p)))) continue;
      // Told by its pull of the other shape, still standing since, and wrote its own anyway.
      const isOther = (key: string, other: string) =>
        other.startsWith(`${key}/`) || key.startsWith(`${other}/`);
      let told: Told | undefined;
      const warned = this.#puts.find((w) =>
        near(w.key, p) && stands(w.key, w.version) &&
        (told = this.#told.find((t) =>
            t.clone === w.clone && t.turn < w.turn && isOther(w.key, t.path) &&
            entries[t.path] !== undefined && this.#goneBefore(t.path) <= t.turn
          )) !== undefined
      );
      if (!warned || !told) continue;
      violations.push({
        invariant: "I15",
        message:
          `${both}: c${warned.clone} wrote ${warned.key} (op #${warned.op}) after its pull had told it (path_blocked) that the datastore holds ${told.path}, which has stood since, and no clone has a conflict open there`,
        afterOp: -1,
      });
    }
    return { violations, clashed };
  }

  /**
   * The blocked paths of clone `clone`'s final pull (`blocked`) that nothing
   * of its own is in the way of (see the module). `kept`: files that pull
   * kept to publish again, their index entries dropped by another client's
   * rewrite of the index (`PullResult.dropped`): the clone's own, though
   * synced and unchanged here.
   */
  async checkBlocked(
    clone: number,
    cacheDir: string,
    state: Pick<SyncState, "synced">,
    conflicts: readonly ConflictRecord[],
    blocked: readonly string[],
    clashed: ReadonlySet<string>,
    kept: ReadonlySet<string> = new Set(),
  ): Promise<Violation[]> {
    const out: Violation[] = [];
    const changedHere = async (path: string): Promise<boolean> => {
      if (kept.has(path)) return true;
      const s = state.synced(path);
      if (!s) return true;
      try {
        return (await sha256Hex(await Deno.readFile(`${cacheDir}/${path}`))) !== s.hash;
      } catch {
        return true;
      }
    };
    const filesUnder = async (dir: string): Promise<string[]> => {
      const found: string[] = [];
      const walk = async (rel: string) => {
        for await (const e of Deno.readDir(`${cacheDir}/${rel}`)) {
          if (e.isDirectory) await walk(`${rel}/${e.name}`);
          else found.push(`${rel}/${e.name}`);
        }
      };
      await walk(dir).catch(() => {});
      return found;
    };
    for (const b of blocked) {
      if (clashed.has(b) || ancestors(b).some((a) => clashed.has(a))) continue;
      if (conflicts.some((c) => near(c.path, b) || near(b, c.path))) continue;
      let own = false;
      for (const a of ancestors(b)) {
        const st = await Deno.lstat(`${cacheDir}/${a}`).catch(() => null);
        if (st && !st.isDirectory && (!st.isFile || await changedHere(a))) own = true;
      }
      const st = await Deno.lstat(`${cacheDir}/${b}`).catch(() => null);
      if (st?.isDirectory) {
        for (const f of await filesUnder(b)) if (await changedHere(f)) own = true;
      } else if (st) own = true;
      if (own) continue;
      out.push({
        invariant: "I15",
        message:
          `c${clone}'s final pull left ${b} out as blocked, though nothing of its own is in the way (no conflict there, the shape in the way synced and unchanged here) and the datastore holds no other shape beside it`,
        afterOp: -1,
      });
    }
    return out;
  }
}
