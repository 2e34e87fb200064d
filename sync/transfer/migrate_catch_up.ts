/**
 * The catch-up of a move to v2 (`migrate_index.ts`): after the move's v2
 * meta lands, what v1 commits that raced the move changed in the v1 index is
 * applied to the shards as an ordinary v2 commit, and the sets whose objects
 * are gone are told to the caller (`MigrateOptions.onUnnamed`) and never
 * left named.
 *
 * @module
 */
import type { GetResult, ObjectStore } from "../ports.ts";
import { withRetry } from "../retry.ts";
import { type IndexEntry, MONOLITH_KEY, parseMonolith } from "./bucket_layout.ts";
import { eachLimit, getOrNull, parsed } from "./index_io.ts";
import { updateIndex } from "./remote_index.ts";
import type { MigrateOptions } from "./migrate_index.ts";

/**
 * Applies to the shards what changed in the v1 index since version `read`
 * was migrated (`null`: there was none, so all of it); returns the v1 index
 * object as it read it (null when there is none).
 *
 * @example
 * ```ts
 * import { catchUp } from "./migrate_catch_up.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
 * // No v1 index object: nothing to catch up.
 * console.log(await catchUp(new InMemoryStore(), {}, null, { retry })); // null
 * ```
 */
export async function catchUp(
  store: ObjectStore,
  migrated: Record<string, IndexEntry>,
  read: string | null,
  options: MigrateOptions,
): Promise<GetResult | null> {
  const c = { retry: options.retry, signal: options.signal };
  const got = await getOrNull(store, MONOLITH_KEY, c);
  if (!got || got.version === read) return got;
  const now = parsed(MONOLITH_KEY, () => parseMonolith(got.body));
  const set: Record<string, IndexEntry> = {};
  for (const [p, e] of Object.entries(now)) {
    const was = migrated[p];
    if (!was || was.v !== e.v || was.h !== e.h || was.s !== e.s) set[p] = e;
  }
  const remove = Object.keys(migrated).filter((p) => !Object.hasOwn(now, p));
  // Replayed after the move: a v2 commit may have overtaken any of these
  // since. A set is applied only while its object is in the store, and a
  // removal only while the entry still names what the v1 commit removed.
  const base = Object.fromEntries(remove.map((p) => [p, migrated[p].v]));
  // Sets whose objects are gone by the commit are told after it (the v2
  // index has never named them: the commit names what is still there first).
  let gone: string[] = [];
  await updateIndex(
    store,
    { set, remove, base, verify: true },
    options.retry,
    options.signal,
    undefined,
    options.concurrency,
    options.clock,
    (_base, _complete, _foreign, unpublished) => {
      gone = [...unpublished];
    },
  );
  // The check of a set's object comes before the shard write that names it:
  // the object may go in between, deleted by its writer back from a crash
  // (its commit landed, its answer lost), which found its upload named by no
  // v2 index, as none names it before this commit, and deleted it as its own
  // unnamed upload (see `dropOwnStranded` in service/push_delete.ts), or by
  // another tool. So each is looked at again after the commit, as an
  // adoption does (see `adoptStranded`): an entry naming an object gone now
  // is told with the others, then taken out while it still names that
  // version and the store holds nothing there.
  // Those found gone before the commit are told all the same when this
  // look fails (the move has finished: its failure is the move's).
  let late: string[] = [];
  try {
    late = await goneAfter(
      store,
      Object.keys(set).filter((p) => !gone.includes(p)),
      options,
    );
  } catch (e) {
    if (gone.length > 0) await options.onUnnamed?.(gone.map((p) => [p, set[p]]));
    throw e;
  }
  const unnamed = [...gone, ...late];
  try {
    if (unnamed.length > 0) await options.onUnnamed?.(unnamed.map((p) => [p, set[p]]));
  } finally {
    // Taken out even when telling failed: the index never names an object that is gone.
    if (late.length > 0) {
      await updateIndex(
        store,
        {
          set: {},
          remove: late,
          base: Object.fromEntries(late.map((p) => [p, set[p].v])),
          verify: true,
        },
        options.retry,
        options.signal,
        undefined,
        options.concurrency,
        options.clock,
      );
    }
  }
  return got;
}

/** The paths of `paths` at which the store holds nothing now. */
async function goneAfter(
  store: ObjectStore,
  paths: readonly string[],
  options: MigrateOptions,
): Promise<string[]> {
  const out: string[] = [];
  await eachLimit(paths, options.concurrency ?? 4, async (p) => {
    const held = await withRetry(
      () => store.head(p, { signal: options.signal }),
      options.retry,
      options.signal,
    );
    if (!held) out.push(p);
  });
  return out.sort();
}
