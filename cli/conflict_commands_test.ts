import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";
import { run } from "./commands.ts";
import { SyncState } from "../sync/service/state.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { peerPush } from "../packages/testing/layout_peer.ts";
import { VANISHED_KEY } from "../sync/service/vanished_record.ts";

const CFG = "config/app.yaml";

/** Caches `a` and `b` of one store, both synced with `x: 1` that `a` published. */
async function bothSynced() {
  const w = await world();
  const a = w.cache("a");
  const b = w.cache("b");
  await w.write(a, CFG, "x: 1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  return { w, a, b };
}

/** Caches `a` and `b` of one store; `a` published `x: 2` over what `b` synced, which `b` edited by hand. */
async function conflicted() {
  const { w, a, b } = await bothSynced();
  await w.write(a, CFG, "x: 2\n");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  await w.write(b, CFG, "y: 1\n"); // a hand edit, never marked dirty
  return { w, a, b };
}

/**
 * Caches `a` and `b` of world `w` both synced `files`, then both edited
 * them: `a` pushed its edits, and `b`'s pull met them as conflicts (exit 3).
 */
async function bothEdited(w: Awaited<ReturnType<typeof world>>, files: readonly string[]) {
  const a = w.cache("a");
  const b = w.cache("b");
  for (const f of files) await w.write(a, f, "1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  for (const f of files) {
    await w.write(a, f, "from a\n");
    await w.write(b, f, "from b\n");
  }
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  return { a, b };
}

Deno.test("a conflict makes pull and push exit 3 with --json listing it; resolve --merged publishes the merge", async () => {
  const { w, a, b } = await conflicted();

  const pulled = await sluice(["pull", "--cache", b, "--json"]);
  assert.equal(pulled.code, 3, pulled.err);
  const doc = pulled.json();
  assert.deepEqual(doc.conflicts, [CFG]);
  assert.equal((doc.outcome as { code: string }).code, "conflicts_left");
  assert.equal(doc.ok, false, "ok is the exit status being 0");
  assert.equal(await Deno.readTextFile(`${b}/${CFG}`), "y: 1\n", "the hand edit is kept");

  const status = await sluice(["status", "--cache", b]);
  assert.equal(status.code, 3, "an open conflict is not a clean status");
  assert.match(status.err, /conflicts_left/);
  assert.match(status.out, /Unresolved conflicts \(1\):/);
  assert.match(status.out, /theirs: version /);
  assert.match(status.out, /None of them will be pushed as they are/);
  assert.doesNotMatch(
    status.out,
    /Run `sluice push` to publish them/,
    "a push would publish nothing",
  );

  await w.write(b, CFG, "x: 2\ny: 1\n");
  const pushed = await sluice(["push", "--cache", b, "--json"]);
  assert.equal(pushed.code, 3, "a push that leaves a conflict is not a success");
  assert.deepEqual(pushed.json().conflicts, [CFG]);

  const listed = await sluice(["status", "--cache", b, "--json"]);
  assert.equal(listed.code, 3);
  assert.equal((listed.json().outcome as { code: string }).code, "conflicts_left");

  const resolved = await sluice(["resolve", CFG, "--merged", "--cache", b]);
  assert.equal(resolved.code, 0, resolved.err);
  const clean = await sluice(["status", "--cache", b, "--json"]);
  assert.equal(clean.code, 0, clean.err);
  assert.equal((clean.json().outcome as { code: string }).code, "ok");
  assert.equal((await sluice(["pull", "--cache", b])).code, 0);
  assert.equal((await sluice(["pull", "--cache", a])).code, 0);
  assert.equal(await Deno.readTextFile(`${a}/${CFG}`), "x: 2\ny: 1\n");
  const usage = await sluice(["resolve", CFG, "--mine", "--theirs", "--cache", b]);
  assert.equal(usage.code, 64);
  await w.cleanup();
});

Deno.test("resolve without one outcome, or with two, is a usage error that says what each does, that nothing changed and where to look", async () => {
  const w = await world();
  const b = w.cache("b");
  await w.write(b, CFG, "x: 1\n");
  for (
    const [flags, got] of [[[], ""], [["--mine", "--theirs"], ", not --mine and --theirs"]] as const
  ) {
    const r = await sluice(["resolve", CFG, ...flags, "--cache", b, "--store", w.url]);
    assert.equal(r.code, 64, r.err);
    assert.equal(
      r.err,
      `error[usage]: give exactly one of --mine (publish your copy), --theirs (take the datastore's; yours is set aside) or --merged (publish the merge now in the cache)${got}; nothing was changed. \`sluice status --cache ${b}\` shows both versions of each open conflict.\n`,
    );
  }
  await w.cleanup();
});

Deno.test("a push that leaves a file dirty for later exits 2", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/real.txt", "r");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.symlink(`${a}/notes/real.txt`, `${a}/notes/link.txt`);
  await (await SyncState.open(a)).markDirty("notes/link.txt"); // as a repository write does
  const r = await sluice(["push", "--no-walk", "--cache", a, "--json"]);
  assert.equal(r.code, 2, r.err);
  assert.equal((r.json().outcome as { code: string }).code, "sync_incomplete");
  await w.cleanup();
});

Deno.test("with a conflict open, push and pull say to resolve it, not to push again", async () => {
  const { w, b } = await conflicted();

  const pushed = await sluice(["push", "--cache", b]);
  assert.equal(pushed.code, 3, pushed.err);
  assert.match(pushed.out, /sluice resolve <path> --mine\|--theirs\|--merged/);
  assert.doesNotMatch(pushed.out, /then `sluice push` again/);

  const pulled = await sluice(["pull", "--cache", b]);
  assert.equal(pulled.code, 3, pulled.err);
  assert.match(pulled.out, /sluice resolve <path> --mine\|--theirs\|--merged/);
  assert.doesNotMatch(pulled.out, /`sluice push` publishes them/);
  await w.cleanup();
});

