import assert from "node:assert/strict";
import { DATA, deletedUnderMarker, MARKER, META, RAW, THEIRS } from "./resolve_under_marker_kit.ts";

Deno.test("deletedUnderMarker: version 2 deleted here under its marker, the other client's raw 2 in conflict with that deletion", async () => {
  const { store, a, theirs } = await deletedUnderMarker();
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${MARKER}`), "2");
  await assert.rejects(Deno.lstat(`${a.cacheDir}/${DATA}/2`), Deno.errors.NotFound);
  assert.equal(store.peekText(RAW), THEIRS);
  assert.equal(store.peekText(META), "version: 2");
  assert.deepEqual(a.conflicts().map((c) => c.path), [RAW]);
  assert.equal(theirs.size, THEIRS.length);
});
