import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { discoverEntries } from "./index_discovery.ts";
import { isUnversioned } from "./bucket_layout.ts";
import { WRITER_METADATA } from "./writer_id.ts";

const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

Deno.test("discoverEntries names another tool's objects, and leaves out the layout's own, other namespaces, Sluice's unnamed writes and the caller's own", async () => {
  const store = new InMemoryStore();
  store.seed("data/t/m/out/1/raw", "another tool's bytes");
  store.seed("notes/a.txt", "a");
  for (
    const own of [
      ".datastore-index.json",
      "_index/_meta.json",
      "_control/heartbeats/i1",
      "data/t/m/.lock",
      ".datastore.lock",
      ".locks/prod.lock",
      ".sluice/probe/abc",
      "_control/.sluice/probe/abc",
      "_control/.sluice/clock",
      "prod/.namespace.json",
      "prod/data/t/m/out/1/raw",
      // Another datastore's layout under a prefix of this one (no namespace
      // manifest): its index objects and its files alike.
      "team/.datastore-index.json",
      "team/_index/_meta.json",
      "team/_index/_root.json",
      "team/config/app.yaml",
      "other/_index/_meta.json",
      "other/notes/n.txt",
    ]
  ) store.seed(own, "x");
  store.seed("notes/in-flight.txt", "a push's", { [WRITER_METADATA]: "w1" });
  store.seed("notes/mine.txt", "this commit's own");
  const found = await discoverEntries(store, NO_RETRY, undefined, 4, new Set(["notes/mine.txt"]));
  assert.deepEqual(Object.keys(found.entries), ["data/t/m/out/1/raw", "notes/a.txt"]);
  assert.deepEqual(found.heldBack, ["notes/in-flight.txt"]);
  const e = found.entries["notes/a.txt"];
  assert.equal(e.s, 1);
  assert.ok(isUnversioned(e), "no hash: compared by its bytes, as other clients' entries are");
  assert.deepEqual(await discoverEntries(new InMemoryStore(), NO_RETRY), {
    entries: {},
    heldBack: [],
  });
});
