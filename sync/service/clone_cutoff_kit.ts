/**
 * Cut-off commits for the sync service's own tests: an upload or index
 * write whose answer is lost (the commit made or not), a check held by an
 * open conflict, and a store whose delete of a cache's own write a test
 * races.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { SyncService } from "./service.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { META_KEY, MONOLITH_KEY } from "../transfer/bucket_layout.ts";
import { UnreachableError } from "../errors.ts";
import { InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";
import type { PushResult } from "./push_result.ts";
import { clone, put, quick } from "./clone_kit.ts";

/**
 * Clones `a` and `b` of a new store, and `a`'s upload of `text` at `path`,
 * its commit cut off: the upload's version, which the store holds and no
 * index names.
 */
export async function uploadCommitCutOff(
  path: string,
  text: string,
): Promise<{ store: InMemoryStore; a: SyncService; b: SyncService; uploaded: string }> {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, path, text);
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  const uploaded = (await store.head(path))?.version;
  assert.ok(uploaded !== undefined, "a's upload stands, named by no index");
  return { store, a, b, uploaded };
}

/**
 * `svc`'s update of `path` to `text` (a v2 store), whose shard lands and
 * whose meta bump is cut off: the commit is made, its answer lost. Returns
 * the version the index names now (this cache's own write).
 *
 * @example
 * ```ts
 * import { clone, put, updateAnswerLost, v2Store } from "./clone_kit.ts";
 * const store = await v2Store();
 * const a = await clone(store, "a");
 * await put(a, "n.txt", "one");
 * await a.pushChanged();
 * const v = await updateAnswerLost(store, a, "n.txt", "two");
 * ```
 */
export async function updateAnswerLost(
  store: InMemoryStore,
  svc: SyncService,
  path: string,
  text: string,
): Promise<string> {
  // The meta bump fails before its effect: the shard written before it stands.
  return await pushCutOff(store, svc, path, text, META_KEY, false);
}

/**
 * `svc` writes `text` at `path` and pushes; the put of `key` (an index
 * object) fails, after its effect with `afterEffect`. Returns the version
 * the index names at `path` then (the commit made, its answer lost).
 */
async function pushCutOff(
  store: InMemoryStore,
  svc: SyncService,
  path: string,
  text: string,
  key: string,
  afterEffect: boolean,
): Promise<string> {
  await put(svc, path, text);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    afterEffect,
    match: (k) => k === key,
  });
  await svc.pushChanged().then(
    () => Promise.reject(new Error("the push was to be cut off")),
    () => {},
  );
  const v = (await readIndex(store, quick.retry))?.entries[path]?.v;
  if (!v) throw new Error(`the commit of ${path} did not land`);
  return v;
}

/** True for the key of an index object: the v1 index, a v2 shard or meta (to aim a fault at). */
export const isIndexKey = (key: string): boolean =>
  key === MONOLITH_KEY || key.startsWith("_index/");

/**
 * `svc`'s new file `path` (`text`), whose index commit lands and whose
 * answer is lost: the answer of the write of `key` (the v1 index by
 * default; a v2 bucket's last is its meta). Returns the version the index
 * names now.
 *
 * @example
 * ```ts
 * import { clone, createAnswerLost } from "./clone_kit.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const store = new InMemoryStore();
 * const v = await createAnswerLost(store, await clone(store, "a"), "n.txt", "one");
 * ```
 */
export async function createAnswerLost(
  store: InMemoryStore,
  svc: SyncService,
  path: string,
  text: string,
  key: string = MONOLITH_KEY,
): Promise<string> {
  return await pushCutOff(store, svc, path, text, key, true);
}

/**
 * A check of an earlier push's upload that waits on an open conflict at its
 * path, a mark of the user's by name standing for it: `a`'s new file `path`,
 * whose commit landed with its answer lost, deleted here and pushed by name
 * while `b` commits an edit of it (the deletion kept as a conflict with that
 * edit: `deleted`, the push's result); then `b` replaced the file by a
 * directory of its name holding `path/under`, and `a` pulled it. `a`'s next
 * push plans only the check at `path`, which the conflict holds.
 *
 * @example
 * ```ts
 * import { checkHeldByConflict } from "./clone_kit.ts";
 * const { a } = await checkHeldByConflict();
 * console.log(a.conflicts().length); // 1
 * ```
 */