Deno.test("a file deleted here: push exits 2 and names both ways out; pull --restore-deleted takes it back", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/a.txt", "a");
  await w.write(a, "notes/b.txt", "b");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.remove(`${a}/notes/a.txt`);

  const pushed = await sluice(["push", "--cache", a]);
  assert.equal(pushed.code, 2, pushed.err);
  assert.doesNotMatch(pushed.out, /Nothing to push/);
  assert.match(pushed.out, /Not deleted on the datastore: 1 file deleted here/);
  assert.match(pushed.out, /\n {2}notes\/a\.txt\n/);
  assert.match(pushed.err, /warning\[sync_incomplete\]: .*sluice pull --restore-deleted/);
  const b = w.cache("b");
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  assert.equal(await Deno.readTextFile(`${b}/notes/a.txt`), "a", "still on the datastore");
  const status = await sluice(["status", "--cache", a]);
  assert.match(status.out, /skip +notes\/a\.txt .*deleted here/);
  // What a push would leave out is not "all is well": the status exits 2, as the push did.
  assert.equal(status.code, 2, status.err);
  assert.match(status.err, /^warning\[sync_incomplete\]: .*not deleted on the datastore/m);

  // A pull keeps the deletion, and says so as the push does (exit 2), even with nothing new there.
  const kept = await sluice(["pull", "--cache", a]);
  assert.equal(kept.code, 2, kept.err);
  assert.match(kept.out, /^(Already up to date|Pulled 0 files)/);
  assert.match(
    kept.out,
    /Kept deleted here \(a pull keeps a local deletion\): 1 file this cache synced:\n {2}notes\/a\.txt\n/,
  );
  assert.match(kept.err, /warning\[sync_incomplete\]: .*a pull keeps a deletion made here/);
  await assert.rejects(Deno.stat(`${a}/notes/a.txt`), Deno.errors.NotFound);
  const restored = await sluice(["pull", "--restore-deleted", "--cache", a]);
  assert.equal(restored.code, 0, restored.err);
  assert.match(restored.out, /Pulled 1 file/);
  assert.equal(await Deno.readTextFile(`${a}/notes/a.txt`), "a");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);

  // Deleting it there too: a push naming it.
  await Deno.remove(`${a}/notes/a.txt`);
  const named = await sluice(["push", "notes/a.txt", "--cache", a]);
  assert.equal(named.code, 0, named.err);
  assert.match((await sluice(["pull", "--cache", b])).out, /removed 1 file deleted remotely/);
  await assert.rejects(Deno.stat(`${b}/notes/a.txt`), Deno.errors.NotFound);
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  await w.cleanup();
});

Deno.test("a file deleted here and changed there: push names the open conflict and exits 3", async () => {
  const { w, b } = await conflicted();
  await Deno.remove(`${b}/${CFG}`);
  const pulled = await sluice(["pull", "--cache", b]);
  assert.equal(pulled.code, 3);
  // Said as a deletion, not as a copy kept.
  assert.match(
    pulled.err,
    /config\/app\.yaml changed on the datastore \([^)]*\) and is also deleted here; its deletion here stands/,
  );
  assert.match(pulled.out, /a deletion stays deleted/);
  const pushed = await sluice(["push", "--cache", b]);
  assert.equal(pushed.code, 3, pushed.err);
  assert.doesNotMatch(pushed.out, /Nothing to push/);
  assert.match(pushed.out, /Open conflicts, left untouched \(1\):\n {2}config\/app\.yaml\n/);
  assert.doesNotMatch(pushed.out, /Not deleted on the datastore/);

  const theirs = await sluice(["resolve", CFG, "--theirs", "--cache", b]);
  assert.equal(theirs.code, 0, theirs.err);
  assert.equal(await Deno.readTextFile(`${b}/${CFG}`), "x: 2\n");
  assert.equal((await sluice(["push", "--cache", b])).code, 0);
  await w.cleanup();
});

Deno.test("a deletion pushed by name that meets a peer's edit: the status shows theirs with the hash the index records, never 'hash unknown'", async () => {
  const { w, b } = await conflicted();
  await Deno.remove(`${b}/${CFG}`);
  const pushed = await sluice(["push", CFG, "--cache", b]);
  assert.equal(pushed.code, 3, pushed.err);
  const status = await sluice(["status", "--cache", b]);
  assert.match(status.out, /theirs: version \S+ \(5 B, [0-9a-f]{12}…\)/);
  assert.doesNotMatch(status.out, /hash unknown/);
  await w.cleanup();
});

