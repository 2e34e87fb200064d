import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../../sync/ports.ts";
import type { IndexEntry } from "../../sync/transfer/bucket_layout.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { holdsOtherShape, ShapeWatch, type ShapeWriter } from "./shapes.ts";

/** A writer that synced `synced` (path → version). */
function writer(clone: number, synced: Record<string, string>): ShapeWriter {
  return {
    clone,
    state: {
      synced: (p: string) =>
        synced[p] ? { hash: "h", version: synced[p], size: 1, mtimeMs: 0 } : undefined,
      syncedPaths: () => Object.keys(synced),
    } as unknown as ShapeWriter["state"],
  };
}

const entry = (v: string): IndexEntry => ({ v, h: "h", s: 1 } as IndexEntry);

Deno.test("I15: a writer that left the shape it had synced beside the one it wrote is a violation; one that never saw it is not", async () => {
  const shapes = new ShapeWatch();
  let who: ShapeWriter | undefined;
  const store = shapes.watch(new InMemoryStore(), () => who, () => 7);
  const enc = (t: string) => new TextEncoder().encode(t);
  const part = await store.put("n.md/part.md", enc("part"), PutModes.create);
  // c1 had synced the directory's file, and wrote the file of its name.
  who = writer(1, { "n.md/part.md": part.version });
  const file = await store.put("n.md", enc("file"), PutModes.create);
  const entries = { "n.md": entry(file.version), "n.md/part.md": entry(part.version) };
  const found = shapes.checkClashes(entries, [[], []], () => false);
  assert.equal(found.violations.length, 1);
  assert.match(
    found.violations[0].message,
    /c1 wrote n\.md \(op #7\) while it had synced n\.md\/part\.md/,
  );
  assert.deepEqual([...found.clashed].sort(), ["n.md", "n.md/part.md"]);
  // An old client's write spares it; a conflict open there does not (the
  // write had to wait for the deletion of what it replaces).
  const conflict = [{ path: "n.md" }] as never;
  assert.equal(shapes.checkClashes(entries, [[], conflict], () => false).violations.length, 1);
  assert.equal(shapes.checkClashes(entries, [[], []], (p) => p === "n.md").violations.length, 0);
  // Another version under the name written since (not there when c1 wrote): c1 left nothing.
  const other = { ...entries, "n.md/part.md": entry("other") };
  assert.equal(shapes.checkClashes(other, [[], []], () => false).violations.length, 0);
  // A newer version of the path c1 had synced, put before c1's write (a
  // peer's edit its deletion met): c1's write stands beside it, a violation.
  const watch = new ShapeWatch();
  who = undefined;
  const s1 = watch.watch(new InMemoryStore(), () => who, () => 9);
  const v1 = await s1.put("k.md", enc("v1"), PutModes.create);
  const v2 = await s1.put("k.md", enc("v2, a peer's edit"), PutModes.overwrite);
  who = writer(3, { "k.md": v1.version });
  const x = await s1.put("k.md/x", enc("under"), PutModes.create);
  const edited = { "k.md": entry(v2.version), "k.md/x": entry(x.version) };
  const met = watch.checkClashes(edited, [[{ path: "k.md" }] as never], () => false);
  assert.equal(met.violations.length, 1);
  assert.match(
    met.violations[0].message,
    /whose version named now \(v\d+\) stood before that write/,
  );
  // Two writers that never saw each other's shape: spared, though clashed.
  const blind = new ShapeWatch();
  who = writer(2, {});
  const s2 = blind.watch(new InMemoryStore(), () => who, () => 8);
  const a = await s2.put("m.md", enc("a"), PutModes.create);
  const b = await s2.put("m.md/x", enc("b"), PutModes.create);
  const both = { "m.md": entry(a.version), "m.md/x": entry(b.version) };
  const r = blind.checkClashes(both, [[]], () => false);
  assert.equal(r.violations.length, 0);
  assert.equal(r.clashed.size, 2);
});

Deno.test("I15 at a push's end: a synced file the push deleted before its write under that name, written again since with the same bytes (the same ETag), was not left beside the write", async () => {
  const enc = (t: string) => new TextEncoder().encode(t);
  /**
   * c0 replaces `n.md`, which it synced, by `n.md/part.md` on a store whose
   * versions are the bytes' ETags; then c1, which synced the file too,
   * writes its unchanged copy again (`again`: its push found the object
   * gone, c0's deletion not committed yet).
   */
  const replay = async (o: { writeFirst?: boolean; deleteFails?: boolean; again: boolean }) => {
    const shapes = new ShapeWatch();
    const inner = new InMemoryStore({ versionFromBytes: true });
    let who: ShapeWriter | undefined;
    const store = shapes.watch(inner, () => who, () => 4);
    shapes.head = (key) => inner.head(key);
    const file = await store.put("n.md", enc("file"), PutModes.create);
    who = writer(0, { "n.md": file.version });
    const from = shapes.puts;
    if (o.writeFirst) await store.put("n.md/part.md", enc("part"), PutModes.create);
    if (o.deleteFails) inner.failNext("delete", 1);
    await store.delete("n.md").catch(() => {});
    if (!o.writeFirst) await store.put("n.md/part.md", enc("part"), PutModes.create);
    if (o.again) {
      who = writer(1, { "n.md": file.version });
      const put = await store.put("n.md", enc("file"), PutModes.overwrite);
      assert.equal(put.version, file.version);
    }
    return await shapes.checkPush(0, from, 4);
  };
  // c0 deleted the file before its write: what stands at the version it
  // synced is c1's copy, written after.
  assert.deepEqual(await replay({ again: true }), []);
  // c0 wrote before its deletion: the two shapes stood side by side, whatever came after.
  assert.equal((await replay({ writeFirst: true, again: true })).length, 1);
  // c0's deletion failed and the synced object still stands, written over
  // by c1 or not: c0's write should have waited.
  assert.equal((await replay({ deleteFails: true, again: false })).length, 1);
  assert.equal((await replay({ deleteFails: true, again: true })).length, 1);
  // Nothing written again: nothing stands beside the write.
  assert.deepEqual(await replay({ again: false }), []);
});

Deno.test("I15 at a push's end: the same bytes written again after a deletion spare the push only where the deletion was its own and another writer wrote them again", async () => {
  const enc = (t: string) => new TextEncoder().encode(t);
  /**
   * c0 replaces `n.md`, which it synced, by `n.md/part.md` on a store whose
   * versions are the bytes' ETags. `deleter` deletes the file first (c0's
   * push, or another clone's), then `again` writes the same bytes back at
   * the version c0 synced, before c0's write under the name.
   */
  const replay = async (o: { deleter: number; again: number }) => {
    const shapes = new ShapeWatch();
    const inner = new InMemoryStore({ versionFromBytes: true });
    let who: ShapeWriter | undefined;
    const store = shapes.watch(inner, () => who, () => 4);
    shapes.head = (key) => inner.head(key);
    const file = await store.put("n.md", enc("file"), PutModes.create);
    const synced = { "n.md": file.version };
    const from = shapes.puts;
    who = writer(o.deleter, synced);
    await store.delete("n.md");
    who = writer(o.again, synced);
    const put = await store.put("n.md", enc("file"), PutModes.create);
    assert.equal(put.version, file.version);
    who = writer(0, synced);
    await store.put("n.md/part.md", enc("part"), PutModes.create);
    return await shapes.checkPush(0, from, 4);
  };
  // c0's own deletion, a peer's write of the same bytes since (seed 217400231): spared.
  assert.deepEqual(await replay({ deleter: 0, again: 1 }), []);
  // c0 itself wrote the file back after its deletion, then its write
  // under the name: both shapes stand by its own hand.
  assert.equal((await replay({ deleter: 0, again: 0 })).length, 1);
  // c0 never deleted the file (another clone did): its write went ahead
  // with no deletion of its own made first.
  assert.equal((await replay({ deleter: 2, again: 1 })).length, 1);
});

Deno.test("I15: a path the final pull left out as blocked is a violation only with nothing of the clone's own in the way", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const shapes = new ShapeWatch();
    const state = { synced: (p: string) => p === "s.md" ? { hash: "x" } : undefined } as never;
    // A file never synced (or changed here) in the way: its own.
    await Deno.writeTextFile(`${dir}/n.md`, "mine");
    assert.deepEqual(await shapes.checkBlocked(0, dir, state, [], ["n.md/part.md"], new Set()), []);
    // A clash on the datastore: told by the clash check.
    await Deno.mkdir(`${dir}/d.md`);
    await Deno.writeTextFile(`${dir}/d.md/part.md`, "synced?");
    assert.deepEqual(await shapes.checkBlocked(0, dir, state, [], ["d.md"], new Set(["d.md"])), []);
    // An empty directory in the way, nothing of its own: the pull should have settled it.
    await Deno.mkdir(`${dir}/e.md`);
    const v = await shapes.checkBlocked(0, dir, state, [], ["e.md"], new Set());
    assert.equal(v.length, 1);
    assert.equal(v[0].invariant, "I15");
    // A conflict open there spares it.
    const open = [{ path: "e.md" }] as never;
    assert.deepEqual(await shapes.checkBlocked(0, dir, state, open, ["e.md"], new Set()), []);
    // A synced, unchanged file in the way that the pull kept to publish again (its index
    // entry dropped by another client's rewrite): its own.
    await Deno.mkdir(`${dir}/s.md`);
    await Deno.writeTextFile(`${dir}/s.md/part.md`, "x");
    const xHash = await sha256Hex(new TextEncoder().encode("x"));
    const syncedPart = {
      synced: (p: string) => p === "s.md/part.md" ? { hash: xHash } : undefined,
    } as never;
    assert.equal(
      (await shapes.checkBlocked(0, dir, syncedPart, [], ["s.md"], new Set())).length,
      1,
    );
    assert.deepEqual(
      await shapes.checkBlocked(
        0,
        dir,
        syncedPart,
        [],
        ["s.md"],
        new Set(),
        new Set(["s.md/part.md"]),
      ),
      [],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("holdsOtherShape: a file above the path or a path under it, held as an object or named by the index alone", () => {
  // The store holds the file above, or a file under a directory of the name.
  assert.equal(holdsOtherShape("a/b", ["a"], []), true);
  assert.equal(holdsOtherShape("a", ["a/b"], []), true);
  // The index names a file above it whose object another tool deleted: still the other shape.
  assert.equal(holdsOtherShape("notes/n.md/part.md", [], ["notes/n.md"]), true);
  // Siblings and names that only share a prefix are not.
  assert.equal(holdsOtherShape("a/b", ["a/c", "ab", "a/bc"], ["a/b", "a.md"]), false);
});
