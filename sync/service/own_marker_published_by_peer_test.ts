/**
 * This cache's upload of a `latest` marker whose commit was cut off (a run
 * stopped between its commit-step writes and its index update) is
 * committed by a peer that moved the marker to the same number: its create
 * met those very bytes and its commit names that object as its marker.
 * The marker here is then put back to the bytes this cache synced (as the
 * reset after a lost version does, marked for the next push to settle its
 * own upload). That upload is no longer this cache's uncommitted write: it
 * is the peer's published marker, which the push must not write over
 * unseen (chaos seed 203100067, I9: a peer's committed move of the marker
 * back lost).
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, isIndexKey, publishVersions, put, quick, read } from "./clone_kit.ts";

const MARKER = "data/shell/cmd/m1/out/latest";

Deno.test("a peer's committed marker over this cache's uncommitted upload of the same bytes is not written over by this cache's put-back of the marker it synced", async () => {
  const store = new InMemoryStore();
  await publishVersions(store, MARKER, ["1", "2"]);
  const a = await clone(store, "a");
  await a.pullChanged();
  await put(a, MARKER, "1");
  await a.pushChanged();
  // a moves the marker to 2: its upload lands, its commit is cut off.
  await put(a, MARKER, "2");
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  const uploaded = (await store.head(MARKER))?.version;
  // b moves the marker to 2 too: its create meets a's bytes, and its commit names them.
  const b = await clone(store, "b");
  await b.pullChanged();
  await put(b, MARKER, "2");
  await b.pushChanged();
  assert.equal((await readIndex(store, quick.retry))?.entries[MARKER]?.v, uploaded);
  // The marker here is put back to the bytes a synced, and pushed.
  await put(a, MARKER, "1");
  await a.pushChanged();
  assert.equal(store.peekText(MARKER), "2", "b's committed marker is still on the datastore");
  assert.equal((await readIndex(store, quick.retry))?.entries[MARKER]?.v, uploaded, "and named");
  // a keeps its copy, in conflict with b's marker, which it never saw.
  assert.deepEqual(a.conflicts().map((c) => [c.path, c.theirs?.version]), [[MARKER, uploaded]]);
  assert.equal(await read(a, MARKER), "1");
});
