/**
 * A file created here whose push commit landed with its answer lost, then
 * deleted here: the push takes the entry naming that write out, then
 * deletes the object, then reads the index again and takes out an entry
 * naming the write again (a peer that synced it, pulling in between, named
 * it again as an entry another client dropped). When another peer commits
 * a file of its own at the path between that read and the removal's write,
 * the removal, refused and tried again, meets that peer's entry and leaves
 * it: the local deletion did not take effect, and the push must say so (a
 * conflict with that entry), as it does when the peer's commit lands just
 * before the read, never report the deletion done while the index names
 * the path (chaos seed 211800177, I32).
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { META_KEY, MONOLITH_KEY } from "../transfer/bucket_layout.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, createAnswerLost, isIndexKey, put, quick, read, v2Store } from "./clone_kit.ts";
import { oneShot } from "./unanswered_withdrawal_kit.ts";

const PATH = "notes/shared-0.md";

for (const v2 of [false, true]) {
  Deno.test(`${v2 ? "v2" : "v1"}: a peer's own file committed while this cache's take-back of its unanswered create removes the entry a second peer named again is met as a conflict, never a deletion done`, async () => {
    const store: InMemoryStore = v2 ? await v2Store() : new InMemoryStore();
    const steps: string[] = [];
    // Armed once a's delete of its own write is about to run.
    const beforeDelete = oneShot();
    // Armed once that delete landed: runs ahead of a's next index write.
    const beforeIndexPut = oneShot();
    const a = await clone(
      hookedStore(store, {
        beforeDelete: async (key) => {
          if (key === PATH) await beforeDelete.fire();
        },
        before: async (key) => {
          if (isIndexKey(key)) await beforeIndexPut.fire();
        },
      }),
      "a",
    );
    const b = await clone(store, "b");
    const c = await clone(store, "c");
    const v = await createAnswerLost(store, a, PATH, "a's file", v2 ? META_KEY : MONOLITH_KEY);
    assert.equal(a.state.synced(PATH), undefined, "the answer was lost: never synced here");
    await b.pullChanged();
    assert.equal(b.state.synced(PATH)?.version, v, "b synced a's write");

    beforeDelete.arm(async () => {
      // The entry is out, the object still there: b takes it for an entry
      // another client dropped, and names it again.
      await b.pullChanged();
      await b.pushChanged();
      assert.equal((await readIndex(store, quick.retry))?.entries[PATH]?.v, v);
      steps.push("b named a's write again");
      beforeIndexPut.arm(async () => {
        // a read the index after its delete (naming its write again) and is
        // about to take that entry out: c, which never saw the path,
        // creates a file of its own there and commits it first.
        await put(c, PATH, "c's own file");
        const pushed = await c.pushChanged();
        assert.deepEqual(pushed.uploaded, [PATH]);
        steps.push("c committed its own file");
      });
    });
    await Deno.remove(`${a.cacheDir}/${PATH}`);
    await a.markDirty({ relPath: PATH });
    const r = await a.pushChanged();
    assert.deepEqual(steps, ["b named a's write again", "c committed its own file"]);

    const theirs = (await readIndex(store, quick.retry))?.entries[PATH];
    assert.equal(theirs?.v, (await store.head(PATH))?.version, "the index names c's file");
    assert.notEqual(theirs?.v, v);
    assert.deepEqual(r.conflicts, [PATH], `the deletion did not take effect: ${JSON.stringify(r)}`);
    assert.deepEqual(a.conflicts().map((x) => [x.path, x.theirs?.version]), [[PATH, theirs?.v]]);
    assert.equal(await read(a, PATH), undefined, "the local deletion stands as a conflict");
    const fresh = await clone(store, "fresh");
    await fresh.pullChanged();
    assert.equal(await read(fresh, PATH), "c's own file");
  });
}
