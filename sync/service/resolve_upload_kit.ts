/**
 * What the tests of a resolution meeting another writer's upload that no
 * index names share: three clones of one in-memory store, `a` and `b`
 * each committing an edit of one path, and `c`'s edit of it uploaded with
 * its commit cut off.
 *
 * @module
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import type { SyncService } from "./service.ts";
import { clone, isIndexKey, put, quick } from "./clone_kit.ts";

/** The path the clones edit. */
export const PATH = "notes/n.md";

/** The version of `PATH` the store's index names. */
export const indexed = async (store: InMemoryStore): Promise<string | undefined> =>
  (await readIndex(store, quick.retry))?.entries[PATH]?.v;

/** A store and three clones of it, `a`, `b` and `c`. */
export async function threeClones() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const c = await clone(store, "c");
  return { store, a, b, c };
}

/** `a` publishes `PATH`, and `b` pulls it and publishes its own edit of it. */
export async function committedEdits(a: SyncService, b: SyncService) {
  await put(a, PATH, "one");
  await a.pushChanged();
  await b.pullChanged();
  await put(b, PATH, "b's edit");
  await b.pushChanged();
}

/** `c` pulls and uploads its edit of `PATH`, the index write naming it cut off. */
export async function cutOffUpload(store: InMemoryStore, c: SyncService) {
  await c.pullChanged();
  await put(c, PATH, "c's edit");
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(c.pushChanged(), /could not be reached/);
}

/**
 * `a`'s edit of `PATH` meets `c`'s upload over `b`'s committed edit, its
 * commit cut off: `a`'s conflict names that upload, which no index names.
 */
export async function conflictWithUpload() {
  const { store, a, b, c } = await threeClones();
  await committedEdits(a, b);
  await cutOffUpload(store, c);
  const upload = (await store.head(PATH))!.version;
  await put(a, PATH, "a's edit");
  assert.deepEqual((await a.pushChanged()).conflicts, [PATH]);
  return { store, a, c, upload };
}
