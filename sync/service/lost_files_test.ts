/**
 * A file whose object was deleted outside Sluice, its index entry then
 * removed as naming nothing (`dangling_entries.ts`), is not a peer's
 * deletion: a clone holding its synced copy keeps it, as a conflict, since
 * that copy may be the last one (`vanished_record.ts`).
 */
import assert from "node:assert/strict";
import { PutModes } from "../ports.ts";
import { type FakeClock, hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { bothSynced, clone, pastDanglingGrace, put, quick, read } from "./clone_kit.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { DANGLING_GRACE_MS } from "./dangling_entries.ts";
import type { SyncService } from "./service.ts";
import {
  forgetVanished,
  LEGACY_VANISHED_KEY,
  LOST_REASON,
  type LostFiles,
  readVanished,
  recordVanished,
  UNREADABLE_RECORD_REASON,
  VANISHED_KEY,
} from "./vanished_record.ts";
import type { WarningEvent } from "../events.ts";

const F = "notes/f.txt";

/** The record's files (it must be readable). */
async function recorded(store: InMemoryStore): Promise<LostFiles> {
  const files = await readVanished(store, quick.retry);
  assert.ok(files, "the record can be read");
  return files;
}

/**
 * `a` pushes F; another tool deletes its object; a new clone's pulls, 15
 * minutes apart, remove the entry. Returns `a`, which still holds F.
 */
async function lostOnTheDatastore(store: InMemoryStore): Promise<SyncService> {
  const a = await clone(store, "a");
  await put(a, F, "one");
  await put(a, "notes/other.txt", "kept");
  await a.pushChanged();
  await store.delete(F); // outside Sluice
  const c = await clone(store, "c");
  assert.deepEqual((await c.pullChanged()).vanished, [F]);
  (c.clock as FakeClock).set(c.clock.now() + DANGLING_GRACE_MS);
  const warnings: WarningEvent[] = [];
  c.events.on("warning", (w) => warnings.push(w));
  await c.pullChanged();
  assert.match(warnings.map((w) => w.message).join("\n"), /recorded as lost/);
  return a;
}

Deno.test("a file the datastore lost is kept where its synced copy is, as a conflict; --mine publishes it again", async () => {
  const store = new InMemoryStore();
  const a = await lostOnTheDatastore(store);
  const warned: WarningEvent[] = [];
  a.events.on("warning", (w) => warned.push(w));
  const r = await a.pullChanged();
  const told = warned.find((w) => w.code === "pull_conflict");
  assert.match(told?.message ?? "", /is gone from the datastore .* may be the last one/);
  assert.doesNotMatch(told?.message ?? "", /changed here/);
  assert.deepEqual(r.removed, []);
  assert.deepEqual(r.conflicts, [F]);
  assert.deepEqual(r.lost, [F]);
  assert.equal(await read(a, F), "one", "the last copy is kept");
  const [c] = a.conflicts();
  assert.equal(c.reason, LOST_REASON);
  assert.equal(c.theirs, null);
  await a.resolveConflict(F, "mine");
  assert.equal(store.peekText(F), "one", "published again");
  assert.deepEqual(
    await recorded(store),
    new Map(),
    "and no longer recorded as lost",
  );
  const d = await clone(store, "d");
  await d.pullChanged();
  assert.equal(await read(d, F), "one", "and a new clone's pull fetches it");
});

Deno.test("a file the datastore lost: --theirs deletes it here", async () => {
  const store = new InMemoryStore();
  const a = await lostOnTheDatastore(store);
  await a.pullChanged();
  await a.resolveConflict(F, "theirs");
  assert.equal(await read(a, F), undefined);
  assert.equal(store.peek(F), undefined);
  assert.deepEqual((await a.pullChanged()).conflicts, []);
});

Deno.test("without the record of lost files, the holder's pull removes the last copy (what the record prevents)", async () => {
  const store = new InMemoryStore();
  const a = await lostOnTheDatastore(store);
  await store.delete(VANISHED_KEY);
  const r = await a.pullChanged();
  assert.deepEqual(r.removed, [F]);
  assert.equal(await read(a, F), undefined, "the copy is gone: no clone or object holds its bytes");
});

/** Bytes another tool (or a newer format) left in the record, none of which can be read whole. */
const UNREADABLE = [
  "not json {",
  "null",
  '{"format":1,"paths":[]}',
  '{"paths":{}}',
  '{"format":2,"paths":{}}',
  `{"format":1,"paths":{"${F}":{"v":"x","h":"y","at":"2026-12-05"}}}`,
];

Deno.test("a record of lost files that cannot be read whole keeps every copy whose entry was removed, says why, and is not written over", async () => {
  for (const junk of UNREADABLE) {
    const store = new InMemoryStore();
    const a = await lostOnTheDatastore(store);
    const b = await clone(store, "b");
    await b.pullChanged();
    // A peer's deletion too: with no record to tell, it is kept as well.
    await Deno.remove(`${b.cacheDir}/notes/other.txt`);
    await b.markDirty({ relPath: "notes/other.txt" });
    await b.pushChanged();
    const bytes = new TextEncoder().encode(junk);
    await store.put(VANISHED_KEY, bytes, PutModes.overwrite); // another tool's
    assert.equal(await readVanished(store, quick.retry), null, junk);
    const warned: WarningEvent[] = [];
    a.events.on("warning", (w) => warned.push(w));
    const r = await a.pullChanged();
    assert.deepEqual(r.removed, [], junk);
    assert.deepEqual(r.undecided?.sort(), [F, "notes/other.txt"]);
    assert.deepEqual(r.lost, []);
    assert.equal(await read(a, F), "one", "the last copy is kept");
    assert.equal(await read(a, "notes/other.txt"), "kept");
    assert.equal(a.conflicts()[0].reason, UNREADABLE_RECORD_REASON);
    assert.match(
      warned.find((w) => w.code === "pull_conflict")?.message ?? "",
      /cannot be read, so this pull cannot tell a peer's deletion from a loss/,
    );
    // Never written over: what it names would be forgotten.
    await assert.rejects(
      recordVanished(store, [["x", { v: "v9", h: "h9", s: 1 }]], 5, quick.retry),
      (e: Error & { code?: string }) =>
        e.code === "lost_record_unreadable" && /was not written over/.test(e.message),
    );
    await forgetVanished(store, [F], quick.retry); // nothing to drop: no write
    assert.equal(store.peekText(VANISHED_KEY), junk);
    // --theirs takes the peer's deletion, --mine publishes the lost file again.
    await a.resolveConflict("notes/other.txt", "theirs");
    await a.resolveConflict(F, "mine");
    assert.equal(await read(a, "notes/other.txt"), undefined);
    assert.equal(store.peekText(F), "one");
    assert.equal(store.peekText(VANISHED_KEY), junk);
  }
});

Deno.test("while the record of lost files cannot be read, no pull removes an entry naming nothing: a holder that had not pulled keeps the last copy", async () => {
  const store = new InMemoryStore();
  const a = await lostOnTheDatastore(store); // F recorded as lost; a has not pulled since
  await store.put(VANISHED_KEY, new TextEncoder().encode("junk"), PutModes.overwrite);
  // Another file goes outside Sluice, and a fresh clone's pulls, past the grace, meet it.
  const b = await clone(store, "b");
  await put(b, "notes/q.txt", "q");
  await b.pushChanged();
  await store.delete("notes/q.txt");
  const c = await clone(store, "c2");
  await c.pullChanged();
  (c.clock as FakeClock).set(c.clock.now() + DANGLING_GRACE_MS);
  const warned: WarningEvent[] = [];
  c.events.on("warning", (w) => warned.push(w));
  const r = await c.pullChanged();
  assert.deepEqual(r.vanished, ["notes/q.txt"], "the entry is left, still naming nothing");
  assert.match(
    warned.map((w) => w.message).join("\n"),
    /could not be removed \(The record of files the datastore lost .* cannot be read/,
  );
  assert.equal(store.peekText(VANISHED_KEY), "junk", "not written over");
  const held = await a.pullChanged();
  assert.deepEqual(held.removed, []);
  assert.equal(await read(a, F), "one", "F, recorded before the record was overwritten, is kept");
  assert.equal(await read(b, "notes/q.txt"), "q");
});

Deno.test("a later deletion through Sluice of a file published again is a plain removal at its holders", async () => {
  const store = new InMemoryStore();
  const a = await lostOnTheDatastore(store);
  await a.pullChanged();
  await a.resolveConflict(F, "mine");
  const b = await clone(store, "b");
  await b.pullChanged();
  await Deno.remove(`${b.cacheDir}/${F}`);
  await b.markDirty({ relPath: F });
  await b.pushChanged();
  const r = await a.pullChanged();
  assert.deepEqual(
    r.removed,
    [F],
    "the record names the lost version, not the one published again",
  );
  assert.deepEqual(r.conflicts, []);
});

Deno.test("the record of lost files keeps any path name, __proto__ and constructor included", async () => {
  const store = new InMemoryStore();
  const names = ["__proto__", "constructor", "notes/toString"];
  const entry = { v: "v1", h: "h1", s: 1 };
  await recordVanished(store, names.map((n) => [n, entry]), 1_000, quick.retry);
  const read = await recorded(store);
  assert.deepEqual([...read.keys()].sort(), [...names].sort());
  assert.equal(read.has("__proto__"), true, "a holder of __proto__ keeps its copy");
  assert.deepEqual(read.get("__proto__"), { v: "v1", h: "h1", at: 1_000 });
  assert.equal(new Map(read).has("toString"), false, "no name is found through a prototype");
  await forgetVanished(store, ["__proto__"], quick.retry);
  assert.deepEqual([...(await recorded(store)).keys()].sort(), [
    "constructor",
    "notes/toString",
  ]);
});

/**
 * A clone `a` over `store` whose push meets, just before its first index
 * write, another tool deleting `gone` and a peer's commit landing first:
 * its commit takes a second round.
 */
async function goneBeforeSecondRound(store: InMemoryStore, gone: readonly string[]) {
  const c = await clone(store, "c");
  await put(c, "notes/other.txt", "x");
  await c.pushChanged();
  let armed = true;
  const hooked = hookedStore(store, {
    before: async (key: string) => {
      if (!armed || !(key.startsWith("_index/") || key === ".datastore-index.json")) return;
      armed = false;
      for (const p of gone) await store.delete(p); // outside Sluice, between the upload and the commit
      await put(c, "notes/peer.txt", "p"); // and a peer commits first: a second round
      await c.pushChanged();
    },
  });
  return await clone(hooked, "a");
}

Deno.test("a push whose upload another tool deletes before its commit's second round publishes nothing and says so: the local copy is kept, as a conflict", async () => {
  const store = new InMemoryStore();
  const a = await goneBeforeSecondRound(store, [F]);
  await put(a, F, "one");
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded.filter((p) => p === F), [], "not reported as published");
  assert.deepEqual(r.conflicts, [F]);
  assert.equal(await read(a, F), "one", "the copy is kept");
  await a.resolveConflict(F, "mine");
  assert.equal(store.peekText(F), "one");
});

Deno.test("a clone holding an older version of a file the datastore lost keeps it too: it may be the only bytes of the path left", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, F, "one");
  await a.pushChanged();
  await b.pullChanged(); // b synced the first version
  await put(a, F, "two");
  await a.pushChanged(); // then a's cache goes (a CI runner), and the second version too
  await store.delete(F);
  const c = await clone(store, "c");
  await c.pullChanged();
  (c.clock as FakeClock).set(c.clock.now() + DANGLING_GRACE_MS);
  await c.pullChanged();
  const r = await b.pullChanged();
  assert.deepEqual(r.conflicts, [F]);
  assert.equal(await read(b, F), "one");
});

