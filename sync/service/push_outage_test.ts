/**
 * A datastore that stops answering part way through a push: the push fails
 * at its first write that could not reach it (`unreachable`), as "Retries and
 * time to fail" in the README says, instead of sending each of its remaining
 * writes through every attempt against a store that is gone (a time to fail
 * that grew with the number of files). Nothing is lost: every file not
 * committed stays dirty, and the next push publishes them all.
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

Deno.test("a store gone part way through a push: it fails at the first unreachable write, not after trying every file; the next push publishes them all", async () => {
  const base = new InMemoryStore();
  let puts = 0;
  let afterOutage = 0;
  const store = hookedStore(base, {
    before: () => {
      puts++;
      // The store goes away as the push's eleventh write starts.
      if (puts === 11) base.unreachable = true;
      if (base.unreachable) afterOutage++;
    },
  });
  const concurrency = 4;
  const a = await clone(store, "a", undefined, { concurrency });
  const files = Array.from({ length: 100 }, (_, i) => `notes/f${String(i).padStart(3, "0")}.txt`);
  for (const f of files) await writeAndMark(a, f, `${f} v1\n`);

  await assert.rejects(
    a.pushChanged(),
    (e: Error & { code?: string }) => e.code === "unreachable",
  );
  // The writes already under way when the store went away may fail too; no
  // write starts after the first failed one.
  assert.ok(
    afterOutage <= concurrency,
    `${afterOutage} writes were sent to a store already unreachable (at most ${concurrency} expected)`,
  );
  // Nothing is lost: every file stays dirty, none is in the index.
  assert.deepEqual(a.state.dirtyPaths().sort(), files);

  base.heal();
  const r = await a.pushChanged();
  assert.equal(r.uploaded.length + r.identical.length, files.length);
  assert.deepEqual(a.state.dirtyPaths(), []);
  for (const f of files) assert.equal(base.peekText(f), `${f} v1\n`);
});

Deno.test("a write out of reach in one marked directory: the writes of another marked directory not tried stay marked, and the next push publishes them", async () => {
  const base = new InMemoryStore();
  let failed: string | undefined;
  const store = hookedStore(base, {
    before: (k) => {
      // The store is out of reach for the push's first write alone (an
      // outage that ends before the commit).
      if (failed === undefined && k.startsWith("outputs/")) {
        failed = k;
        throw new UnreachableError(`put ${k}`);
      }
    },
  });
  const a = await clone(store, "a", undefined, { concurrency: 1 });
  const files = ["outputs/a/f1.txt", "outputs/a/f2.txt", "outputs/b/f1.txt", "outputs/b/f2.txt"];
  await a.markDirty({ relPath: "outputs/a" });
  await a.markDirty({ relPath: "outputs/b" });
  for (const f of files) await writeCacheFile(a.cacheDir, f, `${f} v1\n`);

  await assert.rejects(
    a.pushChanged(),
    (e: Error & { code?: string }) => e.code === "unreachable",
  );
  assert.ok(failed !== undefined);

  const r = await a.pushChanged();
  assert.deepEqual(r.skipped, []);
  for (const f of files) assert.equal(base.peekText(f), `${f} v1\n`, `${f} never published`);
  assert.deepEqual(a.state.dirtyPaths(), []);
});
