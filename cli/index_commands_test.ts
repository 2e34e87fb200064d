import assert from "node:assert/strict";
import { FsStore } from "../packages/fs/mod.ts";
import { sluice, world } from "./cli_test_kit.ts";

Deno.test("index migrate moves a pushed bucket to v2 once; a clone then pulls everything and pushes on v2", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "data/t/m/d/1/raw", "one");
  await w.write(a, "outputs/t/run/o.yaml", "out");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);

  const r = await sluice(["index", "migrate", "--cache", a, "--store", w.url, "--json"]);
  assert.equal(r.code, 0, r.err);
  const j = r.json();
  assert.equal(j.migrated, true);
  assert.equal(j.entries, 2);
  assert.equal(j.commitSeq, 1);
  const store = new FsStore({ root: w.root });
  const meta = JSON.parse(new TextDecoder().decode((await store.get("_index/_meta.json")).body));
  assert.equal(meta.version, 2);

  const again = await sluice(["index", "migrate", "--cache", a, "--store", w.url]);
  assert.equal(again.code, 0);
  assert.match(again.out, /v2 already \(commitSeq 1\); nothing was changed/);
  // The index moved, but nothing changed for this cache: it is up to date, not "pulled 0 files".
  const pulled = await sluice(["pull", "--cache", a]);
  assert.equal(pulled.code, 0, pulled.err);
  assert.match(pulled.out, /^Already up to date with /);

  const b = w.cache("b");
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  assert.equal(await Deno.readTextFile(`${b}/data/t/m/d/1/raw`), "one");
  await w.write(b, "data/t/m/d/2/raw", "two");
  assert.equal((await sluice(["push", "--cache", b, "--store", w.url])).code, 0);
  const after = JSON.parse(new TextDecoder().decode((await store.get("_index/_meta.json")).body));
  assert.equal(after.commitSeq, 2, "the push committed on v2");
  await w.cleanup();
});
