/**
 * Bad input, remote keys: keys that escape the cache (`..`, absolute,
 * backslash, NUL, lone surrogate, very long) and sync state paths are refused
 * before anything is written. See `sandbox.ts` for the sandbox every test runs
 * in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { resolve as resolvePath } from "node:path";
import { randomId } from "../../sync/hash.ts";
import { INDEX_KEY } from "../../sync/transfer/remote_index.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import {
  cacheFiles,
  clone,
  enc,
  entry,
  put,
  read,
  refused,
  type Sandbox,
  sandbox,
} from "./sandbox.ts";

Deno.test("remote keys: an index listing a key that escapes the cache is refused before anything is written", async () => {
  const id = randomId(4);
  const cases: [string, (sb: Sandbox) => string][] = [
    ["a '..' segment", () => `../escaped-${id}.txt`],
    ["'..' after a directory", () => `outputs/../../escaped-${id}.txt`],
    ["an absolute path", (sb) => `${sb.sentinel}/abs-${id}.txt`],
    ["a backslash", () => `outputs\\..\\..\\escaped-${id}.txt`],
    ["a NUL", () => `outputs/evil\0.txt`],
    ["a control character", () => `outputs/evil\n.txt`],
    ["a lone surrogate", () => `outputs/bad-\ud800.txt`],
    ["a very long key", () => `outputs/${"x/".repeat(600)}f.txt`],
    ["a very long segment", () => `outputs/${"y".repeat(300)}.txt`],
    ["a drive letter", () => `C:/escaped-${id}.txt`],
    ["an empty key", () => ""],
    ["an empty segment", () => "outputs//x.txt"],
    ["a '.' segment", () => "./outputs/x.txt"],
  ];
  for (const [what, make] of cases) {
    const sb = await sandbox();
    const bad = make(sb);
    const store = new InMemoryStore();
    const ok = enc("a fine file");
    const evil = enc("bytes that must land nowhere");
    const okInfo = store.seed("ok/first.txt", ok);
    const badInfo = store.seed(bad, evil);
    store.seed(
      INDEX_KEY,
      JSON.stringify({
        version: 1,
        entries: { "ok/first.txt": entry(okInfo.version, ok), [bad]: entry(badInfo.version, evil) },
      }),
    );
    const b = await clone(store, sb.cacheDir, { name: "b" });
    await put(sb.cacheDir, "keep/mine.txt", "local work");
    await b.markDirty({ relPath: "keep/mine.txt" });
    const before = await cacheFiles(sb.cacheDir);
    await refused(
      b.pullChanged(),
      "unsafe_path",
      /the remote index \(\.datastore-index\.json\) lists 1 key\(s\) that are not safe cache paths.*nothing was written/,
      /Remove those entries/,
    );
    assert.deepEqual(await cacheFiles(sb.cacheDir), before, `${what}: nothing was written`);
    assert.equal(await read(sb.cacheDir, "keep/mine.txt"), "local work", what);
    assert.deepEqual(b.state.dirtyPaths(), ["keep/mine.txt"], what);
    const target = resolvePath(sb.cacheDir, bad.replaceAll("\0", ""));
    if (target !== sb.cacheDir && !target.startsWith(`${sb.cacheDir}/`)) {
      assert.equal(await Deno.lstat(target).catch(() => null), null, `${what}: ${target}`);
    }
    await sb.unchanged();
  }
});

Deno.test("remote keys: sync state paths listed by the index are never pulled over the cache's state", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const ok = enc("fine");
  const junk = enc("{ not a manifest");
  const v = (k: string, b: Uint8Array) => entry(store.seed(k, b).version, b);
  store.seed(
    INDEX_KEY,
    JSON.stringify({
      version: 1,
      entries: {
        "ok.txt": v("ok.txt", ok),
        ".sluice/manifest.json": v(".sluice/manifest.json", junk),
        ".sluice/dirty.log": v(".sluice/dirty.log", junk),
        ".sluice/manifest.log": v(".sluice/manifest.log", junk),
      },
    }),
  );
  const b = await clone(store, sb.cacheDir, { name: "b" });
  await put(sb.cacheDir, "mine.txt", "local work");
  await b.markDirty({ relPath: "mine.txt" });
  const dirtyLog = await read(sb.cacheDir, ".sluice/dirty.log");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.fetched, ["ok.txt"]);
  assert.equal(await read(sb.cacheDir, ".sluice/dirty.log"), dirtyLog);
  assert.equal(JSON.parse(await read(sb.cacheDir, ".sluice/manifest.json")).format, 1);
  const again = await clone(store, sb.cacheDir, { name: "b" });
  assert.deepEqual(again.state.dirtyPaths(), ["mine.txt"], "the dirty mark survived");
  await sb.unchanged();
});

Deno.test("remote keys: markDirty refuses unsafe paths and marks nothing", async () => {
  const sb = await sandbox();
  const svc = await clone(new InMemoryStore(), sb.cacheDir);
  await put(sb.cacheDir, "ok.txt", "x");
  for (const bad of ["../x", "/etc/passwd", "a\\b", "a\0b", "a//b", "", "x".repeat(2000)]) {
    await refused(
      svc.markDirty({ relPath: bad }),
      "unsafe_path",
      /Refused the path .*: it (is|has|contains)/,
      /Nothing was written for it/,
    );
    await refused(
      svc.markDirty({ relPaths: ["ok.txt", bad] }),
      "unsafe_path",
      /Refused the path/,
      /Nothing was written for it/,
    );
  }
  assert.deepEqual(svc.state.dirtyPaths(), [], "the batch with a bad path marked nothing");
  await sb.unchanged();
});
