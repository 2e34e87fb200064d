/**
 * A file created here whose push commit landed with its answer lost, then
 * deleted here: the deletion is pushed, the file never comes back.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, createAnswerLost, quick, read } from "./clone_kit.ts";

Deno.test("a created file whose commit answer was lost, deleted here, stays deleted", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const path = "notes/new.txt";
  assert.ok(await createAnswerLost(store, a, path, "one"), "the commit landed");
  assert.equal(a.state.synced(path), undefined);
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a.markDirty({ relPath: path });
  await a.pushChanged();
  await a.pullChanged();
  assert.equal(await read(a, path), undefined, "the deletion here stands");
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, path), undefined, "and reaches a peer");
});

Deno.test("a created file whose commit answer was lost, deleted here, is not fetched back by a pull before the push: no download for a file saved meanwhile to meet as a conflict with itself", async () => {
  const base = new InMemoryStore();
  const path = "notes/new.txt";
  // A file saved at the path by hand while the pull downloads its object.
  let onGet: (() => Promise<void>) | undefined;
  const store = new Proxy(base, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get") return value.bind(target);
      return async (key: string, ...rest: unknown[]) => {
        if (key === path) {
          const hook = onGet;
          onGet = undefined;
          await hook?.();
        }
        return await value.call(target, key, ...rest);
      };
    },
  });
  const a = await clone(store, "a");
  assert.ok(await createAnswerLost(base, a, path, "one"), "the commit landed");
  assert.equal(a.state.synced(path), undefined);
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a.markDirty({ relPath: path });
  onGet = async () => await Deno.writeTextFile(`${a.cacheDir}/${path}`, "two");
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.conflicts, [], "its own committed write is no peer's change");
  assert.deepEqual(a.conflicts(), []);
  assert.equal(await read(a, path), undefined, "the deletion here stands");
  await a.pushChanged();
  // The push withdraws its own write: no entry, no object.
  assert.equal((await readIndex(base, quick.retry))?.entries[path], undefined);
  assert.equal(await base.head(path), null);
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal(await read(b, path), undefined, "and reaches a peer");
});
