import assert from "node:assert/strict";
import { type ConflictRecord, ConflictSet, resolveHint } from "./conflicts.ts";
import { STATE_DIR } from "../transfer/cache.ts";

const record = (path: string, at = 1): ConflictRecord => ({
  path,
  mine: { location: path, hash: "a".repeat(64), size: 1 },
  theirs: { version: "v2", hash: "b".repeat(64), size: 2 },
  base: "v1",
  foundBy: "pull",
  at,
  reason: "both changed",
});

Deno.test("a new cache has no conflicts and no warning", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const set = await ConflictSet.open(dir);
    assert.deepEqual(set.list(), []);
    assert.equal(set.loadWarning, undefined);
    assert.equal(set.has("x"), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("records persist across opens, listed by path; a newer record replaces an older one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const set = await ConflictSet.open(`${dir}/`);
    await set.record([record("z"), record("a")]);
    await set.record([record("z", 2)]);
    await set.record([]);
    const again = await ConflictSet.open(dir);
    assert.deepEqual(again.list().map((r) => r.path), ["a", "z"]);
    assert.equal(again.get("z")?.at, 2);
    assert.deepEqual(again.get("a"), record("a"));
    assert.equal(again.has("a"), true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("clear forgets the given paths for good, and writes nothing when none was recorded", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/${STATE_DIR}/conflicts.json`;
  try {
    const set = await ConflictSet.open(dir);
    await set.clear(["never"]);
    await assert.rejects(Deno.stat(file), Deno.errors.NotFound);
    await set.record([record("a"), record("b")]);
    await set.clear(["a", "never"]);
    assert.deepEqual((await ConflictSet.open(dir)).list().map((r) => r.path), ["b"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unreadable record file is dropped with a warning; records not under their own path are ignored", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/${STATE_DIR}/conflicts.json`;
  try {
    await Deno.mkdir(`${dir}/${STATE_DIR}`);
    await Deno.writeTextFile(file, "{torn");
    const torn = await ConflictSet.open(dir);
    assert.deepEqual(torn.list(), []);
    assert.match(torn.loadWarning ?? "", /unreadable.*local files were not touched/);

    await Deno.writeTextFile(file, JSON.stringify({ format: 2, conflicts: {} }));
    assert.match((await ConflictSet.open(dir)).loadWarning ?? "", /unknown format/);

    await Deno.writeTextFile(
      file,
      JSON.stringify({ format: 1, conflicts: { a: record("a"), b: record("other") } }),
    );
    const mixed = await ConflictSet.open(dir);
    assert.equal(mixed.loadWarning, undefined);
    assert.deepEqual(mixed.list().map((r) => r.path), ["a"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resolveHint names the three ways out", () => {
  assert.equal(
    resolveHint("config/a.yaml"),
    "sluice resolve config/a.yaml --mine|--theirs|--merged",
  );
});

const ASIDE = ".sluice/set-aside/2026-01-01T00-00-00-000Z-a1b2c3/n";
const setAside = (at = 1): ConflictRecord => ({
  ...record("n", at),
  mine: { location: ASIDE, hash: "c".repeat(64), size: 3 },
});

Deno.test("a record naming a set-aside copy, replaced by a later conflict, keeps naming it; settle leaves it, clear drops it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const set = await ConflictSet.open(dir);
    await set.record([setAside(1)]);
    await set.record([record("n", 2)]);
    await set.record([record("n", 3)]);
    const again = await ConflictSet.open(dir);
    assert.deepEqual(again.get("n"), { ...record("n", 3), keptAside: [setAside().mine] });
    await again.settle(["n"]);
    assert.equal((await ConflictSet.open(dir)).has("n"), true, "agreeing sides keep it");
    // A record naming no set-aside copy is settled.
    await again.record([record("m")]);
    await again.settle(["m"]);
    assert.equal(again.has("m"), false);
    await again.clear(["n"]);
    assert.deepEqual((await ConflictSet.open(dir)).list(), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("records written without keptAside load as they were; a malformed keptAside is dropped, not the record", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/${STATE_DIR}`);
    await Deno.writeTextFile(
      `${dir}/${STATE_DIR}/conflicts.json`,
      JSON.stringify({
        format: 1,
        conflicts: { n: setAside(), m: { ...record("m"), keptAside: "not a list" } },
      }),
    );
    const set = await ConflictSet.open(dir);
    assert.equal(set.loadWarning, undefined);
    assert.deepEqual(set.get("n"), setAside());
    assert.deepEqual(set.get("m"), record("m"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the resolve hint quotes a path a shell would split", () => {
  assert.equal(resolveHint("notes/a.txt"), "sluice resolve notes/a.txt --mine|--theirs|--merged");
  assert.equal(
    resolveHint("notes/sp ace.txt"),
    "sluice resolve 'notes/sp ace.txt' --mine|--theirs|--merged",
  );
});

Deno.test("refresh takes in what another process sharing the cache recorded or resolved since, with this one's own unsaved changes over it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const one = await ConflictSet.open(dir);
    const two = await ConflictSet.open(dir);
    await one.record([record("x"), record("y")]);
    await two.refresh();
    assert.deepEqual(two.list().map((r) => r.path), ["x", "y"], "recorded elsewhere");
    await one.clear(["x"]);
    await two.refresh();
    assert.deepEqual(two.list().map((r) => r.path), ["y"], "resolved elsewhere");
    await two.refresh(); // nothing changed: kept as it is
    assert.deepEqual(two.list().map((r) => r.path), ["y"]);
    await one.clear(["y"]);
    await two.refresh();
    assert.deepEqual(two.list(), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
