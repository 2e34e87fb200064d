/**
 * A path the last pull recorded as blocked (`blocked.json`) stays recorded
 * while the index names it and this cache's own file is still in its way,
 * even when a later pull leaves it out for another reason: another writer's
 * upload there not committed yet, or a pull that defers it (swamp's
 * `metadataOnly`). Otherwise the next push would publish the file in its way
 * beside it, and the datastore would hold a file and files under a
 * directory of one name, which no cache can pull whole.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, put } from "./clone_kit.ts";

const noRetry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const raw = (p: string) => p.endsWith("/raw");

/** Both shapes of one name in the remote index: a file `p` and a path under `p/`. */
async function clashes(store: InMemoryStore): Promise<string[]> {
  const names = Object.keys((await readIndex(store, noRetry))?.entries ?? {});
  return names.filter((p) => names.some((q) => q.startsWith(`${p}/`)));
}

/** alice published `n/c/f`; bob holds a file `n/c` of his own, in its way. */
async function fileInTheWay() {
  const store = new InMemoryStore();
  const alice = await clone(store, "alice");
  await put(alice, "n/c/f", "alice v1");
  await alice.pushChanged();
  const bob = await clone(store, "bob");
  await put(bob, "n/c", "bob's own file");
  return { store, alice, bob };
}

Deno.test("a blocked path whose object another writer is replacing (uncommitted) stays recorded, and the file in its way is still held back", async () => {
  const { store, bob } = await fileInTheWay();
  assert.deepEqual((await bob.pullChanged()).blocked, ["n/c/f"]);
  assert.deepEqual((await bob.pushChanged()).uploaded, [], "held back");
  // alice's next push of n/c/f is on its way: its upload is there, its index update not yet.
  await store.put("n/c/f", new TextEncoder().encode("alice v2"), { kind: "overwrite" });
  const again = await bob.pullChanged();
  assert.deepEqual(again.uncommitted, ["n/c/f"]);
  assert.deepEqual(bob.state.blocked.paths(), ["n/c/f"], "still in the way, still recorded");
  const pushed = await bob.pushChanged();
  assert.deepEqual(pushed.uploaded, []);
  assert.ok(pushed.skipped.some((s) => s.path === "n/c" && s.keepDirty));
  assert.deepEqual(await clashes(store), [], "no file beside the directory's files");
});

Deno.test("a path never seen blocked, left out as uncommitted with a file of this cache in its way: recorded, and that file held back", async () => {
  const { store, bob } = await fileInTheWay();
  await store.put("n/c/f", new TextEncoder().encode("alice v2"), { kind: "overwrite" });
  const pulled = await bob.pullChanged();
  assert.deepEqual(pulled.uncommitted, ["n/c/f"]);
  assert.deepEqual(bob.state.blocked.paths(), ["n/c/f"]);
  assert.deepEqual((await bob.pushChanged()).uploaded, []);
  assert.deepEqual(await clashes(store), []);
});

/** alice published a run's raw file `data/m/1/raw`; bob holds a file `data/m/1` of his own, in its way. */
async function rawInTheWay() {
  const store = new InMemoryStore();
  const alice = await clone(store, "alice");
  await put(alice, "data/m/1/raw", "alice raw");
  await alice.pushChanged();
  const bob = await clone(store, "bob");
  await put(bob, "data/m/1", "bob's own file", false);
  return { store, bob };
}

Deno.test("a deferring pull (lazy hydration) does not defer a path a file of this cache is in the way of: it is told of and recorded, and the file held back", async () => {
  const { store, bob } = await rawInTheWay();
  const warnings: string[] = [];
  bob.events.on("warning", (w) => void warnings.push(w.code));
  const pulled = await bob.pullChanged({ defer: raw });
  assert.deepEqual(pulled.deferred, []);
  assert.deepEqual(pulled.blocked, ["data/m/1/raw"]);
  assert.ok(warnings.includes("path_blocked"));
  assert.deepEqual(bob.state.blocked.paths(), ["data/m/1/raw"]);
  await bob.markDirty();
  assert.deepEqual((await bob.pushChanged()).uploaded, []);
  assert.deepEqual(await clashes(store), []);
});

Deno.test("a deferring pull keeps what an earlier whole pull recorded as blocked", async () => {
  const { store, bob } = await rawInTheWay();
  await bob.pullChanged();
  assert.deepEqual(bob.state.blocked.paths(), ["data/m/1/raw"]);
  await bob.pullChanged({ defer: raw });
  assert.deepEqual(bob.state.blocked.paths(), ["data/m/1/raw"]);
  await bob.markDirty();
  assert.deepEqual((await bob.pushChanged()).uploaded, []);
  assert.deepEqual(await clashes(store), []);
});

Deno.test("a recorded path no longer in the way once the file here is moved: the next pull fetches it and clears the record", async () => {
  const { bob } = await fileInTheWay();
  await bob.pullChanged();
  await Deno.rename(`${bob.cacheDir}/n/c`, `${bob.cacheDir}/n/c.mine`);
  const pulled = await bob.pullChanged();
  assert.deepEqual(pulled.fetched, ["n/c/f"]);
  assert.deepEqual(bob.state.blocked.paths(), []);
});
