import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { SluiceError } from "../errors.ts";
import { clone, processOver, put, read } from "./clone_kit.ts";
import { duringMarksRead } from "./marks_read_kit.ts";
import { setAsideCopies } from "./conflicts.ts";

Deno.test("--merged over the datastore's copy, where another process over the cache set aside the merge the user wrote, is refused: the merge stays named, and --mine publishes it", async () => {
  const store = new InMemoryStore();
  const path = "notes/a.md";
  const peer = await clone(store, "peer");
  await put(peer, path, "theirs");
  await peer.pushChanged();
  // Two processes over one cache holding a copy of the path it never synced.
  const cacheDir = await Deno.makeTempDir();
  await Deno.mkdir(`${cacheDir}/notes`, { recursive: true });
  await Deno.writeTextFile(`${cacheDir}/${path}`, "mine");
  const user = await processOver(store, cacheDir, 1);
  const pulling = await processOver(store, cacheDir, 2);
  // Just after the second process's pull looks at what the others marked
  // (its second look, after the index, just before it plans), the first
  // one's pull sets the copy aside in a conflict, and the user writes a
  // merge at the path for it.
  const during = duringMarksRead(pulling, async () => {
    const first = await user.pullChanged();
    assert.deepEqual(first.conflicts, [path]);
    await Deno.writeTextFile(`${cacheDir}/${path}`, "mine and theirs");
  }, 1);
  await pulling.pullChanged();
  assert.ok(during.ran(), "the first process pulled during the second one's pull");
  // The second pull set the merge aside and took theirs into place.
  assert.equal(await read(user, path), "theirs");
  await assert.rejects(user.resolveConflict(path, "merged"), (e) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, "not_merged");
    assert.match(e.message, /another process over this cache set your copy there aside since/);
    return true;
  });
  const open = user.conflicts().find((c) => c.path === path);
  assert.ok(open, "the conflict stays open");
  const held = await Promise.all(
    setAsideCopies(open).map((c) =>
      Deno.readTextFile(`${cacheDir}/.sluice/${c.location.slice(".sluice/".length)}`)
    ),
  );
  assert.ok(held.includes("mine and theirs"), `the merge stays named: ${held}`);
  assert.equal((await user.resolveConflict(path, "mine")).resolved, true);
  assert.equal(store.peekText(path), "mine and theirs");
});
