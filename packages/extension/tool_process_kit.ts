/**
 * Test helpers: one process of the tool over an in-memory store, driven as
 * swamp core drives the extension (a checkout's sync service over its own
 * cache; runs of models `shell/cmd/<id>` that take their model's lock, pull
 * scoped, write a version and flush naming their model; structural
 * commands under the global lock that push naming no model; an operator's
 * breakglass). The service factory is passed in, as to `watchedDatastore`.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { InMemoryStore } from "../testing/in_memory_store.ts";
import {
  CHECKOUT_CONFIG,
  watchedDatastore,
  type WatchedOptions,
  writeAsTool,
} from "./checkout_kit.ts";

/** The model `shell/cmd/<id>`, as the tool's context names it. */
export const toolModel = (id: string) => ({ modelType: "shell/cmd", modelId: id });

/** The data directory of model `id`'s `out`. */
export const outDir = (id: string) => `data/shell/cmd/${id}/out`;

/**
 * One process of the tool over `store` as checkout `name` (identity
 * `<name>@host-<name>`), over one sync service of a cache of its own.
 *
 * @example
 * ```ts ignore
 * import { toolProcess } from "./tool_process_kit.ts";
 * import { InMemoryStore } from "../testing/in_memory_store.ts";
 * import type { WatchedOptions } from "./checkout_kit.ts";
 * declare const createService: WatchedOptions["createService"]; // the composition root's, passed in
 * const p = await toolProcess(new InMemoryStore(), createService);
 * const lock = await p.start("m1");
 * await p.method("m1", "output");
 * await p.flush("m1", lock);
 * ```
 */
export async function toolProcess(
  store: InMemoryStore,
  createService: WatchedOptions["createService"],
  name = "a",
  o: Pick<WatchedOptions, "lockRegistry"> = {},
) {
  const { ds, warnings, lines } = watchedDatastore(store, { ...o, createService, name });
  const cache = await Deno.makeTempDir({ prefix: `sluice-ext-process-${name}-` });
  const provider = () => ds.createProvider(CHECKOUT_CONFIG);
  const svc = provider().createSyncService(`/repo/${name}`, cache);
  /** The lock of model `id`, not taken yet. */
  const lockOf = (id: string) =>
    provider().createLock("/repo/.swamp", {
      lockKey: `data/shell/cmd/${id}/.lock`,
      maxWaitMs: 1000,
    });
  /** A run's start: its model's lock, then its scoped pull. */
  const start = async (id: string) => {
    const lock = lockOf(id);
    await lock.acquire();
    await svc.pullChanged({ context: { models: [toolModel(id)] } });
    return lock;
  };
  /** A run's method: the next version of its model's `out` (1 in an empty cache) with `text`, and the marker naming it. */
  const method = async (id: string, text = `from ${id}`) => {
    let n = 1;
    while (await Deno.stat(`${cache}/${outDir(id)}/${n}`).then(() => true, () => false)) n++;
    await svc.markDirty({ relPath: outDir(id) });
    await writeAsTool(cache, `${outDir(id)}/${n}/raw`, text);
    await svc.markDirty({ relPath: `${outDir(id)}/${n}` });
    await writeAsTool(cache, `${outDir(id)}/latest`, `${n}`);
    return n;
  };
  /** Runs `fn` under the global lock, as the tool's flushes and structural commands do. */
  const underGlobal = async <T>(fn: () => Promise<T>): Promise<T> => {
    const global = provider().createLock("/repo/.swamp", { maxWaitMs: 1000 });
    await global.acquire();
    try {
      return await fn();
    } finally {
      await global.release();
    }
  };
  /**
   * A run's flush naming its model (single-phase under the global lock, or
   * two-phase: prepared under its model lock, committed under the global
   * lock), then its model lock released.
   */
  const flush = async (
    id: string,
    lock: Awaited<ReturnType<typeof start>>,
    o: { twoPhase?: boolean } = {},
  ) => {
    const context = { models: [toolModel(id)] };
    try {
      if (!o.twoPhase) return await underGlobal(() => svc.pushChanged({ context }));
      const manifest = await svc.preparePush!({ context });
      return await underGlobal(() => svc.commitPush!(manifest, {}));
    } finally {
      await lock.release().catch(() => {});
    }
  };
  /**
   * A structural command's write of `text` at `rel` and its flush, a push
   * naming no model, under the global lock; with `pull`, its pull first,
   * as the tool's structural commands make.
   */
  const structural = (rel: string, text: string, o: { pull?: boolean } = {}) =>
    underGlobal(async () => {
      if (o.pull) await svc.pullChanged({});
      await svc.markDirty({ relPath: rel });
      await writeAsTool(cache, rel, text);
      return await svc.pushChanged({});
    });
  /** An operator breaks the lock of model `id` (`swamp datastore lock release --force`). */
  const breakLock = async (id: string) => {
    const breaker = provider().createLock("/repo/.swamp", {
      lockKey: `data/shell/cmd/${id}/.lock`,
    });
    const info = await breaker.inspect();
    assert.ok(info?.nonce);
    assert.equal(await breaker.forceRelease(info.nonce), true);
  };
  /** The cache's copy at `rel`, or null. */
  const read = (rel: string) => Deno.readTextFile(`${cache}/${rel}`).catch(() => null);
  return {
    ds,
    provider,
    svc,
    cache,
    warnings,
    lines,
    lockOf,
    start,
    method,
    underGlobal,
    flush,
    structural,
    breakLock,
    read,
  };
}
