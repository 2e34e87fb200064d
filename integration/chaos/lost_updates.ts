/**
 * I9, no lost update: a committed edit of a shared file is replaced or
 * deleted on the store only by a writer that had seen it. I6 counts an edit
 * kept once the store held it, on the promise that whoever changed the file
 * next based that change on it; this checks the promise at each write.
 *
 * At every put or delete of one of {@link SHARED_FILES} (their bytes name
 * the edit that wrote them), the store's bytes before the call are compared
 * with what the index names for the path. When the call replaces bytes the
 * index names (a committed edit of another clone), the writing clone must
 * have synced those bytes, or hold a conflict whose "theirs" they are (a
 * resolution publishes over what the user saw), by hash or by version (a
 * deletion's conflict, and a resolution rebased on it, know no hash). Anything else is a lost
 * update: the earlier writer's push reported success, and its change is gone.
 * But a version the writer put itself is its own to replace, though its
 * bytes be another clone's edit: its resolution `--mine` republished its
 * copy of that edit, a damaged log line having made it forget it had synced
 * it (seed 206800234).
 *
 * The same for a committed deletion: an index commit that names a shared
 * file again where the index named none must come from a writer that had
 * seen the deletion (it synced no version there, or holds a conflict on it).
 *
 * And I7 at each index commit, not only after the final sync: an index
 * object (the v1 index, or a shard) written by compare-and-swap with a new entry for a shared
 * file must name the version the store holds at that moment. A push that
 * commits a version another writer already replaced reports success for an
 * edit that is gone (the pull that follows takes the replacement over it),
 * unless that writer had seen it (a resolution whose "theirs" was the
 * upload, its commit still on its way: the user chose over it).
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import { readIndex } from "../../sync/transfer/remote_index.ts";
import {
  type IndexEntry,
  isUnversioned,
  META_KEY,
  MONOLITH_KEY,
  parseMonolith,
  parseShard,
} from "../../sync/transfer/bucket_layout.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { SHARED_FILES } from "./history.ts";
import { VANISHED_KEY } from "../../sync/service/vanished_record.ts";
import { isMoveCommand, isOldClientCommand } from "./commands.ts";
import type { Violation } from "./invariants.ts";
import type { LocalChanges } from "./local_changes.ts";

/** What a writing clone knew of a path. */
export interface WriterView {
  readonly clone: number;
  /** Hash of the bytes it last synced at `path`. */
  synced(path: string): string | undefined;
  /** Version it last synced at `path` (a resolution rebases it on theirs, hash unknown). */
  syncedVersion(path: string): string | undefined;
  /** Hash of the datastore's copy in its open conflict on `path`. */
  theirs(path: string): string | undefined;
  /** Version of the datastore's copy in its open conflict on `path` (a deletion's conflict has no hash). */
  theirsVersion(path: string): string | undefined;
  /** True while it holds an open conflict on `path`. */
  conflicted(path: string): boolean;
}

/** What {@link watchLostUpdates} needs from the harness. */
export interface LostUpdateDeps {
  readonly changes: LocalChanges;
  /** The store's bytes at `key`, read directly (past faults and scheduling). */
  read(key: string): Promise<Uint8Array | undefined>;
  /** The version the store holds at `path` (undefined: none), read directly. */
  held(path: string): Promise<string | undefined>;
  /** The hash the remote index names for `path` (undefined: none), read directly. */
  indexHash(path: string): Promise<string | undefined>;
  /** The clone whose command makes the current call (undefined: the operator or the harness). */
  writer(): WriterView | undefined;
  /** True while the current call is a move to v2's (its shard writes restate the v1 index). */
  moving(): boolean;
  violate(v: Violation): void;
  /** The history operation being applied. */
  opId(): number;
  /** True when `e` names an object another tool deleted at `path` (`vanish` moves). */
  vanished?(path: string, e: IndexEntry): boolean;
  /**
   * A delete that checked `path`'s version, then deleted `version` (`bytes`),
   * written in between (a store whose deletes check, then delete): the
   * store's race, not the deleting writer's choice. Its bytes are then held
   * to I19 as another tool's deletion's are, and the index writes to I9.
   */
  raced?(path: string, bytes: Uint8Array, version: string): Promise<void>;
  /**
   * True when `hash` at `path` (a `latest` marker) is a user's move of it
   * back (`marker` moves with `back`): such a committed marker is held to I9
   * as a shared file's edit is (a marker moved forward may be written over
   * by one moved further forward, which loses nothing).
   */
  markerRollback?(path: string, hash: string): boolean;
}

/**
 * `store`, checking I9 at each put and delete of a shared file.
 *
 * @example
 * ```ts
 * import { watchLostUpdates } from "./lost_updates.ts";
 * // const checked = watchLostUpdates(store, { changes, read, indexHash, writer, violate, opId });
 * ```
 */
