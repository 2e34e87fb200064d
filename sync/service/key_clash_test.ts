/**
 * A store that keeps keys as files on disk (`FsStore`) cannot hold a key
 * `a` and keys under `a/` at once. A push that replaces one by the other
 * (a synced file replaced here by a directory of its name, or the reverse)
 * deletes the old shape first and then writes the new, in one run; a peer
 * follows in one pull.
 */
import assert from "node:assert/strict";
import { FsStore } from "../../packages/fs/mod.ts";
import { FakeClock } from "../../packages/testing/mod.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";
import { createSluice } from "../../sluice.ts";
import type { SyncService } from "./service.ts";
import { put, quick, read } from "./clone_kit.ts";

async function fsClone(root: string, name: string): Promise<SyncService> {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-${name}-` }),
    store: new FsStore({ root }),
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
    conditional: new ConditionalWrites(),
  });
}

const keys = async (root: string): Promise<string[]> => {
  const out: string[] = [];
  for await (const page of new FsStore({ root }).list("clash")) out.push(...page.map((o) => o.key));
  return out.sort();
};

Deno.test("file store: a synced file replaced by a directory of its name, pushed by its name, is deleted there and the directory's files written, in one push", async () => {
  const root = await Deno.makeTempDir({ prefix: "sluice-fs-store-" });
  const a = await fsClone(root, "a");
  const b = await fsClone(root, "b");
  await put(a, "clash", "a file");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/clash`);
  await put(a, "clash/x.txt", "under a directory", false);
  await a.markDirty({ relPath: "clash" });
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["clash/x.txt"]);
  assert.deepEqual(r.deleted, ["clash"]);
  assert.deepEqual(await keys(root), ["clash/x.txt"]);
  assert.deepEqual(a.state.dirtyPaths(), [], "nothing left to push");
  const rb = await b.pullChanged();
  assert.deepEqual([rb.removed, rb.fetched, rb.blocked], [["clash"], ["clash/x.txt"], []]);
  assert.equal(await read(b, "clash/x.txt"), "under a directory");
});

Deno.test("file store: a synced directory replaced by a file of its name, pushed by its name, has its files deleted there and the file written, in one push", async () => {
  const root = await Deno.makeTempDir({ prefix: "sluice-fs-store-" });
  const a = await fsClone(root, "a");
  const b = await fsClone(root, "b");
  await put(a, "clash/x.txt", "under a directory");
  await put(a, "clash/y.txt", "another");
  await a.pushChanged();
  await b.pullChanged();
  await Deno.remove(`${a.cacheDir}/clash`, { recursive: true });
  await put(a, "clash", "a file", false);
  await a.markDirty({ relPath: "clash" });
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["clash"]);
  assert.deepEqual(r.deleted.sort(), ["clash/x.txt", "clash/y.txt"]);
  assert.deepEqual(await keys(root), ["clash"]);
  const rb = await b.pullChanged();
  assert.deepEqual(rb.fetched, ["clash"]);
  assert.equal(await read(b, "clash"), "a file");
});
