/** The helpers `erasure_steps_kit.ts` gives the tests of `deleteUploads`. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { enc, etagStore, onceAt, uploadAsMe } from "./erasure_steps_kit.ts";

Deno.test("uploadAsMe writes the bytes with writer id 'me' and returns the object's version", async () => {
  const store = new InMemoryStore();
  const info = await uploadAsMe(store, "data/x", "hello");
  assert.equal(store.peekText("data/x"), "hello");
  const head = await store.head("data/x");
  assert.ok(head);
  assert.equal(head.version, info.version);
  assert.equal(head.metadata?.["sluice-writer"], "me");
});

Deno.test("onceAt runs its step once, only for its path", async () => {
  let runs = 0;
  const hook = onceAt("p", () => Promise.resolve(++runs));
  await hook("other");
  assert.equal(hook.fired, false);
  assert.equal(runs, 0);
  await hook("p");
  await hook("p");
  assert.equal(hook.fired, true);
  assert.equal(runs, 1);
});

Deno.test("etagStore's versions are the quoted MD5 of the bytes, on its clock", async () => {
  const { inner, now } = etagStore();
  const info = await inner.put("k", enc("same"), PutModes.create);
  const md5 = createHash("md5").update(enc("same")).digest("hex");
  assert.equal(info.version, `"${md5}"`);
  assert.equal(now(), Date.UTC(2026, 0, 1));
});