Deno.test("an open conflict of a file the datastore lost keeps its copy also once the record is gone", async () => {
  const store = new InMemoryStore();
  const a = await lostOnTheDatastore(store);
  assert.deepEqual((await a.pullChanged()).conflicts, [F]);
  await store.delete(VANISHED_KEY); // dropped by anyone, for any reason
  const d = await clone(store, "d");
  await put(d, "notes/new.txt", "new"); // and the index changes: the next pull looks again
  await d.pushChanged();
  const r = await a.pullChanged();
  assert.deepEqual(r.removed, []);
  assert.equal(await read(a, F), "one");
  assert.deepEqual(a.conflicts().map((c) => c.path), [F]);
});

Deno.test("a push that deletes a path drops its record of a lost file first: its holders then take the deletion", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, F, "one");
  await a.pushChanged();
  await b.pullChanged();
  // A record left from an earlier loss of the path (a republication made outside Sluice, say).
  await recordVanished(store, [[F, { v: "v-old", h: "", s: 1 }]], 1, quick.retry);
  await Deno.remove(`${a.cacheDir}/${F}`);
  await a.markDirty({ relPath: F });
  assert.deepEqual((await a.pushChanged()).deleted, [F]);
  assert.equal((await recorded(store)).has(F), false);
  const r = await b.pullChanged();
  assert.deepEqual(r.removed, [F], "a user's deletion, not a lost file");
  assert.deepEqual(r.conflicts, []);
});

