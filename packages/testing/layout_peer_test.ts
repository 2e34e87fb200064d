import assert from "node:assert/strict";
import { UnreachableError } from "../../sync/errors.ts";
import { InMemoryStore } from "./in_memory_store.ts";
import { peerPull, peerPush, peerReadIndex } from "./layout_peer.ts";

/**
 * A v1 bucket naming `notes/gone.txt`, whose object is gone, and
 * `logs/a.log`: a pull drops the first and writes the index back.
 */
async function bucketMissingAnObject(): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  await peerPush(store, { "notes/gone.txt": "gone\n", "logs/a.log": "a\n" }, { now: () => 0 });
  await store.delete("notes/gone.txt");
  return store;
}

Deno.test("peerPull: afterWrite is given the entries it wrote once its write landed", async () => {
  const store = await bucketMissingAnObject();
  const wrote: string[][] = [];
  const dropped = await peerPull(store, {
    afterWrite: (entries) => {
      wrote.push(Object.keys(entries));
      return Promise.resolve();
    },
  });
  assert.deepEqual(dropped, ["notes/gone.txt"]);
  assert.deepEqual(wrote, [["logs/a.log"]]);
});

Deno.test("peerPull: a write that landed with its answer lost still runs afterWrite, then fails", async () => {
  const store = await bucketMissingAnObject();
  const wrote: string[][] = [];
  await assert.rejects(
    peerPull(store, {
      afterRead: async () => {
        // Another client commits between the pull's read and its write,
        // and the write's answer is lost once it lands.
        await peerPush(store, { "logs/b.log": "b\n" }, { now: () => 0 });
        store.failNext("put", 1, () => new UnreachableError("answer lost"), { afterEffect: true });
      },
      afterWrite: (entries) => {
        wrote.push(Object.keys(entries));
        return Promise.resolve();
      },
    }),
    UnreachableError,
  );
  assert.deepEqual(Object.keys(await peerReadIndex(store)), ["logs/a.log"], "b's commit dropped");
  assert.deepEqual(wrote, [["logs/a.log"]], "the caller learns what the write may have dropped");
});
