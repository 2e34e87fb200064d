/**
 * `pull --adopt-uncommitted`: a cache that waits on a push that will never
 * complete (it replaced an object, then died before its commit) has a way
 * out, also a fresh clone that holds no copy at all.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { readIndex } from "../transfer/remote_index.ts";
import { createEmitter, type WarningEvent } from "../events.ts";
import { assertIndexCurrent, clone, put, quick, read } from "./clone_kit.ts";
import { adoptForPull } from "./pull_adopt.ts";

const PATH = "notes/shared.txt";

/** `a` synced PATH, then wrote a new copy whose index update never landed (its process died). */
async function stranded() {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, PATH, "1");
  await a.pushChanged();
  await put(a, PATH, "2");
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await a.pushChanged().catch(() => {});
  assert.equal(store.peekText(PATH), "2", "a's object replaced the committed one, uncommitted");
  return { store, a };
}

Deno.test("a fresh clone skips an object a dead push left uncommitted; asked to adopt it, it publishes it as that writer's change and takes it", async () => {
  const { store, a } = await stranded();
  const c = await clone(store, "c");
  const skipped = await c.pullChanged();
  assert.deepEqual(skipped.uncommitted, [PATH]);
  assert.equal(await read(c, PATH), undefined, "nothing to take: the committed bytes are gone");
  const warnings: WarningEvent[] = [];
  c.events.on("warning", (w) => warnings.push(w));
  const r = await c.pullChanged({ adoptUncommitted: [PATH] });
  assert.deepEqual(r.adopted, [PATH]);
  assert.deepEqual(r.uncommitted, []);
  assert.ok(r.fetched.includes(PATH));
  assert.equal(await read(c, PATH), "2");
  assert.ok(warnings.some((w) => w.code === "adopted_uncommitted" && w.path === PATH));
  assert.ok(
    !warnings.some((w) => w.code === "pull_skipped_uncommitted"),
    "a path adopted is not also told as skipped",
  );
  assert.equal(
    (await readIndex(store, quick.retry))?.entries[PATH]?.v,
    (await store.head(PATH))?.version,
  );
  await assertIndexCurrent(store);
  // The writer, back, finds its change committed: nothing to write, no conflict.
  const back = await clone(store, "a", a.cacheDir);
  const pushed = await back.pushChanged();
  assert.deepEqual(pushed.conflicts, []);
  assert.equal(store.peekText(PATH), "2");
});

Deno.test("asked to adopt a directory, a pull adopts what it skipped under it; a path it did not skip is left as it was", async () => {
  const { store } = await stranded();
  const c = await clone(store, "c");
  const r = await c.pullChanged({ adoptUncommitted: ["notes", "other/none.txt"] });
  assert.deepEqual(r.adopted, [PATH]);
  assert.equal(await read(c, PATH), "2");
});

Deno.test("a data version file, the managed lockfile and an index file are never adopted by a pull", async () => {
  const store = new InMemoryStore();
  const config = { ...quick, concurrency: 1, classifierRules: [] };
  const r = await adoptForPull({ store, config, events: createEmitter(), now: Date.now }, [
    "data/shell/cmd/m1/out/3/raw",
    "config/upstream_extensions.json",
    ".datastore-index.json",
  ]);
  assert.deepEqual(r.adopted, []);
  assert.deepEqual(r.refused.map((x) => x.path), [
    "data/shell/cmd/m1/out/3/raw",
    "config/upstream_extensions.json",
    ".datastore-index.json",
  ]);
  assert.match(r.refused[0].why, /never published as its writer's/);
});

Deno.test("without adoption the skipped path says how to adopt it", async () => {
  const { store } = await stranded();
  const c = await clone(store, "c");
  const warnings: WarningEvent[] = [];
  c.events.on("warning", (w) => warnings.push(w));
  await c.pullChanged();
  const w = warnings.find((w) => w.code === "pull_skipped_uncommitted");
  assert.match(w?.message ?? "", /sluice pull --adopt-uncommitted notes\/shared\.txt/);
});

Deno.test("adopting a directory of many stranded files commits them together: the index is not read and rewritten once per file", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const n = 40;
  const paths = Array.from({ length: n }, (_, i) => `notes/f${String(i).padStart(2, "0")}.txt`);
  for (const p of paths) await put(a, p, "1");
  await a.pushChanged();
  for (const p of paths) await put(a, p, "2");
  // a's push replaced every object, then died before its index update.
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === ".datastore-index.json",
  });
  await a.pushChanged().catch(() => {});
  const c = await clone(store, "c");
  const before = store.log.length;
  const r = await c.pullChanged({ adoptUncommitted: ["notes"] });
  assert.equal(r.adopted?.length, n);
  for (const p of paths) assert.equal(await read(c, p), "2");
  const during = store.log.slice(before);
  const indexReads = during.filter((x) => x.op === "get" && x.key === ".datastore-index.json");
  const indexWrites = during.filter((x) => x.op === "put" && x.key === ".datastore-index.json");
  // A bounded number of index reads and commits for the whole directory (a few rounds), not
  // one (or more) of each per file: with the index of a real datastore (thousands of entries,
  // megabytes), adopting a crashed push's 1,342 files took over 30 minutes on MinIO.
  assert.ok(indexReads.length <= 5, `${indexReads.length} index reads for ${n} files`);
  assert.ok(indexWrites.length <= 5, `${indexWrites.length} index writes for ${n} files`);
});