export async function checkHeldByConflict(
  path = "notes/shared-1.md",
  under = "part-26.md",
): Promise<{ store: InMemoryStore; a: SyncService; b: SyncService; deleted: PushResult }> {
  const store = new InMemoryStore();
  const b = await clone(store, "b");
  // The peer's edit lands as `a`'s deletion of its own upload begins, just
  // before its take-back notes the version it withdraws. (Landed after the
  // note, the edit would be the conflict: the note tells its commit that
  // the version it edits is withdrawn.)
  let armed = false;
  const racing = callsThrough(store, "put", async (args, call) => {
    if (armed && String(args[0]).startsWith("_control/.sluice/withdrawn/")) {
      armed = false;
      await b.pullChanged();
      await put(b, path, "the peer's edit");
      await b.pushChanged();
    }
    return await call();
  });
  const a = await clone(racing, "a");
  await createAnswerLost(store, a, path, "a's file");
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/${path}`);
  armed = true;
  const deleted = await a.pushChanged({ only: [path] });
  if (armed) throw new Error("the peer's edit did not land during the deletion");
  await Deno.remove(`${b.cacheDir}/${path}`);
  await writeCacheFile(b.cacheDir, `${path}/${under}`, "a part");
  await b.markDirty({ relPath: path });
  await b.pushChanged();
  await a.pullChanged();
  return { store, a, b, deleted };
}

/**
 * `store` seen through a proxy whose calls of `method` go through `around`,
 * which gets the call's arguments and the call itself, to run when it
 * chooses, and answers for it. Every other call goes to `store` as it is.
 */
function callsThrough(
  store: InMemoryStore,
  method: "put" | "delete",
  around: (args: unknown[], call: () => Promise<unknown>) => Promise<unknown>,
): InMemoryStore {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== method) return value.bind(target);
      return (...args: unknown[]) => around(args, () => value.apply(target, args));
    },
  }) as InMemoryStore;
}

/**
 * `store` seen through a proxy whose next delete of `path` at the version
 * `arm` names (a cache's delete of its own write) goes through `around`,
 * once: `around` gets the delete itself, to run when it chooses, and answers
 * for it. Every other call goes to `store` as it is.
 */
export function ownDeleteHooked(
  store: InMemoryStore,
  path: string,
  around: (landDelete: () => Promise<unknown>) => Promise<unknown>,
): { store: InMemoryStore; arm(own: string): void; armed(): boolean } {
  let own = "";
  let armed = false;
  const hooked = callsThrough(store, "delete", async (args, call) => {
    const o = args[1] as { ifVersion?: string } | undefined;
    if (armed && args[0] === path && o?.ifVersion === own) {
      armed = false;
      return await around(call);
    }
    return await call();
  });
  return {
    store: hooked,
    arm: (version) => {
      own = version;
      armed = true;
    },
    armed: () => armed,
  };
}

/**
 * Clone `a` of `store` (through {@link ownDeleteHooked}) creates `path`
 * ("x\n"), its answer lost; `b` pulls it; `a` deletes it here and pushes,
 * and that push's take-back delete goes through `around`. Asserts, with
 * `said`, that `around` ran. Resolves to `a` and the version it created.
 */
export async function takeBackAround(
  store: InMemoryStore,
  b: SyncService,
  path: string,
  around: (landDelete: () => Promise<unknown>) => Promise<unknown>,
  said: string,
): Promise<{ a: SyncService; v: string }> {
  const racing = ownDeleteHooked(store, path, around);
  const a = await clone(racing.store, "a");
  const v = await createAnswerLost(store, a, path, "x\n");
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/${path}`);
  racing.arm(v);
  await a.pushChanged({ only: [path] });
  assert.ok(!racing.armed(), said);
  return { a, v };
}
