/**
 * A file this cache synced from another client's entry (an old client's,
 * which records no object version: `~…`) is edited and pushed like any
 * other: its write goes over the object the store holds when that is the
 * very copy this cache synced, never waiting on it as an uncommitted write.
 */
import assert from "node:assert/strict";
import { InMemoryStore, peerPush } from "../../packages/testing/mod.ts";
import { clone, put } from "./clone_kit.ts";

Deno.test("an edit of a file agreed by its bytes with an old client's entry is pushed, not left waiting", async () => {
  const store = new InMemoryStore();
  await peerPush(store, { "notes/a.txt": "old" });
  const b = await clone(store, "b");
  await put(b, "notes/a.txt", "old", false); // the same bytes, never synced here
  await b.pullChanged();
  assert.match(b.state.synced("notes/a.txt")?.version ?? "", /^~/, "synced at the entry's id");
  await put(b, "notes/a.txt", "new");
  const r = await b.pushChanged();
  assert.deepEqual([r.uploaded, r.conflicts, r.skipped], [["notes/a.txt"], [], []]);
  assert.equal(store.peekText("notes/a.txt"), "new");
  // A peer that changed it meanwhile is still a conflict.
  await put(b, "notes/a.txt", "newer");
  await peerPush(store, { "notes/a.txt": "the old client's edit" });
  assert.deepEqual((await b.pushChanged()).conflicts, ["notes/a.txt"]);
  assert.equal(store.peekText("notes/a.txt"), "the old client's edit");
});

Deno.test("a latest marker moved further here than an old client moved it is pushed over it", async () => {
  const D = "data/t/m/out";
  const store = new InMemoryStore();
  await peerPush(store, { [`${D}/1/raw`]: "one", [`${D}/latest`]: "1" });
  const b = await clone(store, "b");
  await b.pullChanged();
  await peerPush(store, { [`${D}/2/raw`]: "two", [`${D}/latest`]: "2" });
  await put(b, `${D}/3/raw`, "three");
  await put(b, `${D}/latest`, "3");
  assert.deepEqual((await b.pullChanged()).conflicts, []);
  const r = await b.pushChanged();
  assert.deepEqual([r.conflicts, r.skipped], [[], []]);
  assert.equal(store.peekText(`${D}/latest`), "3");
});
