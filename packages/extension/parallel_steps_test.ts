/**
 * A workflow's steps run in parallel in one process over one sync service,
 * as the tool runs them: each step takes its model's lock, writes, and
 * flushes (preparePush, the global lock, commitPush), then releases its
 * model's lock. A step's flush names its model and is fenced by that
 * model's lock only; another step may release its lock before that flush
 * commits. A push naming none is no step's flush: it leaves out what is
 * under the held locks.
 */
import assert from "node:assert/strict";
import { SluiceError } from "../../sync/errors.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { writeAsTool } from "./checkout_kit.ts";
import { toolModel as model, toolProcess } from "./tool_process_kit.ts";

/** One process of the tool whose workflow steps run in parallel; a step's flush in two parts. */
async function workflow(store: InMemoryStore, name = "a") {
  const p = await toolProcess(store, createSluice, name);
  const prepare = (id: string) => p.svc.preparePush({ context: { models: [model(id)] } });
  /** The rest of a step's flush: commit under the global lock, then its model lock released. */
  const commit = async (
    manifest: Awaited<ReturnType<typeof prepare>>,
    lock: Awaited<ReturnType<typeof p.start>>,
  ) => {
    try {
      return await p.underGlobal(() => p.svc.commitPush(manifest));
    } finally {
      await lock.release();
    }
  };
  return { ...p, prepare, commit };
}

/** A workflow whose two steps (models m1 and m2) have each taken their model lock. */
async function twoSteps() {
  const store = new InMemoryStore();
  const w = await workflow(store);
  return { store, w, lock1: await w.start("m1"), lock2: await w.start("m2") };
}

Deno.test("parallel steps: a step's lock released after its commit does not refuse another step's commit", async () => {
  const { store, w, lock1, lock2 } = await twoSteps();
  await w.method("m1");
  const prepared1 = await w.prepare("m1"); // m2's lock is held: it is in this push's fence
  await w.method("m2");
  const prepared2 = await w.prepare("m2"); // so is m1's
  await w.commit(prepared1, lock1); // m1's lock released
  await w.commit(prepared2, lock2);
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), "from m2");
  assert.equal(await w.read("data/shell/cmd/m2/out/1/raw"), "from m2");
  assert.equal(await w.svc.pushChanged(), 0);
  const peer = await workflow(store, "b");
  assert.equal(await peer.svc.pullChanged(), 6); // each version's raw, metadata.yaml, latest
  assert.equal(await peer.read("data/shell/cmd/m2/out/1/raw"), "from m2");
});

Deno.test("parallel steps: the later-prepared step committing first does not refuse the other", async () => {
  const { store, w, lock1, lock2 } = await twoSteps();
  await w.method("m1");
  await w.method("m2");
  const prepared1 = await w.prepare("m1");
  const prepared2 = await w.prepare("m2");
  await w.commit(prepared2, lock2);
  await w.commit(prepared1, lock1);
  for (const id of ["m1", "m2"]) {
    assert.equal(store.peekText(`data/shell/cmd/${id}/out/1/raw`), `from ${id}`);
    assert.equal(await w.read(`data/shell/cmd/${id}/out/1/raw`), `from ${id}`);
  }
});

Deno.test("parallel steps: a lock released without its push committing does not refuse another step's commit; that step's version stays out of it, in the cache", async () => {
  const { store, w, lock1, lock2 } = await twoSteps();
  await w.method("m1");
  await w.method("m2");
  const prepared2 = await w.prepare("m2"); // fenced by m2's lock only
  await w.prepare("m1"); // its commit never comes (say, the global lock timed out)
  await lock1.release();
  await w.commit(prepared2, lock2);
  // m1's preparation uploaded its objects; no commit names them.
  const peer = await workflow(store, "b");
  await peer.svc.pullChanged();
  assert.equal(await peer.read("data/shell/cmd/m2/out/1/raw"), "from m2");
  assert.equal(await peer.read("data/shell/cmd/m1/out/1/raw"), null, "not published by it");
  assert.equal(await w.read("data/shell/cmd/m1/out/1/raw"), "from m1", "kept in the cache");
});

Deno.test("parallel steps: a push naming no model, prepared while both steps hold their locks, holds back both steps' versions; its commit after one of those locks is released without its push committing publishes neither, and is not refused", async () => {
  const { store, w, lock1, lock2 } = await twoSteps();
  await w.method("m1");
  await w.method("m2");
  await w.svc.markDirty({ relPath: "workflow-runs/w1/workflow-run-1.yaml" });
  await writeAsTool(w.cache, "workflow-runs/w1/workflow-run-1.yaml", "run 1");
  const prepared = await w.svc.preparePush(); // no run's flush: both locks held, none fences it
  await w.prepare("m1"); // its commit never comes
  await lock1.release();
  const global = w.provider().createLock("/repo/.swamp", { maxWaitMs: 1000 });
  await global.acquire();
  assert.equal(await w.svc.commitPush(prepared), 1);
  await global.release();
  assert.equal(store.peekText("workflow-runs/w1/workflow-run-1.yaml"), "run 1");
  // Neither step's version was in it: m1's never published by a commit fenced by m1's lock.
  assert.equal(store.peekText("data/shell/cmd/m1/out/latest"), undefined);
  assert.equal(store.peekText("data/shell/cmd/m2/out/latest"), undefined);
  await w.commit(await w.prepare("m2"), lock2);
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), "from m2");
});

