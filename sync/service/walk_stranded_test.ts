/**
 * A walk push whose uploads landed and whose index update did not (an
 * outage, a crash) leaves this cache's own objects that no index names. A
 * later walk that no longer plans the path (the file was deleted by hand,
 * or put back as it was synced) must still settle them, or readers skip the
 * path for good and peers wait on a writer that never commits.
 */
import assert from "node:assert/strict";
import { UnreachableError } from "../errors.ts";
import { META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";
import { assertIndexCurrent, clone, put, quick, read } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";
import { STRANDED_REASON } from "./plan.ts";

const PATH = "notes/shared.txt";

async function bucket(layout: "v1" | "v2"): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  if (layout === "v2") {
    const meta = { version: 2 as const, partitions: [], commitSeq: 0, raw: {} };
    await store.put(META_KEY, metaBody(meta), { kind: "create" });
  }
  return store;
}

/** The next put of `key` fails (by default the v1 index object's: the push's index update is cut off). */
function cutOff(store: InMemoryStore, key = ".datastore-index.json") {
  store.failNext("put", 1, () => new UnreachableError("cut off"), { match: (k) => k === key });
}

/** A walk push whose upload of `text` at PATH lands and whose index update fails. */
async function walkCutOff(store: InMemoryStore, a: SyncService, text: string) {
  await put(a, PATH, text, false);
  await a.markDirty();
  const before = (await store.head(PATH))?.version;
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k.startsWith("_index/") || k === ".datastore-index.json",
  });
  await assert.rejects(a.pushChanged());
  const landed = (await store.head(PATH))?.version;
  assert.ok(landed && landed !== before, "the upload landed");
  assert.notEqual((await readIndex(store, quick.retry))?.entries[PATH]?.v, landed);
}

/** A clone that synced PATH as "one", then a walk push of "two" there cut off before its commit. */
async function syncedThenCutOff(layout: "v1" | "v2") {
  const store = await bucket(layout);
  const a = await clone(store, "a");
  await put(a, PATH, "one");
  await a.pushChanged();
  await walkCutOff(store, a, "two");
  return { store, a };
}

/** Writes `text` at `path` by hand (not marked), then pushes the whole cache (a walk). */
async function handWalk(a: SyncService, path: string, text: string) {
  await put(a, path, text, false);
  await a.markDirty();
  return await a.pushChanged();
}

/** A fresh clone's pull takes every indexed path: none is skipped as uncommitted. */
async function freshPull(store: InMemoryStore) {
  const fresh = await clone(store, "fresh");
  const r = await fresh.pullChanged();
  assert.deepEqual(r.uncommitted, [], "a fresh clone skipped a path as not yet committed");
  return fresh;
}

for (const layout of ["v1", "v2"] as const) {
  Deno.test(`${layout}: a file deleted here after a walk push was cut off before its commit: the next walk publishes the landed upload and still reports the deletion`, async () => {
    const store = await bucket(layout);
    const dir = (await clone(store, "a")).cacheDir;
    let a = await clone(store, "a", dir);
    await put(a, PATH, "one");
    await a.pushChanged();
    await walkCutOff(store, a, "two");
    await Deno.remove(`${a.cacheDir}/${PATH}`);
    a = await clone(store, "a", dir); // a restart in between: the record is durable
    await a.markDirty();
    const status = await a.status({ walk: true });
    assert.deepEqual(status.map((e) => [e.path, e.action]), [[PATH, "skip"]], "listed once");
    const r = await a.pushChanged();
    assert.deepEqual(r.localDeletions, [PATH], "a walk never deletes: the deletion is reported");
    assert.deepEqual(r.strandedChecks, [{ path: PATH, outcome: "published" }], "and the check");
    await assertIndexCurrent(store, { held: true });
    assert.equal(await read(await freshPull(store), PATH), "two");
    // The deletion, pushed by name, goes over the version now published.
    await a.markDirty({ relPath: PATH });
    assert.deepEqual((await a.pushChanged()).deleted, [PATH]);
    assert.equal(store.peekText(PATH), undefined);
    await assertIndexCurrent(store, { held: true });
  });

  Deno.test(`${layout}: a file put back as it was synced after a walk push was cut off: the next walk writes it back over the landed upload`, async () => {
    const { store, a } = await syncedThenCutOff(layout);
    await handWalk(a, PATH, "one");
    await assertIndexCurrent(store, { held: true });
    assert.equal(store.peekText(PATH), "one");
    assert.equal(await read(await freshPull(store), PATH), "one");
  });

  Deno.test(`${layout}: a new file deleted here after a walk push was cut off: the next walk removes the upload no index names`, async () => {
    const store = await bucket(layout);
    const a = await clone(store, "a");
    await put(a, "notes/other.txt", "x");
    await a.pushChanged();
    await walkCutOff(store, a, "new");
    await Deno.remove(`${a.cacheDir}/${PATH}`);
    await a.markDirty();
    const status = await a.status({ walk: true });
    assert.deepEqual(status.map((e) => [e.path, e.action, e.reason, e.check]), [
      [PATH, "skip", STRANDED_REASON, true],
    ], "listed as a check, not as a path to push");
    const r = await a.pushChanged();
    assert.deepEqual(r.localDeletions, []);
    assert.deepEqual(r.skipped, [], "nothing was left out");
    assert.deepEqual(r.strandedChecks, [{ path: PATH, outcome: "withdrawn" }], "told");
    assert.equal(store.peekText(PATH), undefined, "the stranded upload is gone");
    await assertIndexCurrent(store, { held: true });
    await freshPull(store);
  });
}

