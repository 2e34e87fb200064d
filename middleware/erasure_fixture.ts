/**
 * A fresh cache and its sync state for the erasure tests
 * (`erasure_test.ts`, `erasure_steps_test.ts`, `erasure_attribution_test.ts`).
 *
 * @module
 */
import { LocalCache } from "../sync/transfer/cache.ts";
import { sha256Hex } from "../sync/hash.ts";
import { SyncState } from "../sync/service/state.ts";
import { InMemoryStore } from "../packages/testing/mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/**
 * A cache in a new temporary directory (named with `prefix`), with helpers
 * that write a file and record it as synced (at version `r`), or write it
 * and mark it dirty.
 *
 * @example
 * ```ts
 * import { erasureFixture } from "./erasure_fixture.ts";
 * const f = await erasureFixture("sluice-example-");
 * await f.dirty("data/t/m/d/1/raw", "a");
 * ```
 */
export async function erasureFixture(prefix: string) {
  const dir = await Deno.makeTempDir({ prefix });
  const cache = new LocalCache(dir);
  const state = await SyncState.open(dir);
  const synced = async (path: string, body: string) => {
    const bytes = enc(body);
    await cache.write(path, bytes);
    await state.recordSynced(path, {
      hash: await sha256Hex(bytes),
      version: "r",
      size: bytes.length,
    });
  };
  const dirty = async (path: string, body: string) => {
    await cache.write(path, enc(body));
    await state.markDirty(path);
  };
  return { dir, cache, state, synced, dirty };
}

/**
 * {@link erasureFixture} with an in-memory store beside it: what the
 * erasure's functions take as their dependencies.
 *
 * @example
 * ```ts
 * import { erasureWithStore } from "./erasure_fixture.ts";
 * const f = await erasureWithStore();
 * console.log(f.store.keys()); // []
 * ```
 */
export async function erasureWithStore(prefix = "sluice-erasure-") {
  return { ...await erasureFixture(prefix), store: new InMemoryStore() };
}
