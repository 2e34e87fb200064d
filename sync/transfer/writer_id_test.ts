import assert from "node:assert/strict";
import { ensureWriterId, holdsOwnUncommitted, readWriterId, WRITER_METADATA } from "./writer_id.ts";
import { LocalCache } from "./cache.ts";
import { PutModes } from "../ports.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";

Deno.test("the writer id is created once, kept, and not kept by a dry run", async () => {
  const cache = new LocalCache(await Deno.makeTempDir({ prefix: "sluice-writer-" }));
  assert.equal(await readWriterId(cache), null);
  const dry = await ensureWriterId(cache, true);
  assert.ok(dry.length > 0);
  assert.equal(await readWriterId(cache), null, "a dry run keeps nothing");
  const id = await ensureWriterId(cache, false);
  assert.equal(await readWriterId(cache), id);
  assert.equal(await ensureWriterId(cache, false), id);
  await cache.writeState("writer.json", { id: "" });
  assert.equal(await readWriterId(cache), null, "an empty id is no id");
});

Deno.test("holdsOwnUncommitted: only this writer's object at another version than the synced one", async () => {
  const store = new InMemoryStore();
  const enc = new TextEncoder();
  assert.equal(await holdsOwnUncommitted(store, "k", undefined, "me"), false, "absent");
  const mine = await store.put("k", enc.encode("a"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "me" },
  });
  assert.equal(await holdsOwnUncommitted(store, "k", mine.version, "me"), false, "the synced one");
  assert.equal(await holdsOwnUncommitted(store, "k", "older", "me"), true);
  assert.equal(await holdsOwnUncommitted(store, "k", "older", "a-peer"), false);
  await store.put("k", enc.encode("b"), PutModes.overwrite);
  assert.equal(await holdsOwnUncommitted(store, "k", "older", "me"), false, "no writer id");
});

Deno.test("two processes making a new cache's writer id at once both take the first one kept", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-writer-id-" });
  const one = new LocalCache(dir);
  const two = new LocalCache(dir);
  // Both look before either writes (both find none).
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const late = {
    readState: async <T>(n: string) => {
      const v = await two.readState<T>(n);
      await gate;
      return v;
    },
    writeState: (n: string, v: unknown) => two.writeState(n, v),
    createState: (n: string, v: unknown) => two.createState(n, v),
  };
  const pTwo = ensureWriterId(late, false);
  const idOne = await ensureWriterId(one, false);
  release();
  assert.equal(await pTwo, idOne);
  assert.equal(await readWriterId(one), idOne);
});
