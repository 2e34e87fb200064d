import assert from "node:assert/strict";
import { LOCK_FENCE, lockFence, lockFenceEntry, verifyLocks } from "./lock_fence.ts";
import { PATH_CLASSIFIER, pathClassifier } from "./path_classifier.ts";
import {
  FakeClock,
  InMemoryStore,
  mockPushContext,
  planEntry,
  spyNext,
} from "../packages/testing/mod.ts";
import { SluiceError, UnreachableError } from "../sync/errors.ts";
import { LockReadError, ModelLockLostError } from "../sync/lock_errors.ts";
import type { DistributedLock, Identity, LockInfo, LockLoss } from "../sync/ports.ts";
import { Pipeline } from "../sync/pipeline.ts";
import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
import { createSyncService, type SyncService } from "../sync/service/service.ts";
import { storeLockBackend } from "../sync/locks/lock_engine.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";

const ME: Identity = { holder: "a@host", hostname: "host", pid: 1 };
const KEY = "data/t/m/.lock";

/** A hand-written lock: its inspect answer, loss flag and nonce are set by the test. */
class FakeLock implements DistributedLock {
  readonly key: string;
  info: LockInfo | null;
  nonce?: string;
  lost?: boolean;
  loss?: LockLoss;
  failWith?: Error;
  inspects = 0;
  constructor(key: string, info: LockInfo | null, nonce?: string) {
    this.key = key;
    this.info = info;
    this.nonce = nonce;
  }
  async acquire(): Promise<void> {}
  async release(): Promise<void> {}
  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  inspect(): Promise<LockInfo | null> {
    this.inspects++;
    return this.failWith ? Promise.reject(this.failWith) : Promise.resolve(this.info);
  }
  forceRelease(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

const body = (who: Identity, nonce = "n1"): LockInfo => ({
  ...who,
  acquiredAt: "2026-01-01T00:00:00.000Z",
  ttlMs: 30_000,
  nonce,
});

async function fenced(locks: DistributedLock[]) {
  const m = await mockPushContext({ plan: [planEntry("data/t/m/d/2/raw")], locks, identity: ME });
  const next = spyNext();
  const error = await lockFence()(m.ctx, next).then(() => undefined, (e) => e);
  return { m, next, error };
}

Deno.test("a push without locks is not fenced", async () => {
  const { next, error, m } = await fenced([]);
  assert.equal(error, undefined);
  assert.equal(next.calls, 1);
  assert.equal(m.ctx.beforeCommit.length, 0);
});

Deno.test("a lock that still names this run lets the push through and fences again before the commit", async () => {
  const lock = new FakeLock(KEY, body(ME, "n1"), "n1");
  const { next, error, m } = await fenced([lock]);
  assert.equal(error, undefined);
  assert.equal(next.calls, 1);
  assert.equal(m.ctx.beforeCommit.length, 1);
  await m.ctx.beforeCommit[0]();
  assert.equal(lock.inspects, 2);
  assert.ok(m.gates.every((g) => g.gate === LOCK_FENCE));
});

Deno.test("a third-party lock without a nonce is compared by holder, hostname and pid", async () => {
  const { next, error } = await fenced([new FakeLock(KEY, body(ME, "whatever"))]);
  assert.equal(error, undefined);
  assert.equal(next.calls, 1);
});

Deno.test("an absent lock is refused with model_lock_lost and nothing reaches next", async () => {
  const { next, error } = await fenced([new FakeLock(KEY, null, "n1")]);
  assert.ok(error instanceof ModelLockLostError);
  assert.equal(error.code, "model_lock_lost");
  assert.equal(error.exitCode, 1);
  assert.deepEqual(error.lost, [{ key: KEY, newHolder: null }]);
  assert.match(error.message, /data\/t\/m\/\.lock \(now released\)/);
  assert.match(error.message, /force-released or taken over/);
  assert.match(error.message, /Nothing was pushed/);
  assert.match(error.message, /Run the method or workflow again/);
  assert.equal(next.calls, 0);
});

Deno.test("a lock held by another process is refused and names the new holder", async () => {
  const other = { holder: "b@host2", hostname: "host2", pid: 9 };
  for (const who of [other, { ...ME, pid: 2 }, { ...ME, hostname: "elsewhere" }]) {
    const { next, error } = await fenced([new FakeLock(KEY, body(who), "n1")]);
    assert.ok(error instanceof ModelLockLostError, JSON.stringify(who));
    assert.match(error.message, new RegExp(`now held by ${who.holder} \\(pid ${who.pid}\\)`));
    assert.equal(next.calls, 0);
  }
});

Deno.test("the same process under another acquisition (other nonce) is refused", async () => {
  const { error } = await fenced([new FakeLock(KEY, body(ME, "n2"), "n1")]);
  assert.ok(error instanceof ModelLockLostError);
  assert.match(error.lost[0].newHolder ?? "", /another acquisition/);
});

Deno.test("a loss flag refuses without reading the lock", async () => {
  const lock = new FakeLock(KEY, body(ME, "n1"), "n1");
  lock.lost = true;
  lock.loss = {
    kind: "taken",
    newHolder: body({ holder: "b@h", hostname: "h", pid: 7 }),
    detectedAt: 1,
  };
  const { error } = await fenced([lock]);
  assert.ok(error instanceof ModelLockLostError);
  assert.equal(error.lost[0].newHolder, "b@h (pid 7)");
  assert.equal(lock.inspects, 0);
});

Deno.test("a failed lock read is an ordinary retryable error, not a refusal", async () => {
  const failures = [
    new LockReadError(KEY, "timeout"),
    new UnreachableError("socket closed"),
    new Error("third-party failure"),
  ];
  for (const f of failures) {
    const lock = new FakeLock(KEY, body(ME, "n1"), "n1");
    lock.failWith = f;
    const { next, error } = await fenced([lock]);
    assert.ok(error instanceof LockReadError, f.message);
    assert.equal(error.code, "lock_read_failed");
    assert.equal(error.retryable, true);
    assert.ok(!(error instanceof ModelLockLostError));
    assert.equal(next.calls, 0);
  }
});

Deno.test("one lock known lost decides the run even when another cannot be read", async () => {
  const unreadable = new FakeLock("data/t/x/.lock", body(ME), "n1");
  unreadable.failWith = new UnreachableError("down");
  const { error } = await fenced([unreadable, new FakeLock(KEY, null, "n1")]);
  assert.ok(error instanceof ModelLockLostError);
  assert.deepEqual(error.lost.map((l) => l.key), [KEY]);
});

Deno.test("the pre-commit fence refuses a lock lost during the uploads", async () => {
  const lock = new FakeLock(KEY, body(ME, "n1"), "n1");
  const m = await mockPushContext({ plan: [planEntry("x")], locks: [lock], identity: ME });
  await lockFence()(
    m.ctx,
    spyNext(() => {
      lock.info = body({ holder: "b@host", hostname: "host", pid: 2 });
    }),
  );
  await assert.rejects(() => m.ctx.beforeCommit[0](), ModelLockLostError);
});

Deno.test("a dry run (status) is not fenced", async () => {
  const lock = new FakeLock(KEY, null, "n1");
  const m = await mockPushContext({ locks: [lock] });
  const ctx: PushContext = { ...m.ctx, dryRun: true };
  const next = spyNext();
  await lockFence()(ctx, next);
  assert.equal(next.calls, 1);
  assert.equal(lock.inspects, 0);
});

Deno.test("verifyLocks and the entry helper", async () => {
  await verifyLocks([new FakeLock(KEY, body(ME))], ME);
  await assert.rejects(() => verifyLocks([new FakeLock(KEY, null)], ME), ModelLockLostError);
  const e = lockFenceEntry();
  assert.equal(e.name, LOCK_FENCE);
  assert.equal(e.phase, "fence");
});

// --- incident 001 end to end, on the lock engine over the in-memory store ---

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
const DATA = "data/t/m/d";

async function world(fence: boolean) {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const lockBackend = storeLockBackend(store, { clock });
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  push.add({ name: PATH_CLASSIFIER, phase: "classify", middleware: pathClassifier() });
  if (fence) push.add(lockFenceEntry());
  const clone = async (name: string, pid: number) =>
    await createSyncService({
      cacheDir: await Deno.makeTempDir({ prefix: `sluice-fence-${name}-` }),
      store,
      lockBackend,
      identity: { holder: `${name}@host`, hostname: "host", pid },
      clock,
      config: quick,
      push,
    });
  const a = await clone("a", 1);
  const b = await clone("b", 2);
  await writeVersion(a, 1, "first");
  await a.pushChanged();
  await b.pullChanged();
  return { clock, store, a, b };
}

async function writeVersion(svc: SyncService, n: number, text: string): Promise<string> {
  const dir = `${DATA}/${n}`;
  await Deno.mkdir(`${svc.cacheDir}/${dir}`, { recursive: true });
  await Deno.writeTextFile(`${svc.cacheDir}/${dir}/raw`, text);
  await Deno.writeTextFile(`${svc.cacheDir}/${DATA}/latest`, `${n}`);
  await svc.markDirty({ relPaths: [`${dir}/raw`, `${DATA}/latest`] });
  return dir;
}

async function breakglass(fence: boolean) {
  const w = await world(fence);
  const lockA = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, "A's data");
  const broken = await releaseLock(w.b, { model: "t/m", force: true });
  const lockB = await acquireModelLocks(w.b, ["t/m"]);
  await lockB.push([await writeVersion(w.b, 2, "B's data")]);
  const error = await lockA.push([dirA]).then(() => undefined, (e) => e);
  await lockB.release();
  await lockA.release();
  return { ...w, error, broken };
}

Deno.test("incident 001 breakglass, fence off: A's version N+1 overwrites B's (the loss)", async () => {
  const r = await breakglass(false);
  assert.equal(r.broken.broken?.holder, "a@host");
  assert.equal(r.error, undefined);
  assert.equal(r.store.peekText(`${DATA}/2/raw`), "A's data");
});

Deno.test("incident 001 breakglass, fence on: A is refused and B's version survives", async () => {
  const r = await breakglass(true);
  assert.ok(r.error instanceof SluiceError);
  assert.equal(r.error.code, "model_lock_lost");
  assert.match(r.error.message, /b@host \(pid 2\)/);
  assert.equal(r.store.peekText(`${DATA}/2/raw`), "B's data");
  assert.equal(r.store.peekText(`${DATA}/latest`), "2");
  const texts = r.store.keys().map((k) => r.store.peekText(k) ?? "");
  assert.ok(!texts.some((t) => t.includes("A's data")));
});

Deno.test("fence on: a heartbeat that saw the takeover refuses on its loss flag", async () => {
  const w = await world(true);
  const lockA = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, "A's data");
  await releaseLock(w.b, { model: "t/m", force: true });
  const lockB = await acquireModelLocks(w.b, ["t/m"]);
  await w.clock.advance(10_001); // A's heartbeat finds B's nonce; B's own heartbeat renews
  assert.equal(lockA.locks[0].lost, true);
  await assert.rejects(() => lockA.push([dirA]), (e: unknown) => e instanceof ModelLockLostError);
  assert.equal(w.store.peek(`${DATA}/2/raw`), undefined);
  await lockB.release();
  await lockA.release();
});

