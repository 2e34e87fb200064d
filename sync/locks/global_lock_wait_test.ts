import assert from "node:assert/strict";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { storeLockBackend } from "./lock_engine.ts";
import { sayGlobalLockWait } from "./global_lock_wait.ts";
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
