/**
 * The managed lockfile written under a bare markDirty() (no path): the tool's
 * config commands mark in bulk, so no base of the file is kept.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { checkout, CHECKOUT_CONFIG, watchedDatastore } from "./checkout_kit.ts";
import { createSluice } from "../../sluice.ts";
import { lockfileDelta } from "./lockfile_bridge.ts";
import { SluiceError, UnreachableError } from "../../sync/errors.ts";

const LOCKFILE = "config/upstream_extensions.json";

async function proc(store: InMemoryStore, name: string) {
  const { svc, cache, write, warnings } = await checkout(store, name, createSluice);
  const file = `${cache}/${LOCKFILE}`;
  return {
    svc,
    warnings,
    writeAt: write,
    write: (entries: Record<string, unknown>) => write(LOCKFILE, JSON.stringify(entries)),
    read: async () => JSON.parse(await Deno.readTextFile(file)),
  };
}

const remote = (store: InMemoryStore) => JSON.parse(store.peekText(LOCKFILE) ?? "{}");

Deno.test("lockfile: an entry written under a bare mark is published as a delta and survives the next pull", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const c = await proc(store, "c");
  await a.svc.markDirty({ relPath: LOCKFILE });
  await a.write({ "@x/one": { version: "1" } });
  await a.svc.pushChanged();
  await c.svc.pullChanged();
  // a: a bulk mark, then the lockfile gains an entry.
  await a.svc.markDirty();
  await a.write({ "@x/one": { version: "1" }, "@x/two": { version: "2" } });
  await a.svc.pushChanged();
  assert.deepEqual(Object.keys(remote(store)).sort(), ["@x/one", "@x/two"]);
  await a.svc.pullChanged();
  assert.deepEqual(Object.keys(await a.read()).sort(), ["@x/one", "@x/two"]);
  await c.svc.pullChanged();
  assert.deepEqual(Object.keys(await c.read()).sort(), ["@x/one", "@x/two"]);
});

Deno.test("lockfile: under a bare mark, a removal is published; a stale unchanged copy publishes nothing", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const c = await proc(store, "c");
  await a.svc.markDirty({ relPath: LOCKFILE });
  await a.write({ "@x/one": { version: "1" }, "@x/two": { version: "2" } });
  await a.svc.pushChanged();
  await a.svc.markDirty();
  await a.write({ "@x/one": { version: "1" } });
  await a.svc.pushChanged();
  assert.deepEqual(Object.keys(remote(store)), ["@x/one"]);
  // c adds an entry; a's copy is stale but unchanged: a bulk push leaves c's entry.
  await c.svc.pullChanged();
  await c.svc.markDirty({ relPath: LOCKFILE });
  await c.write({ "@x/one": { version: "1" }, "@x/ssh": { version: "3" } });
  await c.svc.pushChanged();
  await a.svc.markDirty();
  await a.svc.pushChanged();
  assert.deepEqual(Object.keys(remote(store)).sort(), ["@x/one", "@x/ssh"]);
  assert.deepEqual(a.warnings.filter((w) => w.code === "lockfile_change_unpublished"), []);
});

Deno.test("lockfile: under a bare mark, a change over a datastore copy changed since is not guessed", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  const c = await proc(store, "c");
  await a.svc.markDirty({ relPath: LOCKFILE });
  await a.write({ "@x/one": { version: "1" }, "@x/old": { version: "0" } });
  await a.svc.pushChanged();
  // c removes @x/old and adds @x/ssh; a, not synced since, adds @x/vault to its stale copy.
  await c.svc.pullChanged();
  await c.svc.markDirty({ relPath: LOCKFILE });
  await c.write({ "@x/one": { version: "1" }, "@x/ssh": { version: "3" } });
  await c.svc.pushChanged();
  await a.svc.markDirty();
  await a.write({ "@x/one": { version: "1" }, "@x/old": { version: "0" }, "@x/vault": { v: 4 } });
  await a.svc.pushChanged();
  // Neither c's removal undone nor its entry erased; a's change is warned, not published.
  assert.deepEqual(Object.keys(remote(store)).sort(), ["@x/one", "@x/ssh"]);
  const w = a.warnings.filter((x) => x.code === "lockfile_change_unpublished");
  assert.equal(w.length, 1);
  assert.match(w[0].message, /changed since this cache last synced it/);
  // As the warning says: the local copy stays, and the next pull holds it as a conflict.
  assert.deepEqual(Object.keys(await a.read()).sort(), ["@x/old", "@x/one", "@x/vault"]);
  await a.svc.pullChanged();
  assert.ok(a.warnings.some((x) => x.code === "conflicts_left" && x.message.includes(LOCKFILE)));
  assert.deepEqual(Object.keys(remote(store)).sort(), ["@x/one", "@x/ssh"]);
});

Deno.test("lockfile: under a bare mark, a first lockfile (none synced, none remote) is published whole", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  await a.svc.markDirty({ relPath: "data/t/m/d/1/raw" });
  await a.svc.markDirty();
  await a.write({ "@x/one": { version: "1" } });
  await a.svc.pushChanged();
  assert.deepEqual(Object.keys(remote(store)), ["@x/one"]);
  // A never-synced copy beside a datastore copy is not guessed.
  const b = await proc(store, "b");
  await b.svc.markDirty({ relPath: "data/t/m/d/2/raw" });
  await b.svc.markDirty();
  await b.write({ "@x/two": { version: "2" } });
  await b.svc.pushChanged();
  assert.deepEqual(Object.keys(remote(store)), ["@x/one"]);
  const w = b.warnings.filter((x) => x.code === "lockfile_change_unpublished");
  assert.equal(w.length, 1);
  assert.match(w[0].message, /the next pull sets it aside and takes the datastore's copy/);
  await b.svc.pullChanged();
  assert.deepEqual(Object.keys(await b.read()), ["@x/one"]);
});

Deno.test("lockfile: the lines written for the tool's user never say a change the extension then published was not pushed", async () => {
  const store = new InMemoryStore();
  const { ds, lines } = watchedDatastore(store, { createService: createSluice });
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-lockfile-" });
  try {
    const svc = ds.createProvider(CHECKOUT_CONFIG).createSyncService("/repo/a", cache);
    for (
      const [mark, entries] of [[true, { "@x/one": 1 }], [false, { "@x/one": 1, "@x/two": 2 }]]
    ) {
      if (mark) await svc.markDirty({ relPath: LOCKFILE });
      else await svc.markDirty();
      await Deno.mkdir(`${cache}/config`, { recursive: true });
      await Deno.writeTextFile(`${cache}/${LOCKFILE}`, JSON.stringify(entries));
      await svc.pushChanged();
      assert.deepEqual(remote(store), entries);
    }
    assert.deepEqual(
      lines.filter((l) => l.includes("warning[lockfile_guarded]")),
      [],
      lines.join("\n"),
    );
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});

Deno.test("lockfileDelta: an entry whose keys were only reordered is no change", () => {
  assert.deepEqual(
    lockfileDelta({ a: { version: "1", source: "x" } }, { a: { source: "x", version: "1" } }),
    { set: {}, remove: [] },
  );
});

Deno.test("lockfile: a lockfile publish that fails after the push committed says what the push published, with the lockfile's own code", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  await a.svc.markDirty({ relPath: "notes/a.txt" });
  await a.writeAt("notes/a.txt", "a");
  await a.svc.markDirty({ relPath: LOCKFILE });
  await a.write({ "@x/one": { version: "1" } });
  store.failNext("put", 50, () => new UnreachableError("injected outage"), {
    match: (k) => k === LOCKFILE,
  });
  const e = await a.svc.pushChanged().then(() => null, (e) => e);
  assert.ok(e instanceof SluiceError, String(e));
  assert.equal(e.code, "lockfile_publish_failed");
  assert.match(
    e.message,
    /^The push published and committed 1 file\(s\) \(notes\/a\.txt\); only the managed lockfile's change was not published: /,
  );
  assert.equal(store.peekText("notes/a.txt"), "a", "the file was published");
});
