/**
 * `resolve --theirs` of a conflict whose theirs, another writer's upload no
 * index names, is gone, while another process over the cache records a
 * newer conflict of the path as the resolution looks at what the store
 * holds there: the resolution never reports the path done while that
 * record is open, nor releases the copy of your edit it names.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";
import { clone, put } from "./clone_kit.ts";
import { committedEdits, cutOffUpload, PATH } from "./resolve_upload_kit.ts";
import type { ConflictRecord } from "./conflicts.ts";
import { type Fires, keptAside, saved, twoOver } from "./resolve_theirs_two_kit.ts";
import { sha256Hex } from "../hash.ts";

/**
 * Once armed, the hook runs at the first HEAD of PATH after a read of PATH's
 * bytes: the resolution's look at what the store holds, after its look for
 * an upload of its own.
 */
function headAfterRead(): Fires {
  let read = false;
  return (call, key) => {
    if (key === PATH && (call === "get" || call === "getStream")) read = true;
    return read && key === PATH && call === "head";
  };
}

Deno.test("resolve --theirs whose theirs is gone, while another process over the cache records a newer conflict of the path during its look at the store, is not done: the record stays open, naming your edit, its copy not released", async () => {
  const base = new InMemoryStore();
  const { arm, cacheDir, a, b: other } = await twoOver(base, headAfterRead());
  const b = await clone(base, "b");
  const c = await clone(base, "c");
  await committedEdits(a, b);
  await cutOffUpload(base, c);
  const upload = (await base.head(PATH))!.version;
  await put(a, PATH, "a's edit");
  assert.deepEqual((await a.pushChanged()).conflicts, [PATH]);
  // c's take-back: its upload deleted, the committed bytes put back unnamed.
  await base.delete(PATH, { ifVersion: upload });
  await base.put(PATH, new TextEncoder().encode("b's edit"), PutModes.create);
  const edit = await sha256Hex(new TextEncoder().encode("a's edit"));
  const newer: ConflictRecord = {
    path: PATH,
    mine: { location: PATH, hash: edit, size: 8 },
    theirs: { version: (await base.head(PATH))!.version, hash: "", size: 8 },
    foundBy: "pull",
    at: 7,
    reason: "recorded by the other process",
  };
  let fired = false;
  arm(async () => {
    fired = true;
    assert.equal(await saved(cacheDir, PATH), undefined, "the resolution cleared its record first");
    await other.state.conflicts.record([newer]);
  });
  const r = await a.resolveConflict(PATH, "theirs");
  assert.ok(fired, "the resolution looked at what the store holds");
  assert.equal((await saved(cacheDir, PATH))?.reason, newer.reason, "the newer record is open");
  await keptAside(a, cacheDir, r, edit, PATH);
});
