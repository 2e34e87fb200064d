/**
 * A data version this cache created, its commit landed with the answer
 * lost, stays its own even when an older client's blind deletion (object
 * first, then its index) crosses the pull that would have recognised it: the
 * deletion's index update is then a conflict, never the removal of its last
 * copy.
 */
import assert from "node:assert/strict";
import { peerPush } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { olderClientVersions, put, read } from "./clone_kit.ts";

const DIR = "data/acme/box/m3/state";
const RAW = `${DIR}/3/raw`;

Deno.test("a version created with its commit answer lost, its object blindly deleted before the next pull, is kept (a conflict) when the deletion's index update comes", async () => {
  const { store, x } = await olderClientVersions(DIR);
  await put(x, RAW, "X-m3-first");
  await put(x, `${DIR}/latest`, "3");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    afterEffect: true,
    match: (k) => k === "_index/_meta.json",
  });
  await assert.rejects(x.pushChanged());
  assert.equal(store.peekText(RAW), "X-m3-first", "committed, its answer lost");
  // An older client's push, which never had version 3, deletes it: the
  // object first; its index update comes after this cache's next pull.
  await store.delete(RAW);
  await x.pullChanged().catch(() => undefined);
  await peerPush(store, { [`${DIR}/latest`]: "2" }, { remove: [RAW] });
  await x.pullChanged().catch(() => undefined);
  assert.equal(
    await read(x, RAW),
    "X-m3-first",
    `the only copy of the version this cache created was removed (conflicts: ${
      JSON.stringify(x.conflicts().map((c) => c.path))
    })`,
  );
});
