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
import { isVersionFile } from "../../sync/transfer/bucket_layout.ts";

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
  /** The lock backends (`lock.backend` of the config names one); default the process-wide registry. */
  readonly lockRegistry?: StoreDatastoreOptions["lockRegistry"];
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
    ...(o.lockRegistry ? { lockRegistry: o.lockRegistry } : {}),
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
  /** Writes `text` at the cache-relative `rel` as the tool does ({@link writeAsTool}). */
  const write = (rel: string, text: string) => writeAsTool(cache, rel, text);
  return { ds, svc, cache, write, warnings };
}

/**
 * Writes `text` at the cache-relative `rel` of `cache`, making its
 * directories. A data version's `raw` gets its `metadata.yaml` beside it
 * first where there is none, as the tool's save writes them (a version
 * without one is still being written, which the extension does not push).
 */
export async function writeAsTool(cache: string, rel: string, text: string): Promise<void> {
  const file = `${cache}/${rel}`;
  const dir = file.slice(0, file.lastIndexOf("/"));
  await Deno.mkdir(dir, { recursive: true });
  if (isVersionRaw(rel)) {
    await Deno.writeTextFile(`${dir}/metadata.yaml`, `name: ${rel}\n`, { createNew: true })
      .catch((e) => {
        if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
      });
  }
  await Deno.writeTextFile(file, text);
}

/** True for a data version's `raw` (`[<ns>/]data/<type…>/<model>/<data>/<N>/raw`). */
function isVersionRaw(rel: string): boolean {
  const segs = rel.split("/");
  const at = segs[0] === "data" ? 0 : segs[1] === "data" ? 1 : -1;
  return at >= 0 && isVersionFile(segs.slice(at)) && segs[segs.length - 1] === "raw";
}
