import assert from "node:assert/strict";
import { InMemoryStore, mockPushContext } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";
import { sha256Hex } from "../sync/hash.ts";
import { keepUnindexedAbove } from "./unindexed_ahead.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

Deno.test("keepUnindexedAbove keeps the versions above the lost one that no index names, never an indexed one or one below", async () => {
  const store = new InMemoryStore();
  const m = await mockPushContext({ store });
  const data = "data/t/m/out";
  // The index first (a first index names every object it finds), then uploads it does not name.
  const named = await store.put(`${data}/5/raw`, bytes("v5"), PutModes.create);
  await updateIndex(store, {
    set: { [`${data}/5/raw`]: { v: named.version, h: await sha256Hex(bytes("v5")), s: 2 } },
    remove: [],
  }, retry);
  for (const v of [1, 3, 4, 6]) {
    await store.put(`${data}/${v}/raw`, bytes(`v${v}`), PutModes.create);
  }
  await store.put(`${data}/latest`, bytes("6"), PutModes.overwrite);
  await m.cache.write(`${data}/4/raw`, bytes("here"));
  assert.deepEqual(await keepUnindexedAbove(m.ctx, `${data}/2`), [`${data}/3`, `${data}/6`]);
  assert.ok(Deno.statSync(`${m.cache.dir}/${data}/3`).isDirectory);
  assert.equal(new TextDecoder().decode((await m.cache.read(`${data}/4/raw`))!), "here");
  assert.throws(() => Deno.statSync(`${m.cache.dir}/${data}/5`), "indexed: a pull brings it");
  // A listing that fails keeps nothing, and says nothing more.
  store.failNext("list", 1, () => new Error("down"));
  assert.deepEqual(await keepUnindexedAbove(m.ctx, `${data}/5`), []);
  assert.deepEqual(await keepUnindexedAbove(m.ctx, "data/t/m/out/latest"), []);
});
