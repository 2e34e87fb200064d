/**
 * I32's ground truth: which index entry at a path a push that reports its
 * upload there `withdrawn` is answerable for. It is one naming the path
 * again over this clone's own committed upload (the index named that very
 * upload once: its commit landed, its answer lost), committed before the
 * push's last read of the index, which it saw or could have seen.
 *
 * So is one naming that very upload, which the store no longer holds,
 * whenever it was committed: no change of anyone's, but an index write
 * from a read made before the withdrawal (an old client's read-modify-write
 * of the index) putting the entry back, naming nothing.
 *
 * Two other entries are no such thing. One committed after the push's last read
 * of the index is a later change (a peer's resolution of the deletion it
 * met as a conflict, an old client's or another tool's write) that the
 * push, its withdrawal done, never looks at again: the next pull shows it
 * as any change. And beside an upload no index ever named (its push failed
 * before its commit), an entry at that path is a peer's file of its own, no
 * entry of this clone's taken out and named again: the next pull shows it.
 * So is one first committed after the withdrawal ended: the entry naming the
 * upload taken out, then the upload deleted by this clone (a delete
 * conditional on it or, where deletes check the version, then delete, the
 * delete after its check) while the index named nothing there, and no
 * index naming that upload since (a peer that never saw it creating a file
 * of its own on a path nothing held, which the push may meet later on,
 * reading the index for another change of its own). And so is one an old
 * client's push named first once the index named nothing there after the
 * upload: its write after the withdrawal took the entry out (of the very
 * bytes, where versions are ETags, so of that very version), which the
 * push may have put back after its delete took it.
 *
 * The harness hands it every store call clones make ({@link Withdrawals.watch}),
 * and asks at a push's end ({@link Withdrawals.answerable}).
 *
 * @module
 */
import type { ObjectStore } from "../../sync/ports.ts";
import type { IndexEntry } from "../../sync/transfer/bucket_layout.ts";
import { isIndexObject } from "./clone_setup.ts";

/**
 * The index's history as clones' calls meet it.
 *
 * @example
 * ```ts ignore
 * const w = new Withdrawals();
 * const store = w.watch(inner, () => cloneOfTheCaller, readIndexEntries);
 * w.answerable(0, "notes/shared-0.md", entriesNow); // true: I32 holds the push to it
 * ```
 */
export class Withdrawals {
  /** A counter of the calls noted, in the order they ended. */
  private seq = 0;
  /** Per clone and path, the version of its last upload there. */
  private readonly uploads = new Map<string, string>();
  /** Per path, every version an index entry has named there. */
  private readonly named = new Map<string, Set<string>>();
  /** Per path, the version the index names there and since when (`seq`). */
  private readonly since = new Map<string, { v: string; at: number }>();
  /** Per clone, when its last read of an index object ended. */
  private readonly reads = new Map<number, number>();
  /**
   * Per path, what each write of an index object left it naming (`v`
   * undefined: nothing), and whether an old client's push made it (`old`).
   */
  private readonly writes = new Map<string, { v?: string; at: number; old: boolean }[]>();
  /** Per clone and path, when its delete of its last upload there (conditional on it) landed. */
  private readonly deletes = new Map<string, { v: string; at: number }>();

