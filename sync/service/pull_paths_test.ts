import assert from "node:assert/strict";
import { inTheWay, under } from "./pull_paths.ts";

Deno.test("under: a path is under a prefix it equals or lies below, by whole segments; every path without prefixes", () => {
  assert.equal(under("notes/a.md", undefined), true);
  assert.equal(under("notes/a.md", ["notes"]), true);
  assert.equal(under("notes/a.md", ["notes/"]), true);
  assert.equal(under("notes/a.md", ["notes/a.md"]), true);
  assert.equal(under("notes2/a.md", ["notes"]), false);
  assert.equal(under("notes/a.md", []), false);
});

Deno.test("inTheWay: a file at a directory above the path, or a directory at it; nothing when the way is clear", () => {
  const files = new Set(["a", "d/e"]);
  const dirs = new Set(["d", "x", "x/y"]);
  const cache = {
    exists: (p: string) => files.has(p) || dirs.has(p),
    holdsDirectory: (p: string) => dirs.has(p),
  };
  assert.equal(inTheWay(cache, "a/b"), "a");
  assert.equal(inTheWay(cache, "d/e/f"), "d/e");
  assert.equal(inTheWay(cache, "x/y"), "x/y/");
  assert.equal(inTheWay(cache, "d/new"), undefined);
  assert.equal(inTheWay(cache, "none/at/all"), undefined);
});
