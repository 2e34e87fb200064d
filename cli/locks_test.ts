import assert from "node:assert/strict";
import { ConfigError } from "../sync/errors.ts";
import { classifyLockKey, describeLock, listLocks, lockKeyFor, parseModel } from "./locks.ts";
import { FakeClock, InMemoryStore } from "../packages/testing/mod.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { storeLockBackend } from "../sync/locks/lock_engine.ts";
import { PutModes } from "../sync/ports.ts";
import { sluice, world } from "./cli_test_kit.ts";

Deno.test("classifyLockKey finds model and global lock keys", () => {
  assert.deepEqual(classifyLockKey(".datastore.lock"), { scope: "global" });
  assert.deepEqual(classifyLockKey(".locks/prod.lock"), { scope: "global", namespace: "prod" });
  assert.deepEqual(classifyLockKey("data/aws/ec2/web-1/.lock"), {
    scope: "model",
    model: "aws/ec2/web-1",
  });
  assert.deepEqual(classifyLockKey("prod/data/shell/m1/.lock", "prod"), {
    scope: "model",
    model: "shell/m1",
    namespace: "prod",
  });
  assert.equal(classifyLockKey("data/m1/.lock"), null, "a model needs a type and an id");
  assert.equal(classifyLockKey("data/aws/ec2/web-1/state/1/raw"), null);
  assert.equal(classifyLockKey(".datastore.lock", "prod"), null);
  assert.equal(classifyLockKey(".locks/dev.lock", "prod"), null);
});

Deno.test("parseModel and lockKeyFor", () => {
  assert.equal(parseModel("/aws/ec2/web-1/"), "aws/ec2/web-1");
  assert.equal(lockKeyFor("aws/ec2/web-1", ""), "data/aws/ec2/web-1/.lock");
  assert.equal(lockKeyFor("aws/ec2/web-1", "prod"), "prod/data/aws/ec2/web-1/.lock");
  assert.equal(lockKeyFor(undefined, ""), ".datastore.lock");
  assert.equal(lockKeyFor(undefined, "prod"), ".locks/prod.lock");
  for (const bad of ["web-1", "aws/../x", "aws//x", "aws/.lock"]) {
    assert.throws(() => parseModel(bad), ConfigError, bad);
  }
});

Deno.test("lock list and lock inspect on an unreachable datastore say they changed nothing, and name themselves to run again", async () => {
  const w = await world();
  const a = w.cache("a");
  const url = "s3://lock-bucket/p?endpoint=http://127.0.0.1:9&retries=0&timeout=500";
  const env = { AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" };
  for (const command of [["lock", "list"], ["lock", "inspect", "--model", "shell/cmd/m1"]]) {
    const args = [...command, "--cache", a, "--store", url];
    const r = await sluice(args, { env });
    assert.equal(r.code, 69, r.err);
    assert.match(r.err, /^error\[unreachable\]: The datastore could not be reached: /);
    assert.doesNotMatch(r.err, /stay in the cache and dirty|run the sync again/);
    assert.match(
      r.err,
      new RegExp(`Nothing was changed: ${command.slice(0, 2).join(" ")} only reads`),
    );
    assert.ok(
      r.err.includes(`\`sluice ${command.join(" ")} --cache ${a} --store '${url}'\` again`),
      r.err,
    );
  }
  await w.cleanup();
});

Deno.test("commands that are no sync, on an unreachable datastore, say what they left and name themselves to run again", async () => {
  const w = await world();
  const a = w.cache("a");
  const url = "s3://lock-bucket/p?endpoint=http://127.0.0.1:9&retries=0&timeout=500";
  const env = { AWS_ACCESS_KEY_ID: "a", AWS_SECRET_ACCESS_KEY: "b" };
  for (
    const [command, left] of [[["index", "migrate"], /The move stopped where it was/]] as const
  ) {
    const args = [...command, "--cache", a, "--store", url];
    const r = await sluice(args, { env });
    assert.equal(r.code, 69, r.err);
    assert.ok(/^error\[unreachable\]: The datastore could not be reached: /.test(r.err), r.err);
    assert.doesNotMatch(r.err, /stay in the cache and dirty|run the sync again/);
    assert.match(r.err, left);
    assert.ok(
      r.err.includes(`\`sluice ${command.join(" ")} --cache ${a} --store '${url}'\` again`),
      r.err,
    );
  }
  // A breakglass fails reading the lock, before anything is deleted, and says so.
  const r = await sluice(["lock", "release", "--force", "--cache", a, "--store", url], { env });
  assert.equal(r.code, 75, r.err);
  assert.match(r.err, /^error\[lock_read_failed\]: Could not read lock \.datastore\.lock: /);
  assert.match(r.err, /no release of it\)\. Run the command again once the datastore is reachable/);
  await w.cleanup();
});

