/**
 * A push under the global lock that takes back this cache's own committed
 * upload (its commit landed, its answer lost, and the file was deleted here
 * since) while an old client holds the lock and rewrites the index from a
 * read made before: the index write of the withdrawal waits for the lock as
 * the commit does, so neither the withdrawal nor the old client's entries
 * are lost.
 */
import assert from "node:assert/strict";
import { peerReadIndex, waitFor } from "../../packages/testing/mod.ts";
import { pushUnderGlobalLock } from "./global_lock_push.ts";
import {
  GLOBAL,
  globalLockSetup,
  MINE,
  pushInsideOldClientPush,
  THEIRS,
} from "./global_lock_kit.ts";
import { assertIndexCurrent, createAnswerLost, put } from "./clone_kit.ts";

const setup = () => globalLockSetup("sluice-global-withdraw-");

Deno.test("global lock: a withdrawal of this cache's own committed create waits for the lock an old client holds, and neither side's index change is lost", async () => {
  const s = await setup();
  // The create's commit landed, its answer lost; then the file was deleted here.
  await createAnswerLost(s.store, s.svc, MINE, "mine\n");
  assert.equal(s.svc.state.synced(MINE), undefined);
  await Deno.remove(`${s.svc.cacheDir}/${MINE}`);
  await s.svc.markDirty({ relPath: MINE });
  const r = await pushInsideOldClientPush(s, {}, { mustWait: true });
  assert.deepEqual(r.strandedChecks, [{ path: MINE, outcome: "withdrawn" }]);
  assert.equal(s.store.peek(MINE), undefined, "the upload is taken back");
  assert.deepEqual(
    Object.keys(await peerReadIndex(s.store)).sort(),
    [THEIRS],
    "the old client's entry stays, and no entry names the withdrawn upload",
  );
  await assertIndexCurrent(s.store, { held: true });
  assert.deepEqual(s.svc.state.dirtyPaths(), []);
  assert.equal(s.store.peek(GLOBAL), undefined, "the lock is released");
});

Deno.test("global lock: a deletion of this cache's own committed update waits for the lock an old client holds, and neither side's index change is lost", async () => {
  const s = await setup();
  await put(s.svc, MINE, "one\n");
  await s.svc.pushChanged();
  // The update's commit landed, its answer lost; then the file was deleted here.
  await createAnswerLost(s.store, s.svc, MINE, "two\n");
  await Deno.remove(`${s.svc.cacheDir}/${MINE}`);
  await s.svc.markDirty({ relPath: MINE });
  const r = await pushInsideOldClientPush(s, {}, { mustWait: true });
  assert.deepEqual(r.deleted, [MINE]);
  assert.equal(s.store.peek(MINE), undefined);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)).sort(), [THEIRS]);
  await assertIndexCurrent(s.store, { held: true });
  assert.deepEqual(s.svc.state.dirtyPaths(), []);
});

Deno.test("global lock: a withdrawal left to the commit is not made when the lock cannot be had, and the next push makes it", async () => {
  const s = await setup();
  await createAnswerLost(s.store, s.svc, MINE, "mine\n");
  await Deno.remove(`${s.svc.cacheDir}/${MINE}`);
  await s.svc.markDirty({ relPath: MINE });
  await s.oldClientLock.acquire();
  const short = s.svc.lockBackend!.createLock(GLOBAL, s.svc.identity, {
    retryDelayMs: 50,
    maxWaitMs: 200,
  });
  let error: unknown;
  const run = pushUnderGlobalLock(s.svc, short).catch((e) => (error = e));
  await waitFor(() => error !== undefined, { clock: s.clock, stepMs: 50 });
  await run;
  assert.equal((error as { code?: string }).code, "lock_timeout");
  // Nothing of it was made outside the lock: the entry names the upload, which stays.
  assert.ok(s.store.peek(MINE));
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), [MINE]);
  assert.deepEqual(s.svc.state.dirtyPaths(), [MINE]);
  await s.oldClientLock.release();
  s.store.resetLog();
  const r = await pushUnderGlobalLock(s.svc, s.lock());
  assert.deepEqual(r.strandedChecks, [{ path: MINE, outcome: "withdrawn" }]);
  assert.equal(s.store.peek(MINE), undefined);
  assert.deepEqual(Object.keys(await peerReadIndex(s.store)), []);
  assert.deepEqual(s.svc.state.dirtyPaths(), []);
  // The index written only while the lock is held.
  const puts = s.store.log.filter((l) => l.op === "put" || l.op === "delete").map((l) => l.key);
  const firstIndex = puts.indexOf(".datastore-index.json");
  assert.ok(firstIndex > puts.indexOf(GLOBAL), puts.join(", "));
  assert.ok(firstIndex < puts.lastIndexOf(GLOBAL), puts.join(", "));
});
