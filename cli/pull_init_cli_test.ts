/**
 * `pull --init` of a datastore with no index: refused as a mistyped bucket
 * or prefix only where nothing is there; a datastore holding a first push's
 * uploads whose commit has not come (yet) is no typo.
 */
import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";

Deno.test("pull --init of a datastore holding only a first push's uploads, not committed yet: told of them, the cache kept, not refused as a mistyped store", async () => {
  const w = await world();
  // Another client's first push, its upload landed, its commit (the first index) not yet.
  await new FsStore({ root: w.root }).put(
    "notes/a.txt",
    new TextEncoder().encode("a\n"),
    PutModes.create,
    { metadata: { [WRITER_METADATA]: "0123456789abcdef01234567" } },
  );
  const fresh = `${w.base}/fresh-cache`;
  const r = await sluice(["pull", "--init", "--cache", fresh, "--store", w.url]);
  assert.match(r.err, /warning\[unindexed_writes_left\]: .*notes\/a\.txt/);
  assert.doesNotMatch(r.err, /nothing was ever pushed there/, "something was: told just above");
  assert.notEqual(r.code, 66, r.err);
  assert.equal(r.code, 0, r.err);
  assert.equal(
    await Deno.lstat(`${fresh}/.sluice`).then(() => true, () => false),
    true,
    "the cache the warning names is kept",
  );
  await w.cleanup();
});
