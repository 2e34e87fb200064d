/**
 * A file created here whose commit landed with its answer lost, pulled and
 * edited by a peer, then deleted here, on a store whose deletes check the
 * version and then delete (MinIO's): a peer's edit landing between that
 * check and the delete is deleted with it (the endpoint's race), and is not
 * lost: the entry naming it stays, a pull past the grace records the object
 * lost, and the peer keeps its copy as a conflict and publishes it again.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { MONOLITH_KEY } from "../transfer/bucket_layout.ts";
import { PreconditionFailedError, UnreachableError } from "../errors.ts";
import type { DeleteOptions } from "../ports.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { assertIndexCurrent, clone, pastDanglingGrace, put, quick, read } from "./clone_kit.ts";

/** `store`, its deletes a check of the version, `between`, then a delete. */
function checkedDeletes(
  store: InMemoryStore,
  between: (key: string) => Promise<void>,
): InMemoryStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === "deletesChecked") return true;
      const value = Reflect.get(target, prop, target);
      if (prop !== "delete") return typeof value === "function" ? value.bind(target) : value;
      return async (key: string, options: DeleteOptions = {}) => {
        if (options.ifVersion !== undefined) {
          const cur = await target.head(key);
          if (!cur || cur.version !== options.ifVersion) {
            throw new PreconditionFailedError(key, "another version");
          }
          await between(key);
        }
        await target.delete(key, { ...options, ifVersion: undefined });
      };
    },
  }) as InMemoryStore;
}

Deno.test("a peer's edit a checked delete of this cache's committed-unanswered create removed in its window survives: the entry stays, and the peer keeps and republishes its copy", async () => {
  const store = new InMemoryStore();
  const path = "notes/new.txt";
  let between = async (_key: string) => {};
  const a = await clone(store, "a");
  await put(a, path, "one");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    afterEffect: true,
    match: (k) => k === MONOLITH_KEY,
  });
  await assert.rejects(a.pushChanged());
  assert.ok((await readIndex(store, quick.retry))?.entries[path], "the commit landed");
  const b = await clone(store, "b");
  await b.pullChanged();
  const a2 = await clone(checkedDeletes(store, (k) => between(k)), "a", a.cacheDir);
  await Deno.remove(`${a.cacheDir}/${path}`);
  await a2.markDirty({ relPath: path });
  between = async (key) => {
    if (key !== path) return;
    between = async () => {};
    // The peer's edit of the committed file lands between the check and the delete.
    await put(b, path, "b's edit");
    const pushed = await b.pushChanged();
    assert.deepEqual(pushed.uploaded, [path]);
  };
  await a2.pushChanged();
  // The delete removed b's edit in its window (the endpoint's race): the
  // entry naming it is kept, never taken out as a's own deletion.
  const entry = (await readIndex(store, quick.retry))?.entries[path];
  assert.equal(store.peekText(path), undefined);
  assert.ok(entry, "the entry naming b's edit stays");
  // A pull past the grace records the object as lost; b, holding the last
  // copy, keeps it as a conflict, and --mine publishes it again.
  const c = await clone(store, "c");
  await pastDanglingGrace(c);
  await c.pullChanged();
  const kept = await b.pullChanged();
  assert.deepEqual(kept.conflicts, [path]);
  assert.equal(await read(b, path), "b's edit");
  await b.resolveConflict(path, "mine");
  assert.equal(store.peekText(path), "b's edit");
  await assertIndexCurrent(store, { held: true });
});
