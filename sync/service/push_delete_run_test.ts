/**
 * A push's deletions (`push_delete_run.ts`) against a datastore that stops
 * answering part way: the push fails at its first deletion that could not
 * reach it (`unreachable`), the rest not tried and left dirty, and the next
 * push deletes them all.
 */
import assert from "node:assert/strict";
import {
  hookedStore,
  InMemoryStore,
  writeAndMark,
  writeCacheFile,
} from "../../packages/testing/mod.ts";
import { clone } from "./clone_kit.ts";
import { UnreachableError } from "../errors.ts";

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

Deno.test("a store gone at the first of the markers a push's version deletions took along: the markers not tried stay dirty, and the next push deletes them", async () => {
  const base = new InMemoryStore();
  const models = ["m1", "m2", "m3"].map((m) => `data/shell/cmd/${m}/out`);
  let failAt: string | undefined;
  const store = hookedStore(base, {
    beforeDelete: (k) => {
      // The store is out of reach for the push's first marker deletion
      // alone (an outage that ends before the commit).
      if (failAt === undefined && k.endsWith("/latest")) {
        failAt = k;
        throw new UnreachableError(`delete ${k}`);
      }
    },
  });
  const a = await clone(store, "a");
  for (const dir of models) {
    await a.markDirty({ relPath: dir });
    await writeCacheFile(a.cacheDir, `${dir}/1/metadata.yaml`, "version: 1\n");
    await writeCacheFile(a.cacheDir, `${dir}/1/raw`, "v1");
    await writeCacheFile(a.cacheDir, `${dir}/latest`, "1");
  }
  await a.pushChanged();
  // Each model's only version deleted, its files marked, its data directory
  // removed with its marker.
  for (const dir of models) {
    await a.markDirty({ relPath: `${dir}/1/raw` });
    await a.markDirty({ relPath: `${dir}/1/metadata.yaml` });
    await Deno.remove(`${a.cacheDir}/${dir}`, { recursive: true });
  }

  await assert.rejects(
    a.pushChanged(),
    (e: Error & { code?: string }) => e.code === "unreachable",
  );
  assert.ok(failAt !== undefined, "a marker's deletion was tried");

  base.heal();
  await a.pushChanged();
  for (const dir of models) {
    assert.equal(base.peekText(`${dir}/1/raw`), undefined, dir);
    assert.equal(base.peekText(`${dir}/latest`), undefined, `${dir}/latest left on the datastore`);
  }
  assert.deepEqual(a.state.dirtyPaths(), []);
});

Deno.test("a store out of reach at the first of the deletions that clear the way for files replaced here by directories: a deletion not tried holds back the writes under it too, so the datastore never holds a file and files under a directory of one name", async () => {
  const base = new InMemoryStore();
  let armed = false;
  let failAt: string | undefined;
  const store = hookedStore(base, {
    beforeDelete: (k) => {
      // The store is out of reach for the push's first deletion alone (an
      // outage that ends before the writes).
      if (armed && failAt === undefined) {
        failAt = k;
        throw new UnreachableError(`delete ${k}`);
      }
    },
  });
  const a = await clone(store, "a");
  const shapes = ["s1", "s2", "s3"];
  for (const s of shapes) await writeAndMark(a, s, "a file");
  await a.pushChanged();
  // Each synced file replaced here by a directory of its name, pushed by that name.
  for (const s of shapes) {
    await Deno.remove(`${a.cacheDir}/${s}`);
    await writeCacheFile(a.cacheDir, `${s}/part.txt`, "under a directory");
    await a.markDirty({ relPath: s });
  }
  armed = true;
  await assert.rejects(
    a.pushChanged(),
    (e: Error & { code?: string }) => e.code === "unreachable",
  );
  assert.ok(failAt !== undefined);
  for (const s of shapes) {
    assert.ok(
      base.keys(s).length <= 1,
      `the datastore holds both shapes of ${s}: ${base.keys(s).join(", ")}`,
    );
  }

  await a.pushChanged();
  for (const s of shapes) assert.deepEqual(base.keys(s), [`${s}/part.txt`]);
  assert.deepEqual(a.state.dirtyPaths(), []);
});
