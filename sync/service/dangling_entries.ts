/**
 * Index entries that name an object the store no longer holds. A deletion
 * removes the object before its index entry, so a pull can meet one for a
 * moment; one can also be left for good: a slow writer's first copy of a
 * path, adopted by a peer (`adoptUncommitted`) and deleted by a peer that saw
 * it, is named again when the slow writer's commit lands at last (no create
 * is checked at its commit: that would cost a request per new file). A pull
 * whose download of such an entry finds nothing removes the entry, only
 * while the store still holds nothing at the path ({@link removeDangling}),
 * and only once this cache has seen the entry with nothing behind it for
 * {@link DANGLING_GRACE_MS}: a commit that named bytes it found in place can
 * be crossed by their writer's erasure (a refused run's), which deletes
 * them, reads the index again, and puts back what a commit named; an entry
 * removed in between would be lost. The grace is counted by this cache's
 * own clock from its first sighting (kept in `.sluice/dangling.json`), never
 * from the time the entry records: that is its writer's clock, and a writer
 * whose clock runs behind would shorten it.
 *
 * @module
 */
import type { ObjectStore } from "../ports.ts";
import type { IndexEntry } from "../transfer/bucket_layout.ts";
import type { SyncConfig } from "../context.ts";
import type { SluiceEmitter } from "../events.ts";
import type { LocalCache } from "../transfer/cache.ts";
import { updateIndex } from "../transfer/remote_index.ts";
import { listPaths } from "../left_behind.ts";
import { recordVanished, VANISHED_KEY } from "./vanished_record.ts";

/**
 * How long this cache must have seen an entry with nothing behind it before
 * a pull removes it: far longer than an erasure takes from its delete to its
 * second read of the index, so that it puts the object back first.
 */
export const DANGLING_GRACE_MS = 15 * 60_000;

/** The state file where a cache keeps when it first saw each dangling entry. */
export const SIGHTINGS_FILE = "dangling.json";

/** When (this cache's clock, ms) it first saw the entry naming `v` with nothing behind it. */
interface Sighting {
  readonly v: string;
  readonly at: number;
}

type Sightings = Record<string, Sighting>;

/** The sightings kept, or none when the file is absent or unreadable (the grace then starts again). */
async function readSightings(
  cache: Pick<LocalCache, "hasState" | "readState">,
): Promise<Sightings> {
  if (!cache.hasState(SIGHTINGS_FILE)) return {};
  const raw = await cache.readState<Sightings>(SIGHTINGS_FILE).catch(() => null);
  const out: Sightings = {};
  if (typeof raw !== "object" || raw === null) return out;
  for (const [p, s] of Object.entries(raw)) {
    if (typeof s?.v === "string" && Number.isFinite(s.at)) out[p] = { v: s.v, at: s.at };
  }
  return out;
}

/**
 * The paths this cache's pulls saw the index name with nothing behind them
 * and kept that sighting of (the entry was not removed since, and no pull
 * covering it found it otherwise): a refused run's erasure may be about to
 * put such an object back for the writer whose commit named it. One look at
 * the state file, only when it is there (a push reads it once).
 */
export async function danglingSeen(
  cache: Pick<LocalCache, "hasState" | "readState">,
): Promise<ReadonlySet<string>> {
  return new Set(Object.keys(await readSightings(cache)));
}

/** What {@link removeDangling} needs. */
export interface DanglingDeps {
  readonly store: ObjectStore;
  readonly config: Pick<SyncConfig, "retry" | "concurrency">;
  readonly events: SluiceEmitter;
  readonly signal: AbortSignal;
  /** Time of the index written and of the sightings; default the system clock. */
  readonly now?: () => number;
  /** Where the sightings are kept. */
  readonly cache: Pick<LocalCache, "hasState" | "readState" | "writeState" | "removeState">;
}

/**
 * Removes `paths` from the remote index, each once this cache has seen it
 * dangling (naming the same version) for {@link DANGLING_GRACE_MS} by its
 * own clock, and only while the store holds nothing at it (one HEAD each as
 * the index is written: a path written again meanwhile keeps its entry), and
 * says so in one `index_entry_dangling` warning. A path seen for the first
 * time is left, and its sighting kept; the sightings of paths this pull
 * covered (`covered`) and found no longer dangling are dropped. A removal that fails (no write access, say) is reported in that
 * warning and leaves the pull's result as it is: the entry names nothing a
 * clone could fetch, and a later pull tries again (the caller then keeps no
 * index token, so that pull reads the index). False when it failed. The
 * paths whose entries it removed are added to `removedOut`.
 */
export async function removeDangling(
  deps: DanglingDeps,
  dangling: readonly (readonly [string, IndexEntry])[],
  covered: (path: string) => boolean,
  removedOut?: string[],
): Promise<boolean> {
  const { store, config, events, signal, cache } = deps;
  const seen = await readSightings(cache);
  if (dangling.length === 0 && Object.keys(seen).length === 0) return true;
  const now = (deps.now ?? Date.now)();
  const next: Sightings = {};
  for (const [p, s] of Object.entries(seen)) if (!covered(p)) next[p] = s;
  for (const [p, e] of dangling) next[p] = seen[p]?.v === e.v ? seen[p] : { v: e.v, at: now };
  const ripe = (p: string) => now - next[p].at >= DANGLING_GRACE_MS;
  const young = dangling.map(([p]) => p).filter((p) => !ripe(p)).sort();
  const paths = dangling.map(([p]) => p).filter(ripe).sort();
  const keep = async (drop: readonly string[]) => {
    for (const p of drop) delete next[p];
    if (JSON.stringify(next) === JSON.stringify(seen)) return;
    // Bookkeeping: a write that fails starts the grace again, which only waits longer.
    if (Object.keys(next).length === 0) await cache.removeState(SIGHTINGS_FILE).catch(() => {});
    else await cache.writeState(SIGHTINGS_FILE, next).catch(() => {});
  };
  if (paths.length === 0) await keep([]);
  if (dangling.length === 0) return true;
  if (young.length > 0) {
    events.emit("warning", {
      code: "index_entry_dangling",
      message: `The datastore's index names ${
        listPaths(young, 3)
      }, but the store holds no object there, and this cache first saw ${
        young.length === 1 ? "that entry" : "those entries"
      } so less than ${
        DANGLING_GRACE_MS / 60_000
      } minutes ago (by its own clock, not the writer's): a refused run's erasure may be about to put ${
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
    // Recorded first: a clone holding the synced copy of one of these keeps
    // it (a conflict) rather than taking the removal for a peer's deletion.
    await recordVanished(store, dangling.filter(([p]) => ripe(p)), now, config.retry, signal);
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
    removedOut?.push(...paths);
    await keep(paths);
    outcome =
      `The entries were removed where the store still held nothing (a path written again meanwhile keeps its entry), and recorded as lost in ${VANISHED_KEY}: a clone holding the synced copy keeps it, as a conflict to resolve (\`--mine\` publishes it again). No local file was touched`;
  } catch (err) {
    if (signal.aborted) throw err;
    await keep([]);
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
    } entry was written (outside Sluice, a deletion in flight, or a slow writer's commit that named an adopted copy a peer had deleted since). ${outcome}.`,
    path: paths[0],
  });
  return removed && young.length === 0;
}
