/**
 * This cache's own new file whose commit landed with its answer lost, then
 * deleted here: the push takes the entry naming it out, then deletes the
 * object. A peer that synced that version pulls in between, takes the entry
 * for one another client dropped and names it again; its commit lands before
 * the delete, and it finds the object gone right after (the delete landed in
 * between), so it puts its copy back and names that. The deletion must not
 * be reported done, silently, while the index names the file again: the
 * next pull here would bring the deleted file back.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import {
  clone,
  createAnswerLost,
  isIndexKey,
  ownDeleteHooked,
  put,
  quick,
  read,
} from "./clone_kit.ts";

const PATH = "notes/n.md";

/** A promise with its resolver. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

for (const edits of [false, true]) {
  Deno.test(`an own new file whose commit answer was lost, deleted here while a peer names it again and ${edits ? "commits an edit of it before the delete" : "puts its copy back over the delete"}: the deletion is not reported done while the index names the file`, async () => {
    const base = new InMemoryStore();
    // The peer's view: once armed, its first look at PATH after its index
    // write waits until the gate opens (the own write's delete landed).
    let gateArmed = false;
    let written = false;
    const atGate = signal();
    const open = signal();
    const peerStore = new Proxy(base, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (prop === "put") {
          return async (...args: unknown[]) => {
            const r = await value.apply(target, args);
            if (gateArmed && isIndexKey(args[0] as string)) written = true;
            return r;
          };
        }
        if (prop === "head") {
          return async (...args: unknown[]) => {
            if (gateArmed && written && args[0] === PATH) {
              gateArmed = false;
              atGate.resolve();
              await open.promise;
            }
            return await value.apply(target, args);
          };
        }
        return value.bind(target);
      },
    }) as InMemoryStore;
    const b = await clone(peerStore, "b");
    let peerPush: Promise<unknown> | undefined;
    const ownDelete = ownDeleteHooked(base, PATH, async (landDelete) => {
      await b.pullChanged();
      if (edits) {
        await put(b, PATH, "three");
        peerPush = b.pushChanged();
        await peerPush;
        return await landDelete();
      }
      gateArmed = true;
      peerPush = b.pushChanged();
      await atGate.promise;
      const r = await landDelete();
      open.resolve();
      await peerPush;
      return r;
    });
    const a = await clone(ownDelete.store, "a");
    await put(a, "other.md", "beside");
    await a.pushChanged();
    const own = await createAnswerLost(base, a, PATH, "two");
    await b.pullChanged();
    assert.equal(await read(b, PATH), "two", "the peer synced the own write");
    await Deno.remove(`${a.cacheDir}/${PATH}`);
    await a.markDirty({ relPath: PATH });
    ownDelete.arm(own);
    const result = await a.pushChanged();
    assert.ok(peerPush, "the peer pushed between the entry's removal and the delete");
    const named = (await readIndex(base, quick.retry))?.entries[PATH];
    if (named !== undefined) {
      // The peer's copy is named again: a conflict here, never a deletion done.
      assert.ok(
        result.conflicts.includes(PATH),
        `the index names ${PATH} again (${named.v}), and the push reported ${
          JSON.stringify(result.strandedChecks)
        } with no conflict`,
      );
    }
    if (result.conflicts.includes(PATH)) {
      // Kept as a conflict with the peer's copy: --mine deletes it over that.
      const r = await a.resolveConflict(PATH, "mine");
      assert.equal(r.resolved, true, JSON.stringify(r));
    }
    await a.pullChanged();
    assert.equal(await read(a, PATH), undefined, "the deleted file came back here");
    const fresh = await clone(base, "c");
    await fresh.pullChanged();
    assert.equal(await read(fresh, PATH), undefined, "the deleted file is published");
    assert.equal(await read(fresh, "other.md"), "beside");
  });
}