Deno.test("a walk that uploads nothing new checks no path again: the record is cleared by the commit", async () => {
  const { store, a } = await syncedThenCutOff("v1");
  await a.markDirty();
  await a.pushChanged();
  await assertIndexCurrent(store, { held: true });
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty();
  const heads = store.log.length;
  const r = await a.pushChanged();
  assert.deepEqual(r.localDeletions, [PATH]);
  assert.deepEqual(
    store.log.slice(heads).filter((c) => c.key === PATH),
    [],
    "a local deletion found by a walk costs no request",
  );
});

Deno.test("a file turned into a symbolic link after a walk push was cut off: the next walk goes on and leaves the path as it is", async () => {
  const { store, a } = await syncedThenCutOff("v1");
  const outside = await Deno.makeTempFile();
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await Deno.symlink(outside, `${a.cacheDir}/${PATH}`);
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.localOnly.map((l) => l.path), [PATH]);
  assert.equal(store.peekText(PATH), "two", "the upload waits until the path is a file again");
  // A file again: the next walk writes it and commits it.
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await handWalk(a, PATH, "three");
  assert.equal(store.peekText(PATH), "three");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a latest marker a walk wrote in its commit step, put back as synced after the index update failed: the next walk writes it back", async () => {
  const store = await bucket("v1");
  const a = await clone(store, "a");
  const base = "data/t/m0/out";
  const marker = `${base}/latest`;
  await put(a, `${base}/1/raw`, "one");
  await put(a, marker, "1");
  await a.pushChanged();
  await put(a, `${base}/2/raw`, "two", false);
  await put(a, marker, "2", false);
  await a.markDirty();
  cutOff(store);
  await assert.rejects(a.pushChanged());
  assert.equal(store.peekText(marker), "2", "the marker's write landed");
  await handWalk(a, marker, "1");
  assert.equal(store.peekText(marker), "1");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a file under a marked directory put back as synced after the push was cut off: the next push of the directory writes it back", async () => {
  const store = await bucket("v1");
  const a = await clone(store, "a");
  await put(a, PATH, "one");
  await a.pushChanged();
  await put(a, PATH, "two", false);
  await a.markDirty({ relPath: "notes" });
  cutOff(store);
  await assert.rejects(a.pushChanged());
  assert.equal(store.peekText(PATH), "two", "the upload landed");
  await put(a, PATH, "one", false);
  await a.pushChanged(); // the directory is still marked
  assert.equal(store.peekText(PATH), "one");
  await assertIndexCurrent(store, { held: true });
  assert.deepEqual(a.state.dirtyPaths(), [], "the directory is clean");
});

Deno.test("a file put back as synced after a walk's upload of it failed, then changed by a peer: no conflict, the pull takes the peer's", async () => {
  const store = await bucket("v1");
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, PATH, "one");
  await a.pushChanged();
  await b.pullChanged();
  await put(a, PATH, "two", false);
  await a.markDirty();
  cutOff(store, PATH);
  await assert.rejects(a.pushChanged());
  assert.equal(store.peekText(PATH), "one", "the upload never landed");
  await put(b, PATH, "bee");
  await b.pushChanged();
  const r = await handWalk(a, PATH, "one");
  assert.deepEqual(r.conflicts, [], "nothing of this cache's was there to settle");
  assert.equal(store.peekText(PATH), "bee");
  await a.pullChanged();
  assert.equal(await read(a, PATH), "bee");
});

for (const synced of [true, false]) {
  Deno.test(`a write of the settling walk failing first keeps the record for the next (${synced ? "synced" : "never synced"})`, async () => {
    const store = await bucket("v1");
    const a = await clone(store, "a");
    await put(a, "keep/x.txt", "x");
    if (synced) await put(a, PATH, "one");
    await a.pushChanged();
    await walkCutOff(store, a, "two");
    await Deno.remove(`${a.cacheDir}/${PATH}`);
    await put(a, "other/q.txt", "q", false);
    await a.markDirty();
    cutOff(store, "other/q.txt");
    await assert.rejects(a.pushChanged());
    assert.deepEqual(a.state.attemptedPaths().includes(PATH), true, "the record stays");
    await a.markDirty();
    await a.pushChanged();
    assert.equal(store.peekText(PATH), synced ? "two" : undefined);
    await assertIndexCurrent(store, { held: true });
    await freshPull(store);
  });
}

