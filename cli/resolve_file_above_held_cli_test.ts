/**
 * `sluice resolve --mine` of a copy a pull set aside whose directory a file
 * of this cache's replaced here since: its push deletes theirs and
 * publishes that file. Where the push holds the file back (a peer published
 * another file under the directory since), the command says theirs was
 * deleted and names the file as left behind (exit 2), never success.
 */
import assert from "node:assert/strict";
import { InMemoryStore, writeCacheFile } from "../packages/testing/mod.ts";
import { clone, put } from "../sync/service/clone_kit.ts";
import { sluice } from "./cli_test_kit.ts";
import type { StoreSpec } from "./store_spec.ts";

const DIR = "notes/shared-1.md";
const UNDER = `${DIR}/part-43.md`;

Deno.test("resolve --mine whose push deletes theirs but holds the file that replaced its directory: exit 2, the file named with its reason", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, UNDER, "a's part");
  await a.pushChanged();
  await put(b, UNDER, "b's own copy", false);
  assert.deepEqual((await b.pullChanged()).conflicts, [UNDER]);
  await Deno.remove(`${b.cacheDir}/${DIR}`, { recursive: true });
  await writeCacheFile(b.cacheDir, DIR, "b's file");
  await b.markDirty({ relPath: DIR });
  // Another file under the directory, published by the peer since.
  await put(a, `${DIR}/other.md`, "a's other part");
  await a.pushChanged();
  const openStore = (spec: StoreSpec) => ({ store, spec, close: () => {} });
  const url = "s3://mem/?endpoint=http://127.0.0.1:9";
  const r = await sluice(["resolve", UNDER, "--mine", "--cache", b.cacheDir, "--store", url], {
    openStore,
  });
  assert.match(r.out, /^Deleted notes\/shared-1\.md\/part-43\.md on \S+ \(your deletion\)\.$/m);
  assert.equal(store.peekText(UNDER), undefined, "theirs deleted");
  assert.equal(r.code, 2, `${r.out}\n${r.err}`);
  assert.match(r.err, /sync_incomplete/, r.err);
  assert.ok(r.err.includes(`${DIR}/other.md among them`), r.err);
  assert.match(r.out, /^Your copy stays set aside in \S+\.$/m, r.out);
});
