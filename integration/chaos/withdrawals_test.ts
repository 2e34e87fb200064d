import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { type DeleteOptions, type ObjectStore, PutModes } from "../../sync/ports.ts";
import type { IndexEntry } from "../../sync/transfer/bucket_layout.ts";
import { Withdrawals } from "./withdrawals.ts";

const enc = (t: string) => new TextEncoder().encode(t);
const INDEX = ".datastore-index.json";
const entry = (v: string): IndexEntry => ({ v, h: "", s: 1 });

/**
 * A store watched for clone `who` (an old client's push: `old`), its index
 * the record `entries` stands for; its versions the bytes' with `etags`.
 */
function setup(etags = false) {
  // Its calls as own properties, as the harness's wrapped stores have them.
  const mem = new InMemoryStore({ versionFromBytes: etags });
  const inner: ObjectStore = {
    endpoint: mem.endpoint,
    get: (key, o) => mem.get(key, o),
    head: (key, o) => mem.head(key, o),
    put: (key, body, mode, o) => mem.put(key, body, mode, o),
    delete: (key, o) => mem.delete(key, o),
    list: (prefix, o) => mem.list(prefix, o),
  };
  const w = new Withdrawals();
  const world = {
    who: 0 as number | undefined,
    old: false,
    entries: {} as Record<string, IndexEntry>,
  };
  const store = w.watch(
    inner,
    () => world.who,
    () => Promise.resolve({ ...world.entries }),
    () => world.old,
  );
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
Deno.test("I32: a peer's new file at the path after the withdrawal ended (entry out, then the upload deleted) is its own, spared", async () => {
  const { w, world, store, commit } = setup();
  const mine = await store.put("n.md", enc("a"), PutModes.create);
  await commit({ "n.md": entry(mine.version) });
  // The withdrawal: the entry out, then the upload deleted, the index naming
  // nothing there; its read after the delete finds nothing there either.
  await commit({});
  await store.delete("n.md", { ifVersion: mine.version });
  await store.get(INDEX);
  // A peer that never saw the upload creates a file of its own there.
  world.who = 1;
  const theirs = await store.put("n.md", enc("b"), PutModes.create);
  await commit({ "n.md": entry(theirs.version) });
  // The push reads the index again for a change of its own elsewhere.
  world.who = 0;
  await store.get(INDEX);
  assert.equal(w.answerable(0, "n.md", world.entries), false);
});

Deno.test("I32: the upload named again after its delete, or a peer's entry there as it is deleted, is the push's to answer", async () => {
  // A peer that synced the upload names it again (an entry another client
  // dropped) as the delete lands, then puts its copy back.
  {
    const { w, world, store, commit } = setup();
    const mine = await store.put("n.md", enc("a"), PutModes.create);
    await commit({ "n.md": entry(mine.version) });
    await commit({});
    await store.delete("n.md", { ifVersion: mine.version });
    world.who = 1;
    await commit({ "n.md": entry(mine.version) });
    const back = await store.put("n.md", enc("a"), PutModes.create);
    await commit({ "n.md": entry(back.version) });
    world.who = 0;
    await store.get(INDEX);
    assert.equal(w.answerable(0, "n.md", world.entries), true);
  }
  // A peer's entry committed between the entry's removal and the delete.
  {
    const { w, world, store, commit } = setup();
    const mine = await store.put("n.md", enc("a"), PutModes.create);
    await commit({ "n.md": entry(mine.version) });
    await commit({});
    world.who = 1;
    await commit({ "n.md": entry("peer") });
    world.who = 0;
    await store.delete("n.md", { ifVersion: mine.version });
    await store.get(INDEX);
    assert.equal(w.answerable(0, "n.md", world.entries), true);
  }
});

Deno.test("I32: a peer's new file at the path after a checked delete ended the withdrawal (a check, then a plain delete) is its own, spared", async () => {
  const { w, world, store, commit } = setup();
  const mine = await store.put("n.md", enc("a"), PutModes.create);
  await commit({ "n.md": entry(mine.version) });
  await commit({});
  // Where deletes check the version, then delete (`checkThenDelete`), the
  // delete that reaches the store is a plain one carrying the version checked.
  const checked = { checkedVersion: mine.version } as DeleteOptions;
  await store.delete("n.md", checked);
  await store.get(INDEX);
  world.who = 1;
  const theirs = await store.put("n.md", enc("b"), PutModes.create);
  await commit({ "n.md": entry(theirs.version) });
  world.who = 0;
  await store.get(INDEX);
  assert.equal(w.answerable(0, "n.md", world.entries), false);
});

Deno.test("I32: an old client's push naming the path once the withdrawal took the entry out is a later change, spared, even of the very version (ETags) put back", async () => {
  const { w, world, store, commit } = setup(true);
  const mine = await store.put("n.md", enc("a"), PutModes.create);
  await commit({ "n.md": entry(mine.version) });
  await commit({});
  // The old client's write of the same bytes: the same version.
  world.who = undefined;
  world.old = true;
  await commit({ "n.md": entry(mine.version) });
  world.who = 0;
  world.old = false;
  // The push's delete takes it, its bytes put back and named.
  await store.delete("n.md", { ifVersion: mine.version });
  const back = await store.put("n.md", enc("a"), PutModes.create);
  assert.equal(back.version, mine.version);
  await commit({ "n.md": entry(back.version) });
  await store.get(INDEX);
  assert.equal(w.answerable(0, "n.md", world.entries, back.version), false);
  // Left deleted, the index naming it: the push's to answer.
  await store.delete("n.md");
  assert.equal(w.answerable(0, "n.md", world.entries, null), true);
});
