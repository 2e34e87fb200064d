import assert from "node:assert/strict";
import { announceOnce, ignoredSummary, ignoreWithout, type ServerBinary } from "./binaries.ts";

function missing(): ServerBinary {
  return {
    name: `no-such-server-${crypto.randomUUID()}`,
    path: null,
    installHint: "bash .ci/install_no_such_server.sh",
  };
}

async function captureWarnings(fn: () => Promise<void>): Promise<string[]> {
  const warned: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => warned.push(args.join(" "));
  try {
    await fn();
  } finally {
    console.warn = original;
  }
  return warned;
}

Deno.test("a missing server is announced once per run, not once per test file", async () => {
  const binary = missing();
  // Each test file loads its own copy of the module; a query string does the same here.
  const warned = await captureWarnings(async () => {
    for (const file of ["a", "b", "c"]) {
      const common = await import(`./common.ts?file=${file}`);
      // As without SLUICE_REQUIRE_SERVERS, whatever this run's setting.
      assert.equal(common.ignoreWithout(binary, { requireServers: false }), true);
      const binaries = await import(`./binaries.ts?file=${file}`);
      assert.equal(binaries.ignoreWithout(binary, { requireServers: false }), true);
    }
  });
  assert.equal(warned.length, 1, warned.join("\n"));
  assert.match(warned[0], /no-such-server-.* is not installed: the tests that need it are ignored/);
  assert.match(warned[0], /`bash \.ci\/install_no_such_server\.sh`/);
  assert.match(warned[0], /SLUICE_REQUIRE_SERVERS=1/);
});

Deno.test("announceOnce: one line per run and key; old runs' markers are removed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-notice-test-" });
  try {
    const lines: string[] = [];
    const print = (l: string) => lines.push(l);
    const old = `${dir}/sluice-notice-1-old-key`;
    await Deno.writeTextFile(old, "x");
    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    await Deno.utime(old, dayAgo, dayAgo);

    assert.equal(announceOnce("k", "first", { dir, runId: "r1", print }), true);
    assert.equal(announceOnce("k", "again", { dir, runId: "r1", print }), false);
    assert.equal(announceOnce("k2", "other key", { dir, runId: "r1", print }), true);
    assert.equal(announceOnce("k", "next run", { dir, runId: "r2", print }), true);
    assert.deepEqual(lines, ["first", "other key", "next run"]);
    await assert.rejects(Deno.stat(old), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ignoreWithout tallies each ignored test; the run's summary counts them once and tidies up", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-notice-test-" });
  try {
    const lines: string[] = [];
    const print = (l: string) => lines.push(l);
    const options = { dir, runId: "r9", print, requireServers: false };
    const gone = { name: "minio", path: null, installHint: "bash .ci/install_minio.sh" };
    const here = { name: "s3rver", path: "/bin/true", installHint: "bash .ci/install_s3rver.sh" };
    for (const testFile of ["file:///r/a_test.ts", "file:///r/b_test.ts", "file:///r/b_test.ts"]) {
      assert.equal(ignoreWithout(gone, { ...options, testFile }), true);
    }
    assert.equal(ignoreWithout(here, options), false);
    assert.equal(lines.length, 1, "the notice is printed once");
    assert.match(lines[0], /printed at the end of the run/);
    // The runner's output: a_test.ts ignored 2 tests, b_test.ts 1, c_test.ts (no server) 5.
    const byFile = new Map([
      ["file:///r/a_test.ts", 2],
      ["file:///r/b_test.ts", 1],
      ["file:///r/c_test.ts", 5],
    ]);
    const summary = ignoredSummary([gone, here], byFile, options);
    assert.deepEqual(summary, [
      "[integration] not installed: minio. 3 tests were ignored in the files that need it. Install with `bash .ci/install_minio.sh`, then run the tests again.",
    ]);
    assert.deepEqual(ignoredSummary([gone], byFile, options), [], "the tally is removed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
