/**
 * `resolve --theirs` of a conflict whose theirs is a deletion, while another
 * process over the cache records a newer conflict of the path after the
 * resolution's pull, as it looks on the datastore for an upload of its own
 * to take back: the resolution never reports the path done while that
 * record is open, nor releases the copy of your edit it names.
 */
import assert from "node:assert/strict";
import { put } from "./clone_kit.ts";
import type { ConflictRecord } from "./conflicts.ts";
import { hashOf, keptAside, overOne, PATH, saved } from "./resolve_theirs_two_kit.ts";

Deno.test("resolve --theirs of a deletion, while another process over the cache records a newer conflict of the path after the pull, is not done: the record stays open, naming your edit, its copy not released", async () => {
  // The hook runs before the first read of PATH's bytes after `arm`.
  const { peer, arm, cacheDir, a, b } = await overOne((call, key) =>
    (call === "get" || call === "getStream") && key === PATH
  );
  // A push of a file of its own gives the cache its writer id.
  await put(a, "notes/other.md", "other");
  await a.pushChanged();
  await put(a, PATH, "a's edit");
  await Deno.remove(`${peer.cacheDir}/${PATH}`);
  await peer.markDirty({ relPath: PATH });
  await peer.pushChanged();
  assert.deepEqual((await a.pullChanged()).conflicts, [PATH]);
  assert.equal(a.conflicts().find((c) => c.path === PATH)?.theirs, null);
  const edit = await hashOf("a's edit");
  const newer: ConflictRecord = {
    path: PATH,
    mine: { location: PATH, hash: edit, size: 8 },
    theirs: null,
    foundBy: "pull",
    at: 7,
    reason: "changed here, deleted on the datastore",
  };
  let fired = false;
  arm(async () => {
    fired = true;
    assert.equal(await saved(cacheDir), undefined, "the resolution cleared its record first");
    await b.state.conflicts.record([newer]);
  });
  const r = await a.resolveConflict(PATH, "theirs");
  assert.ok(fired, "the resolution looked for an upload of its own after its pull");
  assert.equal((await saved(cacheDir))?.reason, newer.reason, "the newer record is open");
  assert.deepEqual(r.conflicts, [PATH]);
  await keptAside(a, cacheDir, r, edit);
});
