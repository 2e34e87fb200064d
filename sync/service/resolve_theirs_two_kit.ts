/**
 * Shared setup of the `resolve --theirs` tests with two processes over one
 * cache: process `a` over a store that runs an armed hook at a chosen store
 * call (there process `b`, over the same cache, saves its records), the
 * conflict of PATH they start from, and the checks that the copy of your
 * edit the newer record names stays set aside.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { processOver, put } from "./clone_kit.ts";
import { type ConflictRecord, setAsideCopies } from "./conflicts.ts";
import type { ResolveResult } from "./resolve.ts";
import type { SyncService } from "./service.ts";
import { defaultStateDir } from "../transfer/cache.ts";
import { setAsideReleased } from "../transfer/cache_state.ts";
import { sha256Hex } from "../hash.ts";

export const PATH = "notes/a.md";
export const hashOf = (text: string) => sha256Hex(new TextEncoder().encode(text));

/** The record of `path` in the cache's conflicts file, as saved. */
export async function saved(
  cacheDir: string,
  path = PATH,
): Promise<ConflictRecord | undefined> {
  const text = await Deno.readTextFile(`${defaultStateDir(cacheDir)}/conflicts.json`)
    .catch(() => '{"conflicts":{}}');
  return JSON.parse(text).conflicts[path];
}

/** The store's calls that answer with a promise. */
const CALLS = new Set(["get", "getStream", "head", "put", "delete"]);

/** Which store call, of those that answer with a promise, runs the armed hook. */
export type Fires = (call: string, key: unknown) => boolean;

/** A store whose first call after `arm` that `fires` picks runs the armed hook first (once). */
export function hooked(
  store: InMemoryStore,
  fires: Fires = () => true,
): { store: InMemoryStore; arm: (h: () => Promise<void>) => void } {
  let hook: (() => Promise<void>) | undefined;
  const proxied = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (!CALLS.has(String(prop))) return value.bind(target);
      return async (...args: unknown[]) => {
        const h = hook && fires(String(prop), args[0]) ? hook : undefined;
        if (h) hook = undefined;
        await h?.();
        return await value.apply(target, args);
      };
    },
  }) as InMemoryStore;
  return { store: proxied, arm: (h) => void (hook = h) };
}

/** Processes `a` (over the hooked store) and `b` (over the store as it is) over one cache. */
export async function twoOver(base: InMemoryStore, fires?: Fires) {
  const { store, arm } = hooked(base, fires);
  const cacheDir = await Deno.makeTempDir();
  const a = await processOver(store, cacheDir, 1);
  const b = await processOver(base, cacheDir, 2);
  return { arm, cacheDir, a, b };
}

/** A peer's "one" at PATH, pulled by `a` of two processes over one cache. */
export async function overOne(fires?: Fires) {
  const base = new InMemoryStore();
  const peer = await processOver(base, await Deno.makeTempDir(), 9);
  await put(peer, PATH, "one");
  await peer.pushChanged();
  const two = await twoOver(base, fires);
  await two.a.pullChanged();
  return { base, peer, ...two };
}

/** `a`'s conflict of PATH (its edit, theirs "two"), "three" published since. */
export async function theirsThree(fires?: Fires) {
  const one = await overOne(fires);
  const { base, peer, a } = one;
  await put(a, PATH, "a's edit");
  await put(peer, PATH, "two");
  await peer.pushChanged();
  assert.deepEqual((await a.pullChanged()).conflicts, [PATH]);
  await put(peer, PATH, "three");
  await peer.pushChanged();
  const three = (await base.head(PATH))!.version;
  return { ...one, three };
}

/**
 * The resolution of `path` is not done, and its one copy set aside, of your
 * edit (`edit` its hash), is not released and named where it was set aside,
 * to `a` and to a new process over the cache.
 */
export async function keptAside(
  a: SyncService,
  cacheDir: string,
  r: ResolveResult,
  edit: string,
  path = PATH,
): Promise<void> {
  assert.equal(r.resolved, false, `reported done: ${JSON.stringify(r)}`);
  assert.deepEqual(r.leftBehind.conflicts, [path]);
  assert.equal(r.setAside.length, 1);
  const [moved] = r.setAside;
  assert.equal(await setAsideReleased(defaultStateDir(cacheDir), moved), false, "not released");
  for (const svc of [a, await processOver(new InMemoryStore(), cacheDir, 3)]) {
    await svc.state.conflicts.refresh();
    const open = svc.conflicts().find((c) => c.path === path);
    const held = setAsideCopies(open).find((c) => c.hash === edit);
    assert.equal(
      held?.location,
      moved,
      `your edit is named where it was set aside: ${JSON.stringify(open)}`,
    );
  }
  assert.equal(await Deno.readTextFile(`${cacheDir}/${moved}`), "a's edit");
}