export function watchLostUpdates(store: ObjectStore, deps: LostUpdateDeps): ObjectStore {
  const hashOf = async (key: string) => {
    const bytes = await deps.read(key);
    return bytes ? await sha256Hex(bytes) : undefined;
  };
  // Versions of shared files replaced by a writer that had seen them (its
  // conflict's "theirs", or what it synced): committed or not at the time.
  const replacedSeen = new Set<string>();
  // The version each watched path's last put landed as, and the clone that
  // put it: a clone's own publication, whoever first wrote its bytes.
  const putBy = new Map<string, { version: string; clone: number }>();
  const watched = <T>(
    key: string,
    call: () => Promise<T>,
    versionOf?: (r: T) => string | undefined,
  ): Promise<T> => {
    // Who writes is known only now, before the first await.
    const marker = key.endsWith("/latest") && deps.markerRollback !== undefined;
    const who = SHARED_FILES.includes(key) || marker ? deps.writer() : undefined;
    if (!who) {
      // Another writer's (an old client's, the harness's): the object is no clone's own now.
      if (SHARED_FILES.includes(key) || marker) return call().finally(() => putBy.delete(key));
      return call();
    }
    return (async () => {
      const before = await hashOf(key);
      const beforeVersion = await deps.held(key);
      const committed = before !== undefined && (await deps.indexHash(key)) === before;
      // Whose put the object replaced is (read before this one lands).
      const own = putBy.get(key);
      let r: T;
      try {
        r = await call();
      } catch (e) {
        // Refused, the object stays as it was; a put whose answer was lost
        // may have landed, and whose the object is then is not known.
        if (own && (await deps.held(key)) !== own.version) putBy.delete(key);
        throw e;
      }
      const landed = versionOf?.(r);
      if (landed !== undefined) putBy.set(key, { version: landed, clone: who.clone });
      else putBy.delete(key);
      const after = await hashOf(key);
      if (
        beforeVersion !== undefined && after !== before &&
        (who.theirs(key) === before || who.theirsVersion(key) === beforeVersion ||
          who.syncedVersion(key) === beforeVersion)
      ) replacedSeen.add(`${key}\0${beforeVersion}`);
      if (!committed || after === before) return r;
      if (marker && !deps.markerRollback!(key, before!)) return r;
      const edit = deps.changes.edits.find((e) => e.path === key && e.hash === before);
      if (!edit || edit.clone === who.clone) return r;
      // The version replaced is this writer's own put (a resolution `--mine`
      // publishing its copy of another clone's edit, say): what it replaces it
      // published itself, though a damaged log line may have lost its record.
      if (own?.clone === who.clone && own.version === beforeVersion) return r;
      if (who.synced(key) === before || who.theirs(key) === before) return r;
      const seen = [who.syncedVersion(key), who.theirsVersion(key)];
      if (beforeVersion !== undefined && seen.includes(beforeVersion)) return r;
      deps.violate({
        invariant: "I9",
        message: `c${who.clone} ${
          after === undefined ? "deleted" : "wrote over"
        } ${key} while the index named c${edit.clone}'s committed edit (op #${edit.op}, ${edit.how}), which c${who.clone} had never seen: that edit is lost`,
        afterOp: deps.opId(),
      });
      return r;
    })();
  };
  const entriesOf = (key: string, bytes: Uint8Array | undefined) => {
    if (!bytes) return {};
    try {
      return (key === MONOLITH_KEY ? parseMonolith(bytes) : parseShard(bytes)) ?? {};
    } catch {
      return {} as Record<string, IndexEntry>;
    }
  };
  // The version each shared file's last committed deletion removed.
  const deleted = new Map<string, string>();
  /** What the datastore's record of lost files names at `path`, read directly. */
  const recordedLost = async (path: string): Promise<{ v: string } | undefined> => {
    const bytes = await deps.read(VANISHED_KEY);
    if (!bytes) return undefined;
    try {
      const paths = JSON.parse(new TextDecoder().decode(bytes))?.paths;
      return paths && Object.hasOwn(paths, path) ? paths[path] : undefined;
    } catch {
      return undefined;
    }
  };
  const indexWrite = async <T>(key: string, call: () => Promise<T>): Promise<T> => {
    // Who writes is known only now, before the first await.
    const who = deps.writer();
    const before = entriesOf(key, await deps.read(key));
    const r = await call();
    const after = entriesOf(key, await deps.read(key));
    for (const [path, e] of Object.entries(before)) {
      // A clone's commit of a deletion (not an entry dropped by an old
      // client's stale rewrite: the object it named is gone).
      if (!SHARED_FILES.includes(path) || Object.hasOwn(after, path)) continue;
      const gone = (await deps.held(path)) !== e.v;
      if (gone) deleted.set(path, e.v);
      // Another clone's committed edit taken out of the index by a writer
      // that never saw it, while the store still holds it or after another
      // tool deleted its object: its holders would take that for a deletion.
      // Only an entry recorded as lost first (a pull's or a withdrawal's
      // removal of an entry naming nothing: holders keep their copies) may go
      // so. (An object its own writer deleted is that writer's deletion: an
      // adopter that meets it takes the entry out.)
      const edit = deps.changes.edits.find((x) => x.path === path && x.hash === e.h);
      const editor = edit?.clone;
      // The editor deleted the file since (its deletion dropped the record
      // of the loss, its holder's own choice): nothing of it is lost. Its
      // latest change there, a deletion that stands (not undone since).
      const latest = !edit ? undefined : deps.changes.edits
        .filter((x) => x.path === path && x.clone === edit.clone && x.seq > edit.seq)
        .reduce<typeof edit | undefined>((a, x) => (!a || x.seq > a.seq ? x : a), undefined);
      const deletedByEditor = latest?.hash === null && latest.state !== "waived";
      if (
        who && editor !== undefined && editor !== who.clone && !deletedByEditor &&
        who.synced(path) !== e.h &&
        who.syncedVersion(path) !== e.v && !who.conflicted(path) &&
        (!gone || deps.vanished?.(path, e)) && (await recordedLost(path))?.v !== e.v
      ) {
        deps.violate({
          invariant: "I9",
          message:
            `c${who.clone}'s index write (${key}) took out ${path} (version ${e.v}, c${editor}'s committed edit), which it had never seen, and recorded no loss: its holders take that for a deletion, and the edit is lost`,
          afterOp: deps.opId(),
        });
      }
    }
    for (const [path, e] of Object.entries(after)) {
      if (!SHARED_FILES.includes(path) || before[path]?.v === e.v) continue;
      const based = who?.syncedVersion(path);
      if (
        !Object.hasOwn(before, path) && who && based !== undefined &&
        deleted.get(path) === based && !who.conflicted(path)
      ) {
        // A deletion committed since this writer synced the path (the index
        // named it then): naming it again, with no conflict to show the
        // deletion was seen, undoes a deletion whose push reported success.
        deps.violate({
          invariant: "I9",
          message:
            `c${who.clone}'s index write (${key}) named ${path} again (version ${e.v}) over a committed deletion it had never seen (it synced version ${based}): that deletion is lost`,
          afterOp: deps.opId(),
        });
      }
      const held = await deps.held(path);
      if (held === e.v) continue;
      if (isUnversioned(e)) {
        // Named by its bytes, not a version: an object a listing found on a
        // datastore with no index (a discovery). It holds while the store's
        // bytes are of its size (and hash, when it names one).
        const bytes = await deps.read(path);
        if (bytes && bytes.length === e.s && (!e.h || (await sha256Hex(bytes)) === e.h)) continue;
      }
      // The named bytes' own writer wrote over them since (it had seen them,
      // having written them): its push is in flight, as any push is between
      // its object write and its index update, and its commit names the new
      // version. (An adoption commit met this: it checked the stranded object,
      // and its writer replaced it before the adoption's index write landed.)
      const now = await hashOf(path);
      const writerOf = (hash: string | undefined) =>
        deps.changes.edits.find((x) => x.path === path && x.hash === hash)?.clone;
      if (now !== undefined && writerOf(now) !== undefined && writerOf(now) === writerOf(e.h)) {
        continue;
      }
      // An adoption commit (another clone's bytes) whose object that clone
      // deleted as its own upload between the adoption's check and its index
      // write: the adopter looks again after the write and takes the entry
      // out (the checks after the final sync hold it to that).
      if (
        now === undefined && who && writerOf(e.h) !== undefined && writerOf(e.h) !== who.clone
      ) continue;
      // A writer that had seen these bytes replaced them before this commit
      // landed (a resolution whose "theirs" was this upload, its commit on
      // its way): the user chose over them, as over a committed edit, and
      // that writer's own commit names what replaced them; only while that
      // commit has not landed (this index object did not name it already).
      if (replacedSeen.has(`${path}\0${e.v}`) && before[path]?.v !== held) continue;
      // Another tool deleted the object between its upload and this commit
      // (and a peer's create may have taken the path since): no commit looks
      // again (I19 checks that its bytes are not lost).
      if (deps.vanished?.(path, e)) continue;
      deps.violate({
        invariant: "I7",
        message:
          `an index write (${key}) named version ${e.v} of ${path}, which the store no longer held (${
            held ?? "no object"
          }): the push that committed it reported an edit that is gone`,
        afterOp: deps.opId(),
      });
    }
    return r;
  };
  const isIndex = (key: string) =>
    key === MONOLITH_KEY || (key.startsWith("_index/") && key !== META_KEY);
  return {
    ...store,
    endpoint: store.endpoint,
    get: (key, o) => store.get(key, o),
    head: (key, o) => store.head(key, o),
    ...(store.getStream ? { getStream: (key, o) => store.getStream!(key, o) } : {}),
    list: (prefix, o) => store.list(prefix, o),
    put: (key, body, mode, o) =>
      // A commit's compare-and-swap (a companion's plain shard writes and a
      // move's shard writes, plain or not, restate an index read earlier,
      // and are not commits).
      isIndex(key) && mode.kind !== "overwrite" && deps.writer() && !deps.moving()
        ? indexWrite(key, () => store.put(key, body, mode, o))
        : watched(key, () => store.put(key, body, mode, o), (info) => info.version),
    delete: async (key, o) => {
      // The delete half of a check-then-delete (see `raced`): which version it deletes.
      const checked = (o as { checkedVersion?: string } | undefined)?.checkedVersion;
      // A shared file, or a file under one's name (a reshape made it a directory).
      const shared = SHARED_FILES.some((f) => key === f || key.startsWith(`${f}/`));
      const version = checked !== undefined && shared ? await deps.held(key) : undefined;
      if (version === undefined || version === checked) {
        return await watched(key, () => store.delete(key, o));
      }
      const bytes = await deps.read(key);
      try {
        await store.delete(key, o);
      } catch (e) {
        // A delete whose answer was lost after it took effect (the version
        // gone all the same) deleted the write landed in between as well.
        if (bytes && (await deps.held(key)) !== version) await deps.raced?.(key, bytes, version);
        throw e;
      }
      if (bytes) await deps.raced?.(key, bytes, version);
    },
  };
}

