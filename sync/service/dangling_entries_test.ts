/**
 * A pull that meets an index entry whose object the store no longer holds
 * removes the entry, only while the store still holds nothing at the path,
 * and says so; a removal that fails leaves the pull's result as it is.
 */
import assert from "node:assert/strict";
import { readIndex } from "../transfer/remote_index.ts";
import { UnreachableError } from "../errors.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import type { WarningEvent } from "../events.ts";
import type { FakeClock } from "../../packages/testing/mod.ts";
import { DANGLING_GRACE_MS } from "./dangling_entries.ts";
import { pullLeftBehind } from "./pull_result.ts";
import { clone, pastDanglingGrace, put, quick, read } from "./clone_kit.ts";

const PATH = "notes/a.txt";

/**
 * `a` pushed PATH, whose object was then deleted by hand, its entry left;
 * `b` saw it so at a pull the grace ago. `a` then pushed `notes/b.txt`.
 */
async function dangling() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "a");
  await a.pushChanged();
  await store.delete(PATH);
  const b = await clone(store, "b");
  await pastDanglingGrace(b);
  await put(a, "notes/b.txt", "b");
  await a.pushChanged();
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  const named = async () => (await readIndex(store, quick.retry))?.entries[PATH]?.v;
  return { store, a, b, warnings, named };
}

Deno.test("a pull removes an entry whose object is gone, fetches the rest, and warns", async () => {
  const { b, warnings, named } = await dangling();
  assert.ok(await named());
  const r = await b.pullChanged();
  assert.deepEqual(r.fetched, ["notes/b.txt"]);
  assert.equal(await named(), undefined);
  assert.deepEqual(r.vanished, [], "its entry removed: nothing left behind there");
  assert.deepEqual(warnings.map((w) => w.code), ["index_entry_dangling"]);
  assert.match(warnings[0].message, /names notes\/a\.txt, but the store holds no object there/);
  assert.match(warnings[0].message, /were removed/);
  assert.equal(await read(b, PATH), undefined);
  assert.equal(await read(b, "notes/b.txt"), "b");
});

Deno.test("a path written again before the removal lands keeps its entry", async () => {
  const { store, b, warnings, named } = await dangling();
  const before = await named();
  // The removal's check of the path finds a peer's new object there (an upload in flight).
  const head = store.head.bind(store);
  let seeded = false;
  store.head = (key, o) => {
    if (key === PATH && !seeded) {
      seeded = true;
      store.seed(PATH, "again");
    }
    return head(key, o);
  };
  await b.pullChanged();
  assert.ok(seeded, "the removal checked the path");
  assert.equal(await named(), before, "kept: the path holds an object again");
  assert.equal(warnings.length, 1);
});

Deno.test("a removal that fails leaves the pull's result as it is, and the next pull removes the entry", async () => {
  const { store, b, warnings, named } = await dangling();
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  const r = await b.pullChanged();
  assert.deepEqual(r.fetched, ["notes/b.txt"]);
  assert.ok(await named(), "not removed");
  assert.match(warnings[0].message, /could not be removed \(.*cut off/);
  assert.match(warnings[0].message, /the next pull tries again/);
  await b.pullChanged();
  assert.equal(await named(), undefined);
  assert.match(warnings[1].message, /were removed/);
});

Deno.test("an entry of another client (no version recorded) whose object is gone is removed past the grace, as any", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "a");
  await a.pushChanged();
  // Rewritten as an old client writes its entries: no Sluice version recorded.
  const idx = JSON.parse(store.peekText(".datastore-index.json")!);
  idx.entries[PATH] = { key: PATH, size: 1, lastModified: "2026-01-01T00:00:00.000Z" };
  store.seed(".datastore-index.json", JSON.stringify(idx));
  await store.delete(PATH);
  const b = await clone(store, "b");
  const first = await b.pullChanged();
  assert.deepEqual(first.vanished, [PATH], "left behind, and said so");
  assert.ok((await readIndex(store, quick.retry))?.entries[PATH], "kept within the grace");
  (b.clock as FakeClock).set(b.clock.now() + DANGLING_GRACE_MS);
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  const past = await b.pullChanged();
  assert.deepEqual(past.vanished, []);
  assert.equal((await readIndex(store, quick.retry))?.entries[PATH], undefined);
  assert.match(warnings[0].message, /were removed/);
  // Settled: the next pull reads the index its removal wrote, then pulls are up to date.
  assert.deepEqual((await b.pullChanged()).vanished, []);
  assert.equal((await b.pullChanged()).unchanged, true);
});

