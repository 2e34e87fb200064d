/**
 * The durable erasure of a refused run's data versions: a journal in the
 * cache's state directory (`erasure_journal.ts`), the attribution check (is a
 * version directory provably this run's own? `erasure_attribution.ts`), the
 * erasure itself (remote objects the push
 * already uploaded, the cache, the dirty set, the synced manifest) and the
 * recomputation of each affected `latest` marker.
 *
 * The refused-run-eraser gate drives these steps; a push that finds a
 * non-empty journal (the process died mid-erasure) completes it before
 * anything is uploaded.
 *
 * @module
 */
import { preview, SluiceError } from "../sync/errors.ts";
import type { LostLock } from "../sync/lock_errors.ts";
import { holdsOwnUncommitted, readWriterId } from "../sync/transfer/writer_id.ts";
import { randomId } from "../sync/hash.ts";

export * from "./erasure_journal.ts";
export * from "./erasure_attribution.ts";
export * from "./erasure_steps.ts";
export * from "./erasure_markers.ts";
import { deleteUploads } from "./erasure_steps.ts";
import { recomputeLatest } from "./erasure_markers.ts";
import { isUnder, markerOf, versionDir } from "./erasure_attribution.ts";
import {
  type ErasureDeps,
  type ErasureJournal,
  type ErasureOutcome,
  type HeldRun,
  type MarkerOutcome,
  type Unattributable,
  updateErasureJournal,
  withErasureJournal,
  writeErasureJournal,
} from "./erasure_journal.ts";

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
  for (const dir of [...journal.erase]) {
    let to = journal.moving[dir];
    if (!to || !cache.hasState(to)) {
      if (!to) {
        to = journal.moving[dir] = `erasing/${randomId(6)}`;
        await writeErasureJournal(cache, journal);
      }
      await state.clean([`${dir}/`]);
      await state.forget([`${dir}/`]);
      await cache.moveToState(dir, to);
      erased.push(dir);
    }
    // Moved (now, or before a crash): the directory is done.
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
    const m = await recomputeLatest(cache, state, marker, deps.config?.unfinishedVersions);
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
  journal.uploads = remote.pending;
  if (remote.pending.length === 0) journal.prefixes = [];
  await writeErasureJournal(cache, journal);
  return { erased, ...remote, markers };
}

/**
 * Resolves held runs by directory: `discard` erases them (and deletes the
 * objects their push uploaded, a `latest` marker it created included, when
 * still theirs and named by no index); `keep` releases the hold,
 * so the next push uploads them (a create-only write still refuses to
 * overwrite another writer's version). Returns the directories resolved.
 *
 * @example
 * ```ts
 * import { resolveHeldVersions, type ErasureDeps } from "./erasure.ts";
 * async function discard(deps: ErasureDeps) {
 *   await resolveHeldVersions(deps, ["data/t/m/d/4"], "discard");
 * }
 * ```
 */
export async function resolveHeldVersions(
  deps: ErasureDeps,
  dirs: readonly string[],
  decision: "discard" | "keep",
): Promise<string[]> {
  const wanted = new Set(dirs.map((d) => d.replace(/\/+$/, "")));
  const resolved: string[] = [];
  const journal = await updateErasureJournal(
    deps,
    (journal) => {
      const held: HeldRun[] = [];
      for (const run of journal.held) {
        const hit = run.dirs.filter((d) => wanted.has(d));
        if (hit.length === 0) {
          held.push(run);
          continue;
        }
        resolved.push(...hit);
        const rest = run.dirs.filter((d) => !wanted.has(d));
        // A held run's journal from an earlier release may name the `latest`
        // marker its push created (refusals now delete it at once): discarded
        // with the versions, as the erasure of an attributable run does.
        const markers = new Set(hit.map(markerOf));
        const uploads = run.uploads.filter((u) =>
          hit.some((d) => isUnder(u.path, d)) || markers.has(u.path)
        );
        if (decision === "discard") {
          journal.erase.push(...hit.filter((d) => versionDir(d) !== null));
          journal.uploads.push(...uploads);
        }
        if (rest.length > 0) {
          held.push({
            ...run,
            dirs: rest,
            problems: run.problems.filter((p) => rest.includes(p.dir)),
            uploads: run.uploads.filter((u) => !uploads.includes(u)),
          });
        }
      }
      journal.held = held;
    },
  );
  if (decision === "discard") await completeErasure(deps, journal);
  return resolved;
}

/**
 * The run was refused and its data could not be erased safely: nothing was
 * deleted, and the run's version directories are held out of every push.
 */
export class ErasureRefusedError extends SluiceError {
  /** The locks the run lost. */
  readonly lost: readonly LostLock[];
  /** Every version directory the run wrote (all held). */
  readonly held: readonly string[];
  /** The directories that could not be attributed, and why. */
  readonly problems: readonly Unattributable[];
  constructor(
    lost: readonly LostLock[],
    held: readonly string[],
    problems: readonly Unattributable[],
    options: { cause?: unknown } = {},
  ) {
    const locks = lost.map((l) =>
      `${l.key} (${l.newHolder ? `now held by ${l.newHolder}` : "now released"})`
    );
    const why = problems.map((p) => `${p.dir}: ${p.reason}`).join("; ");
    super(
      "erasure_refused",
      `This run lost its lock on ${
        locks.join(", ")
      } before pushing: the lock was force-released or taken over by another process, which may have written the same data version. Nothing was pushed. This run's data could not be erased safely, because it cannot be told apart from another run's data (${
        preview(why, 600)
      }), so nothing was deleted: ${
        held.join(", ")
      } stay in the cache and are held out of every push. Check those directories, then either discard them (\`sluice held <dir>… --discard\`; resolveHeldVersions with "discard") or release them for the next push (\`--keep\`), and run the method or workflow again.`,
      options,
    );
    this.lost = lost;
    this.held = held;
    this.problems = problems;
  }
}
