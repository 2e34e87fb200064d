/**
 * A test kit: one "process" of the tool, an extension instance over a
 * shared in-memory store with its own identity (`<name>@host`), cache
 * directory and warning lines.
 *
 * @module
 */
import type { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import type { InMemoryStore } from "../testing/in_memory_store.ts";
import { envFrom } from "./env.ts";
import { defineStoreDatastore, type StoreDatastoreOptions } from "./store_datastore.ts";

/** What {@link extensionProcess} builds the instance with. */
export interface ProcessOptions {
  /** Starts the cache directory's name, followed by `<name>-`. */
  readonly prefix: string;
  /** Extension config beside `bucket: "mem"`. */
  readonly config?: Record<string, unknown>;
  readonly conditional?: ConditionalWrites;
  /** The composition root's service factory (`createSluice`), passed in. */
  readonly createService: StoreDatastoreOptions["createService"];
}

/**
 * The extension named `name` over `store`: its sync service `svc` for
 * `/repo/<name>` in a new cache directory `cache`, its `provider`, the
 * warning `lines` it printed, and `write`, which marks a cache file dirty
 * and writes it.
 */
export async function extensionProcess(store: InMemoryStore, name: string, o: ProcessOptions) {
  const lines: string[] = [];
  const ds = defineStoreDatastore({
    store,
    createService: o.createService,
    env: envFrom({}),
    identity: { holder: `${name}@host`, hostname: "host", pid: name.charCodeAt(0) },
    ...(o.conditional ? { conditional: o.conditional } : {}),
    warn: (l) => lines.push(l),
  });
  const cache = await Deno.makeTempDir({ prefix: `${o.prefix}${name}-` });
  const provider = ds.createProvider({ bucket: "mem", ...o.config });
  const svc = provider.createSyncService(`/repo/${name}`, cache);
  const write = async (rel: string, text: string) => {
    await Deno.mkdir(`${cache}/${rel.slice(0, rel.lastIndexOf("/"))}`, { recursive: true });
    await svc.markDirty({ relPath: rel });
    await Deno.writeTextFile(`${cache}/${rel}`, text);
  };
  return { svc, provider, cache, lines, write };
}
