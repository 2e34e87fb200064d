import assert from "node:assert/strict";
import { sluice, world } from "./cli_test_kit.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { FakeClock, InMemoryStore } from "../packages/testing/mod.ts";
import { LocalCache } from "../sync/transfer/cache.ts";
import { storeLockBackend } from "../sync/locks/lock_engine.ts";
import { updateManagedLockfile } from "../sync/locks/lockfile_txn.ts";
import { createSyncService } from "../sync/service/service.ts";
import { CLI_STORE_STATE } from "./session.ts";

const me = { holder: "other@elsewhere", hostname: "elsewhere", pid: 4242 };

Deno.test("--help works on the program and on every command", async () => {
  const top = await sluice(["--help"]);
  assert.equal(top.code, 0);
  for (const c of ["probe", "push", "pull", "status", "lock", "lockfile"]) {
    assert.match(top.out, new RegExp(`\\n  ${c} `));
  }
  const commands = [
    ["probe"],
    ["push"],
    ["pull"],
    ["status"],
    ["lock", "list"],
    ["lock", "inspect"],
    ["lock", "release"],
    ["lockfile", "add"],
    ["lockfile", "remove"],
    ["lockfile", "retry"],
    ["lockfile", "repair"],
  ];
  for (const c of commands) {
    const r = await sluice([...c, "--help"]);
    assert.equal(r.code, 0, c.join(" "));
    assert.match(r.out, new RegExp(`Usage: sluice ${c.join(" ")}`));
  }
  const version = await sluice(["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.out, /^\d+\.\d+\.\d+/);
});

Deno.test("--help names the store URL's timeout= and retries=, which a store_retry warning tells to set", async () => {
  const top = await sluice(["--help"]);
  assert.equal(top.code, 0);
  assert.match(top.out, /timeout=<ms>/);
  assert.match(top.out, /retries=<n>/);
});

Deno.test("usage errors print error[usage] and exit 64", async () => {
  const unknown = await sluice(["bogus"]);
  assert.equal(unknown.code, 64);
  assert.match(unknown.err, /^error\[usage\]: unknown command 'bogus'/);
  // A group's unknown command names the group's commands.
  const inGroup = await sluice(["lock", "status"]);
  assert.equal(inGroup.code, 64);
  assert.match(
    inGroup.err,
    /unknown command 'status'\n\(`sluice lock` takes one of: list, inspect, release;/,
  );
  const option = await sluice(["push", "--frobnicate"]);
  assert.equal(option.code, 64);
  assert.match(option.err, /error\[usage\]: unknown option '--frobnicate'/);
  // There is no dry run of a push: the status is its preview.
  const dry = await sluice(["push", "--dry-run"]);
  assert.equal(dry.code, 64);
  assert.match(dry.err, /`sluice status` shows what a push would do, without pushing/);
  // Only an unknown option (a --dry-run, say) gets that hint: a missing value does not.
  const noValue = await sluice(["push", "--cache"]);
  assert.equal(noValue.code, 64);
  assert.match(noValue.err, /argument missing\n\(add --help for usage\)\n$/);
  const choice = await sluice(["push", "--conditional-writes", "maybe"]);
  assert.equal(choice.code, 64);
  const json = await sluice(["pull", "--json", "--nope"]);
  assert.equal(json.code, 64);
  assert.deepEqual(json.json().error, {
    code: "usage",
    message: "unknown option '--nope'",
    exitCode: 64,
  });
  // A command group (or the program) without its command: the help, then the usage error.
  for (const [args, group] of [[["lock"], "sluice lock"], [[], "sluice"]] as const) {
    const bare = await sluice([...args]);
    assert.equal(bare.code, 64, group);
    assert.match(bare.err, new RegExp(`^Usage: ${group} `));
    assert.match(bare.err, new RegExp(`\\nerror\\[usage\\]: ${group} needs a command: `));
  }
  const missing = await sluice(["lockfile", "add", "only-a-name"]);
  assert.equal(missing.code, 64);
  assert.match(missing.err, /missing required argument 'entry'/);
});

Deno.test("push then pull carries files between two caches over a file:// store", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "data/aws/ec2/web-1/state/1/raw", "v1");
  await w.write(a, "data/aws/ec2/web-1/state/latest", "1");
  await w.write(a, "logs/run.log", "ok\n");
  const pushed = await sluice(["push", "--cache", a, "--store", w.url]);
  assert.equal(pushed.code, 0, pushed.err);
  assert.match(pushed.out, /^Pushed 3 files \(6 B\) to file:\/\//m);

  const again = await sluice(["push", "--cache", a, "--json"]);
  assert.equal(again.code, 0, again.err);
  const doc = again.json();
  assert.equal(doc.ok, true);
  assert.equal(doc.command, "push");
  assert.deepEqual(doc.uploaded, []);

  const b = w.cache("b");
  const pulled = await sluice(["pull", "--cache", b, "--store", w.url, "--json"]);
  assert.equal(pulled.code, 0, pulled.err);
  assert.deepEqual((pulled.json().fetched as string[]).sort(), [
    "data/aws/ec2/web-1/state/1/raw",
    "data/aws/ec2/web-1/state/latest",
    "logs/run.log",
  ]);
  assert.equal(await Deno.readTextFile(`${b}/data/aws/ec2/web-1/state/1/raw`), "v1");
  const unchanged = await sluice(["pull", "--cache", b]);
  assert.equal(unchanged.code, 0);
  assert.match(unchanged.out, /^Already up to date with file:\/\//);

  // A prefix: pulled under it; a mistyped one is not "up to date".
  const c = w.cache("c");
  const scoped = await sluice(["pull", "logs/", "--cache", c, "--store", w.url, "--json"]);
  assert.equal(scoped.code, 0, scoped.err);
  assert.deepEqual(scoped.json().fetched, ["logs/run.log"]);
  const again2 = await sluice(["pull", "logs", "--cache", c]);
  assert.equal(again2.code, 0, again2.err);
  // A file a peer deleted, pulled by name: removed here, not a typo.
  assert.equal((await sluice(["pull", "--cache", a])).code, 0);
  await Deno.remove(`${a}/logs/run.log`);
  assert.equal((await sluice(["push", "logs/run.log", "--cache", a])).code, 0);
  const gone = await sluice(["pull", "logs/run.log", "--cache", c]);
  assert.equal(gone.code, 0, gone.err);
  assert.match(gone.out, /removed 1 file deleted remotely/);
  const typo = await sluice(["pull", "logz", "--cache", c]);
  assert.equal(typo.code, 1, typo.out);
  assert.match(
    typo.err,
    /^error\[not_found\]: Nothing is under logz in the index of file:\/\/.*nothing was pulled there/,
  );
  // The same typo on a first pull with --init: the new cache directory,
  // with nothing pulled into it, is not left behind.
  const fresh = `${w.base}/fresh`;
  const first = await sluice(["pull", "logz", "--init", "--cache", fresh, "--store", w.url]);
  assert.equal(first.code, 1, first.out);
  await assert.rejects(Deno.stat(fresh), Deno.errors.NotFound);
  await w.cleanup();
});

Deno.test("pull prefixes are taken as push paths are: relative to the cache or absolute inside it; one outside it is refused", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "logs/run.log", "ok\n");
  await w.write(a, "notes/a.txt", "a\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  const b = w.cache("b");
  const abs = await sluice(["pull", `${b}/logs/`, "--cache", b, "--store", w.url, "--json"]);
  assert.equal(abs.code, 0, abs.err);
  assert.deepEqual(abs.json().fetched, ["logs/run.log"]);
  const dotted = await sluice(["pull", "./notes", "--cache", b, "--json"]);
  assert.equal(dotted.code, 0, dotted.err);
  assert.deepEqual(dotted.json().fetched, ["notes/a.txt"]);
  for (const outside of [`${w.base}/elsewhere`, "../a/logs"]) {
    const r = await sluice(["pull", outside, "--cache", b]);
    assert.equal(r.code, 65, `${outside}: ${r.out}${r.err}`);
    assert.match(r.err, /^error\[unsafe_path\]: .*(not inside|leaves) the cache/);
  }
  await w.cleanup();
});

Deno.test("push of named paths pushes only those; directories expand to their files", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "outputs/x/1.txt", "1");
  await w.write(a, "outputs/x/2.txt", "2");
  await w.write(a, "logs/skip.log", "no");
  const r = await sluice([
    "push",
    "outputs/x",
    "--no-walk",
    "--cache",
    a,
    "--store",
    w.url,
    "--json",
  ]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual((r.json().uploaded as string[]).sort(), ["outputs/x/1.txt", "outputs/x/2.txt"]);
  const store = new FsStore({ root: w.root });
  assert.equal(await store.head("logs/skip.log"), null);

  const outside = await sluice(["push", "../escape", "--cache", a]);
  assert.equal(outside.code, 65);
  assert.match(outside.err, /^error\[unsafe_path\]: /);
  assert.match(outside.err, /leaves the cache .*paths are relative to the cache/);

  // A typo is not "nothing to push": refused before anything is done.
  await w.write(a, "outputs/x/3.txt", "3");
  for (const args of [["outputs/x/typo.txt"], ["--adopt-uncommitted", "config/nope.yaml"]]) {
    const typo = await sluice(["push", ...args, "--cache", a, "--store", w.url]);
    assert.equal(typo.code, 1, typo.err);
    assert.match(
      typo.err,
      /^error\[not_found\]: Nothing is at (outputs\/x\/typo.txt|config\/nope.yaml) in the cache .*; nothing was pushed/,
    );
  }
  assert.equal(await store.head("outputs/x/3.txt"), null, "nothing was pushed");
  // A file this cache synced and deleted here is a deletion to push, named or not.
  await Deno.remove(`${a}/outputs/x/1.txt`);
  const del = await sluice(["push", "outputs/x/1.txt", "--cache", a, "--store", w.url, "--json"]);
  assert.equal(del.code, 0, del.err);
  assert.deepEqual(del.json().deleted, ["outputs/x/1.txt"]);
  await w.cleanup();
});

Deno.test("status lists dirty paths with class and gates, set-aside copies and pending lockfile changes", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "data/aws/ec2/web-1/state/2/raw", "v2");
  await w.write(a, "logs/run.log", "ok\n");
  await w.write(a, "data/aws/ec2/web-1/state/1/raw", "mine");
  await new LocalCache(a).setAside(
    "data/aws/ec2/web-1/state/1/raw",
    // As the create-only writer words and marks it.
    "Another writer published data/aws/ec2/web-1/state/1/raw first with different bytes; this local copy of data/aws/ec2/web-1/state/1 was not pushed.",
    "version_exists",
  );
  // A lockfile change that could not be published stays pending in the cache.
  const down = new InMemoryStore();
  down.unreachable = true;
  const svc = await createSyncService({
    cacheDir: a,
    store: down,
    identity: me,
    lockBackend: storeLockBackend(down, { clock: new FakeClock() }),
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
  });
  await assert.rejects(updateManagedLockfile(svc, { set: { "@acme/ssh": { v: "1" } } }));

  // The lockfile copy here, with the change not yet published, is left out (exit 2).
  const r = await sluice(["status", "--cache", a, "--store", w.url, "--json"]);
  assert.equal(r.code, 2, r.err);
  const doc = r.json();
  const dirty = doc.dirty as { path: string; class: string; handledBy: string[] }[];
  const byPath = new Map(dirty.map((e) => [e.path, e]));
  assert.equal(byPath.get("data/aws/ec2/web-1/state/2/raw")?.class, "data-version");
  assert.equal(byPath.get("logs/run.log")?.class, "other");
  assert.ok(byPath.get("logs/run.log")?.handledBy.includes("path-classifier"));
  assert.ok(!byPath.has("data/aws/ec2/web-1/state/1/raw"), "set-aside copies are not pushed");
  const aside = doc.setAside as { path: string; location: string; reason: string }[];
  assert.equal(aside.length, 1);
  assert.equal(aside[0].path, "data/aws/ec2/web-1/state/1/raw");
  assert.match(
    aside[0].location,
    /^\.sluice\/set-aside\/.+\/data\/aws\/ec2\/web-1\/state\/1\/raw$/,
  );
  assert.match(aside[0].reason, /^Another writer published .* first with different bytes/);
  const pending = doc.pendingLockfile as { path: string; set: string[] }[];
  assert.deepEqual(pending.map((p) => [p.path, p.set]), [
    ["config/upstream_extensions.json", ["@acme/ssh"]],
  ]);

  const human = await sluice(["status", "--cache", a]);
  assert.equal(human.code, 2, human.err);
  assert.match(human.out, /data\/aws\/ec2\/web-1\/state\/2\/raw\s+data-version\s+path-classifier/);
  assert.match(human.out, /Set-aside copies, kept until you delete them \(1\)/);
  assert.match(
    human.out,
    /It is a data version that already exists on the datastore with other bytes/,
  );
  assert.doesNotMatch(human.out, /moved out of the way/);
  assert.match(human.out, /Run `sluice lockfile retry --cache \S+\/a`/);

  const retried = await sluice(["lockfile", "retry", "--cache", a, "--json"]);
  assert.equal(retried.code, 0, retried.err);
  assert.deepEqual(retried.json().entries, { "@acme/ssh": { v: "1" } });
  const after = await sluice(["status", "--cache", a, "--json"]);
  assert.deepEqual(after.json().pendingLockfile, []);
  await w.cleanup();
});

