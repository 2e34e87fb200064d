import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { adoptStranded, adoptStrandedMany } from "./adopt.ts";
import { recordVanished, VANISHED_KEY } from "../service/vanished_record.ts";
import { readIndex, updateIndex } from "./remote_index.ts";
import { sha256Hex } from "../hash.ts";
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

Deno.test("adoptStrandedMany: one commit publishes each path whose base the index still names; one a peer committed over since is left, its entry kept, and said to have changed meanwhile", async () => {
  const store = new InMemoryStore();
  await store.put(
    ".datastore-index.json",
    enc(JSON.stringify({ version: 1, lastPulled: "", entries: {} })),
    PutModes.overwrite,
  );
  const a = await store.put("notes/a.txt", enc("stranded a"), PutModes.overwrite);
  const b = await store.put("notes/b.txt", enc("stranded b"), PutModes.overwrite);
  // A peer committed its own b since the adoption read the index (none there then).
  const peer = await store.put("notes/b.txt", enc("peer's b"), PutModes.overwrite);
  await updateIndex(store, {
    set: { "notes/b.txt": { v: peer.version, h: await sha256Hex(enc("peer's b")), s: 8 } },
    remove: [],
  }, retry);
  const writes = () => store.log.filter((x) => x.op === "put" && x.key === ".datastore-index.json");
  const before = writes().length;
  const r = await adoptStrandedMany(store, [
    { path: "notes/a.txt", object: { ...a, body: enc("stranded a") }, base: null },
    { path: "notes/b.txt", object: { ...b, body: enc("stranded b") }, base: null },
  ], { retry });
  assert.deepEqual(r.get("notes/a.txt"), { adopted: true });
  assert.deepEqual(r.get("notes/b.txt"), { adopted: false, why: "it changed meanwhile" });
  const entries = (await readIndex(store, retry))?.entries ?? {};
  assert.equal(entries["notes/a.txt"]?.v, a.version);
  assert.equal(entries["notes/b.txt"]?.v, peer.version, "the peer's entry kept");
  assert.equal(writes().length - before, 1, "one commit for both");
});
