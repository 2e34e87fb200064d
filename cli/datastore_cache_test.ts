/**
 * The command line on a datastore's cache, where the extension keeps the
 * sync state under `_control/` at the cache's root (`sharedStateDir`): it
 * reads and writes that state, never starting another `.sluice/` beside the
 * files, and shows set-aside copies where they are.
 */
import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";
import { sharedStateDir, STATE_DIR } from "../sync/transfer/cache.ts";

const CFG = "config/app.yaml";

/** A datastore cache synced once by the command line, its state then moved where the extension keeps it. */
async function datastoreCache(ns: string) {
  const w = await world();
  const url = ns ? `file://${w.root}/${ns}` : w.url;
  if (ns) await Deno.mkdir(`${w.root}/${ns}`);
  const a = w.cache("a");
  await w.write(a, CFG, "x: 1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", url])).code, 0);
  const repo = `${w.base}/repo`;
  const dir = ns ? `${repo}/${ns}` : repo;
  const pulled = await sluice(["pull", "--init", "--cache", dir, "--store", url]);
  assert.equal(pulled.code, 0, pulled.err);
  const state = sharedStateDir(repo, ns);
  await Deno.mkdir(state.slice(0, state.lastIndexOf("/")), { recursive: true });
  await Deno.rename(`${dir}/${STATE_DIR}`, state);
  return { w, a, dir, state };
}

for (const ns of ["", "prod"]) {
  Deno.test(`CLI on a datastore's cache${ns ? " (a namespace)" : ""}: status, pull and resolve use the state under _control/, and show where a copy was set aside`, async () => {
    const { w, a, dir, state } = await datastoreCache(ns);
    if (ns) await Deno.writeTextFile(`${dir}/.namespace.json`, "{}");

    await w.write(a, CFG, "x: 2\n");
    assert.equal((await sluice(["push", "--cache", a])).code, 0);
    await w.write(dir, CFG, "y: 1\n"); // a hand edit, never marked dirty
    const conflicted = await sluice(["pull", "--cache", dir]);
    assert.equal(conflicted.code, 3, conflicted.err);
    const resolved = await sluice(["resolve", CFG, "--theirs", "--cache", dir]);
    assert.equal(resolved.code, 0, resolved.err);
    assert.equal(await Deno.readTextFile(`${dir}/${CFG}`), "x: 2\n");

    const status = await sluice(["status", "--cache", dir, "--json"]);
    assert.equal(status.code, 0, status.err);
    const aside = status.json().setAside as { path: string; location: string }[];
    assert.equal(aside.length, 1, status.out);
    const shown = aside[0].location;
    const file = shown.startsWith("/") ? shown : `${dir}/${shown}`;
    assert.ok(file.startsWith(`${state}/set-aside/`), shown);
    assert.equal(await Deno.readTextFile(file), "y: 1\n");
    assert.equal(await Deno.lstat(`${dir}/${STATE_DIR}`).then(() => 1, () => 0), 0);
    await w.cleanup();
  });
}

for (const ns of ["", "prod"]) {
  Deno.test(`CLI on a datastore's cache${ns ? " (a namespace, no .namespace.json here)" : ""}: resolve --mine publishes the copy a pull set aside`, async () => {
    const { w, a, dir } = await datastoreCache(ns);
    await w.write(a, "notes/n.txt", "theirs\n");
    assert.equal((await sluice(["push", "--cache", a])).code, 0);
    await w.write(dir, "notes/n.txt", "mine, never synced\n");
    const pulled = await sluice(["pull", "--cache", dir]);
    assert.equal(pulled.code, 3, pulled.err);
    assert.equal(await Deno.readTextFile(`${dir}/notes/n.txt`), "theirs\n");
    const r = await sluice(["resolve", "notes/n.txt", "--mine", "--cache", dir]);
    assert.equal(r.code, 0, r.err);
    assert.equal((await sluice(["pull", "--cache", a])).code, 0);
    assert.equal(await Deno.readTextFile(`${a}/notes/n.txt`), "mine, never synced\n");
    assert.equal(await Deno.lstat(`${dir}/${STATE_DIR}`).then(() => 1, () => 0), 0);
    await w.cleanup();
  });

  Deno.test(`CLI on a datastore's cache${ns ? " (a namespace)" : ""}: a command taking a lock keeps its endpoint probe in the state, and starts no .sluice/ beside the files`, async () => {
    const { w, dir, state } = await datastoreCache(ns);
    const r = await sluice(["lockfile", "add", "@acme/ssh", '{"version":"1.2.0"}', "--cache", dir]);
    assert.equal(r.code, 0, r.err);
    assert.equal(await Deno.lstat(`${dir}/${STATE_DIR}`).then(() => 1, () => 0), 0);
    const names: string[] = [];
    for await (const e of Deno.readDir(state)) names.push(e.name);
    assert.ok(names.includes("conditional-probe.json"), names.join(","));
    const st = await sluice(["status", "--cache", dir]);
    assert.equal(st.code, 0, st.err);
    await w.cleanup();
  });
}

