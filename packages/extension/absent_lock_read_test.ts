/**
 * A push naming no model (the tool's flush of a structural command) beside
 * runs of one process, over a lock backend that reports a failed read as
 * absent (`absentOnError`, as some third-party backends do): a run whose
 * lock such a read found lost as the push started, refused for another
 * run's broken lock, never has its run acknowledged without its version.
 */
import assert from "node:assert/strict";
import { SluiceError } from "../../sync/errors.ts";
import { ModelLockLostError } from "../../sync/lock_errors.ts";
import { LockBackendRegistry, storeLockFactory } from "../../sync/locks/lock_registry.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { absentOnError } from "../testing/absent_on_error.ts";
import { createSluice } from "../../sluice.ts";
import { toolProcess } from "./tool_process_kit.ts";

/** The store's own locks, each reporting a read that failed as an absent lock. */
const weakLocks = new LockBackendRegistry().register("store", (ctx) => {
  const engine = storeLockFactory(ctx);
  return {
    name: engine.name,
    createLock: (key, identity, options) =>
      absentOnError(engine.createLock(key, identity, options)),
  };
});

Deno.test("absent lock read: a run whose held lock a push naming no model read as absent (a failed read), that push refused for another run's broken lock, is never acknowledged with its version erased", async () => {
  const store = new InMemoryStore();
  const p = await toolProcess(store, createSluice, "a", { lockRegistry: weakLocks });
  await p.start("m1");
  const lock2 = await p.start("m2");
  await p.method("m1");
  await p.method("m2");
  await p.breakLock("m1");
  // The structural push's first read of m2's lock fails: the lock reports it absent.
  store.failNext("get", 1, () => new Error("read refused"), {
    match: (k) => k === "data/shell/cmd/m2/.lock",
  });
  await assert.rejects(
    p.structural("workflow-runs/w1/workflow-run-gc.yaml", "run gc"),
    (e: unknown) => {
      assert.ok(e instanceof ModelLockLostError, String(e));
      assert.deepEqual(e.lost.map((l) => l.key), ["data/shell/cmd/m1/.lock"]);
      return true;
    },
  );
  store.heal();
  // m2's run flushes: acknowledged, its version is published; refused, none of it is.
  let message = "";
  const outcome = await p.flush("m2", lock2).then(
    () => "acknowledged",
    (e: unknown) => {
      message = e instanceof Error ? e.message : String(e);
      return e instanceof SluiceError ? e.code : String(e);
    },
  );
  const published = store.peekText("data/shell/cmd/m2/out/1/raw");
  if (outcome === "acknowledged") {
    assert.equal(published, "from m2", "an acknowledged run's version is on the store");
  } else {
    assert.equal(outcome, "model_lock_lost");
    // The lock still names this run: the refusal says why it counts as lost, not "released".
    assert.doesNotMatch(message, /now released/);
    assert.match(
      message,
      /data\/shell\/cmd\/m2\/\.lock \(lost to this run when a push of this process was refused/,
    );
    assert.equal(published, undefined, "a refused run's version is on no store");
    assert.equal(await p.read("data/shell/cmd/m2/out/1/raw"), null, "nor in the cache");
  }
});
