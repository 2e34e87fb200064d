/**
 * This cache's edit of an old client's file, uploaded over that client's
 * object with its commit cut off, then deleted here, and the file's record
 * lost with a damaged line of the manifest's log: the next push, which no
 * longer knows the file was synced here, deletes its own stranded upload.
 * The old client's bytes went with the upload that replaced them, so the
 * index entry naming them (by hash, no version) must go too: left, it names
 * an object the store no longer holds, and every reader skips the path.
 */
import assert from "node:assert/strict";
import { InMemoryStore, peerPush } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, isIndexKey, put, quick, read } from "./clone_kit.ts";
import { damageLogLineOf } from "./damaged_log_kit.ts";

const PATH = "notes/shared-1.md";

Deno.test("an own upload over an old client's file, its commit cut off, deleted here with its record lost: the push that deletes the upload takes out the entry naming the bytes it replaced", async () => {
  const store = new InMemoryStore();
  await peerPush(store, { [PATH]: "old client's note\n" });
  const a = await clone(store, "a");
  await a.pullChanged();
  assert.equal(await read(a, PATH), "old client's note\n");
  // A later record, so that the file's record is not the log's last line.
  await peerPush(store, { "notes/other.md": "another note\n" });
  await a.pullChanged();
  await put(a, PATH, "this cache's edit of the old client's note\n");
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(store.peekText(PATH), "this cache's edit of the old client's note\n");
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  await damageLogLineOf(a.cacheDir, PATH);
  const again = await clone(store, "a", a.cacheDir);
  await again.pushChanged().catch(() => undefined);
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(
    !Object.hasOwn(entries, PATH) || store.peekText(PATH) !== undefined,
    `the index names ${PATH} (${JSON.stringify(entries[PATH])}), the store holds nothing there`,
  );
  const fresh = await clone(store, "c");
  await fresh.pullChanged();
  assert.equal(await read(fresh, PATH), undefined);
  assert.equal(await read(fresh, "notes/other.md"), "another note\n");
});
