/**
 * putBackErased: which bytes an erasure puts back where a peer's entry names
 * them, and where it writes nothing.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { sha256Hex } from "../sync/hash.ts";
import { putBackErased } from "./erasure_put_back.ts";

const PATH = "data/t/m/out/1/raw";
const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("erasure put-back: an old client's entry naming these bytes gets them back where nothing is", async () => {
  const store = new InMemoryStore();
  const bytes = enc("run output");
  const entry = { v: "~old", h: await sha256Hex(bytes), s: bytes.length };
  const ok = await putBackErased(
    store,
    { path: PATH, version: "v1" },
    entry,
    () => Promise.resolve(bytes),
    undefined,
    1,
  );
  assert.equal(ok, true);
  assert.deepEqual((await store.get(PATH))?.body, bytes);
});

Deno.test("erasure put-back: other bytes than the entry names, or no local copy, are not put back", async () => {
  const store = new InMemoryStore();
  const entry = { v: "~old", h: await sha256Hex(enc("theirs")), s: 6 };
  const up = { path: PATH, version: "v1" };
  assert.equal(
    await putBackErased(store, up, entry, () => Promise.resolve(enc("mine")), undefined, 1),
    false,
  );
  assert.equal(
    await putBackErased(store, up, entry, () => Promise.resolve(null), undefined, 1),
    false,
  );
  assert.equal(await store.head(PATH), null);
});
