import assert from "node:assert/strict";
import { peerReadIndex } from "../../packages/testing/mod.ts";
import { clone, lost, pullAfterUnmarkedDeletion } from "./dropped_entries_kit.ts";
import { warnDroppedHere } from "./dropped_entries.ts";
import { createEmitter, type WarningEvent } from "../events.ts";

/**
 * Clone `a`'s committed edit of `config/app.yaml`, rolled back in the index
 * to the version it replaced by an old client's write-back (the store holds
 * `a`'s edit, the index names the older version, gone), deleted here by
 * hand before `a`'s next pull, the deletion never marked. As for an entry
 * dropped so: the datastore did not delete the file, and nobody asked to
 * delete it there. The pull keeps the record, synced at `a`'s version, marks
 * nothing and warns `index_entry_dropped` naming both ways out; before, it
 * said nothing, taking the edit for a push of its own cut off before its
 * commit, and no push ever named it again (chaos seed 4104: the index left
 * naming a version the store no longer held, every fresh clone skipping the
 * file as not yet committed).
 */
Deno.test("a file deleted here, unmarked, whose entry another client rolled back to an older version: the pull keeps its record and warns", async () => {
  const { store, a, path } = await lost("rolled back");
  assert.notEqual(
    (await peerReadIndex(store))[path]?.size,
    undefined,
    "named at the older version",
  );
  const { warnings } = await pullAfterUnmarkedDeletion(a, path);
  // Said as what happened: the entry went back to an older version, not dropped.
  assert.match(
    warnings[0].message,
    /The datastore's index names config\/app\.yaml at an older version than the one this cache synced/,
  );
  assert.match(warnings[0].message, /rolled its entry back/);
  assert.doesNotMatch(warnings[0].message, /no longer names/);
  assert.match(warnings[0].message, /`sluice push config\/app\.yaml`/);
  assert.match(warnings[0].message, /`sluice pull --restore-deleted`/);
  assert.deepEqual((await a.pushChanged()).deleted, [], "a push of everything pending");
  assert.equal(store.peekText(path), "two\n", "the object kept");
  // A push of its name deletes it everywhere.
  await a.markDirty({ relPath: path });
  assert.deepEqual((await a.pushChanged()).deleted, [path]);
  assert.equal(store.peek(path), undefined);
  assert.equal((await peerReadIndex(store))[path], undefined);
  const b = await clone(store, "b");
  assert.deepEqual((await b.pullChanged()).uncommitted, []);
});

/**
 * As above, the older version an old client's push, which `a` pulled before
 * its edit: the entry rolled back to names no object version. The pull kept
 * the record the same way; before, it took `a`'s committed edit for a push
 * of its own cut off before its commit, and the next push deleted it on the
 * datastore though nobody named the path (chaos seed 236400140, I23).
 */
Deno.test("a file deleted here, unmarked, whose entry an old client rolled back to its own older version: the pull keeps its record, no push deletes it", async () => {
  const { store, a, path } = await lost("rolled back to an old client's");
  assert.equal((await peerReadIndex(store))[path]?.size, 4, "named at the old client's version");
  const { warnings } = await pullAfterUnmarkedDeletion(a, path);
  assert.match(warnings[0].message, /at an older version than the one this cache synced/);
  assert.deepEqual((await a.pushChanged()).deleted, [], "a push of everything pending");
  assert.equal(store.peekText(path), "two\n", "the object kept");
  await a.markDirty({ relPath: path });
  assert.deepEqual((await a.pushChanged()).deleted, [path], "a push of its name deletes it");
  assert.equal(store.peek(path), undefined);
});

/**
 * As above, the deletion marked: left to the push, which deletes `a`'s
 * edit over the version it synced, and the entry with it.
 */
Deno.test("a file deleted here and marked, whose entry another client rolled back: the push deletes it and its entry", async () => {
  const { store, a, path } = await lost("rolled back");
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a.markDirty({ relPath: path });
  const pulled = await a.pullChanged();
  assert.deepEqual(pulled.droppedHere, []);
  assert.deepEqual((await a.pushChanged()).deleted, [path]);
  assert.equal(store.peek(path), undefined);
  assert.equal((await peerReadIndex(store))[path], undefined);
});

/**
 * As above, the deletion here taken back: a pull with `restoreDeleted`
 * fetches the version the store holds, kept as a rolled-back entry is, and
 * the next push names it again.
 */
Deno.test("a file deleted here whose entry another client rolled back is taken back by a pull with restoreDeleted, and named again by the next push", async () => {
  const { store, a, path } = await lost("rolled back");
  await Deno.remove(`${a.cacheDir}/${path}`);
  assert.deepEqual((await a.pullChanged()).droppedHere, [path]);
  const restored = await a.pullChanged({ restoreDeleted: true });
  assert.deepEqual(restored.droppedHere, []);
  assert.deepEqual(restored.dropped, [path]);
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${path}`), "two\n");
  await a.pushChanged();
  const b = await clone(store, "b");
  assert.deepEqual((await b.pullChanged()).uncommitted, []);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${path}`), "two\n");
});

Deno.test("one pull's dropped and rolled-back deletions here are told apart, one index_entry_dropped warning each", () => {
  const said: WarningEvent[] = [];
  const events = createEmitter();
  events.on("warning", (w) => said.push(w));
  warnDroppedHere(events, ["notes/dropped.md", "config/back.yaml"], ["config/back.yaml"]);
  assert.deepEqual(said.map((w) => [w.code, w.path]), [
    ["index_entry_dropped", "notes/dropped.md"],
    ["index_entry_dropped", "config/back.yaml"],
  ]);
  assert.match(said[0].message, /^The datastore's index no longer names notes\/dropped\.md,/);
  assert.doesNotMatch(said[0].message, /back\.yaml/);
  assert.match(
    said[1].message,
    /^The datastore's index names config\/back\.yaml at an older version/,
  );
  for (const w of said) assert.match(w.message, /`sluice pull --restore-deleted`/);
});
