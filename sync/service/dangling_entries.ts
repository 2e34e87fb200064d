/**
 * Index entries that name an object the store no longer holds. A deletion
 * removes the object before its index entry, so a pull can meet one for a
 * moment; one can also be left for good: a slow writer's first copy of a
 * path, adopted by a peer (`adoptUncommitted`) and deleted by a peer that saw
 * it, is named again when the slow writer's commit lands at last (no create
 * is checked at its commit: that would cost a request per new file). A pull
 * whose download of such an entry finds nothing removes the entry, only
 * while the store still holds nothing at the path ({@link removeDangling}),
 * and only once the entry is older than {@link DANGLING_GRACE_MS}: a commit
 * that named bytes it found in place can be crossed by their writer's
 * erasure (a refused run's), which deletes them, reads the index again, and
 * puts back what a commit named; an entry removed in between would be lost.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import type { IndexEntry } from "../transfer/bucket_layout.ts";
import type { SyncConfig } from "../context.ts";
import type { SluiceEmitter } from "../events.ts";
import { updateIndex } from "../transfer/remote_index.ts";
import { listPaths } from "../left_behind.ts";

/**
 * How old (by the time its entry records) a dangling entry must be before a
 * pull removes it: far longer than an erasure takes from its delete to its
 * second read of the index, so that it puts the object back first.
 */
export const DANGLING_GRACE_MS = 15 * 60_000;

/** True when `entry` (as read from the index) was written more than the grace before `now`. */
export function pastGrace(entry: IndexEntry, now: number): boolean {
  const at = Date.parse(String(entry.raw?.lastModified ?? ""));
  // No time, or one that cannot be read: old (an entry of another client).
  return !Number.isFinite(at) || now - at >= DANGLING_GRACE_MS;
}

/** What {@link removeDangling} needs. */
export interface DanglingDeps {
  readonly store: ObjectStore;
  readonly config: Pick<SyncConfig, "retry" | "concurrency">;
  readonly events: SluiceEmitter;
  readonly signal: AbortSignal;
  /** Time of the index written; default the system clock. */
  readonly now?: () => number;
}

/**
 * Removes `paths` from the remote index, each only while the store holds
 * nothing at it (one HEAD each as the index is written: a path written again
 * meanwhile keeps its entry), and says so in one `index_entry_dangling`
 * warning. A removal that fails (no write access, say) is reported in that
 * warning and leaves the pull's result as it is: the entry names nothing a
 * clone could fetch, and a later pull tries again (the caller then keeps no
 * index token, so that pull reads the index). False when it failed.
 */
export async function removeDangling(
  deps: DanglingDeps,
  dangling: readonly (readonly [string, IndexEntry])[],
): Promise<boolean> {
  if (dangling.length === 0) return true;
  const { store, config, events, signal } = deps;
  const now = (deps.now ?? Date.now)();
  const young = dangling.filter(([, e]) => !pastGrace(e, now)).map(([p]) => p).sort();
  const paths = dangling.filter(([, e]) => pastGrace(e, now)).map(([p]) => p).sort();
  if (young.length > 0) {
    events.emit("warning", {
      code: "index_entry_dangling",
      message: `The datastore's index names ${
        listPaths(young, 3)
      }, but the store holds no object there, and ${
        young.length === 1 ? "the entry was" : "the entries were"
      } written less than ${
        DANGLING_GRACE_MS / 60_000
      } minutes ago: a refused run's erasure may be about to put ${
        young.length === 1 ? "it" : "them"
      } back for the writer whose commit named ${
        young.length === 1 ? "it" : "them"
      } (or a deletion is in flight). Left as ${
        young.length === 1 ? "it is" : "they are"
      }; no local file was touched, and a later pull looks again.`,
      path: young[0],
    });
    if (paths.length === 0) return false;
  }
  const them = paths.length === 1 ? "it" : "them";
  let outcome: string;
  let removed = false;
  try {
    await updateIndex(
      store,
      { set: {}, remove: paths, verify: true },
      config.retry,
      signal,
      undefined,
      config.concurrency,
      deps.now,
    );
    removed = true;
    outcome =
      `The entries were removed where the store still held nothing (a path written again meanwhile keeps its entry); no local file was touched`;
  } catch (err) {
    if (signal.aborted) throw err;
    outcome = `They could not be removed (${
      err instanceof Error ? err.message : String(err)
    }); no local file was touched, and the next pull tries again`;
  }
  events.emit("warning", {
    code: "index_entry_dangling",
    message: `The datastore's index names ${
      listPaths(paths, 3)
    }, but the store holds no object there: ${them} ${
      paths.length === 1 ? "was" : "were"
    } deleted after ${
      paths.length === 1 ? "its" : "their"
    } entry was written (a deletion in flight, or a slow writer's commit that named an adopted copy a peer had deleted since). ${outcome}.`,
    path: paths[0],
  });
  return removed && young.length === 0;
}
