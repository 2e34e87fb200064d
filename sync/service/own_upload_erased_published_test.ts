/**
 * This cache's upload of a data version, never committed here (a run
 * refused for losing its lock, whose erasure took its copy out of the cache
 * and could not yet delete the upload), is committed by a peer whose run
 * wrote the same bytes: its create met them, and its commit names that
 * object as its published version. The erasure, looking again, finds the
 * upload named and keeps it as the peer's (the record of the write
 * settled). Nothing here was deleted by a user: the next pulls bring the
 * peer's published version into this cache, whatever the pull that met the
 * upload before the erasure settled it left for the push (chaos seed
 * 194700021, I1: the peer's acknowledged run missing from this clone after
 * its final sync).
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { put, quick, read, uploadCommitCutOff } from "./clone_kit.ts";

const RAW = "data/acme/box/m3/state/1/raw";

Deno.test("a peer's published version of this cache's erased, uncommitted upload of the same bytes is pulled here once the erasure keeps it as the peer's", async () => {
  // a's upload lands; its commit is cut off.
  const { store, a, b, uploaded } = await uploadCommitCutOff(RAW, "same output");
  assert.ok(a.state.attempted(RAW), "its write is recorded");
  // The run is refused: its erasure takes the copy out of the cache and its
  // mark away, and its delete of the upload fails (the record stays).
  await Deno.remove(`${a.cacheDir}/${RAW}`);
  await a.state.clean([RAW]);
  // b's run wrote the same bytes: its create meets a's object, and its commit names it.
  await put(b, RAW, "same output");
  await b.pushChanged();
  assert.equal((await readIndex(store, quick.retry))?.entries[RAW]?.v, uploaded);
  // A pull here meets the upload named before the erasure looks again.
  await a.pullChanged();
  // The erasure looks again: the upload is named, kept as b's, its record settled.
  await a.state.settleAttempted([RAW]);
  // A sync here (its push, then its pull), and another pull.
  await a.pushChanged();
  await a.pullChanged();
  await a.pullChanged();
  assert.equal(store.peekText(RAW), "same output", "b's version is still on the datastore");
  assert.equal((await readIndex(store, quick.retry))?.entries[RAW]?.v, uploaded, "and named");
  assert.equal(await read(a, RAW), "same output", "and pulled here");
});
