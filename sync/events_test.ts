import assert from "node:assert/strict";
import { createEmitter, type WarningEvent } from "./events.ts";

Deno.test("createEmitter returns a fresh emitter each time; listeners receive typed events", () => {
  const a = createEmitter();
  const b = createEmitter();
  assert.notEqual(a, b);
  const got: WarningEvent[] = [];
  a.on("warning", (w) => got.push(w));
  const w: WarningEvent = { code: "path_skipped", message: "skipped x", path: "x" };
  a.emit("warning", w);
  b.emit("warning", w);
  assert.deepEqual(got, [w]);
});

Deno.test("an emitter with no listener drops events without throwing (emit says none listened)", () => {
  const e = createEmitter();
  assert.equal(e.emit("warning", { code: "x", message: "m" }), false);
});
