import assert from "node:assert/strict";
import {
  assertSafeRelPath,
  directoriesOf,
  isSafeRelPath,
  joinKey,
  MAX_PATH_LENGTH,
  parentOf,
  sortedHasUnder,
} from "./paths.ts";
import { UnsafePathError } from "./errors.ts";

Deno.test("assertSafeRelPath accepts cache-relative paths with forward slashes", () => {
  for (
    const p of [
      "a",
      "data/shell/cmd/m1/out/4/raw",
      "notes/ünïcode ✓.txt",
      ".datastore-index.json",
      "a/..b/c..",
      `${"x".repeat(200)}/`.repeat(5) + "x".repeat(MAX_PATH_LENGTH - 1005),
    ]
  ) {
    assert.doesNotThrow(() => assertSafeRelPath(p), p);
    assert.equal(isSafeRelPath(p), true, p);
  }
});

Deno.test("assertSafeRelPath refuses every escape and unencodable name with an UnsafePathError saying why", () => {
  const cases: [string, RegExp][] = [
    ["", /empty/],
    ["x".repeat(MAX_PATH_LENGTH + 1), /longer than 1024/],
    ["a\0b", /NUL/],
    ["a\nb", /control character/],
    ["a\x7fb", /control character/],
    ["a\\b", /backslash/],
    ["a\uD800b", /lone surrogate/],
    ["/etc/passwd", /absolute/],
    ["C:/x", /absolute/],
    ["a//b", /empty segment/],
    ["a/", /empty segment/],
    ["./a", /'\.' or '\.\.'/],
    ["a/../../b", /'\.' or '\.\.'/],
    [`a/${"é".repeat(128)}`, /longer than 255 bytes/],
  ];
  for (const [p, why] of cases) {
    assert.throws(() => assertSafeRelPath(p), (e) => {
      assert.ok(e instanceof UnsafePathError, JSON.stringify(p));
      assert.equal(e.code, "unsafe_path");
      assert.match(e.message, why, JSON.stringify(p));
      return true;
    });
    assert.equal(isSafeRelPath(p), false, JSON.stringify(p));
  }
});

Deno.test("a 255-byte segment is accepted, one byte more is refused", () => {
  assert.equal(isSafeRelPath(`a/${"é".repeat(127)}x`), true); // 255 bytes
  assert.equal(isSafeRelPath(`a/${"é".repeat(127)}xy`), false); // 256 bytes
});

Deno.test("joinKey trims slashes around each part and drops empty parts", () => {
  assert.equal(joinKey("prefix/", "/a/b"), "prefix/a/b");
  assert.equal(joinKey("", "a"), "a");
  assert.equal(joinKey("//p//", "", "k"), "p/k");
  assert.equal(joinKey(), "");
});

Deno.test("parentOf is the directory part, empty at the top", () => {
  assert.equal(parentOf("a/b/c.txt"), "a/b");
  assert.equal(parentOf("c.txt"), "");
  assert.equal(parentOf("a/"), "a");
});

/** The checks of `assertSafeRelPath`, spelled out plainly: what its quick pass must agree with. */
function referenceSafe(p: string): boolean {
  if (p.length === 0 || p.length > MAX_PATH_LENGTH) return false;
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f\\]/.test(p) || !p.isWellFormed()) return false;
  if (p.startsWith("/") || /^[A-Za-z]:/.test(p)) return false;
  return p.split("/").every((seg) =>
    seg !== "" && seg !== "." && seg !== ".." && new TextEncoder().encode(seg).length <= 255
  );
}

Deno.test("assertSafeRelPath agrees with its plain reading on random paths built from tricky pieces", () => {
  const pieces = [
    "a",
    "b/",
    "/",
    ".",
    "..",
    "...",
    ":",
    "C",
    "1",
    "\\",
    "\0",
    "\n",
    "\x7f",
    "\x1f",
    " ",
    "é",
    "✓",
    "\uD800",
    "\uDC00",
    "\uD83D\uDE00",
    "x".repeat(85),
    "é".repeat(43),
    "é".repeat(128),
  ];
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 20_000; i++) {
    let p = "";
    for (let k = next() % 7; k >= 0; k--) p += pieces[next() % pieces.length];
    assert.equal(isSafeRelPath(p), referenceSafe(p), JSON.stringify(p));
    assert.equal(
      (() => {
        try {
          assertSafeRelPath(p);
          return true;
        } catch (e) {
          assert.ok(e instanceof UnsafePathError);
          return false;
        }
      })(),
      referenceSafe(p),
      JSON.stringify(p),
    );
  }
  assert.equal(isSafeRelPath("1:x"), true, "only a letter before ':' makes a drive");
  assert.equal(isSafeRelPath("C:x"), false);
});

Deno.test("sortedHasUnder answers as directoriesOf does, for every directory and near name", () => {
  const pieces = ["a", "b", "a.b", "a-", "a0", "ä", "~", "a b", "🙂", "A"];
  let seed = 7;
  const pick = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return pieces[seed % pieces.length];
  };
  for (let round = 0; round < 50; round++) {
    const paths = Array.from(
      { length: 1 + (round % 9) },
      () => Array.from({ length: 1 + (seed % 4) }, pick).join("/"),
    );
    const sorted = [...paths].sort();
    const dirs = directoriesOf(paths);
    const asked = new Set([...dirs, ...paths, "", "a/", "a/b", "a-", "a.b/a"]);
    for (const p of paths) for (const q of pieces) asked.add(`${p}${q}`);
    for (const d of asked) {
      assert.equal(sortedHasUnder(sorted, d), d !== "" && dirs.has(d), `${d} in ${paths}`);
    }
  }
  assert.equal(sortedHasUnder([], "a"), false);
});