Deno.test("unchanged: a holder whose lock is still its own pushes as before", async () => {
  const w = await world(true);
  const gates: string[] = [];
  w.a.events.on("gate", (g) => gates.push(g.gate));
  const lockA = await acquireModelLocks(w.a, ["t/m"]);
  const result = await lockA.push([await writeVersion(w.a, 2, "A's data")]);
  await lockA.release();
  assert.deepEqual(result.uploaded.sort(), [`${DATA}/2/raw`, `${DATA}/latest`]);
  assert.equal(w.store.peekText(`${DATA}/2/raw`), "A's data");
  assert.deepEqual(w.a.state.dirtyPaths(), []);
  assert.equal(gates.filter((g) => g === LOCK_FENCE).length, 2); // before uploads, before commit
});

Deno.test("a lock that cannot be read fails the push retryably and keeps the write dirty", async () => {
  const w = await world(true);
  const lockA = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, "A's data");
  w.store.failNext("get", 1, () => new UnreachableError("timeout"), { match: (k) => k === KEY });
  const error = await lockA.push([dirA]).then(() => undefined, (e) => e);
  assert.ok(error instanceof LockReadError);
  assert.equal(error.retryable, true);
  assert.equal(w.store.peek(`${dirA}/raw`), undefined);
  assert.deepEqual(w.a.state.dirtyPaths(), [`${dirA}/raw`, `${DATA}/latest`]);
  await lockA.push([dirA]);
  await lockA.release();
  assert.equal(w.store.peekText(`${dirA}/raw`), "A's data");
});

