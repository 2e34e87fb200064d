/**
 * A take-back's note names the version it withdraws, for a peer's commit
 * that finds the entry gone while the take-back is under way (see
 * `transfer/withdrawal_note.ts`). Once the take-back is done, the note must
 * not outlive it: on a store whose versions are the bytes' (S3 ETags), the
 * same bytes published again carry that very version, and a later entry an
 * old client drops would be taken for the take-back's deletion.
 */
import assert from "node:assert/strict";
import { InMemoryStore, peerPush } from "../../packages/testing/mod.ts";
import { clone, createAnswerLost, ownDeleteHooked, put, quick, read } from "./clone_kit.ts";
import { takeBackAround } from "./clone_cutoff_kit.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { UnreachableError } from "../errors.ts";
import { withdrawalKey } from "../transfer/withdrawal_note.ts";
import type { SyncService } from "./service.ts";

const PATH = "config/settings.yaml";

/**
 * A peer c publishes "x\n" at PATH again (the same version `v`, by its
 * ETag) and a peer named `name` syncs it, inside an old client's
 * read-modify-write of the index, which drops c's entry; that peer.
 */
async function republishedEntryDropped(
  store: InMemoryStore,
  v: string,
  name: string,
): Promise<SyncService> {
  const c = await clone(store, "c");
  const peer = await clone(store, name);
  await peerPush(store, { "files/theirs.txt": "theirs\n" }, {
    afterRead: async () => {
      await put(c, PATH, "x\n");
      assert.deepEqual((await c.pushChanged()).conflicts, []);
      await peer.pullChanged();
      assert.equal(peer.state.synced(PATH)?.version, v);
    },
  });
  return peer;
}

Deno.test("a take-back that is done leaves no note of the version it withdrew", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await createAnswerLost(store, a, PATH, "a's file\n");
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  assert.deepEqual((await a.pushChanged()).conflicts, []);
  assert.equal(store.peek(PATH), undefined);
  assert.equal(store.peek(await withdrawalKey(PATH)), undefined, "the note outlived the take-back");
});

Deno.test("the same bytes published again after a take-back, their entry dropped by an old client, edited by a peer that synced them: the edit is published", async () => {
  const store = new InMemoryStore({ versionFromBytes: true });
  const a = await clone(store, "a");
  const v = await createAnswerLost(store, a, PATH, "x\n");
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  await a.pushChanged();
  assert.equal(store.peek(PATH), undefined, "a's take-back is done");
  // c publishes the same bytes again (the same version, by their ETag) and
  // b syncs them, inside an old client's read-modify-write of the index,
  // which drops c's entry.
  const b = await republishedEntryDropped(store, v, "b");
  assert.equal((await readIndex(store, quick.retry))?.entries[PATH], undefined);
  // b edits it and pushes before any pull of its own: nobody deleted the file.
  await put(b, PATH, "b's edit\n");
  const r = await b.pushChanged();
  assert.deepEqual([r.uploaded, r.conflicts], [[PATH], []]);
  assert.equal(store.peekText(PATH), "b's edit\n");
  const d = await clone(store, "d");
  await d.pullChanged();
  assert.equal(await read(d, PATH), "b's edit\n");
});

Deno.test("a take-back whose delete found a peer's edit over the version in its place, gone since, leaves no note either: the same bytes published again, their entry dropped, are edited as any file", async () => {
  const store = new InMemoryStore({ versionFromBytes: true });
  const b = await clone(store, "b");
  // b's edit of a's committed file lands in the take-back's window: its
  // commit meets the withdrawal (a conflict) and takes its write back, and
  // the take-back's delete finds nothing left to delete.
  const { v } = await takeBackAround(store, b, PATH, async (landDelete) => {
    await put(b, PATH, "b's edit\n");
    assert.deepEqual((await b.pushChanged()).conflicts, [PATH]);
    return await landDelete();
  }, "b's edit landed in the take-back's window");
  assert.equal(store.peek(PATH), undefined, "a's take-back is done");
  assert.equal(store.peek(await withdrawalKey(PATH)), undefined, "the note outlived the take-back");
  // As above: the same bytes published again, their entry dropped, edited by a peer.
  const d = await republishedEntryDropped(store, v, "d");
  await put(d, PATH, "d's edit\n");
  const r = await d.pushChanged();
  assert.deepEqual([r.uploaded, r.conflicts], [[PATH], []]);
  assert.equal(store.peekText(PATH), "d's edit\n");
});

