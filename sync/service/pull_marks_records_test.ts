/**
 * A pull of one process over a cache met another process's push of a file
 * between the pull's take-in of the synced records and its read of the
 * other processes' marks: the push's commit landed, then that process
 * recorded the file as synced and cleared its mark (one step, under the
 * state lock), and its user deleted the file by hand. The pull read the
 * index naming that commit, found neither the mark nor the record, and
 * fetched the file back: the deletion was undone (chaos seed 222000015).
 */
import assert from "node:assert/strict";
import { isIndexKey, processOver } from "./clone_kit.ts";
import { InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";

const PATH = "config/settings-0.yaml";

/** `store`, running `hook` once before the first index read once armed. */
function beforeIndexRead(store: InMemoryStore) {
  let hook: (() => Promise<void>) | undefined;
  const proxied = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "get" && prop !== "head") return value.bind(target);
      return async (key: string, ...rest: unknown[]) => {
        if (isIndexKey(key) && hook) {
          const h = hook;
          hook = undefined;
          await h();
        }
        return await value.call(target, key, ...rest);
      };
    },
  });
  return { store: proxied, arm: (h: () => Promise<void>) => hook = h };
}

Deno.test("a pull keeps a deletion of a file another process over the cache pushed and recorded as it pulled", async () => {
  const inner = new InMemoryStore();
  const dir = await Deno.makeTempDir({ prefix: "sluice-marks-records-" });
  const writer = await processOver(inner, dir, 1);
  // The index exists already: a file of the writer's, pushed before.
  await writeCacheFile(dir, "notes/a.md", "a\n");
  await writer.markDirty({ relPath: "notes/a.md" });
  await writer.pushChanged();
  const racing = beforeIndexRead(inner);
  const sibling = await processOver(racing.store, dir, 2);
  await writeCacheFile(dir, PATH, "edited\n");
  await writer.markDirty({ relPath: PATH });
  // After the sibling's take-in, before its index read: the writer's push
  // lands, records the file and clears its mark; its user deletes the file.
  racing.arm(async () => {
    const r = await writer.pushChanged();
    assert.deepEqual(r.uploaded, [PATH]);
    assert.ok(writer.state.synced(PATH));
    await Deno.remove(`${dir}/${PATH}`);
  });
  const pulled = await sibling.pullChanged();
  assert.deepEqual(pulled.fetched, []);
  assert.equal(await Deno.stat(`${dir}/${PATH}`).then(() => true, () => false), false);
  // The deletion stands for the writer's next pull too.
  await writer.pullChanged();
  assert.equal(await Deno.stat(`${dir}/${PATH}`).then(() => true, () => false), false);
  await Deno.remove(dir, { recursive: true });
});
