import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";

Deno.test("push . is refused, saying that a plain push pushes the whole cache", async () => {
  const w = await world();
  try {
    const a = w.cache("a");
    await w.write(a, "notes/a.txt", "1\n");
    for (const dot of [".", "./"]) {
      const r = await sluice(["push", dot, "--cache", a, "--store", w.url]);
      assert.equal(r.code, 65, r.err);
      assert.match(
        r.err,
        /^error\[unsafe_path\]: Refused the path "\.\/?": it has a '\.' or '\.\.' segment \(a plain `sluice push --cache \S+`, with no path, pushes the whole cache\)\. Nothing was written for it\.$/m,
      );
    }
    // The cache's own absolute path is no path inside it: said so.
    const root = await sluice(["push", a, "--cache", a, "--store", w.url]);
    assert.equal(root.code, 65, root.err);
    assert.match(root.err, /it is the cache itself: name paths inside it, or none/);
    // Any other path with such a segment is refused as before, without it.
    const inner = await sluice(["push", "notes/./a.txt", "--cache", a, "--store", w.url]);
    assert.equal(inner.code, 65, inner.err);
    assert.doesNotMatch(inner.err, /plain `sluice push/);
    // The plain push it names pushes the file.
    const plain = await sluice(["push", "--cache", a, "--store", w.url, "--json"]);
    assert.equal(plain.code, 0, plain.err);
    assert.deepEqual(plain.json().uploaded, ["notes/a.txt"]);
  } finally {
    await w.cleanup();
  }
});

Deno.test("--namespace where it changes nothing (push without --global-lock, pull, status) is a usage error, and nothing is synced", async () => {
  const w = await world();
  try {
    const a = w.cache("a");
    await w.write(a, "notes/a.txt", "1\n");
    for (const command of ["push", "pull", "status"]) {
      const r = await sluice([command, "--cache", a, "--store", w.url, "--namespace", "team1"]);
      assert.equal(r.code, 64, `${command}: ${r.err}`);
      assert.match(
        r.err,
        new RegExp(
          `^error\\[usage\\]: --namespace has no effect on \`sluice ${command}[^\`]*\`: .*--store s3://bucket/prefix/<ns>`,
        ),
      );
    }
    assert.deepEqual([...Deno.readDirSync(w.root)], [], "nothing pushed");
    // With --global-lock it names the lock: the push runs under .locks/team1.lock.
    const locked = await sluice([
      "push",
      "--cache",
      a,
      "--store",
      w.url,
      "--namespace",
      "team1",
      "--global-lock",
      "--json",
    ]);
    assert.equal(locked.code, 0, locked.err);
    assert.deepEqual(locked.json().uploaded, ["notes/a.txt"]);
  } finally {
    await w.cleanup();
  }
});