Deno.test("a cancelled command that is no sync says what it left and names itself, not 'files not yet pushed stay dirty'", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "x.txt", "x");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  for (
    const [command, left] of [
      [["index", "migrate"], /The move stopped where it was/],
      [["status"], /Nothing was changed: status only reads/],
    ] as const
  ) {
    const args = [...command, "--cache", a];
    const r = await sluice(args, { signal: AbortSignal.abort() });
    assert.equal(r.code, 130, r.err);
    assert.ok(/^error\[aborted\]: .* was cancelled\. /.test(r.err), r.err);
    assert.doesNotMatch(r.err, /Files not yet pushed stay dirty/);
    assert.match(r.err, left);
    assert.ok(r.err.includes(`Run \`sluice ${args.join(" ")}\` again.`), r.err);
  }
  await w.cleanup();
});

Deno.test("lock list judges a lock by the datastore's clock: a machine 60 s ahead sees a live lock live (by its own clock the lock would read stale)", async () => {
  const here = new FakeClock();
  const store = new InMemoryStore({ clock: new FakeClock(here.now() - 60_000) });
  const holder = { holder: "bob@h2", hostname: "h2", pid: 2 };
  const me = { holder: "alice@h1", hostname: "h1", pid: 1 };
  const backend = storeLockBackend(store, { clock: new FakeClock(here.now() - 60_000) });
  const lock = backend.createLock(".datastore.lock", holder, { ttlMs: 30_000 });
  await lock.acquire();
  lock.abandon();
  const [live] = await listLocks(store, backend, me, { clock: here });
  assert.equal(live.stale, false, describeLock(live));
  assert.match(describeLock(live), /live, stale in 30 s unless renewed/);
  assert.deepEqual(
    await listLocks(store, backend, me, { now: here.now() }).then((l) => l[0].stale),
    true,
    "judged by this machine's clock, it would read stale",
  );
});

Deno.test("lock release --force names the code a still-running holder is refused with: global_lock_lost for the global lock, model_lock_lost for a model lock", async () => {
  const w = await world();
  const a = w.cache("a");
  const other = { holder: "other@elsewhere", hostname: "elsewhere", pid: 4242 };
  const backend = storeLockBackend(new FsStore({ root: w.root }));
  const locks = [".datastore.lock", "data/aws/ec2/web-1/.lock"].map((k) =>
    backend.createLock(k, other)
  );
  for (const l of locks) await l.acquire();

  const global = await sluice(["lock", "release", "--force", "--cache", a, "--store", w.url]);
  assert.equal(global.code, 0, global.err);
  assert.match(
    global.out,
    /^Broke the lock \.datastore\.lock held by other@elsewhere \(pid 4242\) \(last renewed [^)]+\)\. If that process is still running, its push will be refused \(global_lock_lost\)/,
  );
  assert.doesNotMatch(global.out, /model_lock_lost/);

  const model = await sluice([
    ...["lock", "release", "--force", "--model", "aws/ec2/web-1"],
    ...["--cache", a, "--store", w.url],
  ]);
  assert.equal(model.code, 0, model.err);
  assert.match(model.out, /^Broke the lock data\/aws\/ec2\/web-1\/\.lock held by other@elsewhere/);
  assert.match(
    model.out,
    /its push will be refused \(model_lock_lost\) and its new data discarded/,
  );
  assert.doesNotMatch(model.out, /global_lock_lost/);

  const help = await sluice(["lock", "release", "--help"]);
  assert.match(help.out, /model_lock_lost.*global_lock_lost/s);
  for (const l of locks) l.abandon();
  await w.cleanup();
});

Deno.test("lock release --force of a lock whose body is no lock says what was wrong with it, with no made-up holder or pid", async () => {
  const w = await world();
  const a = w.cache("a");
  const key = "data/shell/cmd/m2/.lock";
  await new FsStore({ root: w.root }).put(
    key,
    new TextEncoder().encode("garbage"),
    PutModes.create,
  );
  const r = await sluice([
    ...["lock", "release", "--force", "--model", "shell/cmd/m2"],
    ...["--cache", a, "--store", w.url],
  ]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /^Broke the lock data\/shell\/cmd\/m2\/\.lock, whose body could not be read \(malformed lock body "garbage": not JSON; last written [^)]+\)\. If a process still held it, its push will be refused \(model_lock_lost\)/,
  );
  assert.doesNotMatch(r.out, /pid|held by|\(not JSON\)/);
  await w.cleanup();
});
