/**
 * The command line on a path a file of this cache is in the way of: a pull
 * of that path by name says it was left out (exit 2), never that nothing is
 * there.
 */
import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";
import { bothSynced, fooConflict, fooToDirectory } from "./shape_clash_kit.ts";

Deno.test("pull of a path by name that a file here is in the way of: sync_incomplete (exit 2) naming it, not not_found", async () => {
  const w = await world();
  try {
    const a = w.cache("a");
    const b = w.cache("b");
    await w.write(a, "n/c/f", "alice");
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    await w.write(b, "n/c", "bob's own file");
    for (const named of ["n/c/f", "n/c/"]) {
      const r = await sluice(["pull", named, "--cache", b, "--store", w.url]);
      assert.equal(r.code, 2, `${named}: ${r.out}${r.err}`);
      assert.doesNotMatch(r.err, /not_found/);
      assert.match(r.err, /n\/c\/f/);
    }
    assert.equal(
      await Deno.readTextFile(`${b}/n/c`),
      "bob's own file",
      "what is in the way is kept",
    );
  } finally {
    await w.cleanup();
  }
});

Deno.test("push <name>, as a walk's hold-back advises, pushes that name alone: other edits, and the walk still pending, wait for a push of the whole cache", async () => {
  const w = await world();
  try {
    const a = w.cache("a");
    await w.write(a, "n/a", "file");
    await w.write(a, "keep/x", "v1");
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    await Deno.remove(`${a}/n/a`);
    await w.write(a, "n/a/x", "a file under a directory of its name");
    const walked = await sluice(["push", "--cache", a]);
    assert.equal(walked.code, 2, walked.out + walked.err);
    assert.match(walked.out + walked.err, /sluice push n\/a/);
    // Drafts the user does not name.
    await w.write(a, "keep/x", "v2, a draft");
    await w.write(a, "scratch.txt", "a draft");
    const named = await sluice(["push", "n/a", "--cache", a, "--json"]);
    assert.equal(named.code, 0, named.err);
    const j = named.json() as { uploaded: string[]; deleted: string[] };
    assert.deepEqual(j.uploaded, ["n/a/x"]);
    assert.deepEqual(j.deleted, ["n/a"]);
    const whole = await sluice(["push", "--cache", a, "--json"]);
    assert.equal(whole.code, 0, whole.err);
    assert.deepEqual((whole.json().uploaded as string[]).sort(), ["keep/x", "scratch.txt"]);
  } finally {
    await w.cleanup();
  }
});

Deno.test("after resolve --theirs of a file replaced here by a directory: the status lists the set-aside file to check, not to push, and the push tells the check", async () => {
  const w = await world();
  try {
    const { a } = await fooConflict(w);
    const before = await sluice(["status", "--cache", a]);
    assert.match(before.out, /mine: {3}replaced here by a directory of that name/);
    const resolved = await sluice(["resolve", "foo", "--theirs", "--cache", a]);
    assert.equal(resolved.code, 0, resolved.err);

    const status = await sluice(["status", "--cache", a]);
    assert.equal(status.code, 0, status.err);
    assert.match(status.out, /^Nothing to push\.$/m);
    assert.doesNotMatch(status.out, /To push/);
    assert.match(
      status.out,
      /^To check \(1\): an earlier push was about to write this path.*\n {2}foo\/x$/m,
    );
    const pushed = await sluice(["push", "--cache", a]);
    assert.equal(pushed.code, 0, pushed.err);
    assert.match(
      pushed.out,
      /Checked 1 path an earlier push was about to write: the datastore holds nothing of this cache's there, so nothing was left behind:\n {2}foo\/x/,
    );
    const again = await sluice(["status", "--cache", a]);
    assert.doesNotMatch(again.out, /To check/, "settled");
  } finally {
    await w.cleanup();
  }
});

Deno.test("resolve --theirs where the datastore replaced the file by a directory says so, not 'a deletion: nothing is here'", async () => {
  const w = await world();
  try {
    const { a, b } = await bothSynced(w, "foo", "v1");
    await fooToDirectory(w, a);
    assert.equal((await sluice(["push", "foo", "--cache", a])).code, 0);
    await w.write(b, "foo", "b's edit");
    assert.equal((await sluice(["push", "--cache", b])).code, 3, "b's edit meets the deletion");
    const r = await sluice(["resolve", "foo", "--theirs", "--cache", b]);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^Took the datastore's side of foo, a directory of that name now: 1 file under foo\/ fetched, and no file foo here now\.$/m,
    );
    assert.equal(await Deno.readTextFile(`${b}/foo/x`), "a file under a directory of its name");
  } finally {
    await w.cleanup();
  }
});

