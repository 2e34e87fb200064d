import assert from "node:assert/strict";
import { waitFor } from "../../packages/testing/mod.ts";
import { globalLockSetup, lockRefused } from "./global_lock_kit.ts";

Deno.test("global lock kit: the old client's lock and the cache's share one key; a waiter's refused write is seen", async () => {
  const s = await globalLockSetup("sluice-global-kit-");
  assert.equal(lockRefused(s.store), false);
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const old = s.oldClientLock.withLock(() => held);
  await waitFor(() => s.store.log.some((l) => l.op === "put" && l.outcome !== "error"), {
    message: "the old client holds the lock",
  });
  const mine = s.lock().withLock(() => Promise.resolve("mine"));
  await waitFor(() => lockRefused(s.store), { message: "the cache's lock write refused" });
  release();
  await old;
  // The waiter retries on the fake clock until the old client's lock is gone.
  let got: string | undefined;
  mine.then((v) => got = v);
  await waitFor(() => got === "mine", {
    clock: s.clock,
    stepMs: 50,
    message: "the cache's lock taken once the old client released it",
  });
});
