import assert from "node:assert/strict";
import { FsStore } from "../packages/fs/mod.ts";
import { sluice, world } from "./cli_test_kit.ts";

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
  const push = await sluice(["push", "--cache", a]);
  assert.equal(push.code, 0, push.err);
  assert.match(
    push.err,
    /warning\[lockfile_guarded\]: .*`sluice lockfile add <name> '<entry JSON>'`/,
  );
  assert.match(push.err, /`sluice lockfile remove <name>`/);
  await w.cleanup();
});
