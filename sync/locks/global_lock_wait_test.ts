import assert from "node:assert/strict";
import { FakeClock, InMemoryStore, waitFor } from "../../packages/testing/mod.ts";
import { storeLockBackend } from "./lock_engine.ts";
import { sayGlobalLockWait, sayingGlobalLockWait } from "./global_lock_wait.ts";
import type { WarningEvent } from "../events.ts";

const ME = { holder: "me@host", hostname: "host", pid: 7 };

Deno.test("the global lock wait is said for another holder, never for this very process (a lock it holds and lends)", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const backend = storeLockBackend(store, { clock });
  const held = backend.createLock(".datastore.lock", ME);
  await held.acquire();
  const warnings: WarningEvent[] = [];
  const events = { emit: (_t: "warning", w: WarningEvent) => void warnings.push(w) };
  const probe = backend.createLock(".datastore.lock", ME);
  await sayGlobalLockWait(probe, events, "the change waits for it", undefined, ME);
  assert.equal(warnings.length, 0, "held by this process: no wait to speak of");
  await sayGlobalLockWait(probe, events, "the change waits for it", undefined, { ...ME, pid: 8 });
  assert.deepEqual(warnings.map((w) => w.code), ["global_lock_wait"]);
  assert.match(warnings[0].message, /held by me@host on host \(pid 7\)/);
  await held.release();
});

Deno.test("a lock free at the look and taken before this process's attempt: the attempt that finds it held says the wait, once; a lock held at the look is said once too", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const backend = storeLockBackend(store, { clock });
  const other = backend.createLock(".datastore.lock", { ...ME, holder: "other@elsewhere", pid: 9 });
  const mine = backend.createLock(".datastore.lock", ME, { retryDelayMs: 50, maxWaitMs: 10_000 });
  const warnings: WarningEvent[] = [];
  const events = { emit: (_t: "warning", w: WarningEvent) => void warnings.push(w) };
  const options = await sayingGlobalLockWait(mine, events, "this push waits for it");
  assert.equal(warnings.length, 0, "free at the look");
  await other.acquire(); // taken between the look and the attempt
  let done = false;
  const acquiring = mine.acquire(options).then(() => (done = true));
  await waitFor(() => warnings.length > 0, { clock, stepMs: 50 });
  assert.deepEqual(warnings.map((w) => w.code), ["global_lock_wait"]);
  assert.match(
    warnings[0].message,
    /held by other@elsewhere on host \(pid 9\).*this push waits for it/,
  );
  clock.advance(500);
  await other.release();
  await waitFor(() => done, { clock, stepMs: 50 });
  await acquiring;
  assert.equal(warnings.length, 1, "said once");
  await mine.release();

  await other.acquire();
  const again = backend.createLock(".datastore.lock", ME, { retryDelayMs: 50, maxWaitMs: 10_000 });
  const held = await sayingGlobalLockWait(again, events, "this push waits for it");
  assert.equal(warnings.length, 2, "held at the look");
  let got = false;
  const waiting = again.acquire(held).then(() => (got = true));
  clock.advance(200);
  await other.release();
  await waitFor(() => got, { clock, stepMs: 50 });
  await waiting;
  assert.equal(warnings.length, 2, "not said again by the attempt");
  await again.release();
});