Deno.test("status of a conflict whose copy in place was replaced here by a directory says so, never 'in place'", async () => {
  const w = await world();
  try {
    const { a, b } = await bothSynced(w, "notes/n.txt", "one");
    await w.write(a, "notes/n.txt", "two-a");
    assert.equal((await sluice(["push", "--cache", a])).code, 0);
    await w.write(b, "notes/n.txt", "two-b");
    assert.equal((await sluice(["push", "--cache", b])).code, 3);
    await Deno.remove(`${b}/notes/n.txt`);
    await w.write(b, "notes/n.txt/inner.txt", "a directory now");
    const st = await sluice(["status", "--cache", b]);
    assert.doesNotMatch(st.out, /mine: +in place/);
    assert.match(st.out, /mine: +was in place, replaced here since by a directory of that name/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("resolve --theirs of an edit under a directory the datastore replaced by a file takes that file and says so, not 'a deletion: nothing is here'", async () => {
  const w = await world();
  try {
    const { a, b } = await bothSynced(w, "foo/x", "v1");
    await Deno.remove(`${a}/foo`, { recursive: true });
    await w.write(a, "foo", "a's file in the directory's place");
    assert.equal((await sluice(["push", "foo", "--cache", a])).code, 0);
    await w.write(b, "foo/x", "b's edit");
    assert.equal((await sluice(["push", "--cache", b])).code, 3, "b's edit meets the deletion");
    const r = await sluice(["resolve", "foo/x", "--theirs", "--cache", b]);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^Took the datastore's side of foo\/x, a deletion: a file foo replaced its directory there, fetched in its place; nothing is at foo\/x here now\.$/m,
    );
    assert.equal(await Deno.readTextFile(`${b}/foo`), "a's file in the directory's place");
    const st = await sluice(["status", "--cache", b]);
    assert.equal(st.code, 0, st.out + st.err);
  } finally {
    await w.cleanup();
  }
});

Deno.test("resolve --mine of a file replaced here by a directory, a peer's edit of it met: says the directory's files were published with the deletion", async () => {
  const w = await world();
  try {
    const { a, b } = await fooConflict(w);
    const r = await sluice(["resolve", "foo", "--mine", "--cache", a]);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^Deleted foo on \S+ \(your deletion\), and published the 1 file under foo\/ that replaced it here\.$/m,
    );
    assert.equal((await sluice(["pull", "--cache", b])).code, 0);
    assert.equal(await Deno.readTextFile(`${b}/foo/x`), "a file under a directory of its name");
  } finally {
    await w.cleanup();
  }
});

Deno.test("a synced file replaced here by a directory: status and push say so beside it, and name the push by its name, not a plain pull --restore-deleted", async () => {
  const w = await world();
  try {
    const { a } = await bothSynced(w, "foo", "v1");
    await fooToDirectory(w, a);
    const status = await sluice(["status", "--cache", a]);
    assert.equal(status.code, 2, status.out + status.err);
    const line = status.out.split("\n").find((l) => /^\s+skip\s+foo\s/.test(l));
    assert.ok(line, status.out);
    assert.match(line, /replaced here by a directory of its name/);
    assert.match(line, /`sluice push foo --cache [^`]+`/);
    assert.doesNotMatch(line, /deleted here;/);
    const pushed = await sluice(["push", "--cache", a]);
    assert.equal(pushed.code, 2, pushed.out + pushed.err);
    assert.match(
      pushed.out,
      /^ {2}foo \(a directory of that name is here now: `sluice push foo --cache /m,
    );
    // The sync_incomplete summary does not send it to a plain pull --restore-deleted.
    assert.match(pushed.err, /sync_incomplete/);
    assert.doesNotMatch(pushed.err, /to take the datastore's copies back, run `sluice pull/);
    assert.match(
      pushed.err,
      /move the directory away first, then run `sluice pull --restore-deleted --cache /,
    );
    const status2 = await sluice(["status", "--cache", a]);
    assert.match(
      status2.err,
      /move the directory away first, then run `sluice pull --restore-deleted --cache /,
    );
    const pulled = await sluice(["pull", "--cache", a]);
    assert.equal(pulled.code, 2, pulled.out + pulled.err);
    assert.match(
      pulled.err,
      /move the directory away first, then run `sluice pull --restore-deleted --cache /,
    );
  } finally {
    await w.cleanup();
  }
});

Deno.test("the status names the directory a resolve --theirs set aside, not 'not a regular file', beside each file of it", async () => {
  const w = await world();
  try {
    const { a } = await fooConflict(w);
    assert.equal((await sluice(["resolve", "foo", "--theirs", "--cache", a])).code, 0);
    const status = await sluice(["status", "--cache", a]);
    const line = status.out.split("\n").find((l) => /^ {2}foo\/x -> /.test(l));
    assert.ok(line, status.out);
    assert.doesNotMatch(line, /not a regular file/);
    assert.match(line, /resolve --theirs: foo was a directory here/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("resolve --mine of a copy a pull set aside, its directory replaced here by a file since: says theirs was deleted, the file published, and where the copy stays", async () => {
  const w = await world();
  try {
    const a = w.cache("a");
    const b = w.cache("b");
    await w.write(a, "foo/x", "a's part");
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    await w.write(b, "foo/x", "b's own copy, never synced");
    const pulled = await sluice(["pull", "--cache", b, "--store", w.url]);
    assert.equal(pulled.code, 3, pulled.out + pulled.err);
    await Deno.remove(`${b}/foo`, { recursive: true });
    await w.write(b, "foo", "b's file in the directory's place");
    const r = await sluice(["resolve", "foo/x", "--mine", "--cache", b]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(
      r.out,
      /^Deleted foo\/x on \S+ \(your deletion\), and published the file foo that replaced its directory here\.$/m,
    );
    const aside = /^Your copy stays set aside in (\S+)\.$/m.exec(r.out);
    assert.ok(aside, r.out);
    assert.equal(await Deno.readTextFile(`${b}/${aside[1]}`), "b's own copy, never synced");
    assert.equal((await sluice(["pull", "--cache", a])).code, 0);
    assert.equal(await Deno.readTextFile(`${a}/foo`), "b's file in the directory's place");
  } finally {
    await w.cleanup();
  }
});
