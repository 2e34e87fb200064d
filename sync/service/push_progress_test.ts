import assert from "node:assert/strict";
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