Deno.test("the store comes from --store, SLUICE_STORE or the cache's record; another store is refused", async () => {
  const w = await world();
  const a = w.cache("a");
  const none = await sluice(["status", "--cache", a]);
  assert.equal(none.code, 78);
  assert.match(none.err, /^error\[invalid_config\]: .*--store.*SLUICE_STORE/);

  const viaEnv = await sluice(["status", "--cache", a, "--json"], { env: { SLUICE_STORE: w.url } });
  assert.equal(viaEnv.code, 0, viaEnv.err);
  assert.equal(viaEnv.json().endpoint, w.url);
  assert.ok(await new LocalCache(a).readState(CLI_STORE_STATE));

  const recorded = await sluice(["status", "--cache", a, "--json"]);
  assert.equal(recorded.code, 0, recorded.err);
  assert.equal(recorded.json().endpoint, w.url);
  // An empty SLUICE_STORE (`SLUICE_STORE= sluice …`) is no store given: the record is used.
  const empty = await sluice(["status", "--cache", a, "--json"], { env: { SLUICE_STORE: "" } });
  assert.equal(empty.code, 0, empty.err);
  assert.equal(empty.json().endpoint, w.url);

  // Once the cache has synced a file with it, another store is refused.
  await w.write(a, "notes/x.txt", "x\n");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  const other = await sluice(["push", "--cache", a, "--store", `${w.url}-other`]);
  assert.equal(other.code, 78);
  assert.match(other.err, /mirrors file:\/\/.*store, not file:\/\/.*store-other/);

  const bad = await sluice(["status", "--cache", w.cache("c"), "--store", "s3://Bad_Bucket"]);
  assert.equal(bad.code, 78);
  assert.match(bad.err, /^error\[invalid_config\]: Invalid configuration at "store\.bucket"/);

  const json = await sluice(["status", "--cache", w.cache("d"), "--store", "ftp://x", "--json"]);
  assert.equal(json.code, 78);
  const doc = json.json();
  assert.equal(doc.ok, false);
  assert.deepEqual((doc.error as { code: string; exitCode: number }).code, "invalid_config");

  const pid = await sluice(["status", "--cache", a, "--pid", "abc"]);
  assert.equal(pid.code, 78);
  assert.match(pid.err, /Invalid value for --pid: .*correct the option/);
  await w.cleanup();
});

