import assert from "node:assert/strict";
import { PathBlockedError } from "../errors.ts";
import type { IndexEntry } from "../transfer/remote_index.ts";
import { BlockedRecord } from "./blocked_record.ts";
import { bothShapes, keepBlocked } from "./pull_blocked.ts";

const entry: IndexEntry = { v: "1", h: "h", s: 1 };

Deno.test("bothShapes: a file at a directory above the path, or files under it; never the path alone", () => {
  const both = bothShapes({ "a": entry, "a/b": entry, "d/e/f": entry, "x": entry });
  assert.equal(both("a/b"), true); // a file at `a` above it
  assert.equal(both("a"), true); // files under `a`
  assert.equal(both("d/e"), true); // `d/e/f` under it
  assert.equal(both("x"), false);
  assert.equal(both("d/e/f"), false);
  assert.equal(both("none"), false);
});

Deno.test("keepBlocked: records the blocked paths and those still in the way, leaves out both shapes, warns of each found", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const record = await BlockedRecord.open(dir);
    await record.update(["old/p", "gone/q"]);
    // A file `f` here is in the way of `f/g`, `old/p` and `u/v`.
    const files = new Set(["f", "old", "u"]);
    const cache = { exists: (p: string) => files.has(p), holdsDirectory: () => false };
    const warnings: { code: string; path?: string }[] = [];
    const events = {
      emit: (_: string, w: unknown) => void warnings.push(w as { code: string; path?: string }),
    };
    const blocked: string[] = [];
    await keepBlocked({
      state: { blocked: record },
      cache,
      events: events as never,
      entries: { "f/g": entry, "both": entry, "both/x": entry, "old/p": entry, "u/v": entry },
      prefixes: undefined,
      blockedBy: new Map([
        ["f/g", new PathBlockedError("f/g", "in the way")],
        ["both/x", new PathBlockedError("both/x", "in the way")],
      ]),
      blocked,
      uncommitted: ["u/v"],
    });
    assert.deepEqual(blocked, ["f/g", "both/x"]);
    // `gone/q` is no longer named by the index; `both/x` is the datastore's own two shapes.
    assert.deepEqual(record.paths().sort(), ["f/g", "old/p", "u/v"]);
    assert.deepEqual(warnings.map((w) => [w.code, w.path]), [
      ["path_blocked", "f/g"],
      ["path_blocked", "both/x"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
