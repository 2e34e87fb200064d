/**
 * A pull through the tool from a datastore with no index, into a cache
 * that synced nothing, warns `datastore_empty` as the command line's pull
 * does: a mistyped bucket or prefix reads the same as a new datastore, and
 * the tool's setup, pushing next, would start a second datastore there.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { PutModes } from "../../sync/ports.ts";
import { WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { META_KEY, MONOLITH_KEY } from "../../sync/transfer/bucket_layout.ts";
import { extensionProcess } from "./process_kit.ts";

const LABEL = "[@sluice/store-datastore]";
const EMPTY = `${LABEL} warning[datastore_empty]:`;
const MODEL = { modelType: "shell/cmd", modelId: "m1" };

const proc = (store: InMemoryStore, name: string, config: Record<string, unknown> = {}) =>
  extensionProcess(store, name, {
    createService: createSluice,
    prefix: "sluice-ext-empty-",
    config,
  });

/** The index reads (the v2 meta, the v1 index object) among `store`'s requests. */
const indexReads = (store: InMemoryStore) =>
  store.log.filter((r) =>
    (r.op === "get" && r.key.endsWith(META_KEY)) ||
    (r.op === "head" && r.key.endsWith(MONOLITH_KEY))
  ).length;

Deno.test("datastore_empty: a pull from a datastore with no index returns 0 and warns, naming the bucket and prefix to check", async () => {
  const store = new InMemoryStore();
  const p = await proc(store, "a", { prefix: "team/typo" });
  assert.equal(await p.svc.pullChanged(), 0);
  const said = p.lines.filter((l) => l.startsWith(EMPTY));
  assert.equal(said.length, 1, p.lines.join("\n"));
  assert.match(said[0], /holds no index: nothing was ever pushed there/);
  assert.match(said[0], /team\/typo/, "the datastore it looked at");
  assert.match(said[0], /check the bucket and prefix in the datastore's configuration/);
  // A scoped pull (a model run's) from it says so too.
  const q = await proc(store, "b", { prefix: "team/typo" });
  assert.equal(await q.svc.pullChanged({ context: { models: [MODEL] } }), 0);
  assert.equal(q.lines.filter((l) => l.startsWith(EMPTY)).length, 1, q.lines.join("\n"));
  // A namespace no one registered or pushed to, likewise.
  const r = await proc(store, "c", { prefix: "team/typo" });
  assert.equal(await r.svc.pullChanged({ namespace: "prod" }), 0);
  const ns = r.lines.filter((l) => l.startsWith(EMPTY));
  assert.equal(ns.length, 1, r.lines.join("\n"));
  assert.match(ns[0], /team\/typo\/prod holds no index/);
});

Deno.test("datastore_empty: not said where the datastore holds files, nor to a cache that synced some", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  await a.write("notes/a.txt", "a\n");
  assert.equal(await a.svc.pushChanged(), 1);
  assert.equal(await a.svc.pullChanged(), 0);
  const b = await proc(store, "b");
  assert.equal(await b.svc.pullChanged(), 1);
  assert.equal(await b.svc.pullChanged(), 0);
  // A model's pull that finds nothing of it: the index is there.
  const c = await proc(store, "c");
  assert.equal(await c.svc.pullChanged({ context: { models: [MODEL] } }), 0);
  for (const p of [a, b, c]) {
    assert.deepEqual(p.lines.filter((l) => l.includes("datastore_empty")), [], p.lines.join("\n"));
  }
});

Deno.test("datastore_empty: not said where a first push's uploads wait for their commit (told as unindexed writes)", async () => {
  const store = new InMemoryStore();
  await store.put("notes/a.txt", new TextEncoder().encode("a\n"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "0123456789abcdef01234567" },
  });
  const p = await proc(store, "a");
  assert.equal(await p.svc.pullChanged(), 0);
  assert.ok(p.lines.some((l) => l.includes("warning[unindexed_writes_left]")), p.lines.join("\n"));
  assert.deepEqual(p.lines.filter((l) => l.includes("datastore_empty")), []);
});

Deno.test("datastore_empty: a pull that fetched something, and an up-to-date pull after it, read the index no more than before", async () => {
  const store = new InMemoryStore();
  const a = await proc(store, "a");
  await a.write("notes/a.txt", "a\n");
  assert.equal(await a.svc.pushChanged(), 1);
  const b = await proc(store, "b");
  store.resetLog();
  assert.equal(await b.svc.pullChanged(), 1);
  const fetching = indexReads(store);
  store.resetLog();
  assert.equal(await b.svc.pullChanged(), 0);
  const upToDate = indexReads(store);
  // The pulls' own reads only, as before the warning (the first reads the
  // index; the second heads its token: a v1 index's meta get and object
  // head): the warning's head is made only for a pull that took nothing
  // into a cache that synced nothing.
  assert.deepEqual({ fetching, upToDate }, { fetching: 1, upToDate: 2 });
});