Deno.test("lock list and inspect show holders and staleness; release needs --force", async () => {
  const w = await world();
  const a = w.cache("a");
  const clock = new FakeClock(Date.now());
  // A live model lock, and a global lock written long ago (stale).
  const live = storeLockBackend(new FsStore({ root: w.root }), { clock })
    .createLock("data/aws/ec2/web-1/.lock", me);
  await live.acquire();
  const old = storeLockBackend(new FsStore({ root: w.root, clock: new FakeClock(0) }), { clock })
    .createLock(".datastore.lock", { ...me, pid: 7 });
  await old.acquire();

  const list = await sluice(["lock", "list", "--cache", a, "--store", w.url, "--json"]);
  assert.equal(list.code, 0, list.err);
  const locks = list.json().locks as {
    key: string;
    scope: string;
    model?: string;
    stale: boolean;
    info: { holder: string; pid: number };
  }[];
  assert.deepEqual(locks.map((l) => [l.key, l.scope, l.model, l.stale, l.info.pid]), [
    [".datastore.lock", "global", undefined, true, 7],
    ["data/aws/ec2/web-1/.lock", "model", "aws/ec2/web-1", false, 4242],
  ]);
  const human = await sluice(["lock", "list", "--cache", a]);
  assert.match(
    human.out,
    /data\/aws\/ec2\/web-1\/\.lock {2}\(model aws\/ec2\/web-1\) {2}held by other@elsewhere \(pid 4242\)/,
  );
  assert.match(human.out, /\.datastore\.lock {2}\(global datastore lock\) .*STALE/);

  const inspect = await sluice([
    "lock",
    "inspect",
    "--model",
    "aws/ec2/web-1",
    "--cache",
    a,
    "--json",
  ]);
  assert.equal(inspect.code, 0, inspect.err);
  assert.equal(inspect.json().held, true);
  const free = await sluice(["lock", "inspect", "--model", "aws/ec2/web-2", "--cache", a]);
  assert.match(free.out, /^No lock at data\/aws\/ec2\/web-2\/\.lock: it is free\./);

  const refused = await sluice(["lock", "release", "--model", "aws/ec2/web-1", "--cache", a]);
  assert.equal(refused.code, 64);
  assert.match(refused.err, /^error\[usage\]: .*--force/);
  assert.ok(await live.inspect(), "the lock is still there");

  const broke = await sluice([
    "lock",
    "release",
    "--force",
    "--model",
    "aws/ec2/web-1",
    "--cache",
    a,
  ]);
  assert.equal(broke.code, 0, broke.err);
  assert.match(
    broke.out,
    /^Broke the lock data\/aws\/ec2\/web-1\/\.lock held by other@elsewhere \(pid 4242\)/,
  );
  assert.equal(await live.inspect(), null);
  const global = await sluice(["lock", "release", "--force", "--cache", a, "--json"]);
  assert.equal(global.code, 0, global.err);
  assert.equal(global.json().released, true);
  const empty = await sluice(["lock", "list", "--cache", a]);
  assert.match(empty.out, /^No locks are held/);
  // A model with no lock (a typo, or already broken) is no success.
  const typo = await sluice([
    "lock",
    "release",
    "--force",
    "--model",
    "aws/ec2/web-9",
    "--cache",
    a,
  ]);
  assert.equal(typo.code, 1, typo.out);
  assert.match(
    typo.err,
    /^error\[not_found\]: No lock at data\/aws\/ec2\/web-9\/\.lock; nothing was released/,
  );
  const bad = await sluice(["lock", "inspect", "--model", "justone", "--cache", a]);
  assert.equal(bad.code, 78);
  live.abandon();
  old.abandon();
  await w.cleanup();
});

