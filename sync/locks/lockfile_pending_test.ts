import assert from "node:assert/strict";
import { LocalCache } from "../transfer/cache.ts";
import {
  pendingLockfileDelta,
  readPendingLockfileDeltas,
  serialiseLockfileWork,
  writePendingLockfileDelta,
} from "./lockfile_pending.ts";

Deno.test("a pending delta is kept per lockfile path, read back as written, and cleared with null", async () => {
  const cache = new LocalCache(await Deno.makeTempDir({ prefix: "sluice-lf-pending-" }));
  assert.deepEqual(await readPendingLockfileDeltas(cache), {});
  const root = "config/upstream_extensions.json";
  const ns = "prod/config/upstream_extensions.json";
  await writePendingLockfileDelta(cache, root, { set: { "@x/a": 1 }, base: { "@x/a": null } });
  await writePendingLockfileDelta(cache, ns, { remove: ["@x/b"] });
  assert.deepEqual(await pendingLockfileDelta({ cache }), {
    set: { "@x/a": 1 },
    remove: [],
    base: { "@x/a": null },
  });
  assert.deepEqual(await pendingLockfileDelta({ cache }, { namespace: "prod" }), {
    set: {},
    remove: ["@x/b"],
  });
  await writePendingLockfileDelta(cache, root, null);
  assert.deepEqual(Object.keys(await readPendingLockfileDeltas(cache)), [ns]);
});

Deno.test("lockfile work of one service runs one at a time, also after a failure", async () => {
  const service = {};
  const order: string[] = [];
  let release!: () => void;
  const first = serialiseLockfileWork(service, async () => {
    order.push("first starts");
    await new Promise<void>((r) => release = r);
    order.push("first ends");
    throw new Error("failed");
  });
  const second = serialiseLockfileWork(service, () => {
    order.push("second");
    return Promise.resolve(2);
  });
  await Promise.resolve();
  release();
  await assert.rejects(first, /failed/);
  assert.equal(await second, 2);
  assert.deepEqual(order, ["first starts", "first ends", "second"]);
});