Deno.test("a path named dirty, absent and never synced, stays dirty when a write of its push fails before its check", async () => {
  const store = await bucket("v1");
  const a = await clone(store, "a");
  await put(a, "notes/n.txt", "n");
  cutOff(store);
  await assert.rejects(a.pushChanged());
  assert.equal(store.peekText("notes/n.txt"), "n", "the upload landed");
  await Deno.remove(`${a.cacheDir}/notes/n.txt`);
  await put(a, "other/q.txt", "q");
  cutOff(store, "other/q.txt");
  await assert.rejects(a.pushChanged());
  assert.ok(a.state.dirtyPaths().includes("notes/n.txt"), "still dirty");
  await a.pushChanged();
  assert.equal(store.peekText("notes/n.txt"), undefined, "the stranded upload is gone");
  await freshPull(store);
});

Deno.test("a two-phase push publishes an earlier walk's upload in its commit, never in its preparation", async () => {
  const { store, a } = await syncedThenCutOff("v1");
  const before = (await readIndex(store, quick.retry))?.entries[PATH]?.v;
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty();
  const prepared = await a.preparePush();
  assert.equal(
    (await readIndex(store, quick.retry))?.entries[PATH]?.v,
    before,
    "the preparation left the index alone",
  );
  const r = await a.commitPush(prepared);
  assert.deepEqual(r.localDeletions, [PATH]);
  await assertIndexCurrent(store, { held: true });
  assert.equal(await read(await freshPull(store), PATH), "two");
  assert.deepEqual(a.state.attemptedPaths(), []);
});

Deno.test("a marked directory removed here after its push was cut off: the next push removes the uploads no index names", async () => {
  const store = await bucket("v1");
  const a = await clone(store, "a");
  await put(a, "keep/x.txt", "x");
  await a.pushChanged();
  await put(a, "runs/tmp/a.txt", "A", false);
  await a.markDirty({ relPath: "runs/tmp" });
  cutOff(store);
  await assert.rejects(a.pushChanged());
  assert.equal(store.peekText("runs/tmp/a.txt"), "A");
  await Deno.remove(`${a.cacheDir}/runs/tmp`, { recursive: true });
  await a.pushChanged();
  assert.equal(store.peekText("runs/tmp/a.txt"), undefined, "the stranded upload is gone");
  assert.deepEqual([a.state.dirtyPaths(), a.state.attemptedPaths()], [[], []]);
});

Deno.test("a recorded path whose parent directory became a file: the walk goes on", async () => {
  const store = await bucket("v1");
  const a = await clone(store, "a");
  await put(a, "keep/x.txt", "x");
  await a.pushChanged();
  await put(a, "d/x/f.txt", "F", false);
  await a.markDirty();
  cutOff(store);
  await assert.rejects(a.pushChanged());
  await Deno.remove(`${a.cacheDir}/d/x`, { recursive: true });
  await Deno.writeTextFile(`${a.cacheDir}/d/x`, "now a file");
  await a.markDirty();
  await a.pushChanged();
  assert.equal(store.peekText("d/x/f.txt"), undefined, "the stranded upload is gone");
  assert.equal(store.peekText("d/x"), "now a file");
  await assertIndexCurrent(store, { held: true });
});

Deno.test("a large file's stranded upload is published from a streamed read, never held whole", async () => {
  const store = await bucket("v1");
  const big = (c: string) => c.repeat(4096);
  const a = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-stranded-big-" }),
    store,
    identity: { holder: "a@host", hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: { ...quick, streamThresholdBytes: 1024 },
    conditional: new ConditionalWrites(),
  });
  await put(a, PATH, big("1"));
  await a.pushChanged();
  await walkCutOff(store, a, big("2"));
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty();
  const streamed = store.streamedGets;
  assert.deepEqual((await a.pushChanged()).localDeletions, [PATH]);
  assert.equal(store.streamedGets - streamed, 1, "one streamed read");
  await assertIndexCurrent(store, { held: true });
  assert.equal(await read(await freshPull(store), PATH), big("2"));
});

Deno.test("v2: a commit whose shard write landed and whose meta write failed, then an edit's push cut off, then the file deleted and pushed by name: the index names nothing gone (chaos seed 75200719)", async () => {
  const store = await bucket("v2");
  const dir = (await clone(store, "a")).cacheDir;
  let a = await clone(store, "a", dir);
  await put(a, PATH, "one");
  // The shard names the upload; the meta write fails, and the process stops there.
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === META_KEY,
  });
  await assert.rejects(a.pushChanged());
  a = await clone(store, "a", dir); // restarted: its state never learnt of that commit
  assert.equal(a.state.synced(PATH), undefined);
  await put(a, PATH, "two");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k.startsWith("_index/"),
  });
  await assert.rejects(a.pushChanged()); // its upload over "one" landed, its commit did not
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  const r = await a.pushChanged();
  assert.deepEqual(r.strandedChecks, [{ path: PATH, outcome: "withdrawn" }]);
  assert.equal(store.peekText(PATH), undefined);
  await assertIndexCurrent(store, { held: true });
  assert.deepEqual(Object.keys((await readIndex(store, quick.retry))?.entries ?? {}), []);
});
