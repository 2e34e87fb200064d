/**
 * Bad input, empty and large files: both round-trip intact. See `sandbox.ts`
 * for the sandbox every test runs in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { isBodySource } from "../../sync/transfer/body.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { FsStore } from "../../packages/fs/mod.ts";
import { clone, hex, pushPaths, put, sandbox, tempDir } from "./sandbox.ts";

Deno.test("files: empty files round-trip and are never taken for deletions", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, sb.cacheDir);
  const b = await clone(store, `${sb.root}/peer`, { name: "b" });
  await put(sb.cacheDir, "outputs/empty.txt", "");
  await put(sb.cacheDir, "outputs/was-full.txt", "content");
  await pushPaths(a, "outputs/empty.txt", "outputs/was-full.txt");
  assert.equal(store.peek("outputs/empty.txt")?.length, 0);
  await put(sb.cacheDir, "outputs/was-full.txt", "");
  await put(sb.cacheDir, "outputs/walked-empty.txt", "");
  await a.markDirty({ relPath: "outputs/was-full.txt" });
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded.sort(), ["outputs/walked-empty.txt", "outputs/was-full.txt"]);
  assert.deepEqual(r.deleted, []);
  assert.equal(store.peek("outputs/was-full.txt")?.length, 0, "emptied, not deleted");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.fetched.sort(), [
    "outputs/empty.txt",
    "outputs/walked-empty.txt",
    "outputs/was-full.txt",
  ]);
  for (const p of pulled.fetched) assert.equal((await Deno.stat(`${b.cacheDir}/${p}`)).size, 0);
  await a.markDirty();
  assert.deepEqual((await a.pushChanged()).uploaded, [], "no churn");
  await sb.unchanged();
});

// Large files. A file above `streamThresholdBytes` (8 MiB by default) is
// pushed as a BodySource and pulled through getStream, in 1 MiB chunks, and
// checked against its hash on both sides. Memory is measured by the
// benchmark (`deno task bench --only large`), not here: this test checks that
// the file goes through the streaming path and arrives intact.
Deno.test("files: a 32 MiB file is streamed both ways through FsStore and arrives intact", async () => {
  const sb = await sandbox();
  const fs = new FsStore({
    root: await tempDir("sluice-bad-input-store-"),
  });
  const seen = { streamedPuts: 0, wholePuts: 0, streamedGets: 0, wholeGets: 0 };
  const store: ObjectStore = {
    endpoint: fs.endpoint,
    get: (k, o) => {
      if (k === "big.bin") seen.wholeGets++;
      return fs.get(k, o);
    },
    getStream: (k, o) => {
      if (k === "big.bin") seen.streamedGets++;
      return fs.getStream(k, o);
    },
    head: (k, o) => fs.head(k, o),
    put: (k, body, m, o) => {
      if (k === "big.bin") isBodySource(body) ? seen.streamedPuts++ : seen.wholePuts++;
      return fs.put(k, body, m, o);
    },
    delete: (k, o) => fs.delete(k, o),
    list: (p, o) => fs.list(p, o),
  };
  const a = await clone(store, sb.cacheDir);
  const b = await clone(store, `${sb.root}/peer`, { name: "b" });
  const size = 32 * 1024 * 1024;
  const file = await Deno.open(`${sb.cacheDir}/big.bin`, { write: true, create: true });
  const chunk = new Uint8Array(1 << 20);
  const h = createHash("sha256");
  for (let off = 0; off < size; off += chunk.length) {
    for (let i = 0; i < chunk.length; i += 65536) {
      crypto.getRandomValues(chunk.subarray(i, i + 65536));
    }
    h.update(chunk);
    let n = 0;
    while (n < chunk.length) n += await file.write(chunk.subarray(n));
  }
  file.close();
  const expected = h.digest("hex");
  const progress: number[] = [];
  a.events.on("progress", (p) => progress.push(p.bytesTotal));
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["big.bin"]);
  assert.equal(r.bytes, size);
  assert.equal(progress.at(-1), size);
  assert.equal(a.state.synced("big.bin")?.hash, expected);
  assert.deepEqual((await b.pullChanged()).fetched, ["big.bin"]);
  assert.equal(hex(await Deno.readFile(`${b.cacheDir}/big.bin`)), expected);
  assert.deepEqual(seen, { streamedPuts: 1, wholePuts: 0, streamedGets: 1, wholeGets: 0 });
  await a.markDirty();
  assert.deepEqual((await a.pushChanged()).uploaded, [], "an unchanged large file is not re-sent");
  await sb.unchanged();
});