async function twoPhaseBreakglass(fence: boolean) {
  const w = await world(fence);
  const lockA = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, "A's data");
  const prepared = await w.a.preparePush({
    locks: lockA.locks,
    written: [dirA],
    preexisting: lockA.preexisting,
    models: lockA.models,
  });
  await releaseLock(w.b, { model: "t/m", force: true }); // the breakglass, between the phases
  const error = await w.a.commitPush(prepared).then(() => undefined, (e) => e);
  const markerAfter = w.store.peekText(`${DATA}/latest`);
  await lockA.release();
  const c = await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-fence-c-" }),
    store: w.store,
    clock: w.clock,
    config: quick,
  });
  const pulled = await c.pullChanged();
  return { ...w, error, pulled, markerAfter };
}

Deno.test("two-phase, fence off: a lock broken between prepare and commit still commits (the loss)", async () => {
  const r = await twoPhaseBreakglass(false);
  assert.equal(r.error, undefined);
  assert.ok(r.pulled.fetched.includes(`${DATA}/2/raw`));
});

Deno.test("two-phase, fence on: a lock broken between prepare and commit refuses the commit", async () => {
  const r = await twoPhaseBreakglass(true);
  assert.ok(r.error instanceof ModelLockLostError, String(r.error));
  assert.ok(!r.pulled.fetched.includes(`${DATA}/2/raw`), "nothing of the refused run is committed");
  // Its latest marker was deferred to the commit, so the refusal leaves none behind.
  assert.equal(r.markerAfter, "1");
});
