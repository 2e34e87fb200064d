import assert from "node:assert/strict";
import { FsStore } from "../packages/fs/mod.ts";
import { sluice, world } from "./cli_test_kit.ts";
import { LocalCache } from "../sync/transfer/cache.ts";
import { writePendingLockfileDelta } from "../sync/locks/lockfile_txn.ts";

const LOCKFILE = "config/upstream_extensions.json";

Deno.test("lockfile add refuses an entry that is not a JSON object and shows what one looks like", async () => {
  const w = await world();
  const a = w.cache("a");
  const store = new FsStore({ root: w.root });
  for (
    const [text, problem] of [
      ['"1.0"', "a string"],
      ["[1]", "an array"],
      ["1.2", "a number"],
      ["null", "null"],
      ["1.2.0.", "not valid JSON"],
    ]
  ) {
    const r = await sluice(["lockfile", "add", "@acme/x", text, "--cache", a, "--store", w.url]);
    assert.equal(r.code, 78, text);
    assert.match(r.err, /^error\[invalid_config\]: The entry for @acme\/x must be a JSON object/);
    assert.ok(r.err.includes(`(${problem})`), r.err);
    assert.ok(r.err.includes(`sluice lockfile add @acme/x '{"version":"1.2.0"}'`), r.err);
    assert.doesNotMatch(r.err, /datastore configuration/);
    assert.equal(await store.head(LOCKFILE), null, "nothing was published");
  }
  const help = await sluice(["lockfile", "add", "--help"]);
  assert.match(help.out, /a JSON object, e\.g\.\s+'\{"version":"1\.2\.0"\}'/);
  await w.cleanup();
});

Deno.test("lockfile add refuses a name that is no extension name (a path, a space, capitals) and writes nothing", async () => {
  const w = await world();
  const a = w.cache("a");
  const store = new FsStore({ root: w.root });
  for (
    const name of ["../x", "Foo Bar", "@Acme/ssh", "acme/ssh", "@acme", "@acme/", "@acme/../x"]
  ) {
    const r = await sluice([
      "lockfile",
      "add",
      name,
      '{"version":"1"}',
      "--cache",
      a,
      "--store",
      w.url,
    ]);
    assert.equal(r.code, 78, `${name}: ${r.err}`);
    assert.match(r.err, /^error\[invalid_config\]: .* is no extension name: .*@collective\/name/);
    assert.match(r.err, /Nothing was changed/);
    assert.equal(await store.head(LOCKFILE), null, `${name}: nothing was published`);
  }
  const empty = await sluice(["lockfile", "remove", "", "--cache", a, "--store", w.url]);
  assert.equal(empty.code, 78, empty.err);
  assert.match(empty.err, /An extension name is needed/);
  assert.doesNotMatch(empty.err, /datastore configuration/);
  for (const name of ["@acme/ssh", "@my_org/tools/sub-1"]) {
    const r = await sluice([
      "lockfile",
      "add",
      name,
      '{"version":"1"}',
      "--cache",
      a,
      "--store",
      w.url,
    ]);
    assert.equal(r.code, 0, `${name}: ${r.err}`);
  }
  await w.cleanup();
});

