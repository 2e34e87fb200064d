import assert from "node:assert/strict";
import { ManifestFiles } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";

const entry = (n: number): SyncedEntry => ({
  hash: `h${n}`,
  version: `v${n}`,
  size: n,
  mtimeMs: n,
});
const none = { changed: false, version: undefined };

/** Replaces line `n` (from 1) of the manifest log in `dir` by `text`. */
async function damageLine(dir: string, n: number, text: string): Promise<void> {
  const lines = (await Deno.readTextFile(`${dir}/manifest.log`)).split("\n");
  lines[n - 1] = text;
  await Deno.writeTextFile(`${dir}/manifest.log`, lines.join("\n"));
}

Deno.test("ManifestFiles: a damaged log line (not the last) loses its own record only: the base and every other line are read, the lines' numbers said, and the next save writes a base", async () => {
  const damages = [
    "#%garbage",
    '{"g":0,"p":"x","e":{"h":1,"v":"v"}}', // a malformed entry
    '{"g":0}', // no path
  ];
  for (const damage of damages) {
    const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
    const files = new ManifestFiles(dir);
    const manifest = new Map([["a", entry(1)], ["b", entry(2)]]);
    await files.ensureBase(manifest, undefined);
    manifest.set("c", entry(3));
    await files.save(manifest, ["c"], none);
    manifest.set("a", entry(4));
    await files.save(manifest, ["a"], none);
    manifest.delete("b");
    await files.save(manifest, ["b"], none);
    // The line recording a's newer version is damaged on disk.
    await damageLine(dir, 2, damage);

    const read = new Map<string, SyncedEntry>();
    const again = new ManifestFiles(dir);
    assert.deepEqual(await again.load(read), {
      kind: "read",
      indexVersion: undefined,
      damaged: [2],
    }, damage);
    // a keeps its record before the damaged line; c and b's removal are read.
    assert.deepEqual(read, new Map([["a", entry(1)], ["c", entry(3)]]), damage);
    read.set("d", entry(5));
    await again.save(read, ["d"], none);
    const after = new Map<string, SyncedEntry>();
    assert.deepEqual(await new ManifestFiles(dir).load(after), {
      kind: "read",
      indexVersion: undefined,
    }, `${damage}: the base written over the damaged log reads whole`);
    assert.deepEqual(after, read, damage);
  }
});

Deno.test("ManifestFiles: a take-in of a log with a damaged line takes in every other line: another process's records after it are kept by this process's next save", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const mine = new Map([["a", entry(1)]]);
  const files = new ManifestFiles(dir);
  await files.ensureBase(mine, undefined);
  // Another process over the cache records three paths, one line damaged on disk.
  const other = new ManifestFiles(dir);
  const theirs = new Map<string, SyncedEntry>();
  await other.load(theirs);
  for (const [p, n] of [["b", 2], ["c", 3], ["d", 4]] as const) {
    theirs.set(p, entry(n));
    await other.save(theirs, [p], none);
  }
  await damageLine(dir, 2, "#%garbage");
  await files.refresh(mine, []);
  assert.deepEqual(mine, new Map([["a", entry(1)], ["b", entry(2)], ["d", entry(4)]]));
  mine.set("e", entry(5));
  await files.save(mine, ["e"], none);
  const read = new Map<string, SyncedEntry>();
  assert.deepEqual(await new ManifestFiles(dir).load(read), {
    kind: "read",
    indexVersion: undefined,
  });
  assert.deepEqual(
    read,
    new Map([["a", entry(1)], ["b", entry(2)], ["d", entry(4)], ["e", entry(5)]]),
    "the other process's records b and d are kept; c, on the damaged line, is lost",
  );
});