/** Clone `b` of `store`, the warnings it emits, and the version the index names at PATH now. */
async function thirdClone(store: InMemoryStore) {
  const b = await clone(store, "b");
  const warnings: WarningEvent[] = [];
  b.events.on("warning", (w) => warnings.push(w));
  const named = async () => (await readIndex(store, quick.retry))?.entries[PATH]?.v;
  return { b, warnings, named };
}

Deno.test("a dangling entry younger than the grace is left in place and warned of; past it, removed", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "a");
  await a.pushChanged();
  await store.delete(PATH);
  const { b, warnings, named } = await thirdClone(store);
  await b.pullChanged();
  assert.ok(await named(), "left: its writer's peer may be about to put the object back");
  assert.deepEqual(warnings.map((w) => w.code), ["index_entry_dangling"]);
  assert.match(
    warnings[0].message,
    /first saw that entry so less than 15 minutes ago \(by its own clock, not the writer.s\)/,
  );
  assert.match(warnings[0].message, /Left as it is/);
  (b.clock as FakeClock).set(b.clock.now() + DANGLING_GRACE_MS);
  await b.pullChanged();
  assert.equal(await named(), undefined, "removed once past the grace");
  assert.match(warnings[1].message, /were removed/);
});

Deno.test("a dangling entry written by a writer whose clock runs behind is left until this cache has seen it dangling for the whole grace", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  // a's clock is an hour behind: its entries record a time long past.
  (a.clock as FakeClock).set(a.clock.now() - 60 * 60_000);
  await put(a, PATH, "a");
  await a.pushChanged();
  // The object is gone for a moment (a refused run's erasure about to put it back, say).
  await store.delete(PATH);
  const { b, warnings, named } = await thirdClone(store);
  await b.pullChanged();
  assert.ok(await named(), "left: written moments ago, whatever its writer's clock says");
  assert.match(warnings[0].message, /Left as it is/);
  (b.clock as FakeClock).set(b.clock.now() + DANGLING_GRACE_MS - 1);
  await b.pullChanged();
  assert.ok(await named(), "still left: seen dangling for less than the grace");
  (b.clock as FakeClock).set(b.clock.now() + 1);
  await b.pullChanged();
  assert.equal(await named(), undefined, "removed once seen dangling for the whole grace");
});

Deno.test("a pull that finds an entry's object gone lists it as vanished, left behind, and the next pull looks again", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "a");
  await put(a, "notes/b.txt", "b");
  await a.pushChanged();
  await store.delete(PATH);
  const b = await clone(store, "b");
  const first = await b.pullChanged();
  assert.deepEqual(first.fetched, ["notes/b.txt"]);
  assert.deepEqual(first.vanished, [PATH]);
  const left = pullLeftBehind(first).left;
  assert.deepEqual(left.map((l) => l.path), [PATH]);
  assert.match(left[0].reason, /holds no object there/);
  // Not taken as done: the next pull reads the index again and says so again.
  const again = await b.pullChanged();
  assert.equal(again.unchanged, false);
  assert.deepEqual(again.vanished, [PATH]);
  // The object written again: fetched, nothing left behind.
  await put(a, PATH, "a again");
  await a.pushChanged();
  const back = await b.pullChanged();
  assert.deepEqual(back.fetched, [PATH]);
  assert.deepEqual(back.vanished, []);
  assert.deepEqual(pullLeftBehind(back).left, []);
});

Deno.test("a deletion cut off before its commit, its cache then given up, leaves an entry naming nothing that a pull removes past the grace", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "a");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  // The delete lands; the commit's first read (the record of lost files) fails.
  store.failNext("get", 1, () => new UnreachableError("injected"), {
    match: (k) => k.endsWith("vanished.json"),
  });
  await assert.rejects(a.pushChanged(), UnreachableError);
  assert.equal(store.peek(PATH), undefined, "the object is deleted");
  // `a`'s cache is given up (replaced by a copy of another's, say): its deletion is never committed.
  const { b, warnings, named } = await thirdClone(store);
  await b.pullChanged();
  assert.ok(await named(), "the entry names the deleted object until the grace is past");
  assert.deepEqual(warnings.map((w) => w.code), ["index_entry_dangling"]);
  (b.clock as FakeClock).set(b.clock.now() + DANGLING_GRACE_MS);
  await b.pullChanged();
  assert.equal(await named(), undefined, "removed once past the grace");
});
