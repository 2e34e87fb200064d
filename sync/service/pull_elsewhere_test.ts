import assert from "node:assert/strict";
import { underMarkedDirectory, underMarks } from "./pull_elsewhere.ts";

Deno.test("underMarks: a path marked by name, or under a marked directory; never a sibling sharing a prefix of its name", () => {
  const marks = new Set(["data/m/out", "notes/a.md"]);
  assert.equal(underMarks(marks, "data/m/out/1/raw"), true);
  assert.equal(underMarks(marks, "data/m/out"), true);
  assert.equal(underMarks(marks, "notes/a.md"), true);
  assert.equal(underMarks(marks, "data/m/outside/1/raw"), false);
  assert.equal(underMarks(marks, "data/m"), false);
  assert.equal(underMarks(new Set(), "data/m/out/1/raw"), false);
});

Deno.test("underMarkedDirectory: only under a marked directory, not the marked path itself", () => {
  const marks = new Set(["data/m/out", "notes/a.md"]);
  assert.equal(underMarkedDirectory(marks, "data/m/out/1/raw"), true);
  assert.equal(underMarkedDirectory(marks, "data/m/out"), false);
  assert.equal(underMarkedDirectory(marks, "notes/a.md"), false);
  assert.equal(underMarkedDirectory(marks, "data/m/out-2/raw"), false);
});
