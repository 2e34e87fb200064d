/**
 * Core test composition: the real pipeline over the in-memory store, with
 * fault injection, a fake clock and injected identities, pinning behaviour
 * the way a core test of a datastore would. Copy this file as a start.
 */
import assert from "node:assert/strict";
import { createSluice, ModelLockLostError, type SluicePlugin } from "../mod.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";
import { FakeClock, InMemoryStore, waitFor } from "../packages/testing/mod.ts";
import type { InMemoryStore as Store } from "../packages/testing/mod.ts";

const fast = { retry: { retries: 2, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function clone(store: Store, clock: FakeClock, name: string, plugins: SluicePlugin[] = []) {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-core-${name}-` }),
    store,
    clock,
    identity: { holder: `${name}@ci`, hostname: `${name}-ci`, pid: name.length },
    config: fast,
    plugins,
  });
}

async function write(dir: string, path: string, text: string) {
  await Deno.mkdir(`${dir}/${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
  await Deno.writeTextFile(`${dir}/${path}`, text);
}

Deno.test("pin: after a breakglass the old holder's push is refused and the new holder's version survives", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a");
  const b = await clone(store, clock, "b");
  const runA = await acquireModelLocks(a, ["shell/cmd/m1"]);
  await write(a.cacheDir, "data/shell/cmd/m1/out/1/raw", "from a");
  await a.markDirty({ relPath: "data/shell/cmd/m1/out/1/raw" });
  await releaseLock(b, { model: "shell/cmd/m1", force: true });
  const runB = await acquireModelLocks(b, ["shell/cmd/m1"]);
  await write(b.cacheDir, "data/shell/cmd/m1/out/1/raw", "from b");
  await b.markDirty({ relPath: "data/shell/cmd/m1/out/1/raw" });
  await runB.push(["data/shell/cmd/m1/out/1"]);
  await runB.release();
  await assert.rejects(runA.push(["data/shell/cmd/m1/out/1"]), ModelLockLostError);
  await runA.release();
  assert.equal(store.peekText("data/shell/cmd/m1/out/1/raw"), "from b");
});

Deno.test("pin: a create whose response was lost is retried and counted once", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a");
  await write(a.cacheDir, "data/t/m/d/1/raw", "v1");
  await a.markDirty({ relPath: "data/t/m/d/1/raw" });
  store.failNext("put", 1, undefined, { afterEffect: true, match: (k) => k.endsWith("/raw") });
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["data/t/m/d/1/raw"]);
  assert.equal(store.peekText("data/t/m/d/1/raw"), "v1");
});

Deno.test("pin: a plugin adds an audit gate by name, and describe() shows the order", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const audited: string[] = [];
  const audit: SluicePlugin = {
    name: "audit",
    setup({ push }) {
      push.add({
        name: "audit",
        after: "lock-fence",
        middleware: async (ctx, next) => {
          await next();
          audited.push(...ctx.uploaded.map((u) => u.path));
        },
      });
    },
  };
  const a = await clone(store, clock, "a", [audit]);
  assert.deepEqual(a.pushPipeline.names().slice(-2), ["lock-fence", "audit"]);
  await write(a.cacheDir, "logs/x.log", "x");
  await a.markDirty({ relPath: "logs/x.log" });
  await a.pushChanged();
  assert.deepEqual(audited, ["logs/x.log"]);
});

Deno.test("pin: a heartbeat keeps a lock alive across the TTL on the fake clock", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a");
  const run = await acquireModelLocks(a, ["t/m"], { lock: { ttlMs: 3_000 } });
  await clock.advance(10_000);
  await waitFor(() => run.locks.every((l) => !l.lost), { clock });
  const info = await run.locks[0].inspect();
  assert.equal(info?.holder, "a@ci");
  await run.release();
});
