/** The command line beside old swamp clients: `--global-lock`, and an index entry an old client dropped. */
import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { peerPush } from "../packages/testing/mod.ts";

Deno.test("push --global-lock publishes under the datastore's global lock and leaves no lock behind", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "config/app.yaml", "a: 1\n");
  await w.write(a, "logs/run.log", "ok\n");
  const pushed = await sluice(["push", "--global-lock", "--cache", a, "--store", w.url, "--json"]);
  assert.equal(pushed.code, 0, pushed.err);
  assert.deepEqual((pushed.json().uploaded as string[]).sort(), [
    "config/app.yaml",
    "logs/run.log",
  ]);
  await assert.rejects(Deno.lstat(`${w.root}/.datastore.lock`), Deno.errors.NotFound);

  const nsCache = w.cache("b");
  await w.write(nsCache, "notes/n.md", "n\n");
  const ns = await sluice([
    "push",
    "--global-lock",
    "--namespace",
    "team",
    "--cache",
    nsCache,
    "--store",
    w.url,
  ]);
  assert.equal(ns.code, 0, ns.err);
  assert.match(ns.out, /^Pushed 1 file/m);
  await assert.rejects(Deno.lstat(`${w.root}/.locks/team.lock`), Deno.errors.NotFound);

  const b = w.cache("c");
  const pulled = await sluice(["pull", "--cache", b, "--store", w.url, "--json"]);
  assert.equal(pulled.code, 0, pulled.err);
  assert.deepEqual((pulled.json().fetched as string[]).sort(), [
    "config/app.yaml",
    "logs/run.log",
    "notes/n.md",
  ]);
  await w.cleanup();
});

Deno.test("resolve --global-lock publishes the resolution and leaves no lock behind", async () => {
  const w = await world();
  const a = w.cache("a");
  const b = w.cache("b");
  await w.write(a, "config/app.yaml", "base\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  await w.write(a, "config/app.yaml", "a's change\n");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  await w.write(b, "config/app.yaml", "b's change\n");
  const clash = await sluice(["push", "--cache", b]);
  assert.equal(clash.code, 3, clash.out);
  const resolved = await sluice([
    "resolve",
    "config/app.yaml",
    "--mine",
    "--global-lock",
    "--cache",
    b,
  ]);
  assert.equal(resolved.code, 0, resolved.err);
  assert.match(resolved.out, /^Published your copy of config\/app\.yaml/m);
  await assert.rejects(Deno.lstat(`${w.root}/.datastore.lock`), Deno.errors.NotFound);
  assert.equal((await sluice(["pull", "--cache", a])).code, 0);
  assert.equal(await Deno.readTextFile(`${a}/config/app.yaml`), "b's change\n");
  await w.cleanup();
});

Deno.test("pull keeps a file whose index entry an old client dropped (exit 2), and push publishes it again", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "config/app.yaml", "a: 1\n");
  // An old client rewrites the index around this cache's push, without its entry.
  await peerPush(new FsStore({ root: w.root }), { "files/old.txt": "old\n" }, {
    afterRead: async () => {
      const pushed = await sluice(["push", "--cache", a, "--store", w.url]);
      assert.equal(pushed.code, 0, pushed.err);
    },
  });
  const pulled = await sluice(["pull", "--cache", a]);
  assert.equal(pulled.code, 2, pulled.out + pulled.err);
  assert.match(pulled.out, /Kept 1 file that the datastore's index no longer names/);
  assert.match(pulled.out, /run `sluice push --cache \S+\/a` to publish them again/);
  assert.equal(await Deno.readTextFile(`${a}/config/app.yaml`), "a: 1\n");
  const again = await sluice(["push", "--cache", a]);
  assert.equal(again.code, 0, again.err);
  const b = w.cache("b");
  const fresh = await sluice(["pull", "--cache", b, "--store", w.url, "--json"]);
  assert.equal(fresh.code, 0, fresh.err);
  assert.deepEqual((fresh.json().fetched as string[]).sort(), ["config/app.yaml", "files/old.txt"]);
  await w.cleanup();
});
