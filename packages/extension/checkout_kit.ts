/**
 * Test helpers: the extension over an in-memory store as one swamp
 * checkout drives it (a provider per call site, a sync service over the
 * checkout's own cache), with the warnings the extension emitted. The
 * service factory is passed in (the composition root's `createSluice`).
 *
 * @module
 */
import type { ObjectStore } from "../../sync/ports.ts";
import type { Clock } from "../../sync/ports.ts";
import type { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import { defineStoreDatastore, type StoreDatastoreOptions } from "./store_datastore.ts";
import { envFrom } from "./env.ts";
import { createEmitter, type WarningEvent } from "../../sync/events.ts";

/** The extension config of these checkouts: the store's own locks. */
export const CHECKOUT_CONFIG = { bucket: "mem", lock: { backend: "store", ttlMs: 30_000 } };

/** What {@link watchedDatastore} builds the datastore with. */
export interface WatchedOptions {
  /** The service factory (`createSluice`). */
  readonly createService: StoreDatastoreOptions["createService"];
  /** Names the identity `<name>@host-<name>`; default `a`. */
  readonly name?: string;
  readonly clock?: Clock;
  readonly conditional?: ConditionalWrites;
}

/**
 * The `datastore` export over `store` for checkout `o.name`, the warnings
 * it emits, and the lines it writes for the tool's user.
 *
 * @example
 * ```ts ignore
 * import { watchedDatastore } from "./checkout_kit.ts";
 * import { InMemoryStore } from "../testing/in_memory_store.ts";
 * import type { WatchedOptions } from "./checkout_kit.ts";
 * declare const createService: WatchedOptions["createService"]; // the composition root's, passed in
 * const { ds, warnings } = watchedDatastore(new InMemoryStore(), { createService });
 * ```
 */
export function watchedDatastore(store: ObjectStore, o: WatchedOptions) {
  const name = o.name ?? "a";
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  /** What the extension wrote for the tool's user (standard error in the entries). */
  const lines: string[] = [];
  const ds = defineStoreDatastore({
    store,
    createService: o.createService,
    env: envFrom({}),
    warn: (line) => lines.push(line),
    events,
    identity: { holder: `${name}@host-${name}`, hostname: `host-${name}`, pid: name.charCodeAt(0) },
    ...(o.clock ? { clock: o.clock } : {}),
    ...(o.conditional ? { conditional: o.conditional } : {}),
  });
  return { ds, warnings, lines };
}

/**
 * Checkout `name` over `store`, with a new cache directory.
 *
 * @example
 * ```ts ignore
 * import { checkout } from "./checkout_kit.ts";
 * import { InMemoryStore } from "../testing/in_memory_store.ts";
 * import type { WatchedOptions } from "./checkout_kit.ts";
 * declare const createService: WatchedOptions["createService"]; // the composition root's, passed in
 * const a = await checkout(new InMemoryStore(), "a", createService);
 * await a.write("notes/n.txt", "text");
 * ```
 */
export async function checkout(
  store: ObjectStore,
  name: string,
  createService: WatchedOptions["createService"],
) {
  const { ds, warnings } = watchedDatastore(store, { createService, name });
  const cache = await Deno.makeTempDir({ prefix: `sluice-ext-${name}-` });
  const svc = ds.createProvider(CHECKOUT_CONFIG).createSyncService(`/repo/${name}`, cache);
  /** Writes `text` at the cache-relative `rel`, making its directories. */
  const write = async (rel: string, text: string) => {
    const file = `${cache}/${rel}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, text);
  };
  return { ds, svc, cache, write, warnings };
}
