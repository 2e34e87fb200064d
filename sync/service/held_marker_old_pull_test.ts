/**
 * As `held_marker_over_test.ts`, beside an old client's pull: it rewrites
 * the v1 index with no lock, dropping the entry of each object it finds
 * gone. Its look at the marker falls within the put-back of the committed
 * marker in place of the refused run's upload: the committed marker must
 * not be lost from the store and the index for good.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore, peerPull } from "../../packages/testing/mod.ts";
import { ErasureRefusedError } from "../../middleware/erasure.ts";
import { acquireModelLocks, globalLockKey, modelLockKey } from "../locks/model_locks.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { assertIndexCurrent, clone, put, quick, read } from "./clone_kit.ts";

import {
  MARKER,
  META,
  MODEL,
  othersUpload,
  publishVersionOne,
  RAW,
  V2,
} from "./held_marker_kit.ts";

for (const globalLock of [false, true]) {
  const how = globalLock ? "under the global lock" : "without the global lock";
  Deno.test(`${how}: an old client's pull during the put-back of the committed marker over a refused run's upload loses no committed marker`, async () => {
    const store = new InMemoryStore();
    let step: "off" | "fence" | "put-back" = "off";
    let pulled: string[] | undefined;
    let lockHeld: boolean | undefined;
    const a = await clone(
      hookedStore(store, {
        before: async (key) => {
          if (key !== MARKER) return;
          if (step === "fence") {
            // The commit's fence has passed; the marker is about to be written.
            step = "put-back";
            await store.delete(META);
            await store.delete(modelLockKey(MODEL)); // the breakglass
          } else if (step === "put-back") {
            // The refusal's write of the committed marker: the old client's pull looks now.
            step = "off";
            lockHeld = store.peek(globalLockKey()) !== undefined;
            pulled = await peerPull(store);
          }
        },
      }),
      "a",
    );
    const committed = await publishVersionOne(store, a);
    await othersUpload(store, META);
    step = "fence";
    const set = await acquireModelLocks(a, [MODEL]);
    await put(a, META, "same output");
    await put(a, RAW, "a's raw");
    await put(a, MARKER, "2");
    const lock = globalLock
      ? { globalLock: a.lockBackend!.createLock(globalLockKey(), a.identity) }
      : {};
    const error = await set.push([V2], lock).then(() => undefined, (e) => e);
    await set.release();
    assert.ok(error instanceof ErasureRefusedError, String(error));
    if (globalLock) assert.equal(lockHeld, true, "the put-back is made under the global lock");
    assert.ok(pulled !== undefined, "the old client pulled");
    // The committed marker is on the store, named by the index: at once,
    // or once the pulls and the push after it name it again.
    await a.pullChanged();
    await a.pushChanged().catch(() => undefined);
    assert.equal(store.peekText(MARKER), "1", `the old pull dropped ${pulled}`);
    const named = (await readIndex(store, quick.retry))!.entries[MARKER];
    assert.equal(named?.h, committed.h);
    assert.equal(named.v, (await store.head(MARKER))!.version);
    await assertIndexCurrent(store, { held: true });
    const fresh = await clone(store, "fresh");
    await fresh.pullChanged();
    assert.equal(await read(fresh, MARKER), "1");
    assert.equal(await read(a, MARKER), "2", "the run's marker stays here, held");
  });
}
