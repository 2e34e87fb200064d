/**
 * Test helper: one swamp checkout driving the extension over an in-memory
 * store, as the tool does (a provider per call site, a sync service over
 * the checkout's own cache), with the warnings the extension emitted.
 *
 * @module
 */
import type { InMemoryStore } from "../testing/in_memory_store.ts";
import { defineStoreDatastore } from "./store_datastore.ts";
import { createSluice } from "../../sluice.ts";
import { envFrom } from "./env.ts";
import { createEmitter, type WarningEvent } from "../../sync/events.ts";

/** The extension config of these checkouts: the store's own locks. */
export const CHECKOUT_CONFIG = { bucket: "mem", lock: { backend: "store", ttlMs: 30_000 } };

/**
 * Checkout `name` (its identity `<name>@host-<name>`) over `store`, with a
 * new cache directory.
 *
 * @example
 * ```ts
 * import { checkout } from "./checkout_kit.ts";
 * import { InMemoryStore } from "../testing/in_memory_store.ts";
 * const a = await checkout(new InMemoryStore(), "a");
 * await a.write("notes/n.txt", "text");
 * ```
 */
export async function checkout(store: InMemoryStore, name: string) {
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  const ds = defineStoreDatastore({
    store,
    createService: createSluice,
    env: envFrom({}),
    events,
    identity: { holder: `${name}@host-${name}`, hostname: `host-${name}`, pid: name.charCodeAt(0) },
  });
  const cache = await Deno.makeTempDir({ prefix: `sluice-ext-${name}-` });
  const svc = ds.createProvider(CHECKOUT_CONFIG).createSyncService(`/repo/${name}`, cache);
  /** Writes `text` at the cache-relative `rel`, making its directories. */
  const write = async (rel: string, text: string) => {
    const file = `${cache}/${rel}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, text);
  };
  return { svc, cache, write, warnings };
}
