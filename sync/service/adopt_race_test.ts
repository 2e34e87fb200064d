/**
 * A writer that was not gone after all: a peer adopts its stranded upload
 * of a new file (`adoptUncommitted`) while the writer, whose user deleted
 * the file meanwhile, deletes that upload as its own. Whichever lands last,
 * the index must not be left naming an object the store no longer holds
 * (chaos seed 52400079, I7/I8): the writer reads the index again after its
 * delete, the adopter looks at the object again after its commit, and the
 * one that sees the other's step takes the entry out. Should that read fail
 * too (an outage at that very step), the writer's next push takes the entry
 * out: the upload was recorded as synced before its delete, so that push
 * finds a deletion of it to finish.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { assertIndexCurrent, clone, isIndexKey, put, quick, read } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";

const P = "notes/n.md";

/**
 * `a` (over `aStore`) pushes the new file `P`, its commit cut off, and then
 * its user deletes it; `b` (over `bStore`) holds its own copy, waiting on
 * `a`'s upload.
 */
async function stranded(store: InMemoryStore, aStore = store, bStore = store) {
  const a = await clone(aStore, "a");
  const b = await clone(bStore, "b");
  await put(a, P, "a's, never committed");
  store.failNext("get", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.equal(store.peekText(P), "a's, never committed");
  await Deno.remove(`${a.cacheDir}/${P}`);
  await put(b, P, "b's");
  return { a, b };
}

/** No entry names a dead object, and `P` is named by none (the writer's deletion stands). */
async function assertSettled(store: InMemoryStore) {
  await assertIndexCurrent(store, { held: true });
  assert.equal((await readIndex(store, quick.retry))?.entries[P], undefined);
  assert.equal(store.peek(P), undefined, "the writer's upload is gone");
}

/**
 * The stranded upload of {@link stranded}, with `b`'s adoption push run
 * in full just before `a`'s delete of it lands; then `afterAdoption`.
 */
async function adoptedBeforeDelete(
  store: InMemoryStore,
  afterAdoption: () => Promise<void> | void,
) {
  const peer: { b?: SyncService } = {};
  const race: { adopted?: Promise<unknown> } = {};
  const aStore = hookedStore(store, {
    beforeDelete: async (key) => {
      if (key !== P || race.adopted) return;
      race.adopted = peer.b!.pushChanged({ adoptUncommitted: [P] });
      await race.adopted;
      await afterAdoption();
    },
  });
  const both = await stranded(store, aStore);
  peer.b = both.b;
  return { ...both, race };
}

Deno.test("the adopter commits between the writer's look at the index and its delete: the writer takes the entry out", async () => {
  const store = new InMemoryStore();
  const { a, race } = await adoptedBeforeDelete(store, async () => {
    assert.ok((await readIndex(store, quick.retry))?.entries[P], "b published a's upload");
  });
  await a.pushChanged();
  assert.ok(race.adopted, "the race was run");
  await assertSettled(store);
});

Deno.test("the writer deletes between the adopter's look at the object and its commit: the adopter takes the entry out", async () => {
  const store = new InMemoryStore();
  const writer: { a?: SyncService } = {};
  let dropped: Promise<unknown> | undefined;
  const bStore = hookedStore(store, {
    before: async (key) => {
      if (!isIndexKey(key) || dropped) return;
      dropped = writer.a!.pushChanged();
      await dropped;
      assert.equal(store.peek(P), undefined, "a deleted its upload");
    },
  });
  const both = await stranded(store, store, bStore);
  writer.a = both.a;
  const warnings: string[] = [];
  both.b.events.on("warning", (w) => warnings.push(w.message));
  const r = await both.b.pushChanged({ adoptUncommitted: [P] });
  assert.ok(dropped, "the race was run");
  await assertSettled(store);
  assert.deepEqual(r.conflicts, [], "no conflict with an object that is gone");
  // b's own copy is still there to push: nothing of it was lost.
  await both.b.pushChanged();
  assert.equal(store.peekText(P), "b's");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("the writer's read of the index after its delete cut off too: the writer's next push takes the entry out", async () => {
  const store = new InMemoryStore();
  const { a } = await adoptedBeforeDelete(store, () => {
    store.failNext("get", 1, () => new UnreachableError("cut off"), { match: isIndexKey });
  });
  await assert.rejects(a.pushChanged(), /could not be reached/);
  assert.ok((await readIndex(store, quick.retry))?.entries[P], "left naming the gone object");
  await a.pushChanged();
  await assertSettled(store);
  const c = await clone(store, "c");
  await c.pullChanged();
  assert.equal(await read(c, P), undefined);
});
