import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";
import { FsStore } from "../packages/fs/mod.ts";

/**
 * A store where notes/x.txt was pushed ("1"), then replaced ("2") by a
 * push that died before its commit: the index still names the old object.
 */
async function strandedX() {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/x.txt", "1");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  // A push replaced the object and died before its commit: the index still names the old one.
  await new FsStore({ root: w.root }).put("notes/x.txt", new TextEncoder().encode("2"), {
    kind: "overwrite",
  });
  return w;
}

Deno.test("pull --adopt-uncommitted takes an object a dead push left uncommitted; a path with nothing to adopt exits 2, a path with nothing at all 1", async () => {
  const w = await strandedX();
  const b = w.cache("b");
  const skipped = await sluice(["pull", "--cache", b, "--store", w.url]);
  assert.equal(skipped.code, 2, skipped.err);
  assert.match(skipped.err, /sluice pull --adopt-uncommitted notes\/x\.txt/);
  // A path with nothing at it anywhere is a typo, as push --adopt-uncommitted and a pull prefix say.
  for (const typo of ["notes/y.txt", "nope/"]) {
    const r = await sluice(["pull", "--cache", b, "--adopt-uncommitted", typo]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /^error\[not_found\]: Nothing is under .* Check the path:/m);
  }
  const taken = await sluice(["pull", "--cache", b, "--adopt-uncommitted", "notes/x.txt"]);
  assert.equal(taken.code, 0, taken.err);
  assert.match(taken.out, /Adopted 1 file another writer's push left uncommitted/);
  assert.equal(await Deno.readTextFile(`${b}/notes/x.txt`), "2");
  // Once adopted, a path that holds nothing left to adopt: exit 2.
  const again = await sluice(["pull", "--cache", b, "--adopt-uncommitted", "notes/x.txt"]);
  assert.equal(again.code, 2, again.err);
  assert.match(again.err, /nothing_to_adopt/);
  const option = await sluice(["pull", "--adopt-uncommitted", "--cache", b]);
  assert.equal(option.code, 64, option.err);
  await w.cleanup();
});

Deno.test("resolve --theirs of a copy whose object is gone from the store says so, and keeps yours aside", async () => {
  const w = await world();
  const a = w.cache("a");
  const b = w.cache("b");
  await w.write(a, "notes/n.txt", "1");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  await w.write(a, "notes/n.txt", "a2");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  await w.write(b, "notes/n.txt", "b2");
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  await new FsStore({ root: w.root }).delete("notes/n.txt"); // deleted outside the sync
  const r = await sluice(["resolve", "notes/n.txt", "--theirs", "--cache", b]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /object is gone from the store \(deleted outside the sync\)/);
  assert.match(r.out, /your copy stays in \S+set-aside/);
  await w.cleanup();
});

Deno.test("pull --adopt-uncommitted of a path with nothing at it, on a pull of the whole cache: the error says the rest was pulled", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/x.txt", "1");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const b = w.cache("b");
  const r = await sluice(["pull", "--cache", b, "--store", w.url, "--adopt-uncommitted", "nope/"]);
  // The pull took the whole cache: it fetched notes/x.txt ...
  assert.equal(await Deno.readTextFile(`${b}/notes/x.txt`), "1");
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /^error\[not_found\]: Nothing is under nope/m);
  // ... which the error, the pull's only account, must not leave out
  // ("nothing was pulled there" alone reads as a pull that did nothing).
  assert.match(r.err, /pulled; run the pull again to see what it did/);
  await w.cleanup();
});

Deno.test("pull --adopt-uncommitted of a path the store holds, named by no index: not a typo (not_found is for a path with nothing anywhere)", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/x.txt", "1");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  // A push uploaded a new file and died before its commit: the store holds it, no index names it.
  await new FsStore({ root: w.root }).put("notes/new.txt", new TextEncoder().encode("n"), {
    kind: "create",
  });
  const b = w.cache("b");
  const r = await sluice([
    "pull",
    "--cache",
    b,
    "--store",
    w.url,
    "--adopt-uncommitted",
    "notes/new.txt",
  ]);
  assert.doesNotMatch(r.err, /Check the path/, r.err);
  assert.equal(r.code, 2, r.err);
  await w.cleanup();
});

Deno.test("pull --adopt-uncommitted --global-lock adopts under the datastore's global lock (old swamp clients write the index under it) and leaves no lock behind; --namespace names that lock only with --global-lock", async () => {
  const w = await strandedX();
  const b = w.cache("b");
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 2);
  const refused = await sluice(["pull", "--cache", b, "--namespace", "team"]);
  assert.equal(refused.code, 64, refused.err);
  const taken = await sluice([
    "pull",
    "--cache",
    b,
    "--adopt-uncommitted",
    "notes/x.txt",
    "--global-lock",
  ]);
  assert.equal(taken.code, 0, taken.err);
  assert.match(taken.out, /Adopted 1 file another writer's push left uncommitted/);
  assert.equal(await Deno.readTextFile(`${b}/notes/x.txt`), "2");
  await assert.rejects(Deno.lstat(`${w.root}/.datastore.lock`), Deno.errors.NotFound);
  const ns = await sluice(["pull", "--cache", b, "--global-lock", "--namespace", "team"]);
  assert.equal(ns.code, 0, ns.err);
  await assert.rejects(Deno.lstat(`${w.root}/.locks/team.lock`), Deno.errors.NotFound);
  await w.cleanup();
});

Deno.test("pull --global-lock says so before it waits for another holder of the lock (global_lock_wait), then pulls once it has it", async () => {
  const w = await strandedX();
  const b = w.cache("b");
  // Left by a holder that is gone: taken over once it is older than its time to live.
  await new FsStore({ root: w.root }).put(
    ".datastore.lock",
    new TextEncoder().encode(JSON.stringify({
      holder: "old-client@other",
      hostname: "other",
      pid: 4242,
      acquiredAt: "2026-01-01T00:00:00.000Z",
      ttlMs: 300,
      nonce: "gone",
    })),
    { kind: "create" },
  );
  const r = await sluice([
    ...["pull", "--cache", b, "--store", w.url],
    ...["--adopt-uncommitted", "notes/x.txt", "--global-lock"],
  ]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.err,
    /warning\[global_lock_wait\]: Waiting for the global lock \.datastore\.lock, held by old-client@other .*this pull waits for it/,
  );
  assert.match(r.out, /Adopted 1 file/);
  assert.equal(await Deno.readTextFile(`${b}/notes/x.txt`), "2");
  await assert.rejects(Deno.lstat(`${w.root}/.datastore.lock`), Deno.errors.NotFound);
  await w.cleanup();
});
