import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { sha256Hex } from "../hash.ts";
import { PutModes } from "../ports.ts";
import { putBackAndName, replaceAndName } from "./put_back.ts";
import { readIndex, updateIndex } from "./remote_index.ts";

const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const enc = (s: string) => new TextEncoder().encode(s);
const P = "data/t/m/d/1/raw";

/** `P` committed with "same", then its object deleted: the entry names a gone version. */
async function gone() {
  const store = new InMemoryStore();
  const h = await sha256Hex(enc("same"));
  const v = (await store.put(P, enc("same"), PutModes.create)).version;
  await updateIndex(store, { set: { [P]: { v, h, s: 4 } }, remove: [] }, NO_RETRY);
  await store.delete(P);
  return { store, named: { v, h } };
}

Deno.test("putBackAndName creates the object again and names it in place of the gone one", async () => {
  const { store, named } = await gone();
  const r = await putBackAndName(store, P, enc("same"), named, {
    retry: NO_RETRY,
    metadata: { "sluice-writer": "w1" },
  });
  assert.equal(r.kind, "named");
  const held = (await store.head(P))!;
  assert.equal((await readIndex(store, NO_RETRY))!.entries[P].v, held.version);
  assert.equal(held.metadata?.["sluice-writer"], "w1");
});

Deno.test("putBackAndName names the same bytes put back first, and leaves other bytes to their writer", async () => {
  const same = await gone();
  const first = await same.store.put(P, enc("same"), PutModes.create);
  const r = await putBackAndName(same.store, P, enc("same"), same.named, { retry: NO_RETRY });
  assert.deepEqual(r, { kind: "named", version: first.version });
  const other = await gone();
  await other.store.put(P, enc("other"), PutModes.create);
  const o = await putBackAndName(other.store, P, enc("same"), other.named, { retry: NO_RETRY });
  assert.deepEqual(o, { kind: "other" });
  assert.equal((await readIndex(other.store, NO_RETRY))!.entries[P].v, other.named.v, "untouched");
});

Deno.test("putBackAndName leaves a deletion committed since standing, and its own object gone", async () => {
  const { store, named } = await gone();
  await updateIndex(store, { set: {}, remove: [P] }, NO_RETRY);
  const r = await putBackAndName(store, P, enc("same"), named, { retry: NO_RETRY });
  assert.deepEqual(r, { kind: "overtaken", theirs: null });
  assert.equal((await readIndex(store, NO_RETRY))?.entries[P], undefined);
  assert.equal(await store.head(P), null);
});

/** `gone()`, then an upload of other bytes in place of the committed object (returned). */
async function uploadOver() {
  const g = await gone();
  const upload = (await g.store.put(P, enc("upload"), PutModes.create)).version;
  g.store.resetLog();
  return { ...g, upload };
}

Deno.test("replaceAndName writes the committed bytes over the upload, never leaving the path empty, and names them", async () => {
  const { store, named, upload } = await uploadOver();
  const r = await replaceAndName(store, P, upload, enc("same"), named, {
    retry: NO_RETRY,
    metadata: { "sluice-writer": "w1" },
  });
  const held = (await store.head(P))!;
  assert.deepEqual(r, { kind: "named", version: held.version });
  assert.equal(store.peekText(P), "same");
  assert.equal(held.metadata?.["sluice-writer"], "w1");
  assert.equal((await readIndex(store, NO_RETRY))!.entries[P].v, held.version);
  assert.ok(!store.log.some((l) => l.op === "delete" && l.key === P), "never deleted");
});

Deno.test("replaceAndName changes nothing once the upload is gone or replaced", async () => {
  const replaced = await uploadOver();
  await replaced.store.put(P, enc("a peer's"), PutModes.overwrite);
  const r = await replaceAndName(replaced.store, P, replaced.upload, enc("same"), replaced.named, {
    retry: NO_RETRY,
  });
  assert.equal(r, null);
  assert.equal(replaced.store.peekText(P), "a peer's");
  const deleted = await uploadOver();
  await deleted.store.delete(P);
  const d = await replaceAndName(deleted.store, P, deleted.upload, enc("same"), deleted.named, {
    retry: NO_RETRY,
  });
  assert.equal(d, null);
  assert.equal(await deleted.store.head(P), null);
  assert.equal((await readIndex(deleted.store, NO_RETRY))!.entries[P].v, deleted.named.v);
});

Deno.test("replaceAndName takes a write that landed with its answer lost as made, and names it", async () => {
  const { store, named, upload } = await uploadOver();
  store.failNext("put", 1, undefined, { afterEffect: true, match: (k) => k === P });
  const r = await replaceAndName(store, P, upload, enc("same"), named, { retry: NO_RETRY });
  const held = (await store.head(P))!;
  assert.deepEqual(r, { kind: "named", version: held.version });
  assert.equal(store.peekText(P), "same");
  assert.equal((await readIndex(store, NO_RETRY))!.entries[P].v, held.version);
});

Deno.test("replaceAndName leaves the upload, and its bytes, where a commit since named it (a peer's write of the same bytes)", async () => {
  const { store, named, upload } = await uploadOver();
  // A peer's write of the upload's very bytes counts as made and is
  // committed, naming the upload in place of the version the caller read.
  const h = await sha256Hex(enc("upload"));
  await updateIndex(store, {
    set: { [P]: { v: upload, h, s: 6 } },
    remove: [],
    base: { [P]: named.v },
    baseGone: [P],
  }, NO_RETRY);
  const r = await replaceAndName(store, P, upload, enc("same"), named, { retry: NO_RETRY });
  assert.equal(r?.kind === "named", false, JSON.stringify(r));
  const entry = (await readIndex(store, NO_RETRY))!.entries[P];
  assert.equal(store.peekText(P), "upload", "the committed bytes stay readable");
  assert.equal(entry.v, (await store.head(P))?.version, "the index names what the store holds");
  assert.equal(entry.h, h);
});

Deno.test("replaceAndName leaves no upload behind where a deletion was committed since", async () => {
  const { store, named, upload } = await uploadOver();
  await updateIndex(store, { set: {}, remove: [P] }, NO_RETRY);
  const r = await replaceAndName(store, P, upload, enc("same"), named, { retry: NO_RETRY });
  assert.deepEqual(r, { kind: "overtaken", theirs: null });
  assert.equal((await readIndex(store, NO_RETRY))?.entries[P], undefined);
  assert.equal(await store.head(P), null, "the path is left empty, as the deletion has it");
});