Deno.test("a push waiting on a writer gone for good names --adopt-uncommitted, which turns the wait into a conflict to resolve", async () => {
  const { w, b } = await bothSynced();
  // a's next write of the file landed, and a was gone before its index update.
  const store = new FsStore({ root: w.root });
  const synced = (await store.head(CFG))!.version;
  await store.put(CFG, new TextEncoder().encode("x: 2\n"), PutModes.update(synced), {
    metadata: { [WRITER_METADATA]: "gone-for-good" },
  });
  await w.write(b, CFG, "y: 1\n");
  const waiting = await sluice(["push", "--cache", b]);
  assert.equal(waiting.code, 2, waiting.err);
  assert.match(waiting.err, /push_waiting_uncommitted/);
  assert.match(waiting.err, /sluice push --adopt-uncommitted config\/app\.yaml/);
  // status reads no object: it says so from what that push recorded, and is no all-clear.
  const status = await sluice(["status", "--cache", b]);
  assert.equal(status.code, 2, status.out);
  assert.match(
    status.out,
    /config\/app\.yaml .*the last push waited here: another writer's uncommitted/,
  );
  assert.match(
    status.out,
    /if its writer is gone for good, `sluice push --adopt-uncommitted config\/app\.yaml[^`]*` ends the wait/,
  );

  const adopted = await sluice(["push", "--adopt-uncommitted", CFG, "--cache", b]);
  assert.equal(adopted.code, 3, adopted.err);
  assert.match(adopted.err, /adopted_uncommitted/);
  assert.match(adopted.err, /gone-for-good/);
  assert.doesNotMatch(adopted.err, /nothing_to_adopt/);
  const c = w.cache("c");
  assert.equal((await sluice(["pull", "--cache", c, "--store", w.url])).code, 0);
  assert.equal(await Deno.readTextFile(`${c}/${CFG}`), "x: 2\n", "the adopted change is published");
  await w.write(b, CFG, "x: 2\ny: 1\n");
  assert.equal((await sluice(["resolve", CFG, "--merged", "--cache", b])).code, 0);
  assert.equal((await sluice(["pull", "--cache", c])).code, 0);
  assert.equal(await Deno.readTextFile(`${c}/${CFG}`), "x: 2\ny: 1\n");
  await w.cleanup();
});

Deno.test("--adopt-uncommitted where nothing is stranded says nothing was adopted", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, CFG, "x: 1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const r = await sluice(["push", "--adopt-uncommitted", CFG, "--cache", a]);
  assert.equal(r.code, 2, r.err);
  assert.match(
    r.err,
    /^warning\[nothing_to_adopt\]: --adopt-uncommitted config\/app\.yaml: nothing was adopted/m,
  );
  assert.doesNotMatch(r.err, /adopted_uncommitted/);
  const json = await sluice(["push", "--adopt-uncommitted", CFG, "--cache", a, "--json"]);
  const warnings = json.json().warnings as { code: string; path?: string }[];
  assert.deepEqual(warnings.map((x) => [x.code, x.path]), [["nothing_to_adopt", CFG]]);
  assert.equal(json.code, 2);
  const outcome = json.json().outcome as { code: string; exitCode: number };
  assert.deepEqual([outcome.code, outcome.exitCode, json.json().ok], [
    "nothing_to_adopt",
    2,
    false,
  ]);
  await w.cleanup();
});

Deno.test("--adopt-uncommitted of a directory where nothing is stranded says so once, for the directory, not for each file", async () => {
  const w = await world();
  const a = w.cache("a");
  for (let i = 0; i < 12; i++) await w.write(a, `notes/f${i}.txt`, `${i}`);
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const r = await sluice(["push", "--adopt-uncommitted", "notes", "--cache", a, "--json"]);
  assert.equal(r.code, 2, r.err);
  const warnings = r.json().warnings as { code: string; path?: string }[];
  assert.deepEqual(
    warnings.filter((x) => x.code === "nothing_to_adopt").map((x) => x.path),
    ["notes"],
  );
  await w.cleanup();
});

Deno.test("--adopt-uncommitted followed by an option is a usage error, never a path named --cache", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, CFG, "x: 1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const r = await sluice(["push", "--adopt-uncommitted", "--cache", a]);
  assert.equal(r.code, 64, r.err);
  assert.match(
    r.err,
    /^error\[usage\]: --adopt-uncommitted takes the path of a file, got the option --cache/,
  );
  await w.cleanup();
});

Deno.test("--adopt-uncommitted takes one path per use, leaving the push's own paths to it", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/one.txt", "1");
  await w.write(a, "notes/two.txt", "2");
  await w.write(a, "notes/three.txt", "3"); // not named: a push naming paths does not walk
  const r = await sluice([
    "push",
    "--adopt-uncommitted",
    "notes/one.txt",
    "notes/two.txt",
    "--cache",
    a,
    "--store",
    w.url,
    "--json",
  ]);
  // Nothing was stranded at notes/one.txt: the push says so (exit 2).
  assert.equal(r.code, 2, r.err);
  assert.equal((r.json().outcome as { code: string }).code, "nothing_to_adopt");
  assert.deepEqual((r.json().uploaded as string[]).sort(), ["notes/one.txt", "notes/two.txt"]);
  await w.cleanup();
});

Deno.test("a pull that sets aside a never-synced local copy says the datastore's copy is in place and where yours went", async () => {
  const w = await world();
  const a = w.cache("a");
  const c = w.cache("c");
  await w.write(a, CFG, "from a\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.mkdir(c, { recursive: true });
  await w.write(c, CFG, "from c, never synced\n");
  const pulled = await sluice(["pull", "--cache", c, "--store", w.url, "--init"]);
  assert.equal(pulled.code, 3, pulled.err);
  assert.equal(await Deno.readTextFile(`${c}/${CFG}`), "from a\n");
  assert.doesNotMatch(pulled.out, /not overwritten/);
  const line = pulled.out.match(
    /^ {2}config\/app\.yaml → (\.sluice\/set-aside\/.+\/config\/app\.yaml)$/m,
  );
  assert.ok(line, pulled.out);
  assert.match(
    pulled.out,
    /Set aside 1 local copy this cache never synced.*datastore's copy is now in place/,
  );
  assert.equal(await Deno.readTextFile(`${c}/${line[1]}`), "from c, never synced\n");
  // Not a data version clash: status does not say to run the method again.
  const status = await sluice(["status", "--cache", c]);
  assert.match(status.out, /Set-aside copies, kept until you delete them \(1\)/);
  assert.match(status.out, /Each was moved out of the way instead of being overwritten/);
  // Its conflict is open: the way on is its resolution, not a push (which meets the conflict again).
  assert.match(status.out, /resolve its conflict \(`sluice resolve <path> --mine[^`]*` publishes/);
  assert.doesNotMatch(status.out, /copy it back, then/);
  assert.doesNotMatch(status.out, /run the method or workflow again/);
  // A push has nothing to push, and still exits 3 over the open conflict,
  // as status and pull do: never "synced" while the copy sits set aside.
  const told = await sluice(["push", "--cache", c]);
  assert.equal(told.code, 3, told.out);
  assert.match(told.out, /^Nothing to push: no file changed since the last sync/m);
  assert.match(told.out, /^Open conflicts, left untouched \(1\):\n {2}config\/app\.yaml$/m);
  for (const args of [["push"], ["push", CFG], ["push", "config"]]) {
    const pushed = await sluice([...args, "--cache", c, "--json"]);
    assert.equal(pushed.code, 3, `${args.join(" ")}: ${pushed.out}`);
    assert.deepEqual(pushed.json().conflicts, [CFG]);
  }
  // A push of other paths leaves it out of its answer.
  await w.write(c, "notes/other.txt", "other\n");
  const other = await sluice(["push", "notes/other.txt", "--cache", c, "--json"]);
  assert.equal(other.code, 0, other.out);
  assert.deepEqual(other.json().conflicts, []);
  await w.cleanup();
});

