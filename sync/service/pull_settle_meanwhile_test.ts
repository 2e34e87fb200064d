/**
 * A pull that fails part way keeps what it found: it settles the paths it
 * found agreeing and records the conflicts it found, as it fetches and
 * again as it stops. A path it found agreeing whose record another process
 * over the cache saved anew meanwhile (its pull found a newer version of
 * theirs) keeps that newer record, though this process's saves took it in.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, processOver, put } from "./clone_kit.ts";
import type { ObjectStore } from "../ports.ts";

const P = "notes/a.md";
const Q = "notes/q.md";
const R = "notes/r.md";

/** `store`, running `hook(key)` ahead of each read of an object. */
function readHooked(store: InMemoryStore, hook: (key: string) => Promise<void>): ObjectStore {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get" && prop !== "getStream") return value.bind(target);
      return async (key: string, ...rest: unknown[]) => {
        await hook(key);
        return await value.call(target, key, ...rest);
      };
    },
  }) as ObjectStore;
}

Deno.test("a pull cut off part way settles a path it found agreeing only as it read its record: a newer one another process over the cache saved meanwhile stays", async () => {
  const store = new InMemoryStore();
  const peer = await clone(store, "peer");
  await put(peer, P, "one");
  await put(peer, Q, "q one");
  await put(peer, R, "r one");
  await peer.pushChanged();
  const cacheDir = await Deno.makeTempDir();
  let cut: ((key: string) => Promise<void>) | undefined;
  let recordedByB: string | undefined;
  const a = await processOver(readHooked(store, (k) => cut?.(k) ?? Promise.resolve()), cacheDir, 1);
  const b = await processOver(store, cacheDir, 2);
  try {
    await a.pullChanged();
    // A conflict of P: edited here and there.
    await put(a, P, "a's edit");
    await put(peer, P, "two");
    await peer.pushChanged();
    assert.deepEqual((await a.pullChanged()).conflicts, [P]);
    // The user makes P theirs by hand: the next pull finds it agreeing.
    await put(a, P, "two", false);
    // Q is edited here and there (a conflict the next pull finds), R there only.
    await put(a, Q, "q here");
    await put(peer, Q, "q there");
    await put(peer, R, "r two");
    await peer.pushChanged();
    // As the first process fetches R, a newer version of P lands, the second
    // process's pull records it, and the datastore becomes unreachable.
    cut = async (key) => {
      if (!key.endsWith(R)) return;
      cut = undefined;
      await put(peer, P, "three");
      await peer.pushChanged();
      await b.pullChanged();
      recordedByB = b.conflicts().find((c) => c.path === P)?.theirs?.version;
      throw new Error("the datastore went away");
    };
    await assert.rejects(a.pullChanged());
    assert.equal(cut, undefined, "the fetch of R was reached");
    const three = await version(P);
    assert.equal(recordedByB, three, "the second process recorded the newer version");
    const open = (await processOver(store, cacheDir, 3)).conflicts().find((c) => c.path === P);
    assert.equal(open?.theirs?.version, three, "the newer record stands");
    assert.ok(a.conflicts().some((c) => c.path === Q), "the conflict found is recorded");
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }

  async function version(path: string) {
    return (await store.head(path))?.version;
  }
});
