/**
 * A lock a refused push was fenced by stays lost to its run (see
 * `HeldLocks.spent`); the tool's lock objects may be taken again, though
 * (`acquire` after `release`, as `withLock` does each time): a new
 * acquisition is a new run's, whose own flush is fenced by that lock as it
 * is now.
 */
import assert from "node:assert/strict";
import { SluiceError } from "../../sync/errors.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { toolModel } from "./tool_process_kit.ts";
import { toolProcess } from "./tool_process_kit.ts";

Deno.test("a model lock object taken again after a run under it was refused fences the new run's flush as it is now: its version is published, not erased", async () => {
  const store = new InMemoryStore();
  const p = await toolProcess(store, createSluice);
  const lock = p.lockOf("m1");
  // A first run: its lock broken by an operator, its flush refused.
  await lock.acquire();
  await p.svc.pullChanged({ context: { models: [toolModel("m1")] } });
  await p.method("m1", "first run");
  await p.breakLock("m1");
  await assert.rejects(
    p.flush("m1", lock),
    (e: unknown) => e instanceof SluiceError && e.code === "model_lock_lost",
  );
  // A later run takes the same lock object again.
  await lock.acquire();
  await p.svc.pullChanged({ context: { models: [toolModel("m1")] } });
  const n = await p.method("m1", "second run");
  await p.flush("m1", lock);
  assert.equal(store.peekText(`data/shell/cmd/m1/out/${n}/raw`), "second run");
  assert.equal(store.peekText("data/shell/cmd/m1/out/latest"), `${n}`);
});

Deno.test("a model lock object taken again after a run under it committed and released it fences the new run's prepared flush at its commit: lost since the preparation, the commit is refused", async () => {
  const store = new InMemoryStore();
  const p = await toolProcess(store, createSluice);
  const lock = p.lockOf("m1");
  // A first run, its flush committed, its lock released.
  await lock.acquire();
  await p.svc.pullChanged({ context: { models: [toolModel("m1")] } });
  const first = await p.method("m1", "first run");
  await p.flush("m1", lock, { twoPhase: true });
  assert.equal(store.peekText(`data/shell/cmd/m1/out/${first}/raw`), "first run");
  // A later run takes the same lock object again; its flush is prepared,
  // then its lock is broken by an operator before the commit.
  await lock.acquire();
  await p.svc.pullChanged({ context: { models: [toolModel("m1")] } });
  const n = await p.method("m1", "second run");
  const context = { models: [toolModel("m1")] };
  const manifest = await p.svc.preparePush!({ context });
  await p.breakLock("m1");
  await assert.rejects(
    p.underGlobal(() => p.svc.commitPush!(manifest, {})),
    (e: unknown) => e instanceof SluiceError && e.code === "model_lock_lost",
  );
  await lock.release().catch(() => {});
  assert.equal(store.peekText(`data/shell/cmd/m1/out/${n}/raw`), undefined);
  assert.equal(store.peekText("data/shell/cmd/m1/out/latest"), `${first}`);
});
