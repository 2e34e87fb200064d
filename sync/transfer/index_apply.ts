/**
 * The application of an index change to a set of entries (the whole v1
 * index, or one v2 shard's): which paths are set or removed as asked, and
 * which are left because the store shows another writer replaced or deleted
 * this change's write before its commit (`foreign`), checked with one HEAD
 * per path in doubt.
 *
 * @module
 */
import { withdrawnVersion } from "./withdrawal_note.ts";
import { withRetry } from "../retry.ts";
import type { ObjectStore } from "../ports.ts";
import { type IndexEntry, isUnversioned, markerOfVersionFile } from "./bucket_layout.ts";
import type { IndexChange } from "./remote_index.ts";
import { WRITER_METADATA } from "./writer_id.ts";
import { ancestorWhere, directoriesOf } from "../paths.ts";
import { type Call, eachLimit } from "./index_io.ts";

/** What the store holds at a path: its version and size. */
export interface HeldObject {
  readonly version: string;
  readonly size: number;
  /** A Sluice writer's upload (it carries a writer id), as a commit's check found it. */
  readonly uncommitted?: true;
}

/**
 * Applies `change` to `entries` (the whole index, or one shard's entries
 * with that shard's part of the change). A path whose change was conditional (`change.base`) and
 * whose index entry names neither that base nor the change's own version is
 * checked against the store: when the store no longer holds this change's
 * version (a write) or holds an object again (a delete), a peer has
 * replaced it since and will commit its own, so the entry is left as it is.
 * Returns false when some path was left so.
 *
 * With `retried` (a round after a refused write), a path the change sets
 * that has no entry now is checked the same way: an earlier round's write
 * may have landed with its answer lost, and a peer may have deleted the
 * object and its entry since; naming it again would name a missing object.
 * Left out so, it goes to `foreign` too (unless `change.verify`): the object
 * may be gone outside Sluice, and the push must not report it published; a
 * data version's `latest` marker in the change is held back with it.
 *
 * A conditional path whose entry another client of the layout wrote since
 * (an entry without an object version: an old client, which writes and
 * deletes without a compare-and-swap), or whose entry is gone though the
 * change was based on a version of it (with `checkCreates`, beside old
 * clients: every conditional path, created or not, whatever its entry),
 * is checked the same way. A conditional path left out by any of these
 * checks but `retried` goes to `foreign`, with what the store holds there
 * (null: nothing): another writer replaced or deleted this change's write
 * before it was committed. An old client never saw it; a peer that
 * committed over it may have built on the old client's change instead, or
 * (a peer that adopted it) have seen it, which cannot be told apart here,
 * so the write is taken as not published and its writer keeps its change
 * as a conflict (see `commitPrepared`): at worst a conflict it need not
 * have had, never a change dropped. The change's paths are cleared from
 * `foreign` first, so a map reused across rounds holds the last round's.
 *
 * A path whose write found its base gone from the store (`change.baseGone`:
 * created again over a deletion nobody had committed, say) and whose entry
 * is gone now is never set, whatever the store holds: a deletion was
 * committed since, and this change was not based on it. It goes to `foreign` as deleted (null), so its
 * writer keeps its change as a conflict and the deletion stands.
 * `tally.applied` counts the paths set or removed. A path of `change.check`
 * left out because the store no longer holds the version it names (the
 * bytes this change found in place were deleted since, by their writer)
 * goes to `unpublished`: nothing of it is published.
 */