Deno.test("--mine of a file the datastore lost whose object came back meanwhile (identical bytes) drops the record too", async () => {
  const store = new InMemoryStore();
  const a = await lostOnTheDatastore(store);
  await a.pullChanged();
  await store.put(F, new TextEncoder().encode("one"), PutModes.overwrite); // restored from a backup
  const r = await a.resolveConflict(F, "mine");
  assert.equal(r.resolved, true);
  assert.equal((await recorded(store)).has(F), false);
});

Deno.test("on an endpoint that refuses conditional writes the record is written all the same, and the entry removed", async () => {
  const store = new InMemoryStore();
  store.conditionalMode = "refuse";
  const a = await lostOnTheDatastore(store);
  assert.equal((await recorded(store)).has(F), true);
  assert.deepEqual((await a.pullChanged()).conflicts, [F]);
});

Deno.test("a data version whose files another tool deleted before its commit's second round: its latest marker is held back with them", async () => {
  const version = "data/shell/m1/out/1";
  const files = [`${version}/metadata.yaml`, `${version}/raw`];
  const marker = "data/shell/m1/out/latest";
  const store = new InMemoryStore();
  const a = await goneBeforeSecondRound(store, files);
  for (const f of files) await put(a, f, `${f} of a`);
  await put(a, marker, "1");
  const r = await a.pushChanged();
  assert.deepEqual(r.conflicts, files);
  const d = await clone(store, "d");
  await d.pullChanged();
  assert.equal(await read(d, marker), undefined, "no reader is pointed at files no entry names");
  await a.pushChanged(); // the files, then the marker, published again
  await d.pullChanged();
  assert.equal(await read(d, marker), "1");
  assert.equal(await read(d, files[1]), `${files[1]} of a`);
});

