/**
 * Runs a refusal could not erase safely (their data could not be told apart
 * from another run's): held out of every push until resolved, and the error
 * that says so.
 *
 * @module
 */
import { preview, SluiceError } from "../sync/errors.ts";
import { type LostLock, lostLockText } from "../sync/lock_errors.ts";
import { isUnder, markerOf, versionDir } from "./erasure_attribution.ts";
import { completeErasure } from "./erasure_complete.ts";
import type { ErasureDeps, HeldRun, Unattributable } from "./erasure_journal.ts";
import { updateErasureJournal } from "./erasure_journal_lock.ts";

/**
 * Resolves held runs by directory: `discard` erases them (and deletes the
 * objects their push uploaded, a `latest` marker it created included, when
 * still theirs and named by no index), but for their files published on the
 * datastore already (`publishedFiles`: synced, their bytes unchanged),
 * which stay in the cache as the datastore's copies, so that no push ever
 * takes them for a deletion; `keep` releases the hold,
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
        // A held run's journal from an earlier release may name the `latest`
        // marker its push created (refusals now delete it at once): discarded
        // with the versions, as the erasure of an attributable run does. A
        // marker the run's push named is resolved with them too, once none
        // of its data's versions is left held.
        const markers = new Set(hit.map(markerOf));
        const left = run.dirs.filter((d) => !wanted.has(d));
        const ownMarkers = left.filter((d) =>
          markers.has(d) && !left.some((r) => versionDir(r) !== null && markerOf(r) === d)
        );
        hit.push(...ownMarkers);
        resolved.push(...hit);
        const rest = left.filter((d) => !ownMarkers.includes(d));
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
 * deleted, and the run's version directories are held out of every push
 * (but those of its other models, each provably its own, which were erased).
 */
export class ErasureRefusedError extends SluiceError {
  /** The locks the run lost. */
  readonly lost: readonly LostLock[];
  /** The version directories held: each of a model one of whose versions could not be attributed. */
  readonly held: readonly string[];
  /** The directories that could not be attributed, and why. */
  readonly problems: readonly Unattributable[];
  /** The run's versions of other models, provably its own: discarded, as on any refusal. */
  readonly discarded: readonly string[];
  /**
   * Files of the held versions published on the datastore already (synced
   * with it by a push before this one was refused): they stay published,
   * whichever way out is taken.
   */
  readonly published: readonly string[];
  constructor(
    lost: readonly LostLock[],
    held: readonly string[],
    problems: readonly Unattributable[],
    options: {
      cause?: unknown;
      discarded?: readonly string[];
      published?: readonly string[];
    } = {},
  ) {
    const discarded = options.discarded ?? [];
    const published = options.published ?? [];
    const one = published.length === 1;
    // What an earlier push published of the held versions stays: said, never denied.
    const pushed = published.length === 0
      ? "Nothing was pushed."
      : `${preview(published.join(", "), 400)} of the held version${held.length === 1 ? "" : "s"} ${
        one ? "was" : "were"
      } published on the datastore already (synced with it by a push before this one was refused) and stay${
        one ? "s" : ""
      } there: the datastore's ${
        one ? "copy" : "copies"
      }, kept on the datastore and in the cache whichever way out is taken. Nothing else of this run was pushed.`;
    const locks = lost.map(lostLockText);
    const why = problems.map((p) => `${p.dir}: ${p.reason}`).join("; ");
    super(
      "erasure_refused",
      `This run lost its lock on ${
        locks.join(", ")
      } before pushing: the lock was force-released or taken over by another process, which may have written the same data version. ${pushed} This run's data could not be erased safely, because it cannot be told apart from another run's data (${
        preview(why, 600)
      }), so nothing ${discarded.length ? "of it " : ""}was deleted: ${
        held.join(", ")
      } stay in the cache and are held out of every push${
        discarded.length
          ? ` (${discarded.join(", ")}, of other models and provably this run's, were discarded)`
          : ""
      }. Check those directories, then either discard them (\`sluice held <dir>… --discard\`; resolveHeldVersions with "discard") or release them for the next push (\`--keep\`), and run the method or workflow again.`,
      { cause: options.cause },
    );
    this.lost = lost;
    this.held = held;
    this.problems = problems;
    this.discarded = discarded;
    this.published = published;
  }
}