Deno.test("resolve of a directory resolves every open conflict under it; a path with none is refused and nothing changes", async () => {
  const w = await world();
  const a = w.cache("a");
  const b = w.cache("b");
  const files = ["notes/a.txt", "notes/b.txt", "notes/clean.txt", "other/c.txt"];
  for (const f of files) await w.write(a, f, "1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  for (const f of ["notes/a.txt", "notes/b.txt", "other/c.txt"]) {
    await w.write(a, f, "from a\n");
    await w.write(b, f, "from b\n");
  }
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);

  // notes/clean.txt has no conflict: refused, and nothing resolved.
  const typo = await sluice(["resolve", "notes/clean.txt", "--mine", "--cache", b]);
  assert.equal(typo.code, 1, typo.err);
  assert.match(typo.err, /no unresolved conflict at or under notes\/clean\.txt/);
  const before = await sluice(["status", "--cache", b, "--json"]);
  assert.equal((before.json().conflicts as unknown[]).length, 3, "nothing was resolved");

  const r = await sluice(["resolve", "notes", "--mine", "--cache", b, "--json"]);
  assert.equal(r.code, 0, r.err);
  const doc = r.json() as { resolutions: { path: string; resolved: boolean }[] };
  assert.deepEqual(doc.resolutions.map((x) => [x.path, x.resolved]), [
    ["notes/a.txt", true],
    ["notes/b.txt", true],
  ]);
  // The conflict outside the directory stays open, and says so.
  const status = await sluice(["status", "--cache", b, "--json"]);
  assert.equal(status.code, 3);
  assert.match(status.out, /other\/c\.txt/);
  assert.doesNotMatch(status.out, /notes\/a\.txt".*theirs/);
  assert.equal((await sluice(["pull", "--cache", a])).code, 0);
  assert.equal(await Deno.readTextFile(`${a}/notes/a.txt`), "from b\n");
  assert.equal(await Deno.readTextFile(`${a}/notes/b.txt`), "from b\n");
  await w.cleanup();
});

Deno.test("resolve of a directory: a conflict refused (its copy deleted here) is told of, the others are resolved, and it exits 3", async () => {
  const w = await world();
  const files = ["notes/a.txt", "notes/b.txt", "notes/c.txt"];
  const { b } = await bothEdited(w, files);
  // The copy of notes/a.txt the conflict recorded is deleted by hand: --mine is refused for it.
  await Deno.remove(`${b}/notes/a.txt`);

  const r = await sluice(["resolve", "notes", "--mine", "--cache", b, "--json"]);
  assert.equal(r.code, 3, r.err);
  const doc = r.json() as {
    resolutions: { path: string; resolved: boolean }[];
    refused: { path: string; code: string; message: string }[];
    outcome: { code: string };
  };
  assert.deepEqual(doc.resolutions.map((x) => [x.path, x.resolved]), [
    ["notes/b.txt", true],
    ["notes/c.txt", true],
  ], "the refusal did not stop the others");
  assert.deepEqual(doc.refused.map((x) => [x.path, x.code]), [["notes/a.txt", "not_found"]]);
  assert.match(doc.refused[0].message, /is gone from the cache/);
  assert.equal(doc.outcome.code, "conflicts_left");
  const status = await sluice(["status", "--cache", b, "--json"]);
  assert.deepEqual(
    (status.json().conflicts as { path: string }[]).map((c) => c.path),
    ["notes/a.txt"],
    "only the refused one stays open",
  );
  // Named alone, the refusal is the command's own error.
  const alone = await sluice(["resolve", "notes/a.txt", "--mine", "--cache", b]);
  assert.equal(alone.code, 1, alone.err);
  assert.match(alone.err, /error\[not_found\].*is gone from the cache/);
  await w.cleanup();
});

Deno.test("after a push met the conflict, resolve --theirs leaves nothing to push, and status says so", async () => {
  const { w, b } = await conflicted();
  // A push of the whole cache meets the conflict (and records the path it was about to write).
  assert.equal((await sluice(["push", "--cache", b])).code, 3);
  const theirs = await sluice(["resolve", CFG, "--theirs", "--cache", b]);
  assert.equal(theirs.code, 0, theirs.err);
  const status = await sluice(["status", "--cache", b, "--json"]);
  assert.equal(status.code, 0, status.err);
  assert.deepEqual(status.json().dirty, [], "theirs is in place: nothing to push");
  assert.match((await sluice(["push", "--cache", b])).out, /Nothing to push/);
  await w.cleanup();
});

Deno.test("resolve --merged of a file that is theirs already says nothing was published, not 'Published your merge'", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["push", "--cache", b])).code, 3);
  await w.write(b, CFG, "x: 2\n"); // the "merge" kept theirs as it is
  const r = await sluice(["resolve", CFG, "--merged", "--cache", b]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /is the datastore's copy already: nothing was published/);
  assert.doesNotMatch(r.out, /Published/);
  await w.cleanup();
});

