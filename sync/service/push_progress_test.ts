import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import type { ProgressEvent } from "../events.ts";
import { clone, put } from "./clone_kit.ts";
import { createEmitter } from "../events.ts";
import { type ProgressSoFar, PushProgress } from "./push_progress.ts";

Deno.test("push progress: counts files and bytes, bytes on their way up included, and tells only a listener", () => {
  const quiet = createEmitter();
  const p = new PushProgress(quiet, { files: 2, bytes: 30 });
  p.moving("a", 5);
  assert.deepEqual(p.figures(), { filesDone: 0, filesTotal: 2, bytesDone: 5, bytesTotal: 30 });
  p.step(10, "a");
  assert.deepEqual(p.figures(), { filesDone: 1, filesTotal: 2, bytesDone: 10, bytesTotal: 30 });
  const events = createEmitter();
  const told: number[] = [];
  events.on("progress", (e) => told.push(e.filesDone));
  const q = new PushProgress(events, { files: 1, bytes: 0 });
  q.step();
  assert.deepEqual(told, [1]);
});

Deno.test("push progress: a second pass counts on from the first's figures, and files written again count once", () => {
  const soFar: ProgressSoFar = { filesDone: 0, filesTotal: 0, bytesDone: 0, bytesTotal: 0 };
  const first = new PushProgress(createEmitter(), { files: 2, bytes: 20 }, soFar);
  first.step(10);
  first.step(10);
  first.again(1, 10); // a refused write made again
  first.step(10);
  assert.deepEqual(soFar, { filesDone: 2, filesTotal: 2, bytesDone: 20, bytesTotal: 20 });
  const second = new PushProgress(createEmitter(), { files: 1, bytes: 5 }, soFar);
  second.step(5);
  assert.deepEqual(second.figures(), {
    filesDone: 3,
    filesTotal: 3,
    bytesDone: 25,
    bytesTotal: 25,
  });
  assert.deepEqual(soFar, second.figures());
});

Deno.test("push progress: a file whose write failed is counted apart, so an ended pass never reads as all done", () => {
  const p = new PushProgress(createEmitter(), { files: 2, bytes: 20 });
  p.step(10, "a");
  assert.equal(p.figures().filesFailed, undefined);
  p.step(10, "b", true);
  assert.deepEqual(p.figures(), {
    filesDone: 2,
    filesTotal: 2,
    bytesDone: 20,
    bytesTotal: 20,
    filesFailed: 1,
  });
});

Deno.test("push progress: a deletion that failed is counted as failed too", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await put(a, "notes/a.txt", "a");
  await put(a, "notes/b.txt", "b");
  await a.pushChanged();
  await Deno.remove(`${a.cacheDir}/notes/a.txt`);
  await a.markDirty({ relPath: "notes/a.txt" });
  await put(a, "notes/b.txt", "b2");
  const seen: ProgressEvent[] = [];
  a.events.on("progress", (p) => void seen.push(p));
  store.failNext("delete", 1, undefined, { match: (k) => k === "notes/a.txt" });
  await assert.rejects(a.pushChanged());
  assert.deepEqual(
    { done: seen.at(-1)?.filesDone, failed: seen.at(-1)?.filesFailed },
    { done: 2, failed: 1 },
  );
});
