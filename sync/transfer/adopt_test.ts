import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { adoptStranded } from "./adopt.ts";
import { recordVanished, VANISHED_KEY } from "../service/vanished_record.ts";
import { readIndex } from "./remote_index.ts";
import { PutModes } from "../ports.ts";

const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const enc = (s: string) => new TextEncoder().encode(s);
const PATH = "notes/a.txt";

/** A store whose writer withdraws its stranded upload right after the adoption's index write. */
class WithdrawingStore extends InMemoryStore {
  armed = false;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    const r = await super.put(...args);
    const [key, body] = args;
    if (
      this.armed && key === ".datastore-index.json" && body instanceof Uint8Array &&
      new TextDecoder().decode(body).includes(PATH)
    ) {
      this.armed = false;
      await super.delete(PATH);
    }
    return r;
  }
}

async function withdrawn(record: "readable" | "unreadable") {
  const store = new WithdrawingStore();
  await store.put(
    ".datastore-index.json",
    enc(JSON.stringify({ version: 1, lastPulled: "", entries: {} })),
    PutModes.overwrite,
  );
  if (record === "unreadable") await store.put(VANISHED_KEY, enc("not json"), PutModes.overwrite);
  const info = await store.put(PATH, enc("stranded"), PutModes.overwrite);
  store.armed = true;
  const result = await adoptStranded(store, PATH, { ...info, body: enc("stranded") }, null, {
    retry,
    recordLost: (p, e) => recordVanished(store, [[p, e]], 0, retry),
  });
  return { store, result };
}

Deno.test("an adoption whose writer withdrew its upload meanwhile takes the entry out, recorded as a lost file", async () => {
  const { store, result } = await withdrawn("readable");
  assert.equal(result.adopted, false);
  assert.ok(!Object.hasOwn((await readIndex(store, retry))?.entries ?? {}, PATH));
  assert.match(store.peekText(VANISHED_KEY) ?? "", /notes\/a\.txt/);
});

Deno.test("with the lost-files record unreadable, the entry still goes: the index never names an object that is gone", async () => {
  const { store, result } = await withdrawn("unreadable");
  assert.equal(result.adopted, false);
  assert.ok(!Object.hasOwn((await readIndex(store, retry))?.entries ?? {}, PATH));
  assert.equal(store.peekText(VANISHED_KEY), "not json", "never written over");
});
