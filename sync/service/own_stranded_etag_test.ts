/**
 * On a store whose versions are ETags (two writes of the same bytes carry
 * one version), the push that drops this cache's own committed upload (a
 * file created here, its commit's answer lost, then made a directory) deletes
 * that upload conditional on its version: an old client's rewrite of the
 * same bytes there, with its index entry, landing between the look at the
 * object (its writer id) and the delete, carries that version too.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, createAnswerLost, isIndexKey, put, quick, RacingStore } from "./clone_kit.ts";
import { peerPush } from "../../packages/testing/layout_peer.ts";

const PATH = "notes/n.md";

Deno.test("ETag store: an old client's rewrite of the same bytes, committed while this cache drops its own stranded upload there, is not deleted from under its index entry", async () => {
  const store = new RacingStore({ versionFromBytes: true });
  await peerPush(store, { "notes/old-client.md": "an old client's note" });
  const a = await clone(store, "a");
  await a.pullChanged();
  await createAnswerLost(store, a, PATH, "a file at first");
  assert.equal(a.state.synced(PATH), undefined);
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await put(a, `${PATH}/x.md`, "under a directory now", false);
  await a.markDirty({ relPath: PATH });
  // The old client pulled a's committed file and pushes it again (same bytes,
  // its own entry), right as a's push takes the entry out before its delete.
  store.beforePut = {
    match: (k) => isIndexKey(k),
    run: () => peerPush(store, { [PATH]: "a file at first" }),
  };
  await a.pushChanged().catch(() => undefined);
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(
    !Object.hasOwn(entries, PATH) || store.peekText(PATH) !== undefined,
    `the index names the old client's ${PATH} (${
      JSON.stringify(entries[PATH])
    }), whose object a's delete of its own upload (same ETag) took`,
  );
});