Deno.test("parallel steps: a step's flush is not refused for another step's model lock broken since; that step's version stays out of it, and its own flush is refused and erases it", async () => {
  const { store, w, lock1, lock2 } = await twoSteps();
  await w.method("m1");
  await w.method("m2");
  // An operator breaks m1's lock from another checkout.
  const breaker = w.provider().createLock("/repo/.swamp", {
    lockKey: "data/shell/cmd/m1/.lock",
    maxWaitMs: 1000,
  });
  const info = await breaker.inspect();
  assert.ok(info?.nonce);
  assert.equal(await breaker.forceRelease(info.nonce), true);
  // m2's step flushes: published, without m1's version (nor its marker).
  await w.commit(await w.prepare("m2"), lock2);
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), "from m2");
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), undefined);
  assert.equal(store.peekText("data/shell/cmd/m1/out/latest"), undefined);
  // m1's step flushes: refused, and its version erased from the cache.
  await assert.rejects(
    (async () => w.commit(await w.prepare("m1"), lock1))(),
    (e: unknown) => e instanceof SluiceError && e.code === "model_lock_lost",
  );
  await lock1.release().catch(() => {}); // the tool releases it whatever its flush did
  assert.equal(await w.read("data/shell/cmd/m1/out/1/raw"), null, "erased");
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), undefined, "never published");
  // Nothing of it is left for a later push either.
  await w.svc.pushChanged();
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), undefined);
});

Deno.test("parallel steps: another step's lock that cannot be read does not fail a step's flush; its own lock that cannot be read fails it retryably (lock_read_failed), nothing refused or erased", async () => {
  const { store, w, lock1, lock2 } = await twoSteps();
  await w.method("m1");
  await w.method("m2");
  store.failNext("get", 20, () => new Error("read refused"), {
    match: (k) => k === "data/shell/cmd/m1/.lock",
  });
  const preparedM2 = await w.prepare("m2"); // fenced by m2's lock only
  store.heal();
  await w.commit(preparedM2, lock2);
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), "from m2");
  store.failNext("get", 20, () => new Error("read refused"), {
    match: (k) => k === "data/shell/cmd/m1/.lock",
  });
  await assert.rejects(
    w.prepare("m1"),
    (e: unknown) => e instanceof SluiceError && e.code === "lock_read_failed",
  );
  store.heal();
  assert.equal(await w.read("data/shell/cmd/m1/out/1/raw"), "from m1", "nothing erased");
  await w.commit(await w.prepare("m1"), lock1);
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from m1");
});

Deno.test("parallel steps: a run prepared after another run's one-phase push committed is not refused when that run then releases its lock", async () => {
  // Two model runs of one process, as the tool runs them: A on m2 flushes
  // single-phase (`pushChanged` under the global lock), B on s1 two-phase.
  const { store, w, lock1: lockA, lock2: lockB } = await (async () => {
    const store = new InMemoryStore();
    const w = await workflow(store);
    return { store, w, lock1: await w.start("m2"), lock2: await w.start("s1") };
  })();
  await w.method("m2");
  await w.method("s1");
  // A's flush: its push commits under the global lock.
  const global = w.provider().createLock("/repo/.swamp", { maxWaitMs: 1000 });
  await global.acquire();
  await w.svc.pushChanged({ context: { models: [model("m2")] } });
  await global.release();
  // B prepares while A still holds m2's lock, which B's run never took.
  const preparedB = await w.prepare("s1");
  await lockA.release(); // A's run ends: its lock released after its push committed
  await w.commit(preparedB, lockB);
  assert.equal(store.peekText("data/shell/cmd/s1/out/1/raw"), "from s1");
  assert.equal(await w.read("data/shell/cmd/s1/out/1/raw"), "from s1", "B's version kept");
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), "from m2");
});

Deno.test("parallel steps: a step's flush while another step still writes under its lock tells nothing of that step's version as left behind", async () => {
  const { store, w, lock1, lock2 } = await twoSteps();
  await w.method("m1");
  await w.method("m2");
  // m2's flush while m1's step runs on, its lock held: m1's version is m1's flush's.
  await w.commit(await w.prepare("m2"), lock2);
  assert.equal(store.peekText("data/shell/cmd/m2/out/1/raw"), "from m2");
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), undefined, "left for m1's flush");
  // The steps' first pulls, of a datastore nothing was pushed to yet, say so (datastore_empty).
  assert.deepEqual(
    w.warnings.filter((x) => x.code !== "datastore_empty").map((x) => `${x.code}: ${x.message}`),
    [],
    "no work left behind: m1's own flush publishes its version",
  );
  assert.deepEqual(w.lines.filter((l) => !l.includes("warning[datastore_empty]")), []);
  await w.commit(await w.prepare("m1"), lock1);
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from m1");
  assert.deepEqual(w.warnings.filter((x) => x.code !== "datastore_empty"), []);
});
