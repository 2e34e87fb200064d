/**
 * The in-memory target: the checks' reads of the store in the middle of a
 * history.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../packages/testing/mod.ts";
import { PutModes } from "../../sync/ports.ts";
import { heldVersionOf, memoryTarget } from "./target.ts";

const RAW = "data/shell/cmd/m0/out/1/raw";

/**
 * Seed 229200020: a history's outage began between a clone's push and the
 * check after it of the objects the index names (a `listed` sync, I7),
 * and each HEAD of the check failed as unreachable: the objects the store
 * held were reported as gone. A check reads the store as it is, past the
 * faults the history injects into the clones' calls.
 */
Deno.test("a check's read of a held object during an outage finds its version, and the clones' calls still fail", async () => {
  const target = await memoryTarget({ clock: new FakeClock(), setLatency: () => {} });
  const put = await target.store.put(RAW, new TextEncoder().encode("x"), PutModes.create);
  await target.faults.outage(true);
  assert.equal(await heldVersionOf(target, RAW), put.version);
  assert.equal(await heldVersionOf(target, "data/shell/cmd/m0/out/2/raw"), null);
  await assert.rejects(target.store.head(RAW), /unreachable/);
  await target.close();
});
