import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../../sync/ports.ts";
import type { IndexEntry } from "../../sync/transfer/bucket_layout.ts";
import { Withdrawals } from "./withdrawals.ts";

const enc = (t: string) => new TextEncoder().encode(t);
const INDEX = ".datastore-index.json";
const entry = (v: string): IndexEntry => ({ v, h: "", s: 1 });

/** A store watched for clone `who`, its index the record `entries` stands for. */
function setup() {
  const inner = new InMemoryStore();
  const w = new Withdrawals();
  const world = { who: 0 as number | undefined, entries: {} as Record<string, IndexEntry> };
  const store = w.watch(inner, () => world.who, () => Promise.resolve({ ...world.entries }));
  const commit = async (entries: Record<string, IndexEntry>) => {
    world.entries = entries;
    await store.put(INDEX, enc(JSON.stringify(entries)), PutModes.overwrite);
  };
  return { w, world, store, commit };
}

Deno.test("I32: a peer's entry over a clone's own committed upload, committed before the push's last index read, is the push's to answer", async () => {
  const { w, world, store, commit } = setup();
  const mine = await store.put("n.md", enc("a"), PutModes.create);
  await commit({ "n.md": entry(mine.version) });
  // The withdrawal takes the entry out; a peer names the path again before
  // the push reads the index after its delete.
  await commit({});
  world.who = 1;
  await commit({ "n.md": entry("peer") });
  world.who = 0;
  await store.get(INDEX);
  assert.equal(w.answerable(0, "n.md", world.entries), true);
  // Nothing named there: nothing to answer for.
  assert.equal(w.answerable(0, "n.md", {}), false);
});

Deno.test("I32: an entry committed after the push's last index read is a later change, spared", async () => {
  const { w, world, store, commit } = setup();
  const mine = await store.put("n.md", enc("a"), PutModes.create);
  await commit({ "n.md": entry(mine.version) });
  await commit({});
  await store.get(INDEX);
  // A peer that met the deletion as a conflict publishes its copy while the
  // push waits on, reading the index no more.
  world.who = 1;
  await commit({ "n.md": entry("merged") });
  assert.equal(w.answerable(0, "n.md", world.entries), false);
});

Deno.test("I32: beside an upload no index ever named, a peer's entry there is its own file, spared", async () => {
  const { w, world, store, commit } = setup();
  await store.put("n.md", enc("a"), PutModes.create);
  world.who = 1;
  await commit({ "n.md": entry("peer") });
  world.who = 0;
  await store.get(INDEX);
  assert.equal(w.answerable(0, "n.md", world.entries), false);
  // Another writer's upload (`clone()` undefined) is no clone's.
  world.who = undefined;
  const theirs = await store.put("m.md", enc("b"), PutModes.create);
  await commit({ ...world.entries, "m.md": entry(theirs.version) });
  assert.equal(w.answerable(0, "m.md", world.entries), false);
});

Deno.test("I32: an entry naming the withdrawn upload itself, put back after the push's last index read, is the push's to answer", async () => {
  const { w, world, store, commit } = setup();
  const mine = await store.put("n.md", enc("a"), PutModes.create);
  await commit({ "n.md": entry(mine.version) });
  await commit({});
  await store.get(INDEX);
  // The upload deleted; an old client that read the index before the withdrawal writes it back.
  world.who = undefined;
  await commit({ "n.md": entry(mine.version) });
  assert.equal(w.answerable(0, "n.md", world.entries, null), true);
  // Held by the store still (no withdrawal made): a later change, spared.
  assert.equal(w.answerable(0, "n.md", world.entries, mine.version), false);
  assert.equal(w.answerable(0, "n.md", world.entries), false);
});