Deno.test("a pull that keeps a file the datastore lost exits 3 and says so, not as a local change; resolve --mine publishes it again", async () => {
  const w = await world();
  const a = w.cache("a");
  const c = w.cache("c");
  await w.write(a, CFG, "x: 1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await new FsStore({ root: w.root }).delete(CFG); // outside Sluice
  const first = await sluice(["pull", "--cache", c, "--store", w.url]);
  assert.equal(first.code, 2, "left behind: the index names an object that is gone");
  // The 15 minutes of grace pass (this cache's record of its first sighting, moved back).
  const seen = JSON.parse(await Deno.readTextFile(`${c}/.sluice/dangling.json`));
  for (const s of Object.values(seen) as { at: number }[]) s.at -= 16 * 60_000;
  await Deno.writeTextFile(`${c}/.sluice/dangling.json`, JSON.stringify(seen));
  const repaired = await sluice(["pull", "--cache", c]);
  assert.equal(repaired.code, 0, repaired.err);
  assert.match(repaired.err, /recorded as lost/);
  const kept = await sluice(["pull", "--cache", a]);
  assert.equal(kept.code, 3, kept.err);
  assert.match(kept.out, /Kept 1 file the datastore lost .*\n {2}config\/app\.yaml/);
  assert.doesNotMatch(kept.out, /local change/);
  assert.equal(await Deno.readTextFile(`${a}/${CFG}`), "x: 1\n");
  const again = await sluice(["resolve", CFG, "--mine", "--cache", a]);
  assert.equal(again.code, 0, again.err);
  assert.equal((await sluice(["pull", "--cache", c])).code, 0);
  assert.equal(await Deno.readTextFile(`${c}/${CFG}`), "x: 1\n");
});

Deno.test("a pull whose record of lost files cannot be read keeps a peer's deletion here, exits 3 and says why; resolve --theirs takes it", async () => {
  const { w, a, b } = await bothSynced();
  await Deno.remove(`${b}/${CFG}`);
  const del = await sluice(["push", CFG, "--cache", b]);
  assert.equal(del.code, 0, del.out + del.err);
  const junk = new TextEncoder().encode("written by another tool");
  await new FsStore({ root: w.root }).put(VANISHED_KEY, junk, PutModes.overwrite);
  const kept = await sluice(["pull", "--cache", a]);
  assert.equal(kept.code, 3, kept.err);
  assert.match(
    kept.out,
    /Kept 1 file whose entries were removed .*cannot be read.*\n {2}config\/app\.yaml/,
  );
  assert.equal(await Deno.readTextFile(`${a}/${CFG}`), "x: 1\n", "not removed");
  const theirs = await sluice(["resolve", CFG, "--theirs", "--cache", a]);
  assert.equal(theirs.code, 0, theirs.err);
  assert.equal(await Deno.readTextFile(`${a}/${CFG}`).catch(() => null), null);
  await w.cleanup();
});

Deno.test("theirs prints the datastore's copy of a conflicted path to merge from, or writes it outside the cache; nothing in the cache changes", async () => {
  const { w, a, b } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  const shown = await sluice(["theirs", CFG, "--cache", b]);
  assert.equal(shown.code, 0, shown.err);
  assert.equal(shown.out, "x: 2\n");
  assert.equal(await Deno.readTextFile(`${b}/${CFG}`), "y: 1\n", "the cache is untouched");
  const json = await sluice(["theirs", CFG, "--cache", b, "--json"]);
  assert.equal(json.json().text, "x: 2\n");
  assert.equal(json.json().changedSinceRecorded, false);
  // To a file outside the cache, never inside it.
  const file = `${w.base}/app.theirs.yaml`;
  assert.equal((await sluice(["theirs", CFG, "--out", file, "--cache", b])).code, 0);
  assert.equal(await Deno.readTextFile(file), "x: 2\n");
  const inside = await sluice(["theirs", CFG, "--out", `${b}/config/x.yaml`, "--cache", b]);
  assert.equal(inside.code, 65, inside.err);
  assert.match(inside.err, /lies inside the cache/);
  // A copy that is not text needs --out: a usage error (64), nothing printed.
  await Deno.writeFile(`${a}/${CFG}`, new Uint8Array([0xff, 0xfe, 0x00, 0x80]));
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  const binary = await sluice(["theirs", CFG, "--cache", b]);
  assert.equal(binary.code, 64, binary.err);
  assert.match(binary.err, /error\[usage\]: .*is not UTF-8 text; nothing was printed.*--out/);
  assert.equal(binary.out, "");
  // A newer copy since the conflict was recorded is shown, and said to be newer.
  await w.write(a, CFG, "x: 3\n");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  const newer = await sluice(["theirs", CFG, "--cache", b]);
  assert.equal(newer.out, "x: 3\n");
  assert.match(newer.err, /warning\[theirs_changed\]/);
  // A path with no conflict is refused; the merge then goes through as before.
  assert.equal((await sluice(["theirs", "config/none.yaml", "--cache", b])).code, 1);
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  await w.write(b, CFG, "x: 3\ny: 1\n");
  const merged = await sluice(["resolve", CFG, "--merged", "--cache", b]);
  assert.equal(merged.code, 0, merged.err);
  assert.equal((await sluice(["theirs", CFG, "--cache", b])).code, 1, "resolved: no conflict left");
  await w.cleanup();
});

Deno.test("theirs never writes into the cache through a link, on either side", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  const link = `${w.base}/to-b`;
  await Deno.symlink(b, link);
  for (
    const [cache, out] of [[b, `${link}/config/app.theirs.yaml`], [link, `${b}/config/x.yaml`]]
  ) {
    const r = await sluice(["theirs", CFG, "--out", out, "--cache", cache]);
    assert.equal(r.code, 65, `${cache} ${out}: ${r.err}`);
    assert.match(r.err, /lies inside the cache/);
  }
  assert.equal(await Deno.stat(`${b}/config/app.theirs.yaml`).then(() => true, () => false), false);
  await w.cleanup();
});

