/**
 * Two processes over one cache: a `pull --restore-deleted` of one never
 * takes back a file the other deleted and marked dirty (a deletion to push)
 * while it still runs, as it leaves its own marked deletions alone.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, processOver, put } from "./clone_kit.ts";

const PATH = "notes/gone.txt";

Deno.test("pull --restore-deleted leaves alone a deletion another running process over the cache marked to push", async () => {
  const store = new InMemoryStore();
  const peer = await clone(store, "peer");
  await put(peer, PATH, "to be deleted");
  await peer.pushChanged();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-two-" });
  const open = (pid: number) => processOver(store, cacheDir, pid);
  const main = await open(1);
  await main.pullChanged();
  const other = await open(2);
  // The other process deletes the synced file and marks the deletion to push.
  await Deno.remove(`${cacheDir}/${PATH}`);
  await other.markDirty({ relPath: PATH });
  // Meanwhile the user takes back files deleted by hand in the main process.
  const restored = await main.pullChanged({ restoreDeleted: true });
  assert.deepEqual(
    restored.fetched,
    [],
    "a deletion marked to push (by the other process) is not a file to take back",
  );
  // The other process's push deletes it.
  const pushed = await other.pushChanged();
  assert.deepEqual(pushed.deleted, [PATH], "the other process's deletion is published");
  assert.equal(store.peekText(PATH), undefined);
});

Deno.test("a pull keeps in place a never-synced file another running process over the cache marked, as a conflict; that process's push never reports the peer's copy as its own published", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-two-" });
  const open = (pid: number) => processOver(store, cacheDir, pid);
  const main = await open(1);
  const other = await open(2);
  const NEW = "notes/new.txt";
  // The other process marks a new file, then writes it.
  await other.markDirty({ relPath: NEW });
  await Deno.mkdir(`${cacheDir}/notes`, { recursive: true });
  await Deno.writeTextFile(`${cacheDir}/${NEW}`, "other's");
  // A peer publishes the same path first; the main process pulls.
  const peer = await clone(store, "peer");
  await put(peer, NEW, "peer's");
  await peer.pushChanged();
  const pulled = await main.pullChanged();
  assert.deepEqual(pulled.conflicts, [NEW]);
  assert.deepEqual(
    pulled.setAside,
    [],
    "a marked copy is kept at its path, as this process's own marks keep it",
  );
  assert.equal(await Deno.readTextFile(`${cacheDir}/${NEW}`), "other's");
  const pushed = await other.pushChanged();
  assert.ok(
    !pushed.identical.includes(NEW),
    "the peer's copy is not reported as the other's write, published",
  );
});
