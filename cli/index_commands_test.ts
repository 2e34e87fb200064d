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
  assert.match(again.out, /v2 already \(commitSeq 1\); its shards and meta were left as they are/);
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

/** An empty store directory in the world, and `index migrate` run on it from cache `x`. */
async function migrateEmpty(w: Awaited<ReturnType<typeof world>>, seed?: string) {
  const empty = `${w.base}/empty-store`;
  await Deno.mkdir(empty);
  const store = new FsStore({ root: empty });
  if (seed) await store.put(seed, new TextEncoder().encode("x\n"), { kind: "overwrite" });
  const r = await sluice([
    "index",
    "migrate",
    "--cache",
    w.cache("x"),
    "--store",
    `file://${empty}`,
  ]);
  const left: string[] = [];
  for await (const page of store.list("")) for (const o of page) left.push(o.key);
  return { r, left };
}

Deno.test("index migrate of a datastore with nothing at all (a mistyped prefix) is not_found and writes nothing; run from a directory that is no cache, it names --store for what comes next", async () => {
  const w = await world();
  const { r, left } = await migrateEmpty(w);
  assert.equal(r.code, 1, r.out);
  assert.match(
    r.err,
    /^error\[not_found\]: Nothing is at file:\/\/\S+: no index and no object, so there is no index to move \(is the bucket or prefix mistyped\?\)\. Nothing was written\./,
  );
  assert.deepEqual(left, [], "no meta made");
  assert.match(
    r.err,
    /A new datastore starts with its first push \(`sluice push --init --store file:\/\/\S+/,
  );

  const a = w.cache("a");
  await w.write(a, "notes/a.txt", "a");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const fresh = `${w.base}/fresh`;
  await Deno.mkdir(fresh);
  const moved = await sluice(["index", "migrate", "--cache", fresh, "--store", w.url]);
  assert.equal(moved.code, 0, moved.err);
  assert.match(
    moved.out,
    /records no store: name it with --store in any command above, or make it a cache with `sluice pull --init --store file:\/\/\S+ --cache \S+`/,
  );
  const inCache = await sluice(["index", "migrate", "--cache", a]);
  assert.doesNotMatch(inCache.out, /records no store/);
  await w.cleanup();
});

Deno.test("index migrate of a datastore holding only Sluice's own objects (a lock, a clock reading, a probe) is not_found too", async () => {
  for (
    const key of [
      "_control/.sluice/clock",
      "_control/.sluice/probe/abc",
      ".sluice/clock",
      ".sluice/probe/abc",
      ".locks/ns.lock",
    ]
  ) {
    const w = await world();
    const { r, left } = await migrateEmpty(w, key);
    assert.equal(r.code, 1, `${key}: ${r.out}`);
    assert.deepEqual(left, [key], "no meta made");
    await w.cleanup();
  }
});
