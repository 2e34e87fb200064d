import assert from "node:assert/strict";
import { ParentDirs } from "./cache_dirs.ts";

Deno.test("ParentDirs.firstInNew: true once per path in a directory it made, never in one it found, and again after a reset", async () => {
  const root = await Deno.makeTempDir({ prefix: "sluice-dirs-test-" });
  try {
    await Deno.mkdir(`${root}/old`);
    const dirs = new ParentDirs(root, new Set());
    assert.equal(dirs.make("new/a/f.txt"), undefined);
    assert.equal(dirs.make("old/g.txt"), undefined);
    assert.equal(dirs.firstInNew("new/a/f.txt"), true, "its directory was made here");
    assert.equal(dirs.firstInNew("new/a/f.txt"), false, "written once already");
    assert.equal(dirs.firstInNew("new/a/h.txt"), true);
    assert.equal(dirs.firstInNew("old/g.txt"), false, "a directory found, not made");
    assert.equal(dirs.firstInNew("top.txt"), false, "the cache's own directory");
    assert.equal(await dirs.makeAsync("new/b/f.txt"), undefined);
    assert.equal(dirs.firstInNew("new/b/f.txt"), true);
    dirs.reset();
    assert.equal(dirs.make("new/a/f.txt"), undefined);
    assert.equal(dirs.firstInNew("new/a/f.txt"), false, "after a reset the directory is found");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ParentDirs.make and makeAsync under a file: NotADirectory (a path blocked), in both forms and at every depth", async () => {
  const root = await Deno.makeTempDir({ prefix: "sluice-dirs-test-" });
  try {
    await Deno.writeTextFile(`${root}/f`, "a file");
    const dirs = new ParentDirs(root, new Set());
    assert.throws(() => dirs.make("f/x.txt"), Deno.errors.NotADirectory);
    assert.throws(() => dirs.make("f/y/x.txt"), Deno.errors.NotADirectory);
    await assert.rejects(() => dirs.makeAsync("f/x.txt"), Deno.errors.NotADirectory);
    await assert.rejects(() => dirs.makeAsync("f/y/x.txt"), Deno.errors.NotADirectory);
    assert.equal(await Deno.readTextFile(`${root}/f`), "a file", "what is in the way is kept");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("ParentDirs.forget: a directory removed is made again by the next write under it", async () => {
  const root = await Deno.makeTempDir({ prefix: "sluice-dirs-test-" });
  try {
    const checked = new Set<string>();
    const dirs = new ParentDirs(root, checked);
    assert.equal(dirs.make("d/x.txt"), undefined);
    await Deno.remove(`${root}/d`);
    dirs.forget("d");
    assert.ok(!checked.has("d"));
    assert.equal(dirs.make("d/x.txt"), undefined);
    assert.ok((await Deno.stat(`${root}/d`)).isDirectory);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