Deno.test("theirs of an old client's change (an entry naming no version) is not taken for a newer copy", async () => {
  const { w, b } = await bothSynced();
  await peerPush(new FsStore({ root: w.root }), { [CFG]: "x: old client\n" });
  await w.write(b, CFG, "y: 1\n");
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  const shown = await sluice(["theirs", CFG, "--cache", b, "--json"]);
  assert.equal(shown.code, 0, shown.err);
  assert.equal(shown.json().text, "x: old client\n");
  assert.equal(shown.json().changedSinceRecorded, false);
  assert.doesNotMatch(shown.err, /theirs_changed/);
  await w.cleanup();
});

/** The names in `dir`. */
async function namesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  return names.sort();
}

Deno.test("theirs --out refuses a file that is there (usage, 64) and keeps it; --force replaces it whole", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  const dir = `${w.base}/notes`;
  await Deno.mkdir(dir);
  const file = `${dir}/precious.txt`;
  await Deno.writeTextFile(file, "my precious notes\n");
  const refused = await sluice(["theirs", CFG, "--out", file, "--cache", b, "--json"]);
  assert.equal(refused.code, 64, refused.err);
  assert.equal((refused.json().error as { code: string }).code, "usage");
  assert.match(refused.err, /names a file that exists/);
  assert.match(refused.err, /nothing was written, and the file was kept as it is/);
  assert.match(refused.err, /Pass --out another path, or add --force to replace it/);
  assert.equal(await Deno.readTextFile(file), "my precious notes\n", "the file is kept");
  const forced = await sluice(["theirs", CFG, "--out", file, "--force", "--cache", b]);
  assert.equal(forced.code, 0, forced.err);
  assert.match(forced.out, /replacing the file there/);
  assert.equal(await Deno.readTextFile(file), "x: 2\n");
  assert.deepEqual(await namesIn(dir), ["precious.txt"], "no temporary file is left beside it");
  await w.cleanup();
});