Deno.test("lockfile add and remove go through the transaction", async () => {
  const w = await world();
  const a = w.cache("a");
  const added = await sluice([
    "lockfile",
    "add",
    "@acme/ssh",
    '{"version":"1.2.0"}',
    "--cache",
    a,
    "--store",
    w.url,
    "--holder",
    "ci@runner",
  ]);
  assert.equal(added.code, 0, added.err);
  assert.match(added.out, /^Published config\/upstream_extensions\.json \(set @acme\/ssh\)/);
  const store = new FsStore({ root: w.root });
  const remote = async () =>
    JSON.parse(new TextDecoder().decode((await store.get("config/upstream_extensions.json")).body));
  assert.deepEqual(await remote(), { "@acme/ssh": { version: "1.2.0" } });
  assert.equal(await store.head(".datastore.lock"), null, "the global lock was released");

  const same = await sluice(["lockfile", "add", "@acme/ssh", '{"version":"1.2.0"}', "--cache", a]);
  assert.equal(same.code, 0, same.err);
  assert.match(same.out, /already had this change \(set @acme\/ssh\); nothing was written/);

  const badJson = await sluice(["lockfile", "add", "@acme/x", "1.2.0.", "--cache", a]);
  assert.equal(badJson.code, 78);
  assert.match(badJson.err, /must be a JSON object/);

  const removed = await sluice(["lockfile", "remove", "@acme/ssh", "--cache", a, "--json"]);
  assert.equal(removed.code, 0, removed.err);
  assert.deepEqual(removed.json().entries, {});
  assert.deepEqual(await remote(), {});
  // Again, or a name it never had: a typo is not success.
  const typo = await sluice(["lockfile", "remove", "@acme/ssh", "--cache", a]);
  assert.equal(typo.code, 1, typo.err);
  assert.match(
    typo.err,
    /^error\[not_found\]: .* has no entry named @acme\/ssh; nothing was published/,
  );
  const nothing = await sluice(["lockfile", "retry", "--cache", a]);
  assert.match(nothing.out, /^No pending lockfile change/);
  await w.cleanup();
});