Deno.test("lockfile add sets a malformed local lockfile aside with a warning naming where", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, LOCKFILE, "{ this is not json");
  const r = await sluice([
    "lockfile",
    "add",
    "@acme/ssh",
    '{"version":"1.2.0"}',
    "--cache",
    a,
    "--store",
    w.url,
    "--json",
  ]);
  assert.equal(r.code, 0, r.err);
  const warning =
    /warning\[lockfile_local_malformed\]: The local copy of the managed lockfile config\/upstream_extensions\.json is not a JSON object \(.*\), so it was never published\. It was moved to (\S+), and/
      .exec(r.err);
  assert.ok(warning, r.err);
  const moved = warning[1];
  assert.ok(moved.startsWith(`${a}/.sluice/set-aside/`), moved);
  assert.ok(moved.endsWith(`/${LOCKFILE}`), moved);
  assert.equal(await Deno.readTextFile(moved), "{ this is not json");
  assert.deepEqual(
    (r.json().warnings as { code: string }[]).map((x) => x.code),
    ["lockfile_local_malformed"],
  );
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${a}/${LOCKFILE}`)), {
    "@acme/ssh": { version: "1.2.0" },
  });
  await w.cleanup();
});

Deno.test("the lockfile_guarded warning names the CLI command", async () => {
  const w = await world();
  const a = w.cache("a");
  const add = await sluice([
    "lockfile",
    "add",
    "@acme/ssh",
    '{"version":"1.2.0"}',
    "--cache",
    a,
    "--store",
    w.url,
  ]);
  assert.equal(add.code, 0, add.err);
  await w.write(a, LOCKFILE, '{"@acme/ssh":{"version":"9.9.9"}}\n');
  for (const args of [["push"], ["push", LOCKFILE], ["status"]]) {
    // Left out, and said so: the hand edit is not published (exit 2).
    const r = await sluice([...args, "--cache", a]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}${r.err}`);
    assert.match(r.out + r.err, new RegExp(LOCKFILE.replaceAll("/", "\\/")));
  }
  const push = await sluice(["push", "--cache", a]);
  assert.match(
    push.err,
    /warning\[lockfile_guarded\]: .*`sluice lockfile add <name> '<entry JSON>' --cache \S+\/a`/,
  );
  assert.match(push.err, /`sluice lockfile remove <name> --cache \S+\/a`/);
  assert.match(push.err, /delete it here and run `sluice pull --restore-deleted --cache \S+\/a`/);
  // The way back: the datastore's copy, and nothing left out.
  await Deno.remove(`${a}/${LOCKFILE}`);
  const back = await sluice(["pull", "--restore-deleted", "--cache", a]);
  assert.equal(back.code, 0, back.err);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${a}/${LOCKFILE}`)), {
    "@acme/ssh": { version: "1.2.0" },
  });
  assert.equal((await sluice(["status", "--cache", a])).code, 0);
  await w.cleanup();
});

Deno.test("lockfile repair shows a malformed remote copy, then republishes the merged state", async () => {
  const w = await world();
  const [a, c] = [w.cache("a"), w.cache("c")];
  const entry = '{"version":"1.0.0"}';
  for (const [cache, name] of [[a, "@acme/x"], [c, "@acme/y"]]) {
    const r = await sluice(["lockfile", "add", name, entry, "--cache", cache, "--store", w.url]);
    assert.equal(r.code, 0, r.err);
  }
  assert.equal((await sluice(["pull", "--cache", a])).code, 0);
  const broken = '{"@acme/x": {"version": "1.0.0"}, <<<<<<< ours';
  const store = new FsStore({ root: w.root });
  const remote = async () => new TextDecoder().decode((await store.get(LOCKFILE)).body);
  await store.put(LOCKFILE, new TextEncoder().encode(broken), { kind: "overwrite" });

  const add = await sluice(["lockfile", "add", "@acme/z", entry, "--cache", a]);
  assert.equal(add.code, 65, add.err);
  assert.match(add.err, /^error\[lockfile_remote_malformed\]: The datastore's copy of the managed/);
  assert.ok(add.err.includes(JSON.stringify(broken)), add.err);
  assert.match(add.err, /\(set @acme\/z\) is kept as a pending delta/);
  assert.match(add.err, /`sluice lockfile repair --dry-run --cache \S+\/a`/);

  const dry = await sluice(["lockfile", "repair", "--dry-run", "--cache", a]);
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, /is not a JSON object of entries: .*It begins "\{\\"@acme\/x\\"/);
  assert.match(
    dry.out,
    /3 entries \(@acme\/x, @acme\/y, @acme\/z\)\. Nothing was written \(dry run\)/,
  );
  assert.equal(await remote(), broken);
  const dryJson = (await sluice(["lockfile", "repair", "--dry-run", "--cache", a, "--json"]))
    .json();
  assert.equal(dryJson.outcome, "would_repair");
  assert.equal(dryJson.published, false);

  const fixed = await sluice(["lockfile", "repair", "--cache", a, "--json"]);
  assert.equal(fixed.code, 0, fixed.err);
  const doc = fixed.json();
  assert.equal(doc.command, "lockfile repair");
  assert.equal(doc.outcome, "repaired");
  assert.equal(doc.published, true);
  const [kept] = doc.setAside as string[];
  assert.equal(await Deno.readTextFile(`${a}/${kept}`), broken);
  assert.deepEqual(Object.keys(JSON.parse(await remote())), [
    "@acme/x",
    "@acme/y",
    "@acme/z",
  ]);
  const again = await sluice(["lockfile", "repair", "--cache", a]);
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /is a JSON object; there is nothing to repair\./);
  const help = await sluice(["lockfile", "repair", "--help"]);
  assert.match(help.out, /Usage: sluice lockfile repair/);
  assert.match(help.out, /--dry-run/);
  assert.match(
    help.out,
    /\nExamples:\n {2}sluice lockfile repair --dry-run/,
    "two examples, under Examples:",
  );
  await w.cleanup();
});

Deno.test("a conflict on the managed lockfile: status gives the way out that works (theirs, then lockfile add), not --mine", async () => {
  const w = await world();
  const a = w.cache("a");
  const b = w.cache("b");
  const add = ["lockfile", "add", "@acme/ssh", '{"version":"1.2.0"}', "--store", w.url];
  assert.equal((await sluice([...add, "--cache", a])).code, 0);
  await w.write(b, LOCKFILE, '{"@acme/ssh":{"version":"9.9.9"}}\n'); // by hand, never synced
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 3);
  const status = await sluice(["status", "--cache", b]);
  assert.equal(status.code, 3, status.err);
  assert.match(
    status.out,
    /the managed lockfile, published only by its transaction: --mine and --merged are refused; take theirs with `sluice resolve config\/upstream_extensions\.json --theirs --cache \S+` \(yours is set aside\), then apply your entries again with `sluice lockfile add <name> '<entry JSON>' --cache \S+`/,
  );
  const theirs = await sluice(["resolve", LOCKFILE, "--theirs", "--cache", b]);
  assert.equal(theirs.code, 0, theirs.err);
  await w.cleanup();
});

/** A cache `a` synced with a lockfile holding @acme/ssh, published by `lockfile add`. */
async function withLockfile() {
  const w = await world();
  const a = w.cache("a");
  const add = await sluice([
    "lockfile",
    "add",
    "@acme/ssh",
    '{"version":"1.0.0"}',
    "--cache",
    a,
    "--store",
    w.url,
  ]);
  assert.equal(add.code, 0, add.err);
  return { w, a };
}

Deno.test("a lockfile transaction never loses a hand edit of the local copy: it is set aside, and each entry it held is named with the command that publishes it", async () => {
  const { w, a } = await withLockfile();
  await w.write(a, LOCKFILE, '{"@acme/ssh":{"version":"9.9.9"},"@acme/own":{"version":"1"}}\n');
  // Even a remove that fails (no such entry) keeps the hand edit.
  const typo = await sluice(["lockfile", "remove", "@acme/nosuch", "--cache", a]);
  assert.equal(typo.code, 1, typo.err);
  const told =
    /warning\[lockfile_local_changed\]: .* it was moved to (\S+) first\. .*lacks or holds differently @acme\/ssh, @acme\/own: to publish them, run `sluice lockfile add @acme\/ssh '\{"version":"9\.9\.9"\}' --cache \S+`, then `sluice lockfile add @acme\/own '\{"version":"1"\}' --cache \S+`/
      .exec(typo.err);
  assert.ok(told, typo.err);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(told[1])), {
    "@acme/ssh": { version: "9.9.9" },
    "@acme/own": { version: "1" },
  });
  // The commands it names work as printed, and nothing is moved aside again.
  for (
    const [name, entry] of [["@acme/ssh", '{"version":"9.9.9"}'], ["@acme/own", '{"version":"1"}']]
  ) {
    const r = await sluice(["lockfile", "add", name, entry, "--cache", a]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.err, /lockfile_local_changed/);
  }
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${a}/${LOCKFILE}`)), {
    "@acme/ssh": { version: "9.9.9" },
    "@acme/own": { version: "1" },
  });
  await w.cleanup();
});

