/**
 * A data version the tool is still writing (its `raw` made by the data
 * writer, its `metadata.yaml` not yet) is held by another step's flush, with
 * no warning (its own flush publishes it), and the command line run on the
 * same cache holds it too: the cache's record says the tool made it.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { checkout } from "./checkout_kit.ts";
import { storeRecordOf } from "./left_behind.ts";

const DONE = "data/shell/cmd/m1/out/1";
const BUSY = "data/shell/cmd/m2/log/1";

Deno.test("another step's flush holds a version still being written, warning nothing, and publishes it once finalized", async () => {
  const store = new InMemoryStore();
  const a = await checkout(store, "a", createSluice);
  await a.svc.markDirty({ relPath: "data/shell/cmd/m2/log" });
  await Deno.mkdir(`${a.cache}/${BUSY}`, { recursive: true });
  await Deno.writeTextFile(`${a.cache}/${BUSY}/raw`, "line 1\n"); // the data writer, part way
  await a.svc.markDirty({ relPath: DONE });
  await a.write(`${DONE}/raw`, "done");
  assert.equal(await a.svc.pushChanged(), 2, "m1's version, raw and metadata.yaml");
  assert.equal(store.peekText(`${BUSY}/raw`), undefined, "nothing of the unfinished version");
  assert.deepEqual(a.warnings, [], "held for its own flush: nothing left behind");
  await Deno.writeTextFile(`${a.cache}/${BUSY}/raw`, "line 1\nline 2\n");
  await Deno.writeTextFile(`${a.cache}/${BUSY}/metadata.yaml`, "version: 1\n");
  await a.svc.markDirty({ relPath: BUSY });
  assert.equal(await a.svc.pushChanged(), 2);
  assert.equal(store.peekText(`${BUSY}/raw`), "line 1\nline 2\n");
});

Deno.test("the cache's store record tells the command line to hold unfinished versions too", () => {
  const record = storeRecordOf({ cacheDir: "/c", storeUrl: "s3://bucket/team" });
  assert.deepEqual(record, {
    format: 1,
    url: "s3://bucket/team",
    identity: "s3://bucket/team",
    unfinishedVersions: "hold",
  });
});
