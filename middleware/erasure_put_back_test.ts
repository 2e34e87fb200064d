/**
 * putBackErased: which bytes an erasure puts back where a peer's entry names
 * them, and where it writes nothing.
 */
import assert from "node:assert/strict";
import { FakeClock, InMemoryStore } from "../packages/testing/mod.ts";
import { sha256Hex } from "../sync/hash.ts";
import { PutModes } from "../sync/ports.ts";
import { MONOLITH_KEY } from "../sync/transfer/bucket_layout.ts";
import { updateIndex } from "../sync/transfer/remote_index.ts";
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

Deno.test("erasure put-back: the entry naming the bytes put back is timed by the clock given", async () => {
  const store = new InMemoryStore();
  const bytes = enc("run output");
  const entry = { v: "", h: await sha256Hex(bytes), s: bytes.length };
  const gone = await store.put(PATH, bytes, PutModes.create);
  entry.v = gone.version;
  const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
  await updateIndex(store, { set: { [PATH]: entry }, remove: [] }, retry);
  await store.delete(PATH);
  const clock = new FakeClock();
  const up = { path: PATH, version: gone.version };
  const ok = await putBackErased(
    store,
    up,
    entry,
    () => Promise.resolve(bytes),
    undefined,
    1,
    () => clock.now(),
  );
  assert.equal(ok, true);
  const named = JSON.parse(store.peekText(MONOLITH_KEY)!).entries[PATH];
  assert.equal(named.lastModified, new Date(clock.now()).toISOString());
});
