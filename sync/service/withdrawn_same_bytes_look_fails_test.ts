/**
 * On a store whose versions are the bytes' (S3 ETags): a file created here
 * whose push commit landed with its answer lost, then deleted here. The
 * push takes the entry naming that write out, then deletes the object. A
 * peer that synced the write pulls in between, finds the entry gone with
 * the object there, and names it again as an entry another client dropped;
 * once the delete landed, the peer puts its copy back over it, the same
 * bytes, so the same version the take-back deleted. The push's read after
 * its delete meets the entry naming that version and the store holding it
 * again: that is the peer's copy, not this cache's write, and the local
 * deletion did not take effect. The push must keep it as a conflict with
 * the peer's version, never report its upload withdrawn while the index
 * names the path (chaos seed 234400244, I32). Nor when the look at what the
 * store holds there fails.
 */
import assert from "node:assert/strict";
import type { InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { clone, quick, read } from "./clone_kit.ts";
import { NOTE, PATH, putBackOverTakeBack } from "./withdrawn_same_bytes_kit.ts";

Deno.test("etag versions: a take-back whose look at a peer's copy put back over its delete fails is never reported done while the index names the path", async () => {
  // Once the take-back's note is cleared, the second look at the path (the
  // one after the index is read again) fails.
  let noted = false;
  let looks = 0;
  const failing = (inner: InMemoryStore) =>
    new Proxy(inner, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === "delete") {
          return async (key: string, ...rest: unknown[]) => {
            const r = await value.call(target, key, ...rest);
            if (key.startsWith(NOTE)) noted = true;
            return r;
          };
        }
        if (prop === "head") {
          return async (key: string, ...rest: unknown[]) => {
            if (noted && key === PATH && ++looks === 2) throw new Error("the datastore went away");
            return await value.call(target, key, ...rest);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as InMemoryStore;
  const { store, a, v, steps } = await putBackOverTakeBack(failing);
  const r = await a.pushChanged().catch((e: Error) => e);
  assert.equal(looks, 2, "the look after the index read again failed");
  assert.deepEqual(steps, ["b named a's write again"]);
  assert.equal((await store.head(PATH))?.version, v, "b's copy is back, at a's version");
  const theirs = (await readIndex(store, quick.retry))?.entries[PATH];
  assert.equal(theirs?.v, v, "the index names b's copy");
  // Failed, or the deletion kept as a conflict: never a withdrawal done.
  if (!(r instanceof Error)) {
    assert.deepEqual(r.conflicts, [PATH], `reported done: ${JSON.stringify(r)}`);
  }
  assert.equal(await read(a, PATH), undefined, "the local deletion stands");
  // The next push, the store answering again, never leaves the path unresolved.
  noted = false;
  const again = await a.pushChanged();
  const open = a.conflicts().map((x) => x.path);
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  if ((await read(fresh, PATH)) !== undefined) {
    assert.deepEqual(open, [PATH], `the path is back on the datastore: ${JSON.stringify(again)}`);
  }
});
