/**
 * A store whose writes wait on the test: `before` and `after` run around
 * each put (and `beforeDelete` ahead of each delete), so a test can hold one
 * clone's write (an index commit, say) while another clone goes on, and
 * build a race step by step.
 *
 * @module
 */
import type { InMemoryStore } from "./in_memory_store.ts";

/** Called with the key of each put. */
export type PutHook = (key: string) => Promise<void> | void;

/**
 * `store`, calling `before(key)` ahead of each put and `after(key)` once it
 * landed, and `beforeDelete(key)` ahead of each delete; every other call
 * passes straight through.
 *
 * @example
 * ```ts
 * import { hookedStore, InMemoryStore } from "./mod.ts";
 * const seen: string[] = [];
 * const store = hookedStore(new InMemoryStore(), { before: (k) => void seen.push(k) });
 * ```
 */
export function hookedStore(
  store: InMemoryStore,
  hooks: { before?: PutHook; after?: PutHook; beforeDelete?: PutHook },
): InMemoryStore {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "delete" && hooks.beforeDelete) {
        return async (key: string, ...rest: unknown[]) => {
          await hooks.beforeDelete?.(key);
          return await value.call(target, key, ...rest);
        };
      }
      if (prop !== "put") return value.bind(target);
      return async (key: string, ...rest: unknown[]) => {
        await hooks.before?.(key);
        const r = await value.call(target, key, ...rest);
        await hooks.after?.(key);
        return r;
      };
    },
  }) as InMemoryStore;
}
