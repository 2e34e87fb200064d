import assert from "node:assert/strict";
import { checkMineDeletions, type MineDeletion } from "./mine_deletions.ts";

const PATH = "data/m/d/2/raw";
const mine: MineDeletion[] = [{ clone: 0, path: PATH, op: 7, touched: 1 }];
const named = { [PATH]: { v: "1" } };

Deno.test("I39: a --mine of a deletion still marked after the final sync, unpublished, no conflict open, is told", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const clone = { dir, dirty: [PATH], conflicts: [] };
    const got = await checkMineDeletions(mine, [clone], named, [{ clone: 0, path: PATH }]);
    assert.equal(got.length, 1);
    assert.equal(got[0].invariant, "I39");
    assert.match(got[0].message, /op #7/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("I39: published, in conflict again, no longer marked, written here again or changed by its user since: nothing told", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const clone = { dir, dirty: [PATH], conflicts: [] };
    assert.deepEqual(await checkMineDeletions(mine, [clone], {}, []), [], "published");
    const open = { ...clone, conflicts: [PATH] };
    assert.deepEqual(await checkMineDeletions(mine, [open], named, []), [], "in conflict");
    const clean = { ...clone, dirty: [] };
    assert.deepEqual(await checkMineDeletions(mine, [clean], named, []), [], "not marked");
    const later = [{ clone: 1, path: PATH }, { clone: 0, path: PATH }];
    assert.deepEqual(await checkMineDeletions(mine, [clone], named, later), [], "changed since");
    await Deno.mkdir(`${dir}/data/m/d/2`, { recursive: true });
    await Deno.writeTextFile(`${dir}/${PATH}`, "again");
    assert.deepEqual(await checkMineDeletions(mine, [clone], named, []), [], "written again");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
