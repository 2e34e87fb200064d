/**
 * Marking paths dirty (`SyncService.markDirty`): one path, several in one
 * durable append, or everything (a walk at the next push), each new regular
 * file recorded as such with its mark.
 *
 * @module
 */
import { AbortedError } from "../errors.ts";
import { assertSafeRelPath } from "../paths.ts";
import type { LocalCache } from "../transfer/cache.ts";
import type { SyncState } from "./state.ts";

/** What {@link markDirtyPaths} takes: one path, several, or neither (everything). */
export interface MarkDirtyOptions {
  readonly relPath?: string;
  readonly relPaths?: readonly string[];
  readonly signal?: AbortSignal;
}

/**
 * Marks `relPath`, or `relPaths` (one durable append), or (with neither)
 * everything dirty in `state`. Durable on return.
 *
 * @example
 * ```ts
 * import { markDirtyPaths } from "./mark_dirty.ts";
 * import { createSyncService } from "./service.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const svc = await createSyncService({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * await markDirtyPaths(svc.state, svc.cache, { relPaths: ["a.txt", "b.txt"] });
 * ```
 */
export async function markDirtyPaths(
  state: SyncState,
  cache: LocalCache,
  options: MarkDirtyOptions = {},
): Promise<void> {
  if (options.signal?.aborted) throw new AbortedError("markDirty");
  if (options.relPaths !== undefined) {
    for (const p of options.relPaths) assertSafeRelPath(p);
    await state.markDirtyMany(
      options.relPaths,
      options.relPaths.filter((p) => isNewFile(state, cache, p)),
    );
    if (options.relPath === undefined) return;
  }
  if (options.relPath !== undefined) assertSafeRelPath(options.relPath);
  const p = options.relPath;
  await state.markDirty(p, p !== undefined && isNewFile(state, cache, p));
}

/**
 * A regular file this cache never synced: its push will write it unnamed
 * by any index until its commit, so it is recorded as such with its mark
 * (one append for both; the push need not append again, see
 * `SyncState.markAttempted`).
 *
 * @example
 * ```ts
 * import { isNewFile } from "./mark_dirty.ts";
 * import { createSyncService } from "./service.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const svc = await createSyncService({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * await Deno.writeTextFile(`${svc.cacheDir}/a.txt`, "hi");
 * console.log(isNewFile(svc.state, svc.cache, "a.txt")); // true
 * ```
 */
export function isNewFile(state: SyncState, cache: LocalCache, path: string): boolean {
  if (state.synced(path)) return false;
  try {
    return cache.isRegularFileSync(path);
  } catch {
    return false; // a link, or unreadable: the push decides, and records it then if it writes
  }
}
