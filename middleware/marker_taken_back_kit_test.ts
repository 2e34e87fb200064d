import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { clone, isIndexKey } from "../sync/service/clone_kit.ts";
import {
  ANSWER_LOST,
  DATA,
  deletedHere,
  FILES,
  MARKER,
  pushCutOff,
  SHARD_CUT,
} from "./marker_taken_back_kit.ts";

Deno.test("marker_taken_back_kit: a push cut off with its answer lost lands, and versions deleted here are marked", async () => {
  assert.deepEqual(FILES("3"), [`${DATA}/3/metadata.yaml`, `${DATA}/3/raw`]);
  assert.ok(SHARD_CUT.match("_index/data--shell--cmd.json") && !SHARD_CUT.afterEffect);
  assert.equal(ANSWER_LOST.match, isIndexKey);
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await pushCutOff(store, a, "2", ANSWER_LOST);
  assert.equal(store.peekText(MARKER), "2", "the commit landed before the answer was lost");
  await deletedHere(a, "2");
  await assert.rejects(Deno.lstat(`${a.cacheDir}/${DATA}/2`), Deno.errors.NotFound);
  for (const f of FILES("2")) assert.ok(a.state.dirtyPaths().includes(f), `${f} is marked`);
});
