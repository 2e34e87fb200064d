/**
 * On a store whose versions are the bytes' (S3 ETags): a file created here
 * whose push commit landed with its answer lost, then deleted here. The
 * push takes the entry naming that write out, then deletes the object. A
 * peer that synced the write pulls in between, finds the entry gone with
 * the object there, and names it again as an entry another client dropped;
 * once the delete landed, the peer puts its copy back over it, the same
 * bytes, so the same version the take-back deleted. The push's read after
 * its delete meets the entry naming that version and the store holding it
 * again: that is the peer's copy, not this cache's write, and the local
 * deletion did not take effect. The push must keep it as a conflict with
 * the peer's version, never report its upload withdrawn while the index
 * names the path (chaos seed 234400244, I32).
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, quick, read } from "./clone_kit.ts";
import { PATH, putBackOverTakeBack } from "./withdrawn_same_bytes_kit.ts";

Deno.test("etag versions: a peer's copy put back over this cache's take-back of its unanswered create, the same version as the upload deleted, is met as a conflict, never a withdrawal done", async () => {
  const { store, a, v, steps } = await putBackOverTakeBack();
  const r = await a.pushChanged();
  assert.deepEqual(steps, ["b named a's write again"]);
  assert.equal((await store.head(PATH))?.version, v, "b's copy is back, at a's version");

  const theirs = (await readIndex(store, quick.retry))?.entries[PATH];
  assert.equal(theirs?.v, v, "the index names b's copy");
  assert.deepEqual(r.conflicts, [PATH], `the deletion did not take effect: ${JSON.stringify(r)}`);
  assert.deepEqual(a.conflicts().map((x) => [x.path, x.theirs?.version]), [[PATH, v]]);
  assert.equal(await read(a, PATH), undefined, "the local deletion stands as a conflict");
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, PATH), "a's settings");
});