export async function apply(
  store: ObjectStore,
  c: Call,
  entries: Record<string, IndexEntry>,
  change: IndexChange,
  retried = false,
  foreign?: Map<string, HeldObject | null>,
  tally?: { applied: number },
  unpublished?: Set<string>,
): Promise<boolean> {
  let all = true;
  // The paths this change sets, listed once: each pass below goes over them
  // (listing a large object's keys again, or its entries, costs per path).
  const setPaths = Object.keys(change.set);
  const checked = new Set(change.check ?? []);
  const foundGone = new Set(change.foundGone ?? []);
  const current = (p: string) => Object.hasOwn(entries, p) ? entries[p] : undefined;
  // Where the index already holds another client's entries (an old client
  // pushes to this bucket, or another tool's objects were named by a
  // listing), every conditional path is checked as with `checkCreates`,
  // asked or not: such a client writes and deletes without a
  // compare-and-swap, and its write may not be in the index yet.
  // Looked at once, only when a conditional path asks, without copying the entries.
  let others: boolean | undefined;
  const checkAll = () => {
    if (change.checkCreates === true) return true;
    if (others === undefined) {
      others = false;
      for (const p in entries) {
        if (isUnversioned(entries[p])) {
          others = true;
          break;
        }
      }
    }
    return others;
  };
  const suspect = (p: string, own?: IndexEntry) => {
    const base = change.base?.[p];
    const cur = current(p);
    return base !== undefined && cur !== undefined && !isUnversioned(cur) && cur.v !== base &&
      cur.v !== own?.v;
  };
  /**
   * Another client's entry (no object version) that names other bytes than
   * the copy this removal was based on: by their hash, else by their size
   * (an entry that records no hash, or a base whose hash is unknown). An old
   * client's edit written since, which this change never saw.
   */
  const otherBytes = (p: string) => {
    const cur = current(p);
    if (typeof change.base?.[p] !== "string" || cur === undefined || !isUnversioned(cur)) {
      return false;
    }
    const hash = change.baseHash?.[p];
    if (cur.h !== "" && hash) return cur.h !== hash;
    const size = change.baseSize?.[p];
    return size !== undefined && cur.s !== size;
  };
  /**
   * Another client's entry, or none though the change was based on one (or
   * created the path, with `checkCreates`).
   */
  const foreignOver = (p: string) => {
    const base = change.base?.[p];
    const cur = current(p);
    if (base === undefined) return false;
    // Beside old clients every conditional write is checked: one may have
    // replaced or deleted it without a trace in the index yet (its push
    // stopped, or is still on its way to its index write).
    if (checkAll()) return true;
    if (cur !== undefined) return isUnversioned(cur);
    return base !== null;
  };
  const live = async (p: string): Promise<HeldObject | null> => {
    const info = await withRetry(
      () => store.head(p, { signal: c.signal }),
      c.retry,
      c.signal,
    );
    return info
      ? {
        version: info.version,
        size: info.size,
        ...(info.metadata?.[WRITER_METADATA] ? { uncommitted: true } : {}),
      }
      : null;
  };
  if (foreign?.size) {
    for (const p of change.remove) foreign.delete(p);
    for (const p of setPaths) foreign.delete(p);
  }
  if (unpublished?.size) { for (const p of setPaths) unpublished.delete(p); }
  // What the store holds at each path to check, asked at once (`concurrency`
  // at a time); each path's decision depends on its own entry alone. Only
  // the paths to check are gathered: a commit of thousands of plain writes
  // goes through in one pass.
  const heads = async (paths: string[]) => {
    const out = new Map<string, HeldObject | null>();
    if (paths.length === 0) return out;
    await eachLimit(paths, c.concurrency ?? 4, async (p) => void out.set(p, await live(p)));
    return out;
  };
  // Written where the store no longer held the base, whose entry is gone
  // now: a deletion was committed since. Told before this change's own
  // removals run.
  const deletedSince = new Set<string>();
  for (const p of change.baseGone ?? []) {
    if (Object.hasOwn(change.set, p) && current(p) === undefined) deletedSince.add(p);
  }
  // So too a write over the version the index named when its writer synced
  // it (`namedBase`), whose entry is gone now, where a deletion was
  // committed since: the store no longer holds the write (a delete took
  // it), or a take-back's note names that version (a cache taking back its
  // own committed write notes it, then takes the entry out before its
  // delete, which can meet this write, or take it after its commit where
  // deletes check the version first). Any other missing entry is one an
  // old client's write-back dropped: nobody deleted the file, and the
  // write is named (see `withdrawal_note.ts`).
  // And one over a dropped entry kept to name again (`keptBase`), alike: a
  // pull inside a take-back keeps the entry it found gone, and the
  // take-back's delete takes a write it meets over its withdrawn version
  // (see `withdrawn_under_upload.ts`), or takes it after its commit where
  // deletes check the version first.
  // The note is read before the store is looked at: a take-back clears it
  // only once its delete is done, so a note gone by this read leaves no
  // delete of the take-back's to come after the look.
  const unnamed = [...(change.namedBase ?? []), ...(change.keptBase ?? [])].filter((p) =>
    Object.hasOwn(change.set, p) && current(p) === undefined
  );
  const noted = new Set<string>();
  for (const p of unnamed) {
    const base = change.base?.[p];
    if (typeof base === "string" && await withdrawnVersion(store, p, c) === base) noted.add(p);
  }
  const unnamedHeld = await heads(unnamed.filter((p) => !noted.has(p)));
  for (const p of unnamed) {
    if (noted.has(p) || unnamedHeld.get(p)?.version !== change.set[p].v) deletedSince.add(p);
  }
  // Paths to check, each with whether it is another writer's (`foreign`).
  const removeChecks = new Map<string, boolean>();
  for (const p of change.remove) {
    const theirs = (foreignOver(p) && (current(p) !== undefined || checkAll())) ||
      suspect(p);
    if (change.verify || theirs) removeChecks.set(p, theirs);
  }
  const removeHeads = await heads([...removeChecks.keys()]);
  /**
   * The entry still names the version this removal was based on, and the
   * store holds another one there: that version is gone (this change deleted
   * it), and what is there now is a write no commit named yet (a peer's
   * create in flight, an old client's put before its index write), which
   * its writer names when it commits. Left, the entry would name a missing
   * object, for good if that write is withdrawn.
   */
  const namesGoneBase = (p: string, held: HeldObject) => {
    const base = change.base?.[p];
    const cur = current(p);
    if (typeof base !== "string" || cur === undefined || held.version === base) return false;
    if (!isUnversioned(cur)) return cur.v === base;
    // Another client's entry, which names no version: it is the one this
    // deletion was based on when it names that copy's bytes (by their hash;
    // by their size alone for an entry that records none, a listing's or an
    // old client's, as `stillIndexed` does), and what is there now is a
    // Sluice writer's upload no commit named yet (an old client writes
    // without a writer id: a write of its own could hold the same bytes,
    // and is never taken for gone).
    if (held.uncommitted !== true) return false;
    if (cur.h === "") {
      const size = change.baseSize?.[p];
      return size !== undefined && cur.s === size;
    }
    const hash = change.baseHash?.[p];
    return !!hash && cur.h === hash;
  };
  // A removal made before its own delete (`removeHeld`): the entry and the
  // store both still name the version it was based on.
  const heldOwn = new Set(change.removeHeld ?? []);
  const stillBase = (p: string, held: HeldObject) => {
    const base = change.base?.[p];
    const cur = current(p);
    return heldOwn.has(p) && typeof base === "string" && held.version === base &&
      cur !== undefined && !isUnversioned(cur) && cur.v === base;
  };
  // No entry names the path any more (taken out before this removal's own
  // delete: a take-back's), the version it was based on is gone, and a
  // Sluice writer's upload not committed yet stands there: a create at the
  // freed path since (a peer's run at that version number), which its
  // writer names when it commits. Nothing of this removal is left to apply,
  // and that create is no write over it: no conflict (a conflict would keep
  // the deletion here, and its resolution lose the peer's acknowledged
  // create; chaos seed 238900189). An old client's write, which carries no
  // writer id, is still taken for another writer's.
  const createdSince = (p: string, held: HeldObject) =>
    held.uncommitted === true && current(p) === undefined &&
    typeof change.base?.[p] === "string" && held.version !== change.base[p];
  for (const p of change.remove) {
    const theirs = removeChecks.get(p);
    const held = removeHeads.get(p) ?? null;
    if (
      theirs !== undefined && held !== null && !namesGoneBase(p, held) && !stillBase(p, held) &&
      !createdSince(p, held)
    ) {
      all = false;
      if (theirs) foreign?.set(p, held);
      continue;
    }
    // Nothing there, and the entry names a version this removal was not
    // based on: a peer's commit it never saw, whose object went outside
    // Sluice or by this very delete (one that checked the version, then
    // deleted whatever stood there); so too another client's entry naming
    // other bytes than the copy deleted (an old client's edit, written in
    // that window or since). Taken out here, its holders would read a
    // deletion; left, it names a missing object, which a pull records as
    // lost before it removes it.
    if (held === null && foundGone.has(p) && (suspect(p) || otherBytes(p))) {
      all = false;
      foreign?.set(p, null);
      continue;
    }
    delete entries[p];
    if (tally) tally.applied++;
  }
  const setChecks = new Map<string, boolean>();
  for (const p of setPaths) {
    if (deletedSince.has(p)) continue;
    const e = change.set[p];
    const gone = retried && !Object.hasOwn(entries, p);
    const theirs = foreignOver(p) || suspect(p, e);
    if (change.verify || checked.has(p) || gone || theirs) setChecks.set(p, theirs);
  }
  const setHeads = await heads([...setChecks.keys()]);
  // Found in place and gone by now (another writer's upload, not committed,
  // deleted since): not published, and neither is a `latest` marker of this
  // change naming that version, which would point readers at files the
  // index does not list. Both stay with their writer for its next push.
  // Beside old clients (`checkCreates`) every conditional path is checked as
  // possibly theirs; bytes found in place that are gone while no entry names
  // the path were still nobody's commit: unpublished too, not a conflict.
  const lost = (p: string, e: IndexEntry) =>
    checked.has(p) && setHeads.get(p)?.version !== e.v &&
    (setChecks.get(p) === false ||
      (setChecks.get(p) === true && !setHeads.get(p) && current(p) === undefined));
  // The store holds what `e` names: its version; for another client's entry,
  // which names none (a v1 commit replayed into v2), an object of its size,
  // while no entry names the path (any entry there now may be newer).
  const holds = (p: string, e: IndexEntry) => {
    const held = setHeads.get(p);
    if (!isUnversioned(e)) return held?.version === e.v;
    return !!held && held.size === e.s && current(p) === undefined;
  };
  // This change's own write, checked by a later round and no longer held
  // (see below): not published either.
  const ownGone = (p: string, e: IndexEntry) =>
    setChecks.get(p) === false && !change.verify && !holds(p, e) && !lost(p, e);
  // A path new to the index beside the other shape of its name there. A
  // file above it that already stands beside files under a directory of its
  // name (another client made both, which no cache can pull whole) is no new
  // clash: a pull keeps no hold-back for it either (see `bothShapes` in
  // `pull.ts`), so the file is published under that directory with the rest.
  let dirs: Set<string> | undefined;
  const removed = new Set(change.remove);
  const standsBeside = (a: string) =>
    Object.keys(entries).some((k) => k.startsWith(`${a}/`) && !removed.has(k));
  /** Files of this index above `p` that stand alone (no file beside them under their name). */
  const filesAbove = (p: string): string[] => {
    const above: string[] = [];
    ancestorWhere(p, (a) => {
      if (Object.hasOwn(entries, a) && !Object.hasOwn(change.set, a) && !standsBeside(a)) {
        above.push(a);
      }
      return false;
    });
    return above;
  };
  /** A file of this index under a directory of `p`'s name, if any. */
  const fileUnder = (p: string): string | undefined => {
    if (!(dirs ??= directoriesOf(Object.keys(entries))).has(p)) return undefined;
    return Object.keys(entries).find((k) => k.startsWith(`${p}/`) && !Object.hasOwn(change.set, k));
  };
  // Paths new to the index beside the other shape of their name there (see below).
  const clash = new Map<string, string>();
  if (change.clashing) {
    for (const p of setPaths) {
      if (current(p) !== undefined) continue;
      let other: string | undefined;
      // Files beside one above may lie in another shard (v2): asked there,
      // and only then (no wait on the paths with nothing above them).
      for (const a of filesAbove(p)) {
        if (!(await change.besideElsewhere?.(a))) {
          other = a;
          break;
        }
      }
      other ??= fileUnder(p);
      if (other !== undefined) clash.set(p, other);
    }
  }
  const heldMarkers = new Set<string>();
  // A marker whose version files are left out beside the other shape: left out with them.
  const clashMarkers = new Map<string, string>();
  // Only a change that sets a marker (`…/latest`) has one to hold back.
  const setsMarker = setPaths.some((p) => p.endsWith("/latest"));
  for (const p of setsMarker ? setPaths : []) {
    const e = change.set[p];
    const marker = markerOfVersionFile(p);
    if (!marker || !Object.hasOwn(change.set, marker) || deletedSince.has(p)) continue;
    if (clash.has(p)) clashMarkers.set(marker, clash.get(p)!);
    else if ((checked.has(p) && lost(p, e)) || ownGone(p, e)) heldMarkers.add(marker);
  }
  for (const p of setPaths) {
    const e = change.set[p];
    change.clashing?.delete(p);
    const held = clashMarkers.get(p);
    if (change.clashing && held !== undefined && !heldMarkers.has(p)) {
      all = false;
      change.clashing.set(p, held);
      continue;
    }
    if (heldMarkers.has(p)) {
      all = false;
      unpublished?.add(p);
      continue;
    }
    if (deletedSince.has(p)) {
      all = false;
      foreign?.set(p, null);
      continue;
    }
    const theirs = setChecks.get(p);
    if (theirs !== undefined && !holds(p, e)) {
      all = false;
      // Bytes this change found in place (another writer's object, not
      // committed) that are gone by now: never published, left to its writer
      // (also after a refused round: a refusal by contention, the common one,
      // tells nothing of this path).
      if (lost(p, e)) unpublished?.add(p);
      else if (theirs) foreign?.set(p, setHeads.get(p) ?? null);
      // This change's own write, no longer held when a later round looked
      // (deleted or replaced since: by a peer's deletion commit or another
      // tool): not published, and not to be taken as published either.
      else if (!change.verify) foreign?.set(p, setHeads.get(p) ?? null);
      // A write carried over (a v1 commit replayed into v2) whose object is
      // gone: not named, and told to the caller, whose writer took it for
      // published (its copy may be the last).
      else unpublished?.add(p);
      continue;
    }
    // New to the index beside the other shape of its name there: left out.
    const other = clash.get(p);
    if (change.clashing && other !== undefined) {
      all = false;
      change.clashing.set(p, other);
      continue;
    }
    // Applied after all (a remove of the same path in this change may have set it).
    foreign?.delete(p);
    entries[p] = e;
    if (tally) tally.applied++;
  }
  return all;
}
