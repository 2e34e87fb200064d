/**
 * A `latest` marker left in conflict by a pull that ran during a run whose
 * lock was then broken: the conflict came only from that run's version,
 * which its refusal erases, so the cache's next runs of the model publish
 * their marker; and a sync that leaves work behind says so each time, the
 * same conflict again too.
 */
import assert from "node:assert/strict";
import { SluiceError } from "../../sync/errors.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { writeAsTool } from "./checkout_kit.ts";
import { outDir as dir, toolProcess } from "./tool_process_kit.ts";

/** One process of the tool over `store`, as checkout `name`: two-phase flushes, structural commands that pull first. */
async function process(store: InMemoryStore, name: string) {
  const p = await toolProcess(store, createSluice, name);
  const flush = (id: string, lock: Awaited<ReturnType<typeof p.start>>) =>
    p.flush(id, lock, { twoPhase: true });
  /** A whole run of model `id`: its lock, pull, method and flush. */
  const run = async (id: string, text: string) => {
    const lock = await p.start(id);
    const n = await p.method(id, text);
    await flush(id, lock);
    return n;
  };
  const structural = (file: string) =>
    p.structural(`definitions/${file}.yaml`, file, { pull: true });
  return { ...p, flush, run, structural };
}

Deno.test("refused run: a marker conflict a structural pull left on the refused run's version is settled by its erasure; the next runs publish their marker", async () => {
  const store = new InMemoryStore();
  const s = await process(store, "s");
  const r = await process(store, "r");
  assert.equal(await s.run("m2", "seed"), 1);
  // Run B of S writes version 2; its lock is broken; R runs the model twice.
  const lockB = await s.start("m2");
  assert.equal(await s.method("m2", "B-v2"), 2);
  await s.breakLock("m2");
  assert.equal(await r.run("m2", "R-a"), 2);
  assert.equal(await r.run("m2", "R-b"), 3);
  assert.equal(store.peekText(`${dir("m2")}/latest`), "3");
  // A structural command of S pulls (B's version 2 and the marker conflict)
  // and is refused, fenced by B's lost lock.
  await assert.rejects(
    s.structural("x"),
    (e: unknown) => e instanceof SluiceError && e.code === "model_lock_lost",
  );
  // B's flush: refused, its version erased.
  await assert.rejects(
    s.flush("m2", lockB),
    (e: unknown) => e instanceof SluiceError && e.code === "model_lock_lost",
  );
  assert.equal(store.peekText(`${dir("m2")}/2/raw`), "R-a");
  assert.equal(store.peekText(`${dir("m2")}/3/raw`), "R-b");
  // The marker's conflict came only from B's version: settled, no longer open.
  assert.equal(await s.read(`${dir("m2")}/latest`), "3", "the datastore's, brought by the refresh");
  // S's next two runs publish their versions and the marker naming each.
  s.warnings.length = 0;
  assert.equal(await s.run("m2", "S-next"), 4);
  assert.equal(store.peekText(`${dir("m2")}/4/raw`), "S-next");
  const latestLeft = () =>
    s.warnings.filter((w) =>
      w.code === "conflicts_left" && w.message.includes(`${dir("m2")}/latest`)
    );
  assert.deepEqual(latestLeft(), []);
  assert.equal(store.peekText(`${dir("m2")}/latest`), "4");
  assert.equal(await s.run("m2", "S-next2"), 5);
  assert.equal(store.peekText(`${dir("m2")}/5/raw`), "S-next2");
  assert.equal(store.peekText(`${dir("m2")}/latest`), "5");
  assert.deepEqual(latestLeft(), []);
  assert.equal(store.peekText(`${dir("m2")}/2/raw`), "R-a", "B's version never published");
});

Deno.test("left behind: each push that leaves the same conflict says so, not only the first in a window", async () => {
  const store = new InMemoryStore();
  const s = await process(store, "s");
  const r = await process(store, "r");
  await r.structural("d");
  // S changed the same file, never synced: its pushes leave the conflict.
  const rel = "definitions/d.yaml";
  await s.svc.markDirty({ relPath: rel });
  await writeAsTool(s.cache, rel, "mine");
  const said = () =>
    s.lines.filter((l) => l.includes("warning[conflicts_left]") && l.includes(rel));
  await s.svc.pushChanged({});
  assert.equal(said().length, 1);
  await s.svc.pushChanged({});
  assert.equal(said().length, 2, "the second push left it too");
  assert.equal(store.peekText(rel), "d");
});
