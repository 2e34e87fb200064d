/**
 * Shared setup of the tests of a peer's copy put back, the same bytes, over
 * this cache's take-back of its unanswered create, on a store whose versions
 * are the bytes' (S3 ETags). Cache `a` created PATH, its push commit landed
 * with its answer lost; peer `b` synced that write; then `a` deleted PATH
 * here. Once `a`'s next push takes the entry out, `b` pulls and pushes,
 * naming the object again as an entry another client dropped, and, once
 * `a`'s delete landed, puts its copy back over it.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, createAnswerLost, isIndexKey, quick } from "./clone_kit.ts";
import { MONOLITH_KEY } from "../transfer/bucket_layout.ts";

export const PATH = "config/settings-0.yaml";
export const NOTE = "_control/.sluice/withdrawn/";

/** A promise and its resolution. */
function gate(): { open: () => void; passed: Promise<void> } {
  let open = () => {};
  const passed = new Promise<void>((resolve) => open = resolve);
  return { open, passed };
}

/**
 * The two caches, `a`'s deletion of PATH marked and not yet pushed; `wrap`
 * wraps the store `a` sees. `v` is the version of `a`'s write; `steps` says
 * when `b` named it again.
 */
export async function putBackOverTakeBack(
  wrap: (store: InMemoryStore) => InMemoryStore = (store) => store,
) {
  const store = new InMemoryStore({ versionFromBytes: true });
  const steps: string[] = [];
  // b's index write naming a's write again has landed.
  const named = gate();
  // a's delete of its write has landed.
  const deleted = gate();
  let bSync: Promise<void> | undefined;
  let watching = false;
  const a = await clone(
    wrap(hookedStore(store, {
      beforeDelete: async (key) => {
        if (key === PATH && !bSync) {
          // The entry is out, the object still there: b's sync takes it
          // for an entry another client dropped, and names it again.
          watching = true;
          bSync = (async () => {
            await b.pullChanged();
            await b.pushChanged();
          })();
          await named.passed;
        } else if (key.startsWith(NOTE) && bSync) {
          // a's delete landed; b goes on and finds its copy gone.
          deleted.open();
          await bSync;
        }
      },
    })),
    "a",
  );
  const b = await clone(
    hookedStore(store, {
      after: async (key) => {
        if (!watching || !isIndexKey(key)) return;
        watching = false;
        assert.equal((await readIndex(store, quick.retry))?.entries[PATH]?.v, v);
        steps.push("b named a's write again");
        named.open();
        await deleted.passed;
      },
    }),
    "b",
  );
  const v = await createAnswerLost(store, a, PATH, "a's settings", MONOLITH_KEY);
  assert.equal(a.state.synced(PATH), undefined, "the answer was lost: never synced here");
  await b.pullChanged();
  assert.equal(b.state.synced(PATH)?.version, v, "b synced a's write");

  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  return { store, a, b, v, steps };
}
