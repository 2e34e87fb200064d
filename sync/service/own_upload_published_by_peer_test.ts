/**
 * This cache's upload of a data version, never committed here (its push cut
 * off before its commit, or a run refused for losing its lock whose erasure
 * could not run), is committed by a peer whose run wrote the same bytes: its
 * create met them and its commit names that object as its published
 * version. A later run here writes that version number again, with other
 * bytes: its create is refused (`version_exists`) and its copy set aside.
 * That refused create left no write of this cache's at the path, and the
 * version is the peer's, published: the next push here must not take the
 * path for this cache's stranded upload and delete it with its entry (chaos
 * seed 185100234, I1: the peer's acknowledged run lost to no version).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import type { SyncService } from "./service.ts";
import { clone, isIndexKey, put, quick, read, uploadCommitCutOff } from "./clone_kit.ts";

const RAW = "data/acme/box/m3/state/1/raw";

/**
 * A later run in `a` writes version 1 again, other bytes, and pushes:
 * refused, its copy set aside; the first read of the index once that copy
 * is gone here fails.
 */
async function refusedRewriteIndexReadFailed(store: InMemoryStore, a: SyncService): Promise<void> {
  await put(a, RAW, "a later run");
  const gone = () => {
    try {
      Deno.statSync(`${a.cacheDir}/${RAW}`);
      return false;
    } catch {
      return true;
    }
  };
  store.failNext("get", 1, () => new UnreachableError("flaky"), {
    match: (k) => isIndexKey(k) && gone(),
  });
  await assert.rejects(a.pushChanged());
  assert.ok(gone(), "the copy here was set aside");
}

Deno.test("a peer's published version over this cache's uncommitted upload of the same bytes survives this cache's refused rewrite of it and its next push", async () => {
  // a's upload lands; its commit is cut off.
  const { store, a, b, uploaded } = await uploadCommitCutOff(RAW, "same output");
  // b's run wrote the same bytes: its create meets a's object, and its commit names it.
  await put(b, RAW, "same output");
  await b.pushChanged();
  assert.equal((await readIndex(store, quick.retry))?.entries[RAW]?.v, uploaded);
  // A later run here writes version 1 again, other bytes: refused, set aside.
  await put(a, RAW, "a later run");
  await assert.rejects(a.pushChanged(), /never rewritten/);
  // The next push here leaves b's published version alone.
  await a.pushChanged();
  assert.equal(store.peekText(RAW), "same output", "b's version is still on the datastore");
  assert.equal((await readIndex(store, quick.retry))?.entries[RAW]?.v, uploaded, "and named");
  await a.pullChanged();
  assert.equal(await read(a, RAW), "same output");
});

Deno.test("a peer's published version over this cache's uncommitted upload of the same bytes survives this cache's refused rewrite of it whose look at the index failed, and its next push", async () => {
  const { store, a, b, uploaded } = await uploadCommitCutOff(RAW, "same output");
  await put(b, RAW, "same output");
  await b.pushChanged();
  assert.equal((await readIndex(store, quick.retry))?.entries[RAW]?.v, uploaded);
  // A later run here writes version 1 again, other bytes: refused, set
  // aside; the first read of the index once its copy is gone here fails.
  await refusedRewriteIndexReadFailed(store, a);
  // The next push here leaves b's published version alone.
  await a.pushChanged().catch(() => {});
  assert.equal(store.peekText(RAW), "same output", "b's version is still on the datastore");
  assert.equal((await readIndex(store, quick.retry))?.entries[RAW]?.v, uploaded, "and named");
  await a.pullChanged();
  assert.equal(await read(a, RAW), "same output");
});

Deno.test("a peer's published version over this cache's uncommitted upload of the same bytes is pulled here after this cache's refused rewrite of it whose look at the index failed, by a sync whose pull comes first", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, RAW, "same output");
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  await put(b, RAW, "same output");
  await b.pushChanged();
  await refusedRewriteIndexReadFailed(store, a);
  // A sync here (its pull, then its push), then a pull.
  await a.pullChanged();
  await a.pushChanged().catch(() => {});
  await a.pullChanged();
  assert.equal(store.peekText(RAW), "same output", "b's version is still on the datastore");
  assert.equal(await read(a, RAW), "same output", "and pulled here");
});