Deno.test("lockfile remove on a datastore with no lockfile is not_found and creates none", async () => {
  const w = await world();
  const a = w.cache("a");
  const r = await sluice(["lockfile", "remove", "@acme/ssh", "--cache", a, "--store", w.url]);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(
    r.err,
    /^error\[not_found\]: The datastore has no config\/upstream_extensions\.json, so it has no entry named @acme\/ssh; nothing was written \(no empty lockfile was created\)/,
  );
  const store = new FsStore({ root: w.root });
  assert.equal(await store.head("config/upstream_extensions.json"), null, "no lockfile created");
  assert.equal(await store.head(".datastore.lock"), null, "the global lock was released");
  const nothing = await sluice(["lockfile", "retry", "--cache", a]);
  assert.match(nothing.out, /^No pending lockfile change/, "no delta left pending");
  await w.cleanup();
});

Deno.test("probe reports honoured conditional writes with latency and cleans up", async () => {
  const w = await world();
  const human = await sluice(["probe", w.url]);
  assert.equal(human.code, 0, human.err);
  assert.match(human.out, /create-only writes .*: honoured/);
  assert.match(human.out, /compare-and-swap writes .*: honoured/);
  assert.match(human.out, /median [\d.]+ ms/);

  const json = await sluice(["probe", "--json", "--require"], { env: { SLUICE_STORE: w.url } });
  assert.equal(json.code, 0, json.err);
  const doc = json.json();
  assert.equal(doc.create, "honoured");
  assert.equal(doc.update, "honoured");
  assert.ok((doc.requests as unknown[]).length >= 4);
  assert.equal(typeof doc.totalMs, "number");
  const left: string[] = [];
  for await (const page of new FsStore({ root: w.root }).list("")) {
    for (const o of page) left.push(o.key);
  }
  assert.deepEqual(left, [], "the probe key was deleted");

  const none = await sluice(["probe"]);
  assert.equal(none.code, 64, "no store URL: a usage error");
  await w.cleanup();
});

