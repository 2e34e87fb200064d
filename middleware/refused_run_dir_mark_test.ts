import assert from "node:assert/strict";
import { createSluice } from "../sluice.ts";
import { FakeClock, InMemoryStore } from "../packages/testing/mod.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import { ModelLockLostError } from "../sync/lock_errors.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";

const V = "data/shell/cmd/m1/out/1";
const enc = new TextEncoder();

async function clone(store: InMemoryStore, clock: FakeClock, name: string) {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-refused-mark-${name}-` }),
    store,
    clock,
    identity: { holder: `${name}@host`, hostname: "host", pid: name.length },
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
    conditional: new ConditionalWrites(),
  });
}

Deno.test("a refused run whose version directory was marked dirty (as the tool marks it) leaves no mark of it: status shows nothing to push", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a");
  const b = await clone(store, clock, "b");
  const run = await acquireModelLocks(a, ["shell/cmd/m1"]);
  await a.cache.write(`${V}/metadata.yaml`, enc.encode("version: 1\n"));
  await a.cache.write(`${V}/raw`, enc.encode("from a"));
  await a.markDirty({ relPath: V });
  await releaseLock(b, { model: "shell/cmd/m1", force: true });
  await assert.rejects(run.push([V]), ModelLockLostError);
  await run.release();
  assert.equal(await Deno.stat(`${a.cacheDir}/${V}`).then(() => true, () => false), false);
  // Erased from the cache and the dirty set: nothing of the run is left to push.
  const left = (await a.status()).filter((e) => e.path === V || e.path.startsWith(`${V}/`));
  assert.deepEqual(left, [], JSON.stringify(left));
  const r = await a.pushChanged();
  assert.deepEqual(r.skipped, [], JSON.stringify(r.skipped));
});
