/**
 * The model locks a push is given beside other runs of one process, each
 * holding its own model's lock on the same extension instance: a push
 * naming no model (the tool's flush of a structural command, made with no
 * `context`) and a run's flush naming its model.
 */
import assert from "node:assert/strict";
import { SluiceError } from "../../sync/errors.ts";
import { ModelLockLostError } from "../../sync/lock_errors.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { writeAsTool } from "./checkout_kit.ts";
import { toolProcess } from "./tool_process_kit.ts";
import { pushLockOptions } from "./push_locks.ts";

/** One process of the tool over `store`; its structural command `name` writes a workflow run's file. */
async function process(store: InMemoryStore) {
  const p = await toolProcess(store, createSluice);
  const structural = (name: string) =>
    p.structural(`workflow-runs/w1/workflow-run-${name}.yaml`, `run ${name}`);
  return { ...p, structural };
}

/** One process with two runs (models m1 and m2) that took their locks and wrote version 1 each. */
async function twoRuns() {
  const store = new InMemoryStore();
  const p = await process(store);
  const lock1 = await p.start("m1");
  const lock2 = await p.start("m2");
  await p.method("m1");
  await p.method("m2");
  return { store, p, lock1, lock2 };
}

Deno.test("push locks: a push naming no model beside two runs, one run's lock broken, is refused for that lock only and erases only that run's version; the other run's flush publishes its own", async () => {
  const { store, p, lock1, lock2 } = await twoRuns();
  await p.breakLock("m2");
  await assert.rejects(p.structural("gc"), (e: unknown) => {
    assert.ok(e instanceof ModelLockLostError, String(e));
    assert.deepEqual(e.lost.map((l) => l.key), ["data/shell/cmd/m2/.lock"]);
    return true;
  });
  assert.equal(await p.read("data/shell/cmd/m2/out/1/raw"), null, "the refused run's, erased");
  assert.equal(await p.read("data/shell/cmd/m1/out/1/raw"), "from m1", "m1's lock was never lost");
  // m1's run flushes: its version is published.
  await p.flush("m1", lock1);
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from m1");
  assert.equal(store.peekText("data/shell/cmd/m1/out/latest"), "1");
  // m2's run flushes: refused, nothing of it ever published.
  await assert.rejects(
    p.flush("m2", lock2),
    (e: unknown) => e instanceof SluiceError && e.code === "model_lock_lost",
  );
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), undefined);
  await p.svc.pushChanged();
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), undefined);
  assert.equal(store.peekText("workflow-runs/w1/workflow-run-gc.yaml"), "run gc");
});

Deno.test("push locks: a push naming no model beside runs whose locks are held publishes its own files and nothing under their locks, for their own flushes", async () => {
  const { store, p, lock1, lock2 } = await twoRuns();
  await p.structural("eval");
  assert.equal(store.peekText("workflow-runs/w1/workflow-run-eval.yaml"), "run eval");
  for (const id of ["m1", "m2"]) {
    assert.equal(store.peekText(`data/shell/cmd/${id}/out/1/raw`), undefined, `${id}: its run's`);
    assert.equal(store.peekText(`data/shell/cmd/${id}/out/latest`), undefined);
  }
  // The runs' first pulls, of a datastore nothing was pushed to yet, say so (datastore_empty).
  const told = p.warnings.map((w) => w.code).filter((c) => c !== "datastore_empty");
  assert.deepEqual(told, [], "no work left behind: each run's flush is");
  // m1's lock broken now: its run's flush is refused and erases its version;
  // m2's publishes its own.
  await p.breakLock("m1");
  await assert.rejects(
    p.flush("m1", lock1),
    (e: unknown) => e instanceof SluiceError && e.code === "model_lock_lost",
  );
  assert.equal(await p.read("data/shell/cmd/m1/out/1/raw"), null);
  await p.flush("m2", lock2);
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), "from m2");
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), undefined);
});

