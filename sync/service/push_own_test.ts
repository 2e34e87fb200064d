import assert from "node:assert/strict";
import { pushOwnership } from "./push_own.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import type { WriteContext } from "../context.ts";
import type { ObjectInfo } from "../ports.ts";

/** A cache's state files holding `id` as its writer id (none where null), counting the reads. */
function cacheWith(id: string | null) {
  let reads = 0;
  return {
    reads: () => reads,
    cache: {
      readState: <T>(_name: string) => {
        reads++;
        return Promise.resolve((id === null ? null : { id }) as T | null);
      },
      writeState: () => Promise.resolve(),
    },
  };
}

function write(outcome: WriteContext["outcome"], by?: string): WriteContext {
  return { outcome, metadata: by ? { [WRITER_METADATA]: by } : {} } as unknown as WriteContext;
}

function object(by?: string): ObjectInfo {
  return { version: "v1", metadata: by ? { [WRITER_METADATA]: by } : {} } as unknown as ObjectInfo;
}

Deno.test("push ownership: the writer id is read once for the whole push", async () => {
  const c = cacheWith("w1");
  const own = pushOwnership(c.cache);
  assert.equal(await own.ownWriter(), "w1");
  assert.equal(await own.ownWriter(), "w1");
  await own.ownOf(write("written", "w1"), object());
  assert.equal(c.reads(), 1);
});

Deno.test("push ownership: a write this cache made is its own, by the metadata it wrote", async () => {
  const own = pushOwnership(cacheWith("w1").cache);
  assert.deepEqual(await own.ownOf(write("written", "w1"), object("w2")), { own: "w1" });
  assert.deepEqual(await own.ownOf(write("written", "w2"), object("w1")), {});
});

Deno.test("push ownership: bytes found in place are its own only where the object carries its id", async () => {
  const own = pushOwnership(cacheWith("w1").cache);
  assert.deepEqual(await own.ownOf(write("identical", "w1"), object("w1")), { own: "w1" });
  assert.deepEqual(await own.ownOf(write("identical", "w1"), object("w2")), {});
  assert.deepEqual(await own.ownOf(write("identical", "w1"), object()), {});
});

Deno.test("push ownership: a cache with no writer id owns nothing", async () => {
  const own = pushOwnership(cacheWith(null).cache);
  assert.equal(await own.ownWriter(), null);
  assert.deepEqual(await own.ownOf(write("written"), object()), {});
});
