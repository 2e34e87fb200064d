/**
 * A push whose write met another writer's uncommitted object with the same
 * bytes ("identical") commits that object as its own; when the object is
 * deleted before the commit (its writer's run refused and erased), nothing
 * is published: the push must say so and keep the file, never record it as
 * synced (the next pull would take the missing entry for a remote deletion).
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import { clone, put, read } from "./clone_kit.ts";

const P = "notes/same.txt";
const isIndexKey = (k: string) => k === ".datastore-index.json" || k.startsWith("_index/");

Deno.test("equal bytes erased before a commit whose first index write was refused: not reported published, the file kept", async () => {
  const store = new InMemoryStore();
  const b = await clone(store, "b");
  await put(b, "notes/other.txt", "x");
  await b.pushChanged();
  await put(b, P, "same");
  await b.preparePush(); // b's object is in the store, never committed
  const c = await clone(store, "c");
  await c.pullChanged();
  let armed = true;
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        if (armed && isIndexKey(key)) {
          armed = false;
          await store.delete(P); // b's upload erased (its run refused)
          // A peer commits first: a's index write is refused, a commits in a second round.
          await put(c, "notes/peer.txt", "p");
          await c.pushChanged();
        }
      },
    }),
    "a",
  );
  await put(a, P, "same");
  const ra = await a.pushChanged();
  assert.ok(!ra.identical.includes(P), "not reported as published");
  assert.deepEqual(ra.skipped.filter((s) => s.keepDirty).map((s) => s.path), [P]);
  await a.pullChanged();
  assert.equal(await read(a, P), "same", "a's file is still here after its next pull");
  // a's next push publishes it.
  assert.deepEqual((await a.pushChanged()).uploaded, [P]);
  assert.equal(store.peekText(P), "same");
});

for (const v2 of [false, true]) {
  Deno.test(`${v2 ? "v2" : "v1"}: a latest marker naming a version whose files were deleted before the commit is held back with them, then published with them`, async () => {
    const store = new InMemoryStore();
    if (v2) {
      const meta = { version: 2 as const, partitions: [], commitSeq: 0, raw: {} };
      await store.put(META_KEY, metaBody(meta), { kind: "create" });
    }
    const FILE = "data/shell/m1/out/1/raw";
    const MARKER = "data/shell/m1/out/latest";
    // An old client's upload of version 1 (no writer id: taken as it is, not
    // written over), never committed ...
    await store.put(FILE, new TextEncoder().encode("same output"), { kind: "create" });
    // ... and a's run, deterministic, wrote the same bytes and its marker.
    let armed = true;
    const a = await clone(
      hookedStore(store, {
        before: async (key) => {
          // After a's write met b's bytes, before a's commit.
          if (armed && key === MARKER) {
            armed = false;
            await store.delete(FILE); // that upload deleted before a's commit
          }
        },
      }),
      "a",
    );
    await put(a, FILE, "same output");
    await put(a, MARKER, "1");
    const told: string[] = [];
    a.events.on("warning", (w) => {
      if (w.code === "unpublished_before_commit") told.push(w.message);
    });
    const ra = await a.pushChanged();
    assert.equal(told.length, 1);
    assert.match(
      told[0],
      /data\/shell\/m1\/out\/latest, naming that version, was held back with them/,
    );
    const kept = ra.skipped.filter((s) => s.keepDirty).map((s) => s.path).sort();
    assert.deepEqual(kept, [FILE, MARKER], "neither published");
    assert.ok(!ra.uploaded.includes(MARKER) && !ra.identical.includes(FILE));
    assert.match(
      ra.skipped.find((s) => s.path === MARKER)!.reason,
      /^held back with the data version/,
    );
    // A reader sees no marker naming a version the index does not list.
    const c = await clone(store, "c");
    await c.pullChanged();
    assert.equal(c.cache.exists(MARKER), false, "the marker is not published before its files");
    assert.equal(c.cache.exists(FILE), false);
    // a's next push publishes both; the reader gets both.
    const again = await a.pushChanged();
    assert.deepEqual([...again.uploaded, ...again.identical].sort(), [FILE, MARKER]);
    assert.deepEqual(again.skipped, []);
    await c.pullChanged();
    assert.equal(await read(c, MARKER), "1");
    assert.equal(await read(c, FILE), "same output");
  });
}

Deno.test("a run that lost its version (version_exists) has its latest marker reset, so no later push publishes it naming the other writer's uncommitted files", async () => {
  const store = new InMemoryStore();
  const FILE = "data/shell/m1/out/1/raw";
  const MARKER = "data/shell/m1/out/latest";
  // a's version 1 is uploaded, its commit not made (its process crashed, say).
  const a = await clone(store, "a");
  await put(a, FILE, "a's output");
  await a.preparePush();
  const b = await clone(store, "b");
  await put(b, FILE, "b's output");
  await put(b, MARKER, "1");
  const warnings: string[] = [];
  b.events.on("warning", (w) => void warnings.push(w.code));
  await assert.rejects(b.pushChanged(), (e) => (e as { code?: string }).code === "version_exists");
  assert.equal(b.cache.exists(MARKER), false, "no version is left here: the marker is removed");
  assert.ok(warnings.includes("latest_reset"));
  await b.pushChanged();
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(c.cache.exists(MARKER), false, "no marker names files the index does not list");
});

for (const lookAgain of [true, false]) {
  Deno.test(
    lookAgain
      ? "equal bytes deleted just after the commit that named them: not reported published, the file kept, published by the next push"
      : "equal bytes deleted after the commit's look, with no put-back by their eraser: the acknowledged file is lost (why the erasure looks too)",
    async () => {
      const store = new InMemoryStore();
      const b = await clone(store, "b");
      await put(b, P, "same");
      await b.preparePush(); // b's upload, never committed (its run is refused)
      let armed = true;
      const a = await clone(
        hookedStore(store, {
          after: async (key) => {
            // a's commit checked the object, then its index write landed; b's
            // erasure, which read the index before it, deletes the object now.
            if (armed && isIndexKey(key)) {
              armed = false;
              if (lookAgain) await store.delete(P);
            }
          },
        }),
        "a",
      );
      await put(a, P, "same");
      const ra = await a.pushChanged();
      if (!lookAgain) {
        // The same deletion, made after a's look instead: nothing tells a.
        assert.deepEqual(ra.identical, [P]);
        await store.delete(P);
        const c = await clone(store, "c");
        await c.pullChanged(); // meets the entry with nothing behind it and removes it
        await a.pullChanged();
        assert.equal(a.cache.exists(P), false, "a's acknowledged file is gone everywhere");
        return;
      }
      assert.ok(!ra.identical.includes(P), "not reported as published");
      assert.deepEqual(ra.skipped.filter((s) => s.keepDirty).map((s) => s.path), [P]);
      const c = await clone(store, "c");
      await c.pullChanged();
      await a.pullChanged();
      assert.equal(await read(a, P), "same", "a's file is still here after the pulls");
      await a.pushChanged();
      await c.pullChanged();
      assert.equal(await read(c, P), "same", "published by a's next push");
    },
  );
}