Deno.test("progress bars only on a terminal and never with --json", async () => {
  const w = await world();
  const a = w.cache("a");
  for (let i = 0; i < 5; i++) await w.write(a, `outputs/${i}.txt`, `v${i}`);
  const tty = await sluice(["push", "--cache", a, "--store", w.url], { isTTY: true });
  assert.equal(tty.code, 0, tty.err);
  assert.match(tty.out, /push \[.*\] \d+% \| \d+\/5 files/);
  assert.match(tty.out, /Pushed 5 files/);

  for (let i = 0; i < 5; i++) await w.write(a, `outputs/${i}.txt`, `w${i}`);
  const json = await sluice(["push", "--cache", a, "--json"], { isTTY: true });
  assert.equal(json.code, 0, json.err);
  assert.equal((json.json().uploaded as string[]).length, 5);

  for (let i = 0; i < 5; i++) await w.write(a, `outputs/${i}.txt`, `x${i}`);
  const pipe = await sluice(["push", "--cache", a]);
  assert.doesNotMatch(pipe.out, /\[/);
  await w.cleanup();
});

Deno.test("relative --cache and file://./ stores resolve against the given cwd", async () => {
  const w = await world();
  const cwd = w.cache("");
  await w.write(`${cwd}/.sluice-cache`, "outputs/o.txt", "o");
  const r = await sluice(["push", "--init", "--store", "file://./store", "--json"], { cwd });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.json().cacheDir, `${cwd.replace(/\/$/, "")}/.sluice-cache`);
  assert.equal(r.json().endpoint, w.url);
  await w.cleanup();
});

Deno.test("push --no-walk with nothing marked dirty says so, not that no file changed", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/a.txt", "1");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await w.write(a, "notes/a.txt", "2"); // a hand edit, never marked dirty
  const r = await sluice(["push", "--no-walk", "--cache", a]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^Nothing to push: no path was marked dirty \(--no-walk skips the walk/);
  assert.doesNotMatch(r.out, /no file changed/);
  const walked = await sluice(["push", "--cache", a, "--json"]);
  assert.deepEqual(walked.json().uploaded, ["notes/a.txt"]);
  // Marked dirty (here through the library), unchanged since: the message is the usual one.
  const svc = await createSyncService({ cacheDir: a, store: new FsStore({ root: w.root }) });
  await svc.markDirty({ relPath: "notes/a.txt" });
  const marked = await sluice(["push", "--no-walk", "--cache", a]);
  assert.equal(marked.code, 0, marked.err);
  assert.match(marked.out, /^Nothing to push: no file changed since the last sync/m);
  await w.cleanup();
});

