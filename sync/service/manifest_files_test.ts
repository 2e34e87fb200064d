import assert from "node:assert/strict";
import { ManifestFiles } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";

const entry = (n: number): SyncedEntry => ({
  hash: `h${n}`,
  version: `v${n}`,
  size: n,
  mtimeMs: n,
});

Deno.test("ManifestFiles: no line is written ahead while a write is queued or under way; the caller's next save writes it, after the older lines", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const files = new ManifestFiles(dir);
  const manifest = new Map([["a", entry(1)]]);
  assert.equal(files.writeAhead(manifest, ["a"]), false, "no base to append to yet");
  await files.ensureBase(manifest, undefined);
  manifest.set("b", entry(2));
  assert.equal(files.writeAhead(manifest, ["b"]), true);
  assert.equal(files.aheadUnsynced, true);
  manifest.set("c", entry(3));
  const saving = files.save(manifest, ["c"], { changed: false, version: undefined });
  manifest.set("c", entry(4));
  assert.equal(files.writeAhead(manifest, ["c"]), false, "refused while the save waits");
  await saving;
  assert.equal(files.aheadUnsynced, false, "the save synced b's line");
  assert.equal(files.writeAhead(manifest, ["c"]), true, "written once the save is done");
  await files.save(manifest, [], { changed: false, version: undefined });
  assert.equal(files.aheadUnsynced, false);
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
  assert.deepEqual(read, manifest);
});

Deno.test("ManifestFiles: two bases asked for at once are written one after the other, the later numbered past the earlier", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const files = new ManifestFiles(dir);
  const manifest = new Map([["a", entry(1)]]);
  const first = files.ensureBase(manifest, undefined);
  manifest.set("b", entry(2));
  const second = files.save(manifest, ["b"], { changed: true, version: "t1" });
  await Promise.all([first, second]);
  const read = new Map<string, SyncedEntry>();
  assert.deepEqual(await new ManifestFiles(dir).load(read), { kind: "read", indexVersion: "t1" });
  assert.deepEqual(read, manifest);
});

Deno.test("ManifestFiles: a base that records nothing, with no line after it, is not a sync state", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const files = new ManifestFiles(dir);
  const manifest = new Map<string, SyncedEntry>();
  await files.ensureBase(manifest, undefined);
  assert.equal(files.seen, false);
  const again = new ManifestFiles(dir);
  await again.load(new Map());
  assert.equal(again.seen, false, "nor once read back");
  manifest.set("a", entry(1));
  assert.equal(again.writeAhead(manifest, ["a"]), true);
  assert.equal(again.seen, true);
});
