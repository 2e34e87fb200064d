import assert from "node:assert/strict";
import { FakeClock, InMemoryStore } from "../testing/mod.ts";
import { storeLockBackend } from "../../sync/locks/lock_engine.ts";
import { HeldLocks } from "./held_locks.ts";
import { heldBack } from "./pull_hold_back.ts";

const ME = { holder: "core@host", hostname: "host", pid: 1 };

async function holding(keys: string[]) {
  const clock = new FakeClock();
  const backend = storeLockBackend(new InMemoryStore({ clock }), { clock });
  const held = new HeldLocks();
  for (const key of keys) await held.acquired(backend.createLock(key, ME));
  return held;
}

Deno.test("heldBack: a pull for one model leaves the directories of this process's other held model locks", async () => {
  const held = await holding(["data/t/m1/.lock", "data/t/m2/.lock", ".datastore.lock"]);
  assert.deepEqual(heldBack(held, "", ["t/m1"]), ["data/t/m2"]);
  assert.deepEqual(heldBack(held, "", []).sort(), ["data/t/m1", "data/t/m2"]);
});

Deno.test("heldBack: a held directory holding one of the pull's own models is not left", async () => {
  // Model t/a's directory holds model t/a/b's (type t/a, id b).
  const held = await holding(["data/t/a/.lock", "data/t/m2/.lock"]);
  assert.deepEqual(heldBack(held, "", ["t/a/b"]), ["data/t/m2"]);
  assert.deepEqual(heldBack(held, "", ["t/m1"]).sort(), ["data/t/a", "data/t/m2"]);
});
