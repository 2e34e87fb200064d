/**
 * Completing a refused run's erasure as its journal describes (see
 * `erasure.ts`): the remote objects its push uploaded, the cache, the dirty
 * set, the synced manifest, and each affected `latest` marker.
 *
 * @module
 */
import { holdsOwnUncommitted, readWriterId } from "../sync/transfer/writer_id.ts";
import { randomId } from "../sync/hash.ts";
import { deleteUploads } from "./erasure_steps.ts";
import { recomputeLatest } from "./erasure_markers.ts";
import { isUnder, markerOf } from "./erasure_attribution.ts";
import { keptAsPublished } from "./erasure_published.ts";
import {
  type ErasureDeps,
  type ErasureJournal,
  type ErasureOutcome,
  type MarkerOutcome,
  writeErasureJournal,
} from "./erasure_journal.ts";
import { withErasureJournal } from "./erasure_journal_lock.ts";

/**
 * Completes the erasure the journal describes: deletes the journaled remote
 * objects, removes the directories from the dirty set, the manifest and the
 * cache, recomputes their markers, then rewrites the journal with only the
 * remote deletions that failed. Safe to run again after a crash at any
 * point, also once a later run has written the same version anew: each
 * directory leaves the cache by one rename into the state dir, recorded in
 * the journal before it is made, so a directory found moved is never
 * touched again (what is at its path by then is the later run's).
 *
 * It works on the journal as it is on disk when it takes the journal's lock
 * (see `withErasureJournal`), which it holds throughout: `journal`, the
 * caller's copy (written before the call), is brought up to date with it.
 */
export async function completeErasure(
  deps: ErasureDeps,
  journal: ErasureJournal,
): Promise<ErasureOutcome> {
  return await withErasureJournal(
    deps,
    async (fresh) => {
      try {
        return await completeLocked(deps, fresh);
      } finally {
        Object.assign(journal, fresh);
      }
    },
  );
}

/** {@link completeErasure}, holding the journal's lock. */
async function completeLocked(
  deps: ErasureDeps,
  journal: ErasureJournal,
): Promise<ErasureOutcome> {
  const { cache, state } = deps;
  const keep = journal.keep ?? {};
  const remote = await deleteUploads(
    deps.store,
    journal.uploads,
    deps.signal,
    deps.config?.concurrency,
    // The run's own bytes, kept while a put-back may be due; else the cache's
    // (a put-back checks either against the entry's hash).
    async (path) =>
      (keep[path] ? await cache.readStateBytes(keep[path]) : null) ?? cache.read(path),
    // Only an object carrying this cache's writer id is the run's own.
    await readWriterId(cache),
    // A put-back's index entry timed by the injected clock, where there is one.
    deps.clock?.now ? () => deps.clock!.now!() : undefined,
  );
  // Settled uploads are no write of this cache's waiting for a commit any
  // more (a peer's commit names those kept): their record goes, so that no
  // later push takes them for this cache's own committed writes.
  await state.settleAttempted?.([...remote.deleted, ...remote.kept, ...remote.restored]);
  const erased: string[] = [];
  // The bytes of an upload still pending stay (a peer's commit may name it,
  // and the next push then puts it back from them): recorded in the same
  // journal write that records its directory moved, so that no crash leaves
  // them in a moved-away directory the journal does not hold on to.
  const pendingPaths = new Set(remote.pending.map((u) => u.path));
  for (const path of Object.keys(keep)) if (!pendingPaths.has(path)) delete keep[path];
  const keepUnder = (dir: string, to: string) => {
    for (const u of remote.pending) {
      if (isUnder(u.path, dir) && !keep[u.path]) keep[u.path] = `${to}${u.path.slice(dir.length)}`;
    }
    if (Object.keys(keep).length > 0) journal.keep = keep;
    else delete journal.keep;
  };
  const published: string[] = [];
  for (const dir of [...journal.erase]) {
    let to = journal.moving[dir];
    // A file of the directory published on the datastore already (synced;
    // its bytes, changed here by the run, put back) is the datastore's copy,
    // never the run's to erase: it stays in the cache, synced, and only the
    // rest of the directory goes, file by file. Taken out of the cache, it would be a
    // local deletion to any process over the cache whose manifest still
    // records it, whose next push would delete it from the datastore.
    // (Its other files are moved into the state dir one by one, there kept
    // as the moved directory's are: see `keepUnder`.)
    const datastores = to ? [] : await keptAsPublished(deps, dir);
    if (datastores.length > 0) {
      to = `erasing/${randomId(6)}`;
      journal.trash = [...new Set([...journal.trash, to])];
      await writeErasureJournal(cache, journal);
      await state.clean([`${dir}/`, dir]);
      for (const path of await cache.listFiles(dir)) {
        if (datastores.includes(path)) continue;
        await state.forget([path]);
        await cache.moveToState(path, `${to}${path.slice(dir.length)}`);
      }
      published.push(...datastores);
      erased.push(dir);
      journal.keptPublished = [...new Set([...journal.keptPublished ?? [], dir])];
    } else if (!to || !cache.hasState(to)) {
      if (!to) {
        to = journal.moving[dir] = `erasing/${randomId(6)}`;
        await writeErasureJournal(cache, journal);
      }
      await state.clean([`${dir}/`, dir]);
      await state.forget([`${dir}/`]);
      await cache.moveToState(dir, to);
      erased.push(dir);
    }
    // Moved (now, or before a crash), or all but its published files: the directory is done.
    keepUnder(dir, to);
    journal.erase = journal.erase.filter((d) => d !== dir);
    delete journal.moving[dir];
    journal.trash = [...new Set([...journal.trash, to])];
    journal.markers = [...new Set([...journal.markers, markerOf(dir)])];
    await writeErasureJournal(cache, journal);
  }
  // The moved directories go, but those that hold kept bytes.
  const kept = Object.values(keep);
  const held = journal.trash.filter((t) => kept.some((k) => k.startsWith(`${t}/`)));
  for (const t of journal.trash) if (!held.includes(t)) await cache.removeState(t);
  journal.trash = held;
  if (Object.keys(keep).length > 0) journal.keep = keep;
  else delete journal.keep;
  const markers: MarkerOutcome[] = [];
  let writer: Promise<string | null> | undefined; // read once, and only when a marker needs it
  for (const marker of journal.markers) {
    // Versions erased but for their published files: never named for the run.
    const discarded = new Set(
      (journal.keptPublished ?? []).filter((d) => markerOf(d) === marker).map((d) =>
        Number(d.slice(d.lastIndexOf("/") + 1))
      ),
    );
    const m = await recomputeLatest(
      cache,
      state,
      marker,
      deps.config?.unfinishedVersions,
      discarded,
    );
    const synced = state.synced(marker);
    const own = !m.dirty && m.version !== null && synced && await (writer ??= readWriterId(cache));
    if (
      own && await holdsOwnUncommitted(deps.store, marker, synced.version, own, deps.signal)
    ) {
      // The datastore holds this cache's own marker write, cut off before
      // its index update (the refused run's, or an earlier one): nothing
      // else will ever write over it, so the recomputed marker stays dirty
      // and the next push replaces that object with it.
      await state.markDirty(marker);
      markers.push({ ...m, dirty: true });
    } else markers.push(m);
  }
  journal.markers = [];
  delete journal.keptPublished;
  journal.uploads = remote.pending;
  if (remote.pending.length === 0) journal.prefixes = [];
  await writeErasureJournal(cache, journal);
  return { erased, ...remote, markers, published };
}
