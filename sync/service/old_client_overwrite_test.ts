/**
 * An old client (swamp's existing extensions) writes and deletes without a
 * compare-and-swap. When it replaces or deletes a Sluice push's write
 * between that push's upload and its commit, never having seen it, the
 * commit must not name the write: it is gone, and naming it would hide the
 * old client's change from every reader. The path is left out of the
 * commit, kept dirty at the version synced before, and the next push meets
 * the old client's change as a conflict: both sides' changes are kept.
 */
import assert from "node:assert/strict";
import { InMemoryStore, peerPush, peerReadIndex } from "../../packages/testing/mod.ts";
import { readIndex, updateIndex } from "../transfer/remote_index.ts";
import { sha256Hex } from "../hash.ts";
import type { WarningEvent } from "../events.ts";
import type { SyncService } from "./service.ts";
import { assertIndexCurrent, clone, put, quick, read } from "./clone_kit.ts";

const PATH = "config/app.yaml";

function warningsOf(svc: SyncService): WarningEvent[] {
  const out: WarningEvent[] = [];
  svc.events.on("warning", (w) => out.push(w));
  return out;
}

for (const first of ["Sluice", "an old client"]) {
  Deno.test(`old client: its edit over a Sluice upload before the commit is kept, and the Sluice edit becomes a conflict (first written by ${first})`, async () => {
    const store = new InMemoryStore();
    const a = await clone(store, "a");
    if (first === "Sluice") {
      await put(a, PATH, "one\n");
      await a.pushChanged();
    } else {
      await peerPush(store, { [PATH]: "one\n" });
      await a.pullChanged();
    }
    await put(a, PATH, "sluice edit\n");
    const warnings = warningsOf(a);
    const prepared = await a.preparePush();
    await peerPush(store, { [PATH]: "old client edit\n" }); // under the global lock, between the two
    const r = await a.commitPush(prepared);

    assert.deepEqual(r.uploaded, [], "nothing of it was published");
    assert.deepEqual(r.overwritten, [PATH]);
    assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [[PATH, true]]);
    assert.deepEqual(warnings.map((w) => w.code), ["overwritten_before_commit"]);
    assert.match(warnings[0].message, /Nothing of it was published/);
    assert.match(warnings[0].message, /Run `sluice push` again/);
    assert.equal(store.peekText(PATH), "old client edit\n");
    assert.equal(
      (await peerReadIndex(store))[PATH].size,
      "old client edit\n".length,
      "the old client's entry stands",
    );
    await assertIndexCurrent(store, { held: true });

    const fresh = await clone(store, "fresh");
    await fresh.pullChanged();
    assert.equal(await read(fresh, PATH), "old client edit\n", "readers get the old client's edit");

    assert.equal(await read(a, PATH), "sluice edit\n", "the Sluice edit is kept");
    const again = await a.pushChanged();
    assert.deepEqual(again.conflicts, [PATH], "and meets theirs as a conflict");
    await a.resolveConflict(PATH, "mine");
    assert.equal(store.peekText(PATH), "sluice edit\n");
    await assertIndexCurrent(store, { held: true });
  });
}

Deno.test("old client: its edit over a Sluice upload, committed anyway, hides the edit from every reader (control: the foreign entry not checked)", async () => {
  // What the commit would do without the check: name the Sluice version over the old client's entry.
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "one\n");
  await a.pushChanged();
  await put(a, PATH, "sluice edit\n");
  await a.preparePush();
  const uploaded = (await store.head(PATH))!.version;
  await peerPush(store, { [PATH]: "old client edit\n" });
  const bytes = new TextEncoder().encode("sluice edit\n");
  await updateIndex(store, {
    set: { [PATH]: { v: uploaded, h: await sha256Hex(bytes), s: bytes.length } },
    remove: [],
  }, quick.retry);
  const fresh = await clone(store, "fresh");
  const r = await fresh.pullChanged();
  assert.deepEqual(r.uncommitted, [PATH], "a reader skips the old client's edit");
  assert.equal(await read(fresh, PATH), undefined);
});

Deno.test("old client: its file re-created over a Sluice deletion before the commit is kept, and the deletion becomes a conflict", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "one\n");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  const warnings = warningsOf(a);
  const prepared = await a.preparePush();
  assert.equal(store.peek(PATH), undefined, "deleted by the preparation");
  await peerPush(store, { [PATH]: "old client again\n" });
  const r = await a.commitPush(prepared);
  assert.deepEqual(r.deleted, []);
  assert.deepEqual(r.overwritten, [PATH]);
  assert.deepEqual(warnings.map((w) => w.code), ["overwritten_before_commit"]);
  assert.ok((await readIndex(store, quick.retry))?.entries[PATH], "the old client's entry stands");
  await assertIndexCurrent(store, { held: true });
  assert.equal(await read(a, PATH), undefined, "the deletion is kept here");
  const again = await a.pushChanged();
  assert.deepEqual(again.conflicts, [PATH], "and meets theirs as a conflict");
  assert.equal(store.peekText(PATH), "old client again\n");
});

Deno.test("old client: a Sluice create it deleted before the commit is not named; with checkCreates it is published again by the next push", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const path = "notes/new.txt";
  await put(a, path, "new\n");
  const warnings = warningsOf(a);
  const prepared = await a.preparePush({ checkCreates: true });
  await peerPush(store, {}, { remove: [path] }); // an old client's blind delete (a stale view)
  const r = await a.commitPush(prepared);
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(r.overwritten, [path]);
  assert.deepEqual(warnings.map((w) => w.code), ["overwritten_before_commit"]);
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined);
  await assertIndexCurrent(store, { held: true });
  const again = await a.pushChanged();
  assert.deepEqual(again.uploaded, [path], "published again");
  assert.equal(store.peekText(path), "new\n");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("old client: without checkCreates, a create it deleted before the commit is named though gone (control), and a pull then removes the entry", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const path = "notes/new.txt";
  await put(a, path, "new\n");
  const prepared = await a.preparePush();
  await peerPush(store, {}, { remove: [path] });
  const r = await a.commitPush(prepared);
  assert.deepEqual(r.uploaded, [path], "reported published");
  assert.ok(
    (await readIndex(store, quick.retry))?.entries[path],
    "named, though the store has nothing",
  );
  const b = await clone(store, "b");
  await b.pullChanged();
  assert.equal((await readIndex(store, quick.retry))?.entries[path], undefined);
});