Deno.test("push locks: a version another run writes after a run's flush took its lock options, before that push plans, stays out of it, for its own run's flush", async () => {
  const store = new InMemoryStore();
  const p = await process(store);
  const lock1 = await p.start("m1");
  const lock2 = await p.start("m2");
  await p.method("m1");
  // m1's flush, in its steps: its lock options first (m2 has written nothing yet)…
  const rt = p.provider().runtime;
  const scope = { models: ["shell/cmd/m1"], lost: () => Promise.resolve(false) };
  const { options } = await pushLockOptions(rt.held, p.cache, "", scope);
  // …then m2's run writes its version…
  await p.method("m2");
  // …and m1's push plans and commits.
  const svc = await rt.service(p.cache, "");
  await svc.pushChanged(options);
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from m1");
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), undefined, "outside m2's lock");
  await lock1.release();
  assert.equal(store.peekText("data/shell/cmd/m2/out/latest"), undefined);
  // m2's run flushes its version.
  await p.flush("m2", lock2);
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), "from m2");
  assert.equal(store.peekText("data/shell/cmd/m2/out/latest"), "1");
});

Deno.test("push locks: a run that takes its model lock and writes a version after a run's flush took its lock options, before that push plans, has it left out too, for its own flush", async () => {
  const store = new InMemoryStore();
  const p = await process(store);
  const lock1 = await p.start("m1");
  await p.method("m1");
  // m1's flush, in its steps: its lock options first (no other run yet)…
  const rt = p.provider().runtime;
  const scope = { models: ["shell/cmd/m1"], lost: () => Promise.resolve(false) };
  const { options } = await pushLockOptions(rt.held, p.cache, "", scope);
  // …then another run (a parallel step) takes m2's lock and writes its version…
  const lock2 = await p.start("m2");
  await p.method("m2");
  // …and m1's push plans and commits.
  const svc = await rt.service(p.cache, "");
  await svc.pushChanged(options);
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from m1");
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), undefined, "outside m2's lock");
  assert.equal(store.peekText("data/shell/cmd/m2/out/latest"), undefined);
  await lock1.release();
  await p.flush("m2", lock2);
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), "from m2");
  assert.equal(store.peekText("data/shell/cmd/m2/out/latest"), "1");
});

Deno.test("push locks: a push naming no model leaves out a version written under a model lock taken after it took its lock options", async () => {
  const store = new InMemoryStore();
  const p = await process(store);
  const rt = p.provider().runtime;
  const scope = { models: [], lost: () => Promise.resolve(false) };
  const { options } = await pushLockOptions(rt.held, p.cache, "", scope);
  const lock = await p.start("m1");
  await p.method("m1");
  const svc = await rt.service(p.cache, "");
  await svc.pushChanged(options);
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), undefined, "outside m1's lock");
  await p.flush("m1", lock);
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from m1");
});

Deno.test("push locks: a push naming no model refused for a run's broken model lock erases that run's version only, never one another run of this process wrote under the same model's lock taken since", async () => {
  const store = new InMemoryStore();
  const p = await process(store);
  await p.start("m1");
  await p.method("m1"); // the first run's version 1
  await p.breakLock("m1");
  // Another run of this process takes m1's lock, free since, and writes version 2.
  const lock3 = await p.start("m1");
  await p.svc.markDirty({ relPath: "data/shell/cmd/m1/out/2" });
  await writeAsTool(p.cache, "data/shell/cmd/m1/out/2/raw", "from the next run");
  await assert.rejects(p.structural("gc"), (e: unknown) => e instanceof ModelLockLostError);
  assert.equal(await p.read("data/shell/cmd/m1/out/1/raw"), null, "the broken run's, erased");
  assert.equal(
    await p.read("data/shell/cmd/m1/out/2/raw"),
    "from the next run",
    "the next run's, whose lock was never lost: left for its own flush",
  );
  assert.equal(store.peekText("data/shell/cmd/m1/out/2/raw"), undefined);
  const journal = await Deno.readTextFile(`${p.cache}/.sluice/erasure.json`).catch(() => "{}");
  assert.deepEqual(JSON.parse(journal).held ?? [], [], "nothing held out of every push");
  await lock3.release();
});