Deno.test("a deletion that finds the object gone never takes out a peer's later commit it never saw: the entry stays for a pull to record as lost, and the peer keeps its copy", async () => {
  // Found by the chaos checker (I9, seed 79700547): a clone deleted its copy
  // of a file a peer had changed since (unseen), after another tool deleted
  // the peer's object; its commit removed the peer's entry, unrecorded, and
  // the peer's next pull would have taken that for a deletion.
  const store = new InMemoryStore();
  // b wrote F first and then changed it; a synced only the first version.
  const { a: b, b: a } = await bothSynced(store, F, "one\n", "b's later edit\n");
  await b.pushChanged();
  const named = (await readIndex(store, quick.retry))?.entries[F]?.v;
  await store.delete(F); // another tool
  await Deno.remove(`${a.cacheDir}/${F}`);
  await a.markDirty({ relPath: F });
  const r = await a.pushChanged();
  assert.deepEqual(r.deleted, [], JSON.stringify(r));
  assert.equal((await readIndex(store, quick.retry))?.entries[F]?.v, named, "b's entry stays");
  assert.deepEqual(a.conflicts().map((c) => c.path), [F], "a's deletion meets it as a conflict");
  await pastDanglingGrace(b);
  await b.pullChanged();
  await pastDanglingGrace(b);
  await b.pullChanged();
  assert.equal(await read(b, F), "b's later edit\n", "b keeps the last copy of its edit");
});

Deno.test("the record of lost files lives under _control/ (no other client's listing names it); an earlier release's .sluice/ record is read, then moved there", async () => {
  assert.ok(VANISHED_KEY.startsWith("_control/"));
  const store = new InMemoryStore();
  const old = { format: 1, paths: { [F]: { v: "v9", h: "", at: 1 } } };
  await store.put(
    LEGACY_VANISHED_KEY,
    new TextEncoder().encode(JSON.stringify(old)),
    PutModes.create,
  );
  assert.deepEqual([...(await recorded(store)).keys()], [F], "read where there is no other");
  await recordVanished(store, [["notes/g.txt", { v: "v3", h: "", s: 1 }]], 2, quick.retry);
  assert.deepEqual([...(await recorded(store)).keys()].sort(), [F, "notes/g.txt"], "kept, merged");
  assert.ok(store.peek(VANISHED_KEY), "written under _control/");
  assert.equal(store.peek(LEGACY_VANISHED_KEY), undefined, "the earlier record removed");
});