Deno.test("a take-back cut off before its delete, finished by the next push, leaves no note either: the same bytes published again, their entry dropped, are edited as any file", async () => {
  const store = new InMemoryStore({ versionFromBytes: true });
  const a = await clone(store, "a");
  const v = await createAnswerLost(store, a, PATH, "x\n");
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  // The entry taken out, the note written: the take-back's delete is cut off.
  store.failNext("delete", 1, () => new UnreachableError("cut off"), { match: (k) => k === PATH });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(store.peekText(PATH), "x\n", "the delete was cut off");
  assert.ok(store.peek(await withdrawalKey(PATH)), "the take-back's note stands meanwhile");
  // The next push finishes the deletion.
  assert.deepEqual((await a.pushChanged()).conflicts, []);
  assert.equal(store.peek(PATH), undefined, "a's take-back is done");
  assert.equal(store.peek(await withdrawalKey(PATH)), undefined, "the note outlived the take-back");
  // As above: the same bytes published again, their entry dropped, edited by a peer.
  const c = await clone(store, "c");
  const b = await clone(store, "b");
  await peerPush(store, { "files/theirs.txt": "theirs\n" }, {
    afterRead: async () => {
      await put(c, PATH, "x\n");
      assert.deepEqual((await c.pushChanged()).conflicts, []);
      await b.pullChanged();
      assert.equal(b.state.synced(PATH)?.version, v);
    },
  });
  await put(b, PATH, "b's edit\n");
  const r = await b.pushChanged();
  assert.deepEqual([r.uploaded, r.conflicts], [[PATH], []]);
  assert.equal(store.peekText(PATH), "b's edit\n");
});

Deno.test("a take-back whose delete met an old client's write committed in its place, leaves no note: nothing is left of its window", async () => {
  const store = new InMemoryStore({ versionFromBytes: true });
  // An old client writes the path and its entry in the take-back's window.
  const racing = ownDeleteHooked(store, PATH, async (landDelete) => {
    await peerPush(store, { [PATH]: "old client's\n" });
    return await landDelete();
  });
  const a = await clone(racing.store, "a");
  const v = await createAnswerLost(store, a, PATH, "x\n");
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  racing.arm(v);
  const r0 = await a.pushChanged({ only: [PATH] });
  assert.ok(!racing.armed(), "the old client wrote in the take-back's window");
  // Never synced here, the deletion gives way to the old client's newer write.
  assert.deepEqual(r0.conflicts, []);
  assert.equal(store.peekText(PATH), "old client's\n");
  assert.equal(store.peek(await withdrawalKey(PATH)), undefined, "the note outlived the take-back");
});

Deno.test("a take-back of an update whose delete met an old client's write committed in its place, a conflict, leaves no note either", async () => {
  const store = new InMemoryStore({ versionFromBytes: true });
  const racing = ownDeleteHooked(store, PATH, async (landDelete) => {
    await peerPush(store, { [PATH]: "old client's\n" });
    return await landDelete();
  });
  const a = await clone(racing.store, "a");
  await put(a, PATH, "one\n");
  await a.pushChanged();
  const v = await createAnswerLost(store, a, PATH, "x\n");
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  racing.arm(v);
  const r = await a.pushChanged({ only: [PATH] });
  assert.ok(!racing.armed(), "the old client wrote in the take-back's window");
  assert.deepEqual(r.conflicts, [PATH], "the deletion meets the old client's write");
  assert.equal(store.peekText(PATH), "old client's\n");
  assert.equal(store.peek(await withdrawalKey(PATH)), undefined, "the note outlived the take-back");
});
