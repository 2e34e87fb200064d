/**
 * A push whose write met another writer's uncommitted object with the same
 * bytes ("identical") commits that object as its own; when the object is
 * deleted before the commit (its writer's run refused and erased), nothing
 * is published: the push must say so and keep the file, never record it as
 * synced (the next pull would take the missing entry for a remote deletion).
 */
import assert from "node:assert/strict";
import { LOST_REASON } from "./vanished_record.ts";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import type { ProgressEvent } from "../events.ts";
import { META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import { readIndex, updateIndex } from "../transfer/remote_index.ts";
import { clone, isIndexKey, pastDanglingGrace, put, quick, read } from "./clone_kit.ts";

const P = "notes/same.txt";

/** `store`, running `fn` once, before or after the first index write through it. */
function atFirstIndexWrite(
  store: InMemoryStore,
  when: "before" | "after",
  fn: () => Promise<void>,
): InMemoryStore {
  let armed = true;
  const once = async (key: string) => {
    if (!armed || !isIndexKey(key)) return;
    armed = false;
    await fn();
  };
  return hookedStore(store, when === "before" ? { before: once } : { after: once });
}

Deno.test("equal bytes erased before a commit whose first index write was refused: not published by that commit, written again at once as this push's own", async () => {
  const store = new InMemoryStore();
  const b = await clone(store, "b");
  await put(b, "notes/other.txt", "x");
  await b.pushChanged();
  await put(b, P, "same");
  await b.preparePush(); // b's object is in the store, never committed
  const c = await clone(store, "c");
  await c.pullChanged();
  const a = await clone(
    atFirstIndexWrite(store, "before", async () => {
      await store.delete(P); // b's upload erased (its run refused)
      // A peer commits first: a's index write is refused, a commits in a second round.
      await put(c, "notes/peer.txt", "p");
      await c.pushChanged();
    }),
    "a",
  );
  await put(a, P, "same");
  const warnings: string[] = [];
  a.events.on("warning", (w) => void warnings.push(w.code));
  const ra = await a.pushChanged();
  assert.ok(!ra.identical.includes(P), "not reported as found in place");
  assert.deepEqual(ra.uploaded, [P], "written again at once, as a's own object");
  assert.deepEqual(ra.skipped, []);
  assert.deepEqual(warnings, [], "nothing is left to warn of");
  await a.pullChanged();
  assert.equal(await read(a, P), "same", "a's file is still here after its next pull");
  await c.pullChanged();
  assert.equal(await read(c, P), "same", "and a peer has it");
  assert.deepEqual((await a.pushChanged()).uploaded, [], "nothing left dirty");
});

/**
 * `store`, whose first `times` HEADs of `path` (a commit's look at bytes it
 * found in place) each come just after that object was deleted (its
 * writer's erasure).
 */
function erasedAtLook(store: InMemoryStore, path: string, times: number): () => number {
  const head = store.head.bind(store);
  let seen = 0;
  store.head = async (key, o) => {
    if (key === path && seen < times) {
      seen++;
      await store.delete(path);
    }
    return await head(key, o);
  };
  return () => seen;
}

Deno.test("equal bytes found in place and erased again in the second pass: left dirty, warned of once, published by the next push", async () => {
  const store = new InMemoryStore();
  const upload = () => store.put(P, new TextEncoder().encode("same"), { kind: "create" });
  await upload(); // another writer's upload, never committed
  let puts = 0;
  const a = await clone(
    hookedStore(store, {
      // The second pass meets another such upload, which is erased too.
      before: async (key) => void (key === P && ++puts === 2 && await upload()),
    }),
    "a",
  );
  const looks = erasedAtLook(store, P, 2);
  await put(a, P, "same");
  const warnings: string[] = [];
  a.events.on("warning", (w) => void warnings.push(w.code));
  const ra = await a.pushChanged();
  assert.equal(puts, 2, "one second pass, no more");
  assert.equal(looks(), 2);
  assert.deepEqual(ra.uploaded, []);
  assert.deepEqual(ra.identical, []);
  assert.deepEqual(ra.skipped.filter((s) => s.keepDirty).map((s) => s.path), [P]);
  assert.deepEqual(warnings, ["unpublished_before_commit"], "warned of once");
  assert.deepEqual((await a.pushChanged()).uploaded, [P]);
  assert.equal(store.peekText(P), "same");
});

for (const v2 of [false, true]) {
  Deno.test(`${v2 ? "v2" : "v1"}: a latest marker naming a version whose files were deleted before the commit is held back with them, then published with them by the second pass`, async () => {
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
    let filePuts = 0;
    const c = await clone(store, "c");
    const between: string[] = [];
    const a = await clone(
      hookedStore(store, {
        before: async (key) => {
          // After a's write met b's bytes, before a's commit.
          if (armed && key === MARKER) {
            armed = false;
            await store.delete(FILE); // that upload deleted before a's commit
          }
          // a's second pass writes the file again: what does a reader see
          // after the first pass's commit?
          if (key === FILE && ++filePuts === 2) {
            await c.pullChanged();
            if (c.cache.exists(MARKER)) between.push(MARKER);
            if (c.cache.exists(FILE)) between.push(FILE);
          }
        },
      }),
      "a",
    );
    await put(a, FILE, "same output");
    await put(a, MARKER, "1");
    const told: string[] = [];
    a.events.on("warning", (w) => void told.push(w.code));
    const ra = await a.pushChanged();
    assert.equal(filePuts, 2, "a second pass wrote the file again");
    assert.deepEqual(
      between,
      [],
      "the first commit published neither, marker held back with its files",
    );
    assert.deepEqual([...ra.uploaded, ...ra.identical].sort(), [FILE, MARKER]);
    assert.deepEqual(ra.skipped, []);
    assert.deepEqual(told, []);
    await c.pullChanged();
    assert.equal(await read(c, MARKER), "1");
    assert.equal(await read(c, FILE), "same output");
  });
}

Deno.test("a version another writer uploaded and never committed is waited on, its latest marker held back with it: no marker names files the index does not list", async () => {
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
  const r = await b.pushChanged();
  assert.ok(warnings.includes("push_waiting_uncommitted"));
  assert.deepEqual(r.skipped.map((s) => s.path).sort(), [FILE, MARKER]);
  assert.ok(b.cache.exists(MARKER), "kept here, dirty, with its version");
  assert.deepEqual(b.state.dirtyPaths().sort(), [FILE, MARKER]);
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(c.cache.exists(MARKER), false, "no marker names files the index does not list");
});

for (const lookAgain of [true, false]) {
  Deno.test(
    lookAgain
      ? "equal bytes deleted just after the commit that named them: seen by the look after the commit, put back and named again by it"
      : "equal bytes deleted after the commit's look, with no put-back by their eraser: the store loses the acknowledged file, and its writer keeps it only as a conflict (why the erasure looks too)",
    async () => {
      const store = new InMemoryStore();
      const b = await clone(store, "b");
      await put(b, P, "same");
      await b.preparePush(); // b's upload, never committed (its run is refused)
      const a = await clone(
        // a's commit checked the object, then its index write landed; b's
        // erasure, which read the index before it, deletes the object now.
        atFirstIndexWrite(store, "after", async () => {
          if (lookAgain) await store.delete(P);
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
        await pastDanglingGrace(c);
        await c.pullChanged(); // meets the entry with nothing behind it and removes it
        const r = await a.pullChanged();
        assert.equal(store.peek(P), undefined, "the store lost a's acknowledged file");
        assert.deepEqual(r.conflicts, [P], "a keeps the last copy, as a conflict");
        assert.equal(a.conflicts()[0].reason, LOST_REASON);
        return;
      }
      assert.deepEqual(ra.identical, [P], "published");
      assert.deepEqual(ra.skipped, []);
      const named = (await readIndex(store, quick.retry))!.entries[P];
      assert.equal(named.v, (await store.head(P))?.version, "put back by the commit, and named");
      const c = await clone(store, "c");
      await c.pullChanged();
      await a.pullChanged();
      assert.equal(await read(a, P), "same", "a's file is still here after the pulls");
      assert.equal(await read(c, P), "same", "and a peer has it");
    },
  );
}

Deno.test("beside old clients (every create checked), equal bytes erased before the commit are written again, not a conflict", async () => {
  const P = "data/shell/m1/out/1/raw"; // a data version file: written create-only
  const MARKER = "data/shell/m1/out/latest";
  const store = new InMemoryStore();
  // An upload with no writer id (taken as it is, not written over), never committed.
  await store.put(P, new TextEncoder().encode("same"), { kind: "create" });
  let armed = true;
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        // After a's write met those bytes, before its commit looks at them.
        if (armed && key === MARKER) {
          armed = false;
          await store.delete(P); // that upload erased
        }
      },
    }),
    "a",
  );
  await put(a, P, "same");
  await put(a, MARKER, "1");
  const ra = await a.pushChanged({ checkCreates: true });
  assert.deepEqual(ra.conflicts, [], "no conflict: nobody's change was replaced");
  assert.deepEqual(ra.overwritten, []);
  assert.deepEqual(
    [...ra.uploaded, ...ra.identical].sort(),
    [P, MARKER],
    "published, with the marker",
  );
  assert.ok(ra.uploaded.includes(P), "the file written again at once");
  assert.deepEqual(a.conflicts(), []);
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, P), "same");
  assert.equal(await read(c, MARKER), "1");
});

