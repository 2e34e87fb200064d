import assert from "node:assert/strict";
import { FakeClock, InMemoryStore, waitFor } from "../testing/mod.ts";
import { storeLockBackend } from "../../sync/locks/lock_engine.ts";
import { ExtensionLock } from "./lock.ts";
import { HeldLocks } from "./held_locks.ts";
import { SharedGlobalLock } from "./shared_global.ts";

const KEY = ".datastore.lock";
const ME = { holder: "core@host", hostname: "host", pid: 1 };

function setup() {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const backend = storeLockBackend(store, { clock });
  const held = new HeldLocks();
  const options = { ttlMs: 30_000, retryDelayMs: 50, maxWaitMs: 10_000 };
  /** The tool's hold, as the extension's `createLock` gives it. */
  const hold = () => new ExtensionLock(backend.createLock(KEY, ME, options), { observer: held });
  const shared = () => new SharedGlobalLock(held, backend.createLock(KEY, ME, options));
  const puts = () => store.log.filter((l) => l.op === "put" && l.key === KEY).length;
  return { clock, store, held, hold, shared, puts };
}

Deno.test("shared global lock: with no hold of this process, its own lock is taken and released", async () => {
  const s = setup();
  const lock = s.shared();
  assert.equal(await lock.inspect(), null);
  await lock.acquire();
  assert.ok(lock.nonce);
  assert.equal((await lock.inspect())?.nonce, lock.nonce);
  assert.equal(s.puts(), 1);
  await lock.release();
  assert.equal(s.store.peek(KEY), undefined);
});

Deno.test("shared global lock: a hold of this process at its acquisition is shared, and that hold's release waits for the share to end", async () => {
  const s = setup();
  const hold = s.hold();
  await hold.acquire();
  const lock = s.shared();
  // Before it is taken: no wait to tell of.
  assert.equal(await lock.inspect(), null);
  await lock.acquire();
  assert.equal(s.puts(), 1, "no acquisition of its own");
  assert.equal(lock.nonce, hold.inner.nonce);
  assert.equal(lock.lost, false);
  let released = false;
  const release = hold.release().then(() => (released = true));
  await waitFor(() => s.held.global(KEY) === undefined, { clock: s.clock, stepMs: 50 });
  await s.clock.advance(1_000);
  assert.equal(released, false, "the hold stays while shared");
  assert.ok(s.store.peek(KEY));
  assert.equal((await lock.inspect())?.nonce, lock.nonce);
  await lock.release();
  await release;
  assert.equal(s.store.peek(KEY), undefined);
  assert.equal(lock.nonce, undefined);
});

Deno.test("shared global lock: a hold whose release was asked is not shared; the lock is acquired once that release is made", async () => {
  const s = setup();
  const hold = s.hold();
  await hold.acquire();
  const first = s.shared();
  await first.acquire();
  // The hold's release is asked while a share holds it back.
  let released = false;
  const release = hold.release().then(() => (released = true));
  const second = s.shared();
  let acquired = false;
  const taking = second.acquire().then(() => (acquired = true));
  await s.clock.advance(500);
  assert.equal(acquired, false, "no share of a hold being released: it waits");
  await first.release();
  await release;
  await waitFor(() => acquired, { clock: s.clock, stepMs: 50 });
  await taking;
  assert.equal(released, true);
  assert.notEqual(second.nonce, hold.inner.nonce);
  assert.equal((await second.inspect())?.nonce, second.nonce);
  await second.release();
  assert.equal(s.store.peek(KEY), undefined);
});

Deno.test("shared global lock: one share ending leaves the hold to the share still going; the release waits for the last", async () => {
  const s = setup();
  const hold = s.hold();
  await hold.acquire();
  const first = s.shared();
  const second = s.shared();
  await first.acquire();
  await second.acquire();
  let released = false;
  const release = hold.release().then(() => (released = true));
  await first.release();
  await first.release(); // a second release of an ended share ends nothing more
  await s.clock.advance(1_000);
  assert.equal(released, false, "the hold stays while a share goes on");
  assert.ok(s.store.peek(KEY));
  assert.equal(second.lost, false);
  await second.release();
  await release;
  assert.equal(s.store.peek(KEY), undefined);
});

Deno.test("shared global lock: a hold found lost is not shared; the lock is acquired, waiting out its new holder", async () => {
  const s = setup();
  const hold = s.hold();
  await hold.acquire();
  // Another client breaks the hold and takes the lock; the heartbeat sees it.
  const info = await hold.inspect();
  assert.ok(info);
  assert.equal(await hold.forceRelease(info.nonce), true);
  const other = storeLockBackend(s.store, { clock: s.clock }).createLock(
    KEY,
    { holder: "other@elsewhere", hostname: "elsewhere", pid: 2 },
    { ttlMs: 30_000, retryDelayMs: 50, maxWaitMs: 10_000 },
  );
  await other.acquire();
  await waitFor(() => hold.inner.lost === true, {
    clock: s.clock,
    stepMs: 1_000,
    timeoutMs: 60_000,
  });
  const lock = s.shared();
  let acquired = false;
  const taking = lock.acquire().then(() => (acquired = true));
  await s.clock.advance(500);
  assert.equal(acquired, false, "it waits for the new holder, sharing no lost hold");
  await other.release();
  await waitFor(() => acquired, { clock: s.clock, stepMs: 50 });
  await taking;
  assert.notEqual(lock.nonce, hold.inner.nonce);
  assert.equal(lock.lost, false);
  await lock.release();
  await hold.release();
  assert.equal(s.store.peek(KEY), undefined);
});