  /**
   * `store`, noting each upload of a clone (`clone()` names it, undefined
   * for another writer), each read of an index object, and after each write
   * of one what the index names (`entries`, read past faults and scheduling),
   * and whether an old client's push made it (`oldPush()`).
   */
  watch(
    store: ObjectStore,
    clone: () => number | undefined,
    entries: () => Promise<Record<string, IndexEntry>>,
    oldPush: () => boolean = () => false,
  ): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      get: async (key, o) => {
        // Who reads is known only now, before the first await.
        const c = isIndexObject(key) ? clone() : undefined;
        const r = await store.get(key, o);
        if (c !== undefined) this.reads.set(c, ++this.seq);
        return r;
      },
      put: async (key, body, mode, o) => {
        const c = clone();
        const old = oldPush();
        const info = await store.put(key, body, mode, o);
        if (isIndexObject(key)) this.indexed(await entries(), old);
        else if (c !== undefined) {
          this.uploads.set(`${c}\0${key}`, info.version);
          this.deletes.delete(`${c}\0${key}`);
        }
        return info;
      },
      delete: async (key, o) => {
        const c = clone();
        await store.delete(key, o);
        // The version deleted: the condition, or the one a checked delete
        // (a check, then a plain delete: `checkThenDelete`) checked.
        const v = o?.ifVersion ?? (o as { checkedVersion?: string } | undefined)?.checkedVersion;
        if (c === undefined || isIndexObject(key) || v === undefined) return;
        const k = `${c}\0${key}`;
        if (this.uploads.get(k) === v) this.deletes.set(k, { v, at: ++this.seq });
      },
    };
  }

  /** What the index names after a write of one of its objects. */
  private indexed(entries: Record<string, IndexEntry>, old: boolean): void {
    const at = ++this.seq;
    for (const [path, e] of Object.entries(entries)) {
      const seen = this.named.get(path) ?? new Set<string>();
      this.named.set(path, seen.add(e.v));
      if (this.since.get(path)?.v !== e.v) this.since.set(path, { v: e.v, at });
    }
    for (const path of this.since.keys()) {
      if (!Object.hasOwn(entries, path)) this.since.delete(path);
    }
    for (const path of new Set([...Object.keys(entries), ...this.writes.keys()])) {
      const v = Object.hasOwn(entries, path) ? entries[path].v : undefined;
      const seen = this.writes.get(path) ?? [];
      this.writes.set(path, seen);
      seen.push({ v, at, old });
    }
  }

  /**
   * Whether clone `clone`'s withdrawal of its upload `upload` at `path`
   * ended before any entry there now: the last index write naming the
   * upload followed by writes naming nothing there up to the clone's delete
   * of it (the entry taken out first, nothing named meanwhile), and none
   * naming the upload again since. Any entry there since is a peer's file
   * of its own or a later change.
   */
  private withdrawnBefore(clone: number, path: string, upload: string): boolean {
    const deleted = this.deletes.get(`${clone}\0${path}`);
    if (deleted?.v !== upload) return false;
    const writes = this.writes.get(path) ?? [];
    const before = writes.filter((w) => w.at < deleted.at);
    const named = before.findLastIndex((w) => w.v === upload);
    if (named < 0 || named === before.length - 1) return false;
    if (before.slice(named + 1).some((w) => w.v !== undefined)) return false;
    return !writes.some((w) => w.at > deleted.at && w.v === upload);
  }

  /**
   * Whether the first index write naming `path` once the index named
   * nothing there after naming `upload` was an old client's push: a later
   * change of theirs, whatever version it names.
   */
  private oldPushNamedAfter(path: string, upload: string): boolean {
    const writes = this.writes.get(path) ?? [];
    const named = writes.findIndex((w) => w.v === upload);
    const out = writes.findIndex((w, i) => i > named && w.v === undefined);
    const again = writes.find((w, i) => i > out && w.v !== undefined);
    return named >= 0 && out >= 0 && again?.old === true;
  }

  /**
   * Whether `entries`' entry at `path` (the index as clone `clone`'s push
   * reporting its upload there withdrawn ends) is one I32 holds that push
   * to: its own upload there named once, and this entry committed before
   * the push's last read of the index and not after that upload's
   * withdrawal ended (see `withdrawnBefore`), or (`held`: the version the
   * store holds at `path`, null for none) naming that very upload, which the
   * store no longer holds, whenever it was committed.
   */
  answerable(
    clone: number,
    path: string,
    entries: Record<string, IndexEntry>,
    held?: string | null,
  ): boolean {
    if (!Object.hasOwn(entries, path)) return false;
    const upload = this.uploads.get(`${clone}\0${path}`);
    if (upload === undefined || !this.named.get(path)?.has(upload)) return false;
    // The withdrawn upload itself named again, the object gone: no later
    // change, but an index write from a read made before the withdrawal (an
    // old client's read-modify-write under the global lock) putting the
    // entry back, naming nothing.
    if (held !== undefined && entries[path].v === upload && held !== upload) return true;
    if (this.oldPushNamedAfter(path, upload)) return false;
    if (this.withdrawnBefore(clone, path, upload)) return false;
    const since = this.since.get(path);
    return since === undefined || since.at <= (this.reads.get(clone) ?? 0);
  }
}
