/**
 * An update of a synced file whose commit landed with its answer lost, then
 * replaced here by a directory of its name: the push of that name takes the
 * entry naming this cache's own write out first, then deletes the object.
 * Cut off between the two, the upload stands named by no index; a pull then
 * finds the entry gone and forgets the file as synced, so the next push of
 * the name (a directory now, no file to check) must still find that upload
 * and delete it, or it stays on the store for good (chaos seed 178300155,
 * I11).
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { META_KEY } from "../transfer/bucket_layout.ts";
import {
  clone,
  createAnswerLost,
  isIndexKey,
  put,
  quick,
  read,
  updateAnswerLost,
  v2Store,
} from "./clone_kit.ts";

const PATH = "notes/n.md";

/** Keys the store holds under `notes/`. */
async function keysUnder(store: InMemoryStore): Promise<string[]> {
  const out: string[] = [];
  for await (const page of store.list("notes/")) out.push(...page.map((o) => o.key));
  return out.sort();
}

for (const v2 of [false, true]) {
  Deno.test(`${v2 ? "v2" : "v1"}: an update whose commit answer was lost, replaced here by a directory, its object's delete cut off after the entry went: the sync after deletes the upload`, async () => {
    const base = v2 ? await v2Store() : new InMemoryStore();
    // Armed: the first index write that lands cuts off the next delete of PATH.
    let armed = false;
    const store = hookedStore(base, {
      after: (key) => {
        if (!armed || !isIndexKey(key) || key === META_KEY && !v2) return;
        armed = false;
        base.failNext("delete", 1, () => new UnreachableError("cut off"), {
          match: (k) => k === PATH,
        });
      },
    });
    const first = await clone(store, "a");
    await put(first, PATH, "one");
    await first.pushChanged();
    const own = v2
      ? await updateAnswerLost(base, first, PATH, "two")
      : await createAnswerLost(base, first, PATH, "two");
    assert.notEqual(first.state.synced(PATH)?.version, own, "never recorded as synced");
    await Deno.remove(`${first.cacheDir}/${PATH}`);
    await put(first, `${PATH}/x.md`, "under a directory now", false);
    await first.markDirty({ relPath: PATH });
    armed = true;
    await assert.rejects(first.pushChanged(), /could not be reached/);
    assert.equal(
      (await readIndex(store, quick.retry))?.entries[PATH],
      undefined,
      "the entry naming the own write went first",
    );
    assert.equal((await store.head(PATH))?.version, own, "its object's delete was cut off");
    // The process is gone; the next one over the cache syncs: a pull, then a push.
    const a = await clone(store, "a", first.cacheDir);
    await a.pullChanged();
    await a.pushChanged();
    assert.deepEqual(
      await keysUnder(store),
      [`${PATH}/x.md`],
      "no upload of this cache's left at the file's name, named by no index",
    );
    assert.deepEqual(Object.keys((await readIndex(store, quick.retry))?.entries ?? {}), [
      `${PATH}/x.md`,
    ]);
    assert.deepEqual(a.state.dirtyPaths(), [], "nothing left to push");
    assert.deepEqual(a.state.attemptedPaths(), [], "nothing left to check");
    const b = await clone(store, "b");
    await b.pullChanged();
    assert.equal(await read(b, `${PATH}/x.md`), "under a directory now");
  });
}