Deno.test("CLI on the root of a datastore's cache laid out in namespaces: refused (invalid_config), naming the namespace directory; nothing is made there", async () => {
  const { w, dir } = await datastoreCache("prod");
  const root = dir.slice(0, dir.lastIndexOf("/"));
  await Deno.writeTextFile(`${dir}/.namespace.json`, "{}");
  for (const args of [["status"], ["pull", "--init"], ["push", "--init"]]) {
    const r = await sluice([...args, "--cache", root, "--store", w.url]);
    assert.equal(r.code, 78, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, /laid out in namespaces \(prod\/\)/);
    assert.match(r.err, new RegExp(`--cache ${dir.replaceAll("/", "\\/")}`));
  }
  assert.equal(await Deno.lstat(`${root}/${STATE_DIR}`).then(() => 1, () => 0), 0);
  // The root's own state under _control/ (the extension's, from a mark made
  // before a namespace was bound): still a namespaced root, still refused.
  await Deno.mkdir(sharedStateDir(root, ""), { recursive: true });
  await Deno.writeTextFile(`${sharedStateDir(root, "")}/dirty.log`, "");
  for (const args of [["status"], ["push"]]) {
    const r = await sluice([...args, "--cache", root, "--store", w.url]);
    assert.equal(r.code, 78, `${args.join(" ")} with the root's state under _control/: ${r.err}`);
    assert.match(r.err, /laid out in namespaces \(prod\/\)/);
  }
  const stored: string[] = [];
  for await (const e of Deno.readDir(w.root)) stored.push(e.name);
  assert.deepEqual(stored, ["prod"], "nothing pushed beside the namespace");
  await w.cleanup();
});

for (const ns of ["", "prod"]) {
  Deno.test(`CLI --json on a datastore's cache${ns ? " (a namespace)" : ""}: pull, status and resolve name set-aside copies where they are`, async () => {
    const { w, a, dir } = await datastoreCache(ns);
    const at = (l: string) => (l.startsWith("/") ? l : `${dir}/${l}`);
    await w.write(a, "notes/n.txt", "theirs\n");
    await w.write(a, CFG, "x: 2\n");
    assert.equal((await sluice(["push", "--cache", a])).code, 0);
    await w.write(dir, "notes/n.txt", "mine, never synced\n");
    await w.write(dir, CFG, "y: 1\n"); // a hand edit of a synced file
    const pulled = await sluice(["pull", "--cache", dir, "--json"]);
    assert.equal(pulled.code, 3, pulled.err);
    const aside = pulled.json().setAside as string[];
    assert.equal(aside.length, 1);
    assert.equal(await Deno.readTextFile(at(aside[0])), "mine, never synced\n");
    const status = await sluice(["status", "--cache", dir, "--json"]);
    const recs = status.json().conflicts as { path: string; mine: { location: string } }[];
    const n = recs.find((r) => r.path === "notes/n.txt")!;
    assert.equal(await Deno.readTextFile(at(n.mine.location)), "mine, never synced\n");
    const resolved = await sluice(["resolve", CFG, "--theirs", "--cache", dir, "--json"]);
    assert.equal(resolved.code, 0, resolved.err);
    const moved = resolved.json().setAside as string[];
    assert.equal(await Deno.readTextFile(at(moved[0])), "y: 1\n");
    await w.cleanup();
  });
}

Deno.test("a .namespace.json in a directory of a cache with its own sync state is one of its files: the cache is no namespaced root; a root without state still is one", async () => {
  const w = await world();
  const alice = w.cache("alice");
  await w.write(alice, "notes/todo.txt", "a\n");
  assert.equal((await sluice(["push", "--cache", alice, "--store", w.url])).code, 0);
  await w.write(alice, "notes/.namespace.json", "6\n");
  const status = await sluice(["status", "--cache", alice]);
  assert.equal(status.code, 0, status.err);
  assert.doesNotMatch(status.err, /laid out in namespaces/);
  const pushed = await sluice(["push", "--cache", alice]);
  assert.equal(pushed.code, 0, pushed.err);
  // A directory with no state of its own whose directories hold manifests is still refused.
  const { w: w2, dir } = await datastoreCache("prod");
  const root = dir.slice(0, dir.lastIndexOf("/"));
  await Deno.writeTextFile(`${dir}/.namespace.json`, "{}");
  const refused = await sluice(["status", "--cache", root, "--store", w2.url]);
  assert.equal(refused.code, 78, refused.err);
  assert.match(refused.err, /laid out in namespaces \(prod\/\)/);
  assert.match(
    refused.err,
    /If a \.namespace\.json there is no namespace manifest but a file of your own, move it away \(e\.g\. `mv \S+\/prod\/\.namespace\.json \S+\/prod\/namespace\.json`\)/,
  );
  assert.equal(await Deno.lstat(`${root}/${STATE_DIR}`).then(() => 1, () => 0), 0);
  await w.cleanup();
  await w2.cleanup();
});
