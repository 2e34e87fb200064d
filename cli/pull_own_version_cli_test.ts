import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { peerPush } from "../packages/testing/mod.ts";

Deno.test("pull: a data version this cache published, kept over a deletion on the datastore, is told as such, not as a local change", async () => {
  const w = await world();
  const a = w.cache("a");
  const dir = "data/acme/box/m3/state";
  await w.write(a, `${dir}/1/raw`, "one");
  await w.write(a, `${dir}/latest`, "1");
  const pushed = await sluice(["push", "--cache", a, "--store", w.url]);
  assert.equal(pushed.code, 0, pushed.err);
  // Another client deletes it (an older client's push from a stale directory, say).
  await peerPush(new FsStore({ root: w.root }), { [`${dir}/latest`]: "0" }, {
    remove: [`${dir}/1/raw`],
  });
  const r = await sluice(["pull", "--cache", a]);
  assert.equal(r.code, 3, r.err);
  assert.doesNotMatch(r.out, /local change that also changed remotely/);
  assert.match(r.out, /Kept 1 data version this cache published, deleted on the datastore/);
  assert.match(r.out, new RegExp(`^  ${dir}/1/raw$`, "m"));
  assert.equal(await Deno.readTextFile(`${a}/${dir}/1/raw`), "one");
  await w.cleanup();
});
