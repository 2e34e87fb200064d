/**
 * This cache's upload that never reached the index, created where a peer's
 * committed object had gone outside Sluice, then deleted here: a deletion
 * cut off at its delete and finished by the next push takes out its own
 * upload, never the peer's entry, which it never saw.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, pastDanglingGrace, put, quick, read } from "./clone_kit.ts";

Deno.test("an upload over a peer's vanished version, deleted here with its delete cut off, leaves the peer's entry to be told lost", async () => {
  const store = new InMemoryStore();
  const path = "notes/shared.md";
  const b = await clone(store, "b");
  await put(b, path, "theirs");
  await b.pushChanged();
  const theirs = (await readIndex(store, quick.retry))?.entries[path]?.v;
  assert.ok(theirs);
  await store.delete(path); // outside Sluice
  const a = await clone(store, "a");
  // a's upload lands; its commit never does.
  await put(a, path, "mine");
  const isIndex = (k: string) => k === ".datastore-index.json" || k.startsWith("_index/");
  store.failNext("get", 1000, () => new UnreachableError("injected"), { match: isIndex });
  await assert.rejects(a.pushChanged());
  store.heal();
  assert.equal(store.peekText(path), "mine", "the upload stands, unnamed");
  // Deleted here; the push's delete of that upload is cut off.
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a.markDirty({ relPath: path });
  store.failNext("delete", 1, () => new UnreachableError("injected"), { match: (k) => k === path });
  await assert.rejects(a.pushChanged());
  await a.pushChanged();
  assert.equal(store.peekText(path), undefined, "its own upload is gone");
  // The peer's commit, never seen here, is not taken for a deletion.
  const named = (await readIndex(store, quick.retry))?.entries[path]?.v;
  const vanished = store.keys().some((k) => k.endsWith("vanished.json"));
  assert.ok(named === theirs || vanished, "the peer's entry is left, or its loss recorded");
  await b.pullChanged();
  assert.equal(await read(b, path), "theirs", "the peer keeps its copy");
  await pastDanglingGrace(b);
  await b.pullChanged();
  assert.equal(await read(b, path), "theirs", "and keeps it past the grace");
});
