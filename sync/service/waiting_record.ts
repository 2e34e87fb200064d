/**
 * The paths this cache's last pushes left dirty because another writer's
 * uncommitted object held them (`push_waiting_uncommitted`), with what the
 * push said: kept in the state directory (`waiting.json`) so that `status`,
 * which reads no object, can say a push now would wait on them again, not
 * that they simply go. Each push replaces what it says of the paths it
 * handled; a record that cannot be read is taken as empty (the next push
 * finds the same paths again).
 *
 * @module
 */
import type { LocalCache } from "../transfer/cache.ts";
import { SyncIncompleteError } from "../left_behind.ts";
import { MARKER_AHEAD, type PushResult, UNCOMMITTED_HOLDS, VERSION_WAITS } from "./push_result.ts";

/** How `status` starts the reason of a path the last push left waiting. */
export const WAITED_HERE = "the last push waited here";

/** The file name, in the state directory. */
export const WAITING_FILE = "waiting.json";

interface WaitingFile {
  readonly format: 1;
  /** Path to the reason the push gave. */
  readonly paths: Record<string, string>;
}

/** The paths the last pushes left waiting, with their reasons (empty when none, or unreadable). */
export async function readWaiting(cache: LocalCache): Promise<Record<string, string>> {
  const got = await cache.readState<WaitingFile>(WAITING_FILE).catch(() => null);
  if (got?.format !== 1 || typeof got.paths !== "object" || got.paths === null) return {};
  return { ...got.paths };
}

/**
 * Records what `result` (a push that ran, not a dry run) says of its paths:
 * each it left waiting on another writer's uncommitted object is recorded,
 * each it handled otherwise is dropped. Best effort: a record left stale is
 * corrected by the next push of the path.
 *
 * @example
 * ```ts
 * import { noteWaiting, readWaiting } from "./waiting_record.ts";
 * import { LocalCache } from "../transfer/cache.ts";
 * import { emptyPushResult } from "./push_result.ts";
 * const cache = new LocalCache(await Deno.makeTempDir());
 * await noteWaiting(cache, emptyPushResult());
 * console.log(await readWaiting(cache)); // {}
 * ```
 */
export async function noteWaiting(cache: LocalCache, result: PushResult): Promise<void> {
  const before = await readWaiting(cache);
  const now = { ...before };
  const handled = [
    ...result.uploaded,
    ...result.identical,
    ...result.deleted,
    ...result.conflicts,
    ...result.skipped.map((s) => s.path),
  ];
  for (const p of handled) delete now[p];
  for (const s of result.skipped) {
    // A data version held back whole (its marker with it) waits the same way.
    // A marker held back ahead of its version is said here too: a dry run,
    // which runs no write gate, cannot see it.
    if (
      s.reason === UNCOMMITTED_HOLDS || s.reason.startsWith(VERSION_WAITS) ||
      s.reason.startsWith(MARKER_AHEAD)
    ) {
      now[s.path] = s.reason;
    }
  }
  const same = Object.keys(now).length === Object.keys(before).length &&
    Object.entries(now).every(([p, r]) => before[p] === r);
  if (same) return;
  await cache.writeState(WAITING_FILE, { format: 1, paths: now } satisfies WaitingFile)
    .catch(() => {});
}

/**
 * Drops `paths` from the record: a pull took the datastore's copy of each, or
 * found it a conflict, so the upload a push waited on there is settled.
 *
 * @example
 * ```ts
 * import { forgetWaiting, readWaiting } from "./waiting_record.ts";
 * import { LocalCache } from "../transfer/cache.ts";
 * const cache = new LocalCache(await Deno.makeTempDir());
 * await forgetWaiting(cache, ["notes/a.txt"]);
 * console.log(await readWaiting(cache)); // {}
 * ```
 */
export async function forgetWaiting(cache: LocalCache, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const before = await readWaiting(cache);
  const gone = paths.filter((p) => Object.hasOwn(before, p));
  if (gone.length === 0) return;
  for (const p of gone) delete before[p];
  await cache.writeState(WAITING_FILE, { format: 1, paths: before } satisfies WaitingFile)
    .catch(() => {});
}

/**
 * Records the paths `result` left waiting on another writer's upload (see
 * {@link noteWaiting}). A run's push (under model locks, `options.locks`)
 * that left a data version of its own waiting so is not done: it fails
 * (`sync_incomplete`, the version kept dirty), so that the run is never
 * taken as published. Nothing of it for a dry run.
 */
export async function notedPush(
  cache: LocalCache,
  options: { dryRun?: boolean; locks?: readonly unknown[] },
  result: PushResult,
): Promise<PushResult> {
  if (!options.dryRun) await noteWaiting(cache, result);
  const waits = result.skipped.filter((s) => s.reason.startsWith(VERSION_WAITS));
  if (!options.dryRun && options.locks?.length && waits.length) {
    throw new SyncIncompleteError("push", {
      conflicts: result.conflicts,
      left: waits.map((s) => ({ path: s.path, reason: s.reason })),
    });
  }
  return result;
}
