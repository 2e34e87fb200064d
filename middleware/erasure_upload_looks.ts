/**
 * What the deletion of a refused run's uploads (`deleteUploads` in
 * `erasure_steps.ts`) reads and reports: one try at each read, the remote
 * index as read with the uploads' entries in v2 shards its meta does not
 * list yet, the outcome, and the look at each upload journaled before its
 * version was known.
 *
 * @module
 */
import { AbortedError } from "../sync/errors.ts";
import type { ObjectStore } from "../sync/ports.ts";
import type { IndexEntry } from "../sync/transfer/remote_index.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { UNLOOKED, type UploadRef } from "./erasure_journal.ts";

/** One attempt: a failed read leaves the deletions pending for the next push. */
export const ONE_TRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

/** An index read: its entries, and the uploads' entries in shards its meta does not list. */
export interface Seen {
  readonly entries: Readonly<Record<string, IndexEntry>>;
  readonly unlisted: ReadonlyMap<string, IndexEntry>;
}

/** The entry `at` names at `path`, listed or not. */
export function entryOf(at: Seen, path: string): IndexEntry | undefined {
  return Object.hasOwn(at.entries, path) ? at.entries[path] : at.unlisted.get(path);
}

/** What `deleteUploads` (`erasure_steps.ts`) reports. */
export interface DeleteOutcome {
  readonly deleted: string[];
  readonly kept: string[];
  readonly pending: UploadRef[];
  /**
   * Objects deleted while a peer's commit named them (see
   * `deleteUploads`), put back with the same bytes and named again.
   */
  readonly restored: string[];
}

/**
 * `uploads` with the version of each {@link UNLOOKED} one found now: the
 * object at its path when it carries this cache's writer id (`writerId`);
 * anything else there (nothing, another writer's object) is no upload of
 * this cache's, and is `kept`; a look that fails leaves it `pending`, as it
 * was.
 */
export async function lookedAt(
  store: ObjectStore,
  uploads: readonly UploadRef[],
  writerId: string | null,
  out: DeleteOutcome,
  signal?: AbortSignal,
): Promise<UploadRef[]> {
  const known: UploadRef[] = [];
  for (const u of uploads) {
    if (u.version !== UNLOOKED) {
      known.push(u);
      continue;
    }
    try {
      const head = await store.head(u.path, { signal });
      if (head && writerId !== null && head.metadata?.[WRITER_METADATA] === writerId) {
        known.push({ path: u.path, version: head.version });
      } else out.kept.push(u.path);
    } catch (e) {
      if (e instanceof AbortedError) throw e;
      out.pending.push(u);
    }
  }
  return known;
}
