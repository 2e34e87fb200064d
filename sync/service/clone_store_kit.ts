/**
 * Store wrappers for the sync service's own tests: an endpoint that ignores
 * a delete's condition, one whose downloads never answer, one that runs a
 * hook before a put, services of several processes over one cache, and a
 * copy of a directory tree.
 *
 * @module
 */
import type { SyncService } from "./service.ts";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";
import type { ObjectInfo, ObjectStore, PutBody, PutMode, PutOptions } from "../ports.ts";
import { PreconditionFailedError } from "../errors.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { quick } from "./clone_kit.ts";

/** Copies the directory `from` into `to`, files and directories (in process). */
export async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/**
 * `store` as an endpoint that ignores a delete's condition (MinIO's
 * community edition): the version is compared first, then the object is
 * deleted whatever is there (`deletesChecked`); the hook `arm` sets runs
 * once in that window, at the next conditional delete.
 *
 * @example
 * ```ts
 * import { checkedDeleteStore } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const racing = checkedDeleteStore(new InMemoryStore());
 * racing.arm(async () => {});
 * ```
 */
export function checkedDeleteStore(
  store: InMemoryStore,
): { store: InMemoryStore; arm: (between: () => Promise<void>) => void } {
  let hook: (() => Promise<void>) | undefined;
  const proxied = new Proxy(store, {
    get(target, prop) {
      if (prop === "deletesChecked") return true;
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "delete") return value.bind(target);
      return async (key: string, o: { ifVersion?: string; signal?: AbortSignal } = {}) => {
        if (o.ifVersion !== undefined) {
          const now = await target.head(key);
          if (now?.version !== o.ifVersion) {
            throw new PreconditionFailedError(key, `version ${now?.version}`);
          }
          const h = hook;
          hook = undefined;
          await h?.();
        }
        return await target.delete(key, { signal: o.signal });
      };
    },
  }) as InMemoryStore;
  return { store: proxied, arm: (between) => void (hook = between) };
}

/**
 * `store`, whose downloads of `key` never answer (its process stops for
 * good there: killed, its machine lost); `downloading()` tells once one was
 * asked for, and `onAsked` runs then, before the download hangs.
 *
 * @example
 * ```ts
 * import { stopsAtDownload } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const { store, downloading } = stopsAtDownload(new InMemoryStore(), "notes/n.txt");
 * console.log(downloading()); // false
 * ```
 */
export function stopsAtDownload(
  store: InMemoryStore,
  key: string,
  onAsked: () => void = () => {},
): { store: InMemoryStore; downloading: () => boolean } {
  let asked = false;
  const stops = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get" && prop !== "getStream") return value.bind(target);
      return (k: string, ...rest: unknown[]) => {
        if (k !== key) return value.call(target, k, ...rest);
        asked = true;
        onAsked();
        return new Promise(() => {});
      };
    },
  });
  return { store: stops, downloading: () => asked };
}

/**
 * A service of process `pid` over the cache `cacheDir` (several in one test
 * are several processes over one cache: each with its owner lock, told
 * apart by `ownersInProcess`).
 *
 * @example
 * ```ts
 * import { processOver } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const dir = await Deno.makeTempDir();
 * const store = new InMemoryStore();
 * const [one, two] = [await processOver(store, dir, 1), await processOver(store, dir, 2)];
 * ```
 */
export async function processOver(
  store: ObjectStore,
  cacheDir: string,
  pid: number,
): Promise<SyncService> {
  return await createSluice({
    cacheDir,
    store,
    ownersInProcess: true,
    identity: { holder: `p${pid}@host`, hostname: "host", pid },
    clock: new FakeClock(),
    config: quick,
    conditional: new ConditionalWrites(),
  });
}

/**
 * An in-memory store that runs `beforePut` once, before the first put it
 * matches (another writer's push landing in a write's window, say).
 *
 * @example
 * ```ts
 * import { RacingStore } from "./clone_kit.ts";
 * const store = new RacingStore();
 * store.beforePut = { match: (key) => key === "notes/a.txt", run: async () => {} };
 * ```
 */
export class RacingStore extends InMemoryStore {
  beforePut?: { match: (key: string, mode: PutMode) => boolean; run: () => Promise<void> };

  override async put(
    key: string,
    body: PutBody,
    mode: PutMode,
    options?: PutOptions,
  ): Promise<ObjectInfo> {
    const hook = this.beforePut;
    if (hook?.match(key, mode)) {
      this.beforePut = undefined;
      await hook.run();
    }
    return await super.put(key, body, mode, options);
  }
}
