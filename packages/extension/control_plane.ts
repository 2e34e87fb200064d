/**
 * swamp's control plane on the datastore: small records (serve instances'
 * heartbeats, pending and active runs, claims, token secrets) read and
 * written directly under `[<ns>/]_control/`, outside the index and the
 * cache. Several `swamp serve` instances over one bucket coordinate through
 * them, as they do through the existing extensions; without it each would
 * fall back to a directory of its own.
 *
 * `putIfAbsent` is a create-only write: one writer wins, the others get
 * `false` (on an endpoint that ignores conditional writes, the datastore's
 * conditional-write fallback decides, as for locks). Every call goes
 * through the one retry layer; nothing here is cached.
 *
 * @module
 */
import { AlreadyExistsError, NotFoundError, PreconditionFailedError } from "../../sync/errors.ts";
import { UnsafePathError } from "../../sync/errors.ts";
import { isSafeRelPath } from "../../sync/paths.ts";
import { type ObjectStore, PutModes } from "../../sync/ports.ts";
import { type RetryPolicy, withRetry } from "../../sync/retry.ts";
import type { SwampControlPlaneStore } from "./contract.ts";

function sameBytes(a: Uint8Array | null, b: Uint8Array): boolean {
  return a !== null && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The `_control/` prefix of `namespace` (`""`: solo). */
export function controlPrefix(namespace: string): string {
  return namespace ? `${namespace}/_control/` : "_control/";
}

/**
 * The control plane of `namespace` over `store` (the datastore's root
 * store, behind its conditional-write fallback), each call retried under
 * `retry`. A `namespace` given as a function is asked at each call: the
 * extension's service answers with the namespace bound, else the one its
 * cache holds (see `sync_service.ts`), so that a store the tool makes
 * before a sync binds the namespace (its token commands do: they read and
 * create the encryption key, then write a secret) keeps every record of
 * one command in one namespace, where a `swamp serve` that bound it first
 * reads them.
 *
 * @example
 * ```ts
 * import { controlPlane } from "./control_plane.ts";
 * import { InMemoryStore } from "../testing/mod.ts";
 * import { DEFAULT_RETRY } from "../../sync/retry.ts";
 * const cp = controlPlane(new InMemoryStore(), "", DEFAULT_RETRY);
 * await cp.put("heartbeats/i1", new TextEncoder().encode("{}"));
 * console.log(await cp.list("heartbeats/")); // ["heartbeats/i1"]
 * ```
 */
export function controlPlane(
  store: ObjectStore,
  namespace: string | (() => string | Promise<string>),
  retry: RetryPolicy,
): Required<SwampControlPlaneStore> {
  const current = typeof namespace === "string" ? () => namespace : namespace;
  const root = async () => controlPrefix(await current());
  const keyOf = async (key: string) => {
    if (!isSafeRelPath(key)) {
      throw new UnsafePathError(
        key,
        "not a control-plane key (a relative slash path with no empty, `.` or `..` segment)",
      );
    }
    return `${await root()}${key}`;
  };
  const retried = <T>(fn: () => Promise<T>) => withRetry(fn, retry);
  const get = async (k: string): Promise<Uint8Array | null> => {
    try {
      return (await retried(() => store.get(k))).body;
    } catch (e) {
      if (e instanceof NotFoundError) return null;
      throw e;
    }
  };
  return {
    async put(key, data) {
      const k = await keyOf(key);
      await retried(() => store.put(k, data, PutModes.overwrite));
    },
    async putIfAbsent(key, data) {
      const k = await keyOf(key);
      let attempts = 0;
      try {
        await retried(() => {
          attempts++;
          return store.put(k, data, PutModes.create);
        });
        return true;
      } catch (e) {
        if (!(e instanceof AlreadyExistsError || e instanceof PreconditionFailedError)) throw e;
        // Refused after an attempt whose answer was lost: that attempt may be
        // what is there. Its own bytes say so (a network store tells by
        // itself, with a write id, and never gets here for its own write).
        return attempts > 1 && sameBytes(await get(k), data);
      }
    },
    get: async (key) => await get(await keyOf(key)),
    async delete(key) {
      const k = await keyOf(key);
      await retried(() => store.delete(k));
    },
    async list(prefix) {
      const at = await root();
      const keys: string[] = [];
      await retried(async () => {
        keys.length = 0;
        for await (const page of store.list(`${at}${prefix}`)) {
          for (const o of page) {
            const key = o.key.slice(at.length);
            // Sluice's own objects (`_control/.sluice/`) are no record of the control plane's.
            if (!key.startsWith(".sluice/")) keys.push(key);
          }
        }
      });
      return keys;
    },
  };
}
