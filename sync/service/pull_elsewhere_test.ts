import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { VersionConflictError } from "../errors.ts";
import { underMarkedDirectory, underMarks } from "./pull_elsewhere.ts";
import { clone, processOver, put, read } from "./clone_kit.ts";
import { duringMarksRead } from "./marks_read_kit.ts";

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

Deno.test("a pull leaves as it is a version another process over the cache marks and writes after the pull read the marks and before it planned: never set aside for another writer's version of that number", async () => {
  const store = new InMemoryStore();
  const dir = "data/shell/cmd/m1/out";
  const raw = `${dir}/1/raw`;
  // Another writer publishes its version 1.
  const b = await clone(store, "b");
  await put(b, raw, "from b");
  await b.pushChanged();
  // Two processes over one cache: a run in the first, a pull in the second.
  const cacheDir = await Deno.makeTempDir();
  const run = await processOver(store, cacheDir, 1);
  const pulling = await processOver(store, cacheDir, 2);
  // Just after the pull looks at what other processes marked (its second
  // look, after the index, just before it plans), the run marks
  // its version's directory and writes its version 1 (the tool marks, then writes).
  const during = duringMarksRead(pulling, async () => {
    await run.markDirty({ relPath: dir });
    await Deno.mkdir(`${cacheDir}/${dir}/1`, { recursive: true });
    await Deno.writeTextFile(`${cacheDir}/${raw}`, "from a");
  }, 1);
  const pulled = await pulling.pullChanged();
  assert.ok(during.ran(), "the run wrote during the pull");
  assert.equal(await read(run, raw), "from a", "the run's, left as it is");
  assert.deepEqual(pulled.setAside, []);
  assert.deepEqual(pulled.conflicts, []);
  // The run's push is refused, the datastore's version 1 being another's:
  // never left with nothing of its own to push, as if published.
  await assert.rejects(run.pushChanged(), VersionConflictError);
  assert.equal(store.peekText(raw), "from b");
});