Deno.test("a project's own lockfile, never synced, is set aside by the first lockfile add, its entries named", async () => {
  const w = await world();
  const g = w.cache("g");
  await w.write(g, LOCKFILE, '{"@acme/old":{"version":"1"}}\n');
  const r = await sluice([
    "lockfile",
    "add",
    "@acme/new",
    '{"version":"2"}',
    "--cache",
    g,
    "--store",
    w.url,
  ]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.err,
    /lockfile_local_changed.*lacks or holds differently @acme\/old: to publish it, run `sluice lockfile add @acme\/old '\{"version":"1"\}'/,
  );
  // Unchanged copies are not moved: a second add says nothing of it.
  const again = await sluice(["lockfile", "add", "@acme/old", '{"version":"1"}', "--cache", g]);
  assert.equal(again.code, 0, again.err);
  assert.doesNotMatch(again.err, /lockfile_local_changed/);
  assert.deepEqual(Object.keys(JSON.parse(await Deno.readTextFile(`${g}/${LOCKFILE}`))).sort(), [
    "@acme/new",
    "@acme/old",
  ]);
  await w.cleanup();
});

Deno.test("lockfile add while a conflict at the lockfile is open is refused, and both copies stay as they are", async () => {
  const { w, a } = await withLockfile();
  const b = w.cache("b");
  assert.equal((await sluice(["pull", "--init", "--cache", b, "--store", w.url])).code, 0);
  await w.write(a, LOCKFILE, '{"@acme/handedit":{"version":"1"}}\n');
  const peer = await sluice(["lockfile", "add", "@acme/d", '{"version":"4"}', "--cache", b]);
  assert.equal(peer.code, 0, peer.err);
  const pulled = await sluice(["pull", "--cache", a]);
  assert.equal(pulled.code, 3, pulled.err);
  const r = await sluice(["lockfile", "add", "@acme/e", '{"version":"5"}', "--cache", a]);
  assert.equal(r.code, 1, r.err);
  assert.match(
    r.err,
    /^error\[lockfile_local_changed\]: config\/upstream_extensions\.json has an open conflict/m,
  );
  assert.equal(await Deno.readTextFile(`${a}/${LOCKFILE}`), '{"@acme/handedit":{"version":"1"}}\n');
  const store = new FsStore({ root: w.root });
  assert.doesNotMatch(new TextDecoder().decode((await store.get(LOCKFILE))!.body), /@acme\/e/);
  await w.cleanup();
});

Deno.test("the copy a failed transaction left (the datastore's with the pending change) is no hand edit: the next lockfile add publishes both, moving nothing aside", async () => {
  const { w, a } = await withLockfile();
  // As a failed `lockfile add @acme/x` leaves it: the change pending, the local view written.
  const cache = new LocalCache(a, undefined, {});
  await writePendingLockfileDelta(cache, LOCKFILE, { set: { "@acme/x": { version: "3" } } });
  await w.write(
    a,
    LOCKFILE,
    '{\n  "@acme/ssh": {\n    "version": "1.0.0"\n  },\n  "@acme/x": {\n    "version": "3"\n  }\n}\n',
  );
  const r = await sluice(["lockfile", "add", "@acme/y", '{"version":"4"}', "--cache", a]);
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.err, /lockfile_local_changed/);
  assert.deepEqual(Object.keys(JSON.parse(await Deno.readTextFile(`${a}/${LOCKFILE}`))).sort(), [
    "@acme/ssh",
    "@acme/x",
    "@acme/y",
  ]);
  await w.cleanup();
});

Deno.test("lockfile retry sets a hand-edited copy aside as add does, and no warning names the transaction's own change", async () => {
  const { w, a } = await withLockfile();
  const cache = new LocalCache(a, undefined, {});
  await writePendingLockfileDelta(cache, LOCKFILE, { set: { "@acme/pend": { version: "2" } } });
  await w.write(a, LOCKFILE, '{"@acme/ssh":{"version":"1.0.0"},"@acme/mine":{"version":"9"}}\n');
  const r = await sluice(["lockfile", "retry", "--cache", a]);
  assert.equal(r.code, 0, r.err);
  const told = /warning\[lockfile_local_changed\]: .* it was moved to (\S+) first\. (.*)/.exec(
    r.err,
  );
  assert.ok(told, r.err);
  assert.match(told[2], /lacks or holds differently @acme\/mine/);
  assert.doesNotMatch(told[2], /@acme\/pend/, "the retried change is no entry of the copy's");
  assert.match(await Deno.readTextFile(told[1]), /@acme\/mine/);
  // remove, with a hand edit: the removed entry is not offered back.
  await w.write(a, LOCKFILE, '{"@acme/ssh":{"version":"1.0.0"},"@acme/other":{"version":"3"}}\n');
  const rm = await sluice(["lockfile", "remove", "@acme/ssh", "--cache", a]);
  assert.equal(rm.code, 0, rm.err);
  assert.doesNotMatch(rm.err, /lockfile add @acme\/ssh/);
  assert.match(rm.err, /lockfile add @acme\/other/);
  await w.cleanup();
});

Deno.test("lockfile remove of several names, one a typo, removes none and says which", async () => {
  const { w, a } = await withLockfile();
  const add = await sluice(["lockfile", "add", "@acme/cb", '{"version":"1"}', "--cache", a]);
  assert.equal(add.code, 0, add.err);
  const r = await sluice(["lockfile", "remove", "@acme/cb", "@acme/tpyo", "--cache", a]);
  assert.equal(r.code, 1, r.err);
  assert.match(
    r.err,
    /^error\[not_found\]: .* has no entry named @acme\/tpyo; nothing was published \(@acme\/cb included\)/,
  );
  const store = new FsStore({ root: w.root });
  const entries = JSON.parse(new TextDecoder().decode((await store.get(LOCKFILE))!.body));
  assert.deepEqual(Object.keys(entries).sort(), ["@acme/cb", "@acme/ssh"]);
  const ok = await sluice(["lockfile", "remove", "@acme/cb", "@acme/ssh", "--cache", a]);
  assert.equal(ok.code, 0, ok.err);
  await w.cleanup();
});
