/**
 * Bad input, lock bodies: malformed lock bodies and bodies missing fields are
 * `lock_read_failed`, never taken as free. See `sandbox.ts` for the sandbox
 * every test runs in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { acquireModelLocks, releaseLock } from "../../sync/locks/model_locks.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, enc, put, read, refused, sandbox, warnings } from "./sandbox.ts";

Deno.test("lock bodies: malformed or incomplete bodies are lock_read_failed, never taken as free", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const sb = await sandbox();
  const svc = await clone(store, sb.cacheDir, { clock });
  const full: Record<string, unknown> = {
    holder: "b@host",
    hostname: "host",
    pid: 2,
    acquiredAt: new Date(clock.now()).toISOString(),
    ttlMs: 30_000,
    nonce: "n1",
  };
  const json = (o: unknown) => enc(JSON.stringify(o));
  const without = (field: string) =>
    json(Object.fromEntries(Object.entries(full).filter(([k]) => k !== field)));
  const bodies: [string, Uint8Array, RegExp][] = [
    ["empty", enc(""), /not JSON/],
    ["cut short", enc('{"holder": "b@ho'), /not JSON/],
    ["null", enc("null"), /missing or invalid holder/],
    ["an array", enc("[]"), /missing or invalid holder/],
    ["a number", enc("42"), /missing or invalid holder/],
    ["a string", enc('"b@host"'), /missing or invalid holder/],
    ...Object.keys(full).map((f): [string, Uint8Array, RegExp] => [
      `missing ${f}`,
      without(f),
      new RegExp(`missing or invalid [a-zA-Z, ]*\\b${f}\\b`),
    ]),
    ["pid as a string", json({ ...full, pid: "2" }), /invalid pid/],
    ["ttlMs as a string", json({ ...full, ttlMs: "30000" }), /invalid ttlMs/],
    ["ttlMs zero", json({ ...full, ttlMs: 0 }), /invalid ttlMs/],
    ["ttlMs negative", json({ ...full, ttlMs: -5 }), /invalid ttlMs/],
    ["an empty holder", json({ ...full, holder: "" }), /invalid holder/],
    ["an empty nonce", json({ ...full, nonce: "" }), /invalid nonce/],
    ["acquiredAt a number", json({ ...full, acquiredAt: 5 }), /invalid acquiredAt/],
    ["non-UTF-8 bytes", new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x80]), /not JSON/],
    ["1 MiB of junk", enc("x".repeat(1 << 20)), /not JSON/],
  ];
  for (const [what, body, detail] of bodies) {
    store.seed(".datastore.lock", body);
    const lock = svc.lockBackend!.createLock(".datastore.lock", svc.identity);
    const err = await refused(
      lock.inspect(),
      "lock_read_failed",
      /Could not read lock \.datastore\.lock: malformed lock body/,
      /run `sluice lock release --force`/,
    );
    assert.match(err.message, detail, what);
    assert.ok(err.message.length < 600, `${what}: the message quotes only a short preview`);
    // Nothing lost: the unreadable lock object is left exactly as it was.
    assert.deepEqual(store.peek(".datastore.lock"), body, what);
  }
  // A run waiting for the global lock refuses: unreadable is never "absent, go ahead".
  await refused(
    acquireModelLocks(svc, ["t/m1"]),
    "lock_read_failed",
    /malformed lock body/,
    /sluice lock release --force/,
  );
  assert.deepEqual(store.keys("data/"), [], "no model lock was taken");
  assert.ok(store.peek(".datastore.lock"));
  // The breakglass removes that very object, and says what it was.
  const broke = await releaseLock(svc, { force: true });
  assert.equal(broke.released, true);
  assert.match(broke.broken?.holder ?? "", /^an unreadable lock: malformed lock body/);
  assert.equal(store.peek(".datastore.lock"), undefined);
  await sb.unchanged();
});

Deno.test("lock bodies: a model lock corrupted during a run refuses its push; the run's data stays in the cache and dirty", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const sb = await sandbox();
  const svc = await clone(store, sb.cacheDir, { clock });
  const set = await acquireModelLocks(svc, ["t/m1"]);
  const raw = "data/t/m1/d/1/raw";
  await put(sb.cacheDir, raw, "run output");
  await svc.markDirty({ relPath: raw });
  store.seed("data/t/m1/.lock", '{"holder": "a@ho'); // a foreign writer mangled the lock
  const err = await refused(
    set.push(["data/t/m1/d/1"]),
    "lock_read_failed",
    /Could not read lock data\/t\/m1\/\.lock: malformed lock body .*nothing that needed it went ahead/,
    /sluice lock release --force/,
  );
  assert.equal(err.retryable, true);
  assert.deepEqual(store.keys("data/t/m1/d"), [], "nothing was pushed");
  assert.equal(await read(sb.cacheDir, raw), "run output", "the run's data is kept");
  assert.ok(svc.state.dirtyPaths().includes(raw), "and stays dirty");
  await set.release(); // never throws
  assert.equal(store.peekText("data/t/m1/.lock"), '{"holder": "a@ho', "not deleted as if ours");
  await sb.unchanged();
});

Deno.test("lock bodies: a corrupted lock holds off acquire until it goes stale, then is taken over with a warning", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const sb = await sandbox();
  const w = warnings();
  const svc = await clone(store, sb.cacheDir, { clock, events: w.events });
  const key = "data/t/m1/.lock";
  store.seed(key, "garbage");
  const lock = svc.lockBackend!.createLock(key, svc.identity, { maxWaitMs: 0 });
  await refused(
    lock.acquire(),
    "lock_timeout",
    /waiting for lock data\/t\/m1\/\.lock, held by an unknown holder \(malformed lock body "garbage": not JSON\)\./,
    /Run the command again later/,
  );
  assert.equal(store.peekText(key), "garbage", "a live unreadable lock is not removed");
  clock.set(clock.now() + 60_000); // not renewed for twice the (acquirer's) TTL
  await lock.acquire();
  assert.ok(w.codes().includes("lock_stale_stolen"), w.codes().join());
  assert.equal((await lock.inspect())?.holder, "a@host");
  await lock.release();
  await sb.unchanged();
});
