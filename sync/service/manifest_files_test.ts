import assert from "node:assert/strict";
import { ManifestFiles } from "./manifest_files.ts";
import type { SyncedEntry } from "./manifest_log.ts";

const entry = (n: number): SyncedEntry => ({
  hash: `h${n}`,
  version: `v${n}`,
  size: n,
  mtimeMs: n,
});

Deno.test("ManifestFiles: a line written ahead while a save is under way is left for the next save to sync", async () => {
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
  manifest.set("d", entry(4));
  assert.equal(files.writeAhead(manifest, ["d"]), true, "written while the save waits");
  await saving;
  assert.equal(files.aheadUnsynced, true, "the save synced before it: d is still to sync");
  await files.save(manifest, [], { changed: false, version: undefined });
  assert.equal(files.aheadUnsynced, false);
  const read = new Map<string, SyncedEntry>();
  assert.equal((await new ManifestFiles(dir).load(read)).kind, "read");
  assert.deepEqual(read, manifest);
});