Deno.test("a push whose walk leaves a link local only exits 2 and names it; once replaced, 0", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/a.txt", "1");
  await w.write(a, "elsewhere.txt", "target");
  await Deno.symlink("../elsewhere.txt", `${a}/notes/link.txt`);
  const r = await sluice(["push", "--cache", a, "--store", w.url]);
  assert.equal(r.code, 2, `a skipped file is not a clean push: ${r.out}${r.err}`);
  assert.match(
    r.out,
    /Not pushed, left as they are here and on the datastore: 1 file:\n {2}notes\/link\.txt: it is a symbolic link/,
  );
  assert.match(
    r.err,
    /warning\[sync_incomplete\].*stay local only \(notes\/link\.txt: it is a symbolic link/,
  );
  const json = await sluice(["push", "--cache", a, "--json"]);
  assert.equal(json.code, 2);
  const doc = json.json() as {
    ok: boolean;
    localOnly: { path: string }[];
    outcome: { code: string };
  };
  assert.equal(doc.ok, false);
  assert.deepEqual(doc.localOnly.map((x) => x.path), ["notes/link.txt"]);
  assert.equal(doc.outcome.code, "sync_incomplete");
  await Deno.remove(`${a}/notes/link.txt`);
  await w.write(a, "notes/link.txt", "a real file now");
  const again = await sluice(["push", "--cache", a]);
  assert.equal(again.code, 0, again.out + again.err);
  await w.cleanup();
});

Deno.test("--json before the command: the usage error's JSON names the command, never an option or a mistyped word", async () => {
  for (
    const [args, command] of [
      [["--json", "push", "--cache", "c"], "push"],
      [["--json", "lock", "list"], "lock list"],
      [["--json", "lock", "--nope", "inspect"], "lock inspect"],
      [["bogus", "--json"], "sluice"],
      [["--json"], "sluice"],
    ] as const
  ) {
    const r = await sluice([...args]);
    assert.equal(r.code, 64, `${args.join(" ")}: ${r.err}`);
    const doc = r.json();
    assert.equal(doc.command, command, args.join(" "));
    assert.equal((doc.error as { code: string }).code, "usage");
  }
});

/**
 * A world whose cache `a` pushed the file `file` (and `also`, each with its
 * name as its text), then replaced `file` here by a directory holding `under`.
 */
async function fileMadeADirectory(file: string, under: string, also: string[] = []) {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, file, "a file");
  for (const p of also) await w.write(a, p, p);
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.remove(`${a}/${file}`);
  await w.write(a, `${file}/${under}`, "under a directory");
  return { w, a };
}

Deno.test("push of a directory that replaced a synced file of its name deletes the file there and publishes the files under it; deletions under a named directory go too", async () => {
  const { w, a } = await fileMadeADirectory("notes/a", "b.txt", [
    "notes/keep/gone.txt",
    "notes/keep/stays.txt",
  ]);
  const r = await sluice(["push", "notes/a", "--cache", a, "--json"]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(r.json().uploaded, ["notes/a/b.txt"]);
  assert.deepEqual(r.json().deleted, ["notes/a"]);
  const store = new FsStore({ root: w.root });
  assert.equal(await store.head("notes/a"), null);
  assert.ok(await store.head("notes/a/b.txt"));
  // A file deleted under a directory named to push is deleted there too.
  await Deno.remove(`${a}/notes/keep/gone.txt`);
  const d = await sluice(["push", "notes/keep", "--cache", a, "--json"]);
  assert.equal(d.code, 0, d.err);
  assert.deepEqual(d.json().deleted, ["notes/keep/gone.txt"]);
  assert.ok(await store.head("notes/keep/stays.txt"));
  await w.cleanup();
});

Deno.test("pull lists a synced file replaced here by a directory of its name among the files deleted here, and exits 2, also with --restore-deleted", async () => {
  const { w, a } = await fileMadeADirectory("notes/z", "zz");
  for (const extra of [[], ["--restore-deleted"]]) {
    const r = await sluice(["pull", ...extra, "--cache", a, "--json"]);
    assert.equal(r.code, 2, r.err);
    assert.deepEqual(r.json().localDeletions, ["notes/z"]);
    const text = await sluice(["pull", ...extra, "--cache", a]);
    assert.match(
      text.out,
      /notes\/z \(a directory of that name is here now: `sluice push notes\/z[ `]/,
    );
  }
  await w.cleanup();
});

Deno.test("--json gives the commands an outcome's message and an entry's reason name with this command's --cache, as the text does", async () => {
  const { w, a } = await fileMadeADirectory("notes/a", "b.txt");
  const r = await sluice(["push", "--cache", a, "--json"]);
  assert.equal(r.code, 2, r.err);
  const held = (r.json().skipped as { path: string; reason: string }[])
    .find((s) => s.path === "notes/a/b.txt")!;
  assert.ok(held.reason.includes(`\`sluice push notes/a --cache ${a}\``), held.reason);
  const outcome = r.json().outcome as { message: string };
  assert.ok(outcome.message.includes(`--cache ${a}`), outcome.message);
  await w.cleanup();
});

Deno.test("push of a layout object under a first segment is refused as local_only, as the classifier leaves it out", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/n.txt", "n\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await w.write(a, "team/_index/_meta.json", "{}\n");
  const r = await sluice(["push", "team/_index/_meta.json", "--cache", a]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /^error\[local_only\]: team\/_index\/_meta\.json is local-only/);
  await w.cleanup();
});