/** A clone as the harness holds it. */
export interface HarnessClone {
  readonly index: number;
  readonly owner: string;
  readonly svc: Pick<SyncService, "state" | "conflicts">;
}

/**
 * {@link LostUpdateDeps} from the harness: the index is read from `direct`,
 * and the writer is the clone whose incarnation owns the running unit.
 */
export function harnessDeps(h: {
  readonly changes: LocalChanges;
  readonly read: (key: string) => Promise<Uint8Array | undefined>;
  readonly direct: ObjectStore;
  readonly owner: () => string;
  /** The label of the running command (undefined: a background task). */
  readonly label: () => string | undefined;
  readonly clones: readonly HarnessClone[];
  /**
   * The service of a second process over the cache of the clone whose
   * process `owner` is, running its command in that process's place while
   * it waits (an aimed `second` command): its records and synced files are
   * the writer's view, not the waiting process's.
   */
  readonly acting?: (owner: string) => HarnessClone["svc"] | undefined;
  readonly violate: (v: Violation) => void;
  readonly opId: () => number;
  readonly vanished?: (path: string, e: IndexEntry) => boolean;
  readonly raced?: (path: string, bytes: Uint8Array, version: string) => Promise<void>;
  readonly markerRollback?: (path: string, hash: string) => boolean;
}): LostUpdateDeps {
  const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
  return {
    changes: h.changes,
    read: h.read,
    violate: h.violate,
    opId: h.opId,
    vanished: h.vanished,
    ...(h.raced ? { raced: h.raced } : {}),
    ...(h.markerRollback ? { markerRollback: h.markerRollback } : {}),
    held: async (path) => (await h.direct.head(path))?.version,
    moving: () => isMoveCommand(h.label() ?? ""),
    indexHash: async (path) => (await readIndex(h.direct, retry))?.entries[path]?.h,
    writer: () => {
      // An old client checks nothing before it writes: its writes are no
      // Sluice clone's (its edits are held to I9 and I7 as a writer of their own).
      if (isOldClientCommand(h.label() ?? "")) return undefined;
      const owner = h.owner();
      const slot = h.clones.find((c) => c.owner === owner);
      if (!slot) return undefined;
      const svc = h.acting?.(owner) ?? slot.svc;
      return {
        clone: slot.index,
        synced: (path) => svc.state.synced(path)?.hash,
        syncedVersion: (path) => svc.state.synced(path)?.version,
        theirs: (path) => svc.conflicts().find((c) => c.path === path)?.theirs?.hash ?? undefined,
        theirsVersion: (path) => svc.conflicts().find((c) => c.path === path)?.theirs?.version,
        conflicted: (path) => svc.conflicts().some((c) => c.path === path),
      };
    },
  };
}