Deno.test("a push that fails on another file still warns of the found-in-place file it left unpublished", async () => {
  const store = new InMemoryStore();
  await store.put(P, new TextEncoder().encode("same"), { kind: "create" }); // another writer's upload
  const a = await clone(store, "a");
  erasedAtLook(store, P, 1); // erased before a's commit looks at it
  await put(a, P, "same");
  await put(a, "notes/bad.txt", "bad");
  store.failNext("put", 5, undefined, { match: (k) => k === "notes/bad.txt" });
  const warnings: string[] = [];
  a.events.on("warning", (w) => void warnings.push(w.code));
  await assert.rejects(a.pushChanged());
  assert.ok(warnings.includes("unpublished_before_commit"), warnings.join(", "));
  assert.ok(a.state.dirtyPaths().includes(P), "kept dirty");
});

Deno.test("equal bytes deleted after the commit, and the path's deletion committed too before the commit's put-back: a conflict, the deletion stands", async () => {
  const store = new InMemoryStore();
  await store.put(P, new TextEncoder().encode("same"), { kind: "create" }); // another writer's upload
  const a = await clone(
    atFirstIndexWrite(store, "after", async () => {
      // After a's commit named it: deleted, and the deletion committed.
      await store.delete(P);
      await updateIndex(store, { set: {}, remove: [P] }, quick.retry);
    }),
    "a",
  );
  await put(a, P, "same");
  const ra = await a.pushChanged();
  assert.deepEqual(ra.conflicts, [P], "a conflict with the deletion");
  assert.equal((await readIndex(store, quick.retry))?.entries[P], undefined, "the deletion stands");
  assert.equal(await store.head(P), null, "no object of a's left holding the path");
  assert.equal(await read(a, P), "same", "a's copy is kept");
});

