/**
 * A push's deletions (`push_delete_run.ts`) against a datastore that stops
 * answering part way: the push fails at its first deletion that could not
 * reach it (`unreachable`), the rest not tried and left dirty, and the next
 * push deletes them all.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore, writeAndMark } from "../../packages/testing/mod.ts";
import { clone } from "./clone_kit.ts";

Deno.test("a store gone part way through a push's deletions: it fails at the first unreachable one, not after trying each; the next push deletes the rest", async () => {
  const base = new InMemoryStore();
  let deletes = 0;
  let afterOutage = 0;
  const store = hookedStore(base, {
    beforeDelete: () => {
      deletes++;
      // The store goes away as the push's third deletion starts.
      if (deletes === 3) base.unreachable = true;
      if (base.unreachable) afterOutage++;
    },
  });
  const a = await clone(store, "a");
  const files = Array.from({ length: 30 }, (_, i) => `notes/f${String(i).padStart(3, "0")}.txt`);
  for (const f of files) await writeAndMark(a, f, `${f} v1\n`);
  await a.pushChanged();
  for (const f of files) await Deno.remove(`${a.cacheDir}/${f}`);
  for (const f of files) await a.markDirty({ relPath: f });

  await assert.rejects(
    a.pushChanged(),
    (e: Error & { code?: string }) => e.code === "unreachable",
  );
  assert.equal(afterOutage, 1, `${afterOutage} deletions were sent to a store already unreachable`);

  base.heal();
  await a.pushChanged();
  for (const f of files) assert.equal(base.peekText(f), undefined, f);
  assert.deepEqual(a.state.dirtyPaths(), []);
});
