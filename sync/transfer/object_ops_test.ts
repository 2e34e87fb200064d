import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";
import { sha256Hex } from "../hash.ts";
import { NotFoundError } from "../errors.ts";
import { deleteAt, hashObject } from "./object_ops.ts";

const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("deleteAt deletes only the version named; false for another one or nothing", async () => {
  const store = new InMemoryStore();
  const v1 = await store.put("a.txt", bytes("1"), PutModes.overwrite);
  const v2 = await store.put("a.txt", bytes("2"), PutModes.overwrite);
  assert.equal(await deleteAt(store, "a.txt", v1.version, { retry }), false);
  assert.equal(store.peekText("a.txt"), "2");
  assert.equal(await deleteAt(store, "a.txt", v2.version, { retry }), true);
  assert.equal(await deleteAt(store, "a.txt", v2.version, { retry }), false);
});

Deno.test("hashObject hashes a streamed read; absent is NotFoundError", async () => {
  const store = new InMemoryStore();
  const info = await store.put("big.bin", bytes("x".repeat(5000)), PutModes.overwrite);
  const got = await hashObject(store, "big.bin", { retry });
  assert.equal(got.hash, await sha256Hex(bytes("x".repeat(5000))));
  assert.equal(got.info.version, info.version);
  assert.equal(store.streamedGets, 1);
  await assert.rejects(hashObject(store, "none", { retry }), NotFoundError);
});