Deno.test("equal bytes deleted after the commit and put back by someone else first: the commit names that object", async () => {
  const store = new InMemoryStore();
  await store.put(P, new TextEncoder().encode("same"), { kind: "create" }); // another writer's upload
  let stage = 0;
  let puts = 0;
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        if (key === P) puts++;
        // a's put-back meets the bytes put back by their writer's erasure.
        if (stage === 1 && key === P) {
          stage = 2;
          await store.put(P, new TextEncoder().encode("same"), { kind: "create" });
        }
      },
      after: async (key) => {
        if (stage === 0 && isIndexKey(key)) {
          stage = 1;
          await store.delete(P); // deleted after a's commit named it
        }
      },
    }),
    "a",
  );
  await put(a, P, "same");
  const ra = await a.pushChanged();
  assert.equal(stage, 2);
  assert.equal(puts, 2, "found in place, then the put-back: no second pass");
  assert.deepEqual(ra.identical, [P]);
  assert.deepEqual(ra.skipped, []);
  assert.equal((await readIndex(store, quick.retry))!.entries[P].v, (await store.head(P))!.version);
});

Deno.test("a data version lost to another writer: its sibling this push uploaded is never named, even when that upload's deletion reports a failure after landing", async () => {
  const store = new InMemoryStore();
  const RAW = "data/shell/m1/out/1/raw";
  const META = "data/shell/m1/out/1/metadata.yaml";
  // Another writer's upload of version 1, other bytes, not committed yet.
  await store.put(RAW, new TextEncoder().encode("theirs"), { kind: "create" });
  const a = await clone(store, "a");
  await put(a, META, "version: 1\n");
  await put(a, RAW, "mine");
  // a's deletion of its own sibling lands, and its answer is lost.
  store.failNext("delete", 5, undefined, { afterEffect: true, match: (k) => k === META });
  await assert.rejects(a.pushChanged());
  const named = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(!Object.hasOwn(named, META), "the sibling of the lost version is not named");
  for (const [p, e] of Object.entries(named)) {
    assert.equal((await store.head(p))?.version, e.v, `${p}: named and held`);
  }
});

Deno.test("the second pass's progress counts on from the first's: files and bytes never go back", async () => {
  const store = new InMemoryStore();
  await store.put(P, new TextEncoder().encode("same"), { kind: "create" }); // never committed
  const a = await clone(store, "a");
  erasedAtLook(store, P, 1); // erased before a's commit: a writes it again
  await put(a, P, "same");
  await put(a, "notes/b.txt", "bb");
  const seen: ProgressEvent[] = [];
  a.events.on("progress", (p) => void seen.push(p));
  const ra = await a.pushChanged();
  assert.deepEqual(ra.uploaded.sort(), ["notes/b.txt", P].sort(), "written again in a second pass");
  assert.ok(seen.length > 0);
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i].filesDone >= seen[i - 1].filesDone, `files went back at event ${i}`);
    assert.ok(seen[i].bytesDone >= seen[i - 1].bytesDone, `bytes went back at event ${i}`);
    assert.ok(seen[i].filesTotal >= seen[i - 1].filesTotal, `the total went back at event ${i}`);
  }
  const last = seen[seen.length - 1];
  assert.deepEqual(
    { filesDone: last.filesDone, filesTotal: last.filesTotal },
    { filesDone: 3, filesTotal: 3 },
    "two files in the first pass, the one written again in the second",
  );
  assert.equal(last.bytesDone, last.bytesTotal);
});
