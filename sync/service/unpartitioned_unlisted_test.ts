/**
 * On a v2 bucket an old client's push writes the meta's shard list from the
 * partitions it computes, which leaves out the unpartitioned shard (files
 * outside the tool's folders): old clients stop seeing those files. A
 * Sluice pull says so, and the next Sluice commit lists the shard again.
 */
import assert from "node:assert/strict";
import { META_KEY, metaBody, parseMeta } from "../transfer/bucket_layout.ts";
import { PutModes } from "../ports.ts";
import type { WarningEvent } from "../events.ts";
import { clone, put, v2Store } from "./clone_kit.ts";
import type { InMemoryStore } from "../../packages/testing/mod.ts";

const NOTE = "notes/readme.md";
const DATA = "data/t/m/out/1/raw";

/** The meta's shard list, rewritten as an old client's push leaves it (without `_unpartitioned`). */
async function unlist(store: InMemoryStore): Promise<void> {
  const meta = parseMeta(store.peek(META_KEY)!)!;
  assert.equal(meta.version, 2);
  if (meta.version !== 2) return;
  const partitions = meta.partitions.filter((p) => p !== "_unpartitioned");
  const next = { ...meta, partitions, commitSeq: meta.commitSeq + 1, raw: {} };
  await store.put(META_KEY, metaBody(next), PutModes.overwrite);
}

const listed = (store: InMemoryStore) =>
  parseMeta(store.peek(META_KEY)!)!.partitions.includes("_unpartitioned");

Deno.test("an unpartitioned shard an old client's push unlisted is told of at the pull, and listed again by the next commit", async () => {
  const store = await v2Store();
  const a = await clone(store, "a");
  await put(a, NOTE, "read me");
  await put(a, DATA, "v1");
  await a.pushChanged();
  assert.ok(listed(store));
  await unlist(store);
  const warned: WarningEvent[] = [];
  a.events.on("warning", (w) => warned.push(w));
  await a.pullChanged();
  assert.deepEqual(warned.map((w) => w.code), ["unpartitioned_unlisted"]);
  assert.match(warned[0].message, /notes\/readme\.md/);
  // A commit of another shard's path lists it again.
  await put(a, "data/t/m/out/2/raw", "v2");
  await a.pushChanged();
  assert.ok(listed(store), "listed again");
  warned.length = 0;
  await clone(store, "b").then((b) => {
    b.events.on("warning", (w) => warned.push(w));
    return b.pullChanged();
  });
  assert.deepEqual(warned.filter((w) => w.code === "unpartitioned_unlisted"), []);
});