Deno.test("a first pull from a datastore with no index says it holds none (a new one, or a mistyped prefix), not only 'Already up to date'", async () => {
  const w = await world();
  const empty = `${w.base}/empty-store`;
  await Deno.mkdir(empty);
  // Making the cache (--init): refused, and the new cache removed again.
  const fresh = `${w.base}/fresh-cache`;
  const init = await sluice(["pull", "--init", "--cache", fresh, "--store", `file://${empty}`]);
  assert.equal(init.code, 66, init.err);
  assert.match(
    init.err,
    /^error\[store_not_found\]: Nothing was pulled: the datastore at .* holds no index, so nothing was ever pushed there .*Check the bucket and prefix in --store; a new datastore starts with its first push .* No cache was made: the new directory \S+ was removed again\./,
  );
  assert.equal(await Deno.lstat(fresh).then(() => true, () => false), false);
  // A cache that synced nothing (an empty directory is one): said, as a warning.
  const first = await sluice(["pull", "--cache", w.cache("n"), "--store", `file://${empty}`]);
  assert.equal(first.code, 0, first.err);
  assert.match(first.out, /^Already up to date with file:\/\//);
  assert.match(
    first.err,
    /warning\[datastore_empty\]: .*holds no index: nothing was ever pushed there\. If you expected files, check the bucket and prefix in --store/,
  );
  const json = await sluice(["pull", "--cache", w.cache("n"), "--json"]);
  assert.deepEqual(
    (json.json().warnings as { code: string }[]).map((x) => x.code),
    ["datastore_empty"],
    "a script sees it too",
  );
  // Once the datastore holds files, an up-to-date pull says only that.
  await w.write(w.cache("a"), "notes/a.txt", "a");
  assert.equal((await sluice(["push", "--cache", w.cache("a"), "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", w.cache("b"), "--store", w.url])).code, 0);
  const again = await sluice(["pull", "--cache", w.cache("b")]);
  assert.doesNotMatch(again.out + again.err, /holds no index/);
  await w.cleanup();
});

Deno.test("push --init of a cache whose sync state was lost: files the datastore holds with the same bytes are said to be in sync, not 'Left out'", async () => {
  const w = await world();
  const a = w.cache("a");
  for (const n of ["n1", "n2"]) await w.write(a, `notes/${n}.txt`, n);
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.remove(`${a}/.sluice`, { recursive: true });
  const r = await sluice(["push", "--init", "--cache", a, "--store", w.url]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /^Already on the datastore with the same bytes, now recorded as synced here: 2 files \(notes\/n1\.txt, notes\/n2\.txt\)\.$/m,
  );
  assert.doesNotMatch(r.out, /Left out/);
  await w.cleanup();
});

Deno.test("status --no-walk with nothing marked says that files changed or deleted by hand are not seen", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "notes/a.txt", "1");
  await w.write(a, "notes/b.txt", "1");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await w.write(a, "notes/a.txt", "2"); // a hand edit and a deletion, never marked
  await Deno.remove(`${a}/notes/b.txt`);
  const r = await sluice(["status", "--no-walk", "--cache", a]);
  assert.match(r.out, /^Nothing marked to push \(--no-walk skips the walk/m);
  assert.doesNotMatch(r.out, /^Nothing to push\.$/m);
  const walked = await sluice(["status", "--cache", a]);
  assert.equal(walked.code, 2, walked.err);
  assert.match(walked.out, /notes\/a\.txt/);
  await w.cleanup();
});