Deno.test("theirs --out in a missing directory, or naming a directory, is invalid_config (78) saying what to do; nothing is written", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  const missing = await sluice(["theirs", CFG, "--out", `${w.base}/no/such/x.yaml`, "--cache", b]);
  assert.equal(missing.code, 78, missing.err);
  assert.match(
    missing.err,
    /^error\[invalid_config\]: --out \S+ names a file in \S+\/no\/such, which does not exist; nothing was written\. Create the directory first \(`mkdir -p /,
  );
  assert.equal(await Deno.stat(`${w.base}/no`).then(() => true, () => false), false);
  const dir = `${w.base}/outdir`;
  await Deno.mkdir(dir);
  const isDir = await sluice(["theirs", CFG, "--out", dir, "--cache", b]);
  assert.equal(isDir.code, 78, isDir.err);
  assert.match(isDir.err, /^error\[invalid_config\]: --out \S+ is a directory/);
  assert.match(isDir.err, /Pass --out the file to write, e\.g\. --out \S+\/outdir\/app\.yaml/);
  const forced = await sluice(["theirs", CFG, "--out", dir, "--force", "--cache", b]);
  assert.equal(forced.code, 78, "--force never replaces a directory");
  assert.deepEqual(await namesIn(dir), [], "nothing was written into it");
  assert.doesNotMatch(missing.err + isDir.err + forced.err, /internal|Unexpected failure/);
  await w.cleanup();
});

Deno.test("theirs and resolve --json give the store's URL as endpoint and its description apart", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  const theirs = await sluice(["theirs", CFG, "--cache", b, "--json"]);
  assert.equal(theirs.code, 0, theirs.err);
  assert.equal(theirs.json().endpoint, w.url);
  assert.equal(theirs.json().endpointDescription, w.url);
  const resolved = await sluice(["resolve", CFG, "--theirs", "--cache", b, "--json"]);
  assert.equal(resolved.code, 0, resolved.err);
  assert.equal(resolved.json().endpoint, w.url);
  assert.equal(resolved.json().endpointDescription, w.url);
  await w.cleanup();
});

Deno.test("theirs of a deletion, printed or --out, writes nothing and exits 1 (not_found); resolve --theirs says it took a deletion", async () => {
  const { w, a, b } = await bothSynced();
  await Deno.remove(`${a}/${CFG}`);
  assert.equal((await sluice(["push", CFG, "--cache", a])).code, 0);
  await w.write(b, CFG, "y: 1\n"); // a hand edit, never marked dirty
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  const out = `${w.root}-theirs.txt`;
  const t = await sluice(["theirs", CFG, "--out", out, "--cache", b]);
  assert.equal(t.code, 1, t.err);
  assert.match(
    t.err,
    /^error\[not_found\]: The datastore's side of config\/app\.yaml is a deletion: there is no copy to write, and nothing was written/,
  );
  await assert.rejects(Deno.lstat(out), Deno.errors.NotFound);
  // Printed, the same: nothing on stdout for `theirs > file` to take for their copy.
  const shown = await sluice(["theirs", CFG, "--cache", b]);
  assert.equal(shown.code, 1, shown.err);
  assert.equal(shown.out, "");
  assert.match(shown.err, /is a deletion: there is no copy to show, and nothing was printed/);
  const r = await sluice(["resolve", CFG, "--theirs", "--cache", b]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /Took the datastore's side of config\/app\.yaml, a deletion: nothing is at config\/app\.yaml here now\./,
  );
  await w.cleanup();
});

Deno.test("resolve --mine held back by another writer's upload in flight says why, with the push's own reason (exit 2)", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  // Another writer's push of the path is on its way: its object is up, its index update not yet.
  const store = new FsStore({ root: w.root });
  await store.put(CFG, new TextEncoder().encode("x: 3, in flight\n"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "another-writer" },
  });
  const r = await sluice(["resolve", CFG, "--mine", "--cache", b, "--json"]);
  assert.equal(r.code, 2, r.err);
  const said = (r.json().outcome as { message: string }).message;
  assert.match(said, /config\/app\.yaml: another writer's uncommitted write holds it/);
  assert.doesNotMatch(said, /is not the one its index names/);
});

Deno.test("resolve --theirs of a file changed again on the datastore since the conflict says it took a newer version than the one shown", async () => {
  const { w, a, b } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  await w.write(a, CFG, "x: 3\n");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  const r = await sluice(["resolve", CFG, "--theirs", "--cache", b]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /^Took the datastore's copy of config\/app\.yaml \(version \S+, newer than the one the conflict showed: it changed again on the datastore since\)\.$/m,
  );
  assert.equal(await Deno.readTextFile(`${b}/${CFG}`), "x: 3\n");
  // Taken as shown: said plainly.
  const { w: w2, b: b2 } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b2])).code, 3);
  const plain = await sluice(["resolve", CFG, "--theirs", "--cache", b2]);
  assert.match(plain.out, /^Took the datastore's copy of config\/app\.yaml\.$/m);
  await w.cleanup();
  await w2.cleanup();
});

Deno.test("a resolution cut off after its upload over theirs, its file deleted here: --mine says theirs is gone too (exit 1), --theirs finishes publishing the upload", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b])).code, 3, "the conflict is recorded");
  // b's --merged uploaded over theirs and was cut off before its index update.
  const store = new FsStore({ root: w.root });
  const theirs = (await store.head(CFG))!.version;
  const own = "b-writer"; // made by the push of that resolution, as its first
  await Deno.writeTextFile(`${b}/.sluice/writer.json`, JSON.stringify({ id: own }));
  await store.put(CFG, new TextEncoder().encode("x: 2\ny: 1\n"), PutModes.update(theirs), {
    metadata: { [WRITER_METADATA]: own },
  });
  // `theirs` never shows this cache's own upload as theirs.
  const shown = await sluice(["theirs", CFG, "--cache", b]);
  assert.equal(shown.code, 1, shown.err);
  assert.equal(shown.out, "");
  assert.match(shown.err, /not_found/);
  assert.match(shown.err, /no longer holds theirs of config\/app\.yaml/);
  assert.match(shown.err, /wrote this cache's own copy over it/);
  await Deno.remove(`${b}/${CFG}`); // then deleted by hand
  const mine = await sluice(["resolve", CFG, "--mine", "--cache", b]);
  assert.equal(mine.code, 1, mine.err);
  assert.match(mine.err, /not_found/);
  assert.match(mine.err, /no longer on the datastore either/);
  assert.match(mine.err, /sluice resolve config\/app\.yaml --theirs/);
  const taken = await sluice(["resolve", CFG, "--theirs", "--cache", b]);
  assert.equal(taken.code, 0, taken.err);
  assert.match(taken.out, /The datastore no longer held theirs of config\/app\.yaml/);
  assert.match(taken.out, /finished publishing it/);
  assert.equal(await Deno.readTextFile(`${b}/${CFG}`), "x: 2\ny: 1\n");
  const c = w.cache("c");
  assert.equal((await sluice(["pull", "--cache", c, "--store", w.url])).code, 0);
  assert.equal(await Deno.readTextFile(`${c}/${CFG}`), "x: 2\ny: 1\n", "a peer takes it");
  await w.cleanup();
});

Deno.test("a resolution cut off after its upload over theirs, theirs then copied here by hand: --theirs writes theirs back over the upload and says so", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["pull", "--cache", b])).code, 3, "the conflict is recorded");
  // b's --mine uploaded over theirs and was cut off before its index update.
  const store = new FsStore({ root: w.root });
  const theirs = (await store.head(CFG))!.version;
  const theirsText = new TextDecoder().decode((await store.get(CFG)).body);
  const own = "b-writer"; // made by the push of that resolution, as its first
  await Deno.writeTextFile(`${b}/.sluice/writer.json`, JSON.stringify({ id: own }));
  await store.put(CFG, new TextEncoder().encode("x: 2\ny: 1\n"), PutModes.update(theirs), {
    metadata: { [WRITER_METADATA]: own },
  });
  await Deno.writeTextFile(`${b}/${CFG}`, theirsText); // theirs, copied by hand
  const taken = await sluice(["resolve", CFG, "--theirs", "--cache", b]);
  assert.equal(taken.code, 0, taken.err);
  assert.match(taken.out, /The datastore no longer held theirs of config\/app\.yaml/);
  assert.match(taken.out, /The copy here was theirs already: wrote it back over that upload/);
  assert.equal(await Deno.readTextFile(`${b}/${CFG}`), theirsText);
  const c = w.cache("c");
  assert.equal((await sluice(["pull", "--cache", c, "--store", w.url])).code, 0);
  assert.equal(await Deno.readTextFile(`${c}/${CFG}`), theirsText, "a peer takes theirs");
  await w.cleanup();
});

Deno.test("status names one --adopt-uncommitted per path to end the waits it lists: a data version by its directory, its marker left out", async () => {
  const { w, b } = await bothSynced();
  const V = "data/shell/cmd/m1/out/1";
  const store = new FsStore({ root: w.root });
  await store.put(`${V}/raw`, new TextEncoder().encode("a's run"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "gone-for-good" },
  });
  await w.write(b, `${V}/raw`, "b's run");
  await w.write(b, `${V}/metadata.yaml`, "version: 1\n");
  await w.write(b, "data/shell/cmd/m1/out/latest", "1");
  const waiting = await sluice(["push", "--cache", b]);
  assert.equal(waiting.code, 2, waiting.err);
  assert.match(waiting.err, /push_waiting_uncommitted/);
  const status = await sluice(["status", "--cache", b]);
  assert.equal(status.code, 2, status.out);
  const hint = status.out.split("\n").find((l) => l.includes("ends the wait")) ?? "";
  assert.match(hint, /`sluice push --adopt-uncommitted data\/shell\/cmd\/m1\/out\/1[ `]/);
  assert.equal(hint.match(/--adopt-uncommitted/g)?.length, 1, hint);
  assert.doesNotMatch(hint, /latest|metadata\.yaml|\/raw/);
  // The same for scripts: what waits, and what to adopt.
  const json = await sluice(["status", "--json", "--cache", b]);
  assert.equal(json.code, 2);
  const doc = JSON.parse(json.out);
  assert.deepEqual([...doc.waiting].sort(), [
    "data/shell/cmd/m1/out/1/metadata.yaml",
    "data/shell/cmd/m1/out/1/raw",
    "data/shell/cmd/m1/out/latest",
  ]);
  assert.deepEqual(doc.adoptUncommitted, [V]);
  await w.cleanup();
});

Deno.test("resolve of a directory cancelled mid-way names the command that was run, which resolves the rest", async () => {
  const w = await world();
  try {
    const files = ["notes/f1.txt", "notes/f2.txt", "notes/f3.txt", "notes/f4.txt"];
    const { b } = await bothEdited(w, files);

    // Ctrl-C once the first file is published.
    const ctrlC = new AbortController();
    let err = "";
    const code = await run(["resolve", "notes", "--mine", "--cache", b], {
      stdout: (s) => s.startsWith("Published your copy") && ctrlC.abort(),
      stderr: (s) => (err += s),
      env: {},
      signal: ctrlC.signal,
    });
    assert.equal(code, 130, err);
    assert.match(
      err,
      /^error\[aborted\]: The resolution of 4 conflicts was cancelled\. 1 of them was resolved/,
    );
    const again = err.match(/Run `sluice (resolve notes --mine --cache \S+)` again to finish/);
    assert.ok(again, err);
    // Run as printed, it resolves every conflict left.
    const rerun = await sluice(again[1].split(" "));
    assert.equal(rerun.code, 0, rerun.err);
    const status = await sluice(["status", "--cache", b, "--json"]);
    assert.deepEqual(status.json().conflicts, []);
  } finally {
    await w.cleanup();
  }
});

Deno.test("pull --restore-deleted that cannot take a file back (a directory of its name is here) does not advise running it again", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/a.txt", "a");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.remove(`${a}/notes/a.txt`);
  await w.write(a, "notes/a.txt/part.md", "part");
  const restored = await sluice(["pull", "--restore-deleted", "--cache", a]);
  assert.equal(restored.code, 2, restored.err);
  assert.match(restored.out, /notes\/a\.txt \(a directory of that name is here now/);
  assert.doesNotMatch(restored.out, /or `sluice pull --restore-deleted --cache \S+` to take/);
  assert.match(restored.out, /or do what the line beside each says\./);
  await w.cleanup();
});

Deno.test("resolve of an absolute path outside the cache says how paths are named and where to find the open conflicts", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["push", "--cache", b])).code, 3);
  const r = await sluice(["resolve", `${w.base}/a/${CFG}`, "--mine", "--cache", b]);
  assert.equal(r.code, 65, r.err);
  assert.match(r.err, /^error\[unsafe_path\]: Refused the path .*: it is not inside the cache /);
  assert.match(r.err, /paths are relative to the cache, or absolute inside it/);
  assert.match(r.err, new RegExp(`\`sluice status --cache ${b}\``));
  assert.equal(await Deno.readTextFile(`${b}/${CFG}`), "y: 1\n", "nothing changed");
  await w.cleanup();
});

Deno.test("resolve --merged of an unmerged copy: every `sluice theirs` the refusal names can be run as it is (it names the path)", async () => {
  const { w, b } = await conflicted();
  assert.equal((await sluice(["push", "--cache", b])).code, 3);
  const r = await sluice(["resolve", CFG, "--merged", "--cache", b]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /^error\[not_merged\]/);
  const named = [...r.err.matchAll(/`(sluice theirs[^`]*)`/g)].map((m) => m[1]);
  assert.ok(named.length > 0, r.err);
  for (const c of named) assert.equal(c, `sluice theirs ${CFG} --cache ${b}`, r.err);
  await w.cleanup();
});

Deno.test("resolve --theirs or --merged of a conflict whose copy a pull set aside says where that copy stays", async () => {
  const w = await world();
  const a = w.cache("a");
  const c = w.cache("c");
  const files = ["notes/t.txt", "notes/m.txt"];
  for (const f of files) await w.write(a, f, "from a\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  for (const f of files) await w.write(c, f, "from c, never synced\n");
  const pulled = await sluice(["pull", "--cache", c, "--store", w.url]);
  assert.equal(pulled.code, 3, pulled.err);
  for (const [f, how] of [["notes/t.txt", "--theirs"], ["notes/m.txt", "--merged"]]) {
    const aside = pulled.out.match(new RegExp(`^ {2}${f} → (\\.sluice/set-aside/\\S+)$`, "m"));
    assert.ok(aside, pulled.out);
    const r = await sluice(["resolve", f, how, "--cache", c]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, new RegExp(`^Your copy stays set aside in ${aside[1]}\\.$`, "m"), r.out);
    assert.equal(await Deno.readTextFile(`${c}/${aside[1]}`), "from c, never synced\n");
  }
  await w.cleanup();
});
