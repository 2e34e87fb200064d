/**
 * The refused-run eraser end to end (incident 002, and 001 with the
 * eraser): two clones sharing one store. The gate's tests on a mock push
 * context are in `refused_run_eraser_gate_test.ts`.
 */
import assert from "node:assert/strict";
import { META_KEY } from "../sync/transfer/bucket_layout.ts";
import { MARKER, V2 } from "./refused_run_eraser_kit.ts";
import type { FakeClock, InMemoryStore } from "../packages/testing/mod.ts";
import { UnreachableError } from "../sync/errors.ts";
import { ModelLockLostError } from "../sync/lock_errors.ts";
import {
  ERASURE_JOURNAL,
  ErasureRefusedError,
  journalPending,
  readErasureJournal,
  resolveHeldVersions,
} from "./erasure.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";
import type { SyncService } from "../sync/service/service.ts";
import { DANGLING_GRACE_MS } from "../sync/service/dangling_entries.ts";
import {
  breakglass,
  cacheFiles,
  type Gates,
  lostWhileUnreachable,
  storeFiles,
  storeHasA,
  world,
  writeVersion,
} from "./refused_run_eraser_world_kit.ts";

/** Moves `svc`'s fake clock past the grace a pull gives a dangling index entry. */
const pastGrace = (svc: SyncService) =>
  (svc.clock as FakeClock).set(svc.clock.now() + DANGLING_GRACE_MS);

Deno.test("incident 002, eraser off: a refused run's version is pushed by a later sync", async () => {
  const r = await lostWhileUnreachable({ fence: true, eraser: false });
  assert.equal(r.error?.code, "model_lock_lost");
  await r.a.pushChanged(); // the store is back: a plain sync
  assert.equal(r.store.peekText(`${V2}/raw`), "A's data");
  await r.b.pullChanged();
  assert.equal(await Deno.readTextFile(`${r.b.cacheDir}/${V2}/raw`), "A's data");
});

Deno.test("incident 002, eraser on: lock lost while unreachable leaves the run's data nowhere", async () => {
  const r = await lostWhileUnreachable({ fence: true, eraser: true });
  assert.ok(r.error instanceof ModelLockLostError);
  assert.deepEqual(r.error.discarded, [V2]);
  assert.ok(r.warnings.includes("a:refresh_failed"));
  assert.equal((await cacheFiles(r.a))[`${V2}/raw`], undefined);
  assert.deepEqual(r.a.state.dirtyPaths(), []);
  assert.equal((await cacheFiles(r.a))[MARKER], "1");
  const later = await r.a.pushChanged();
  assert.deepEqual(later.uploaded, []);
  assert.equal(storeHasA(r.store), false);
  assert.equal(r.store.peekText(MARKER), "1");
  await r.b.pullChanged();
  assert.equal((await cacheFiles(r.b))[`${V2}/raw`], undefined);
});

/** The refresh pull fails (its first request, the read of the index's meta, is refused). */
const failRefresh = (w: { store: InMemoryStore }) =>
  w.store.failNext("get", 1, undefined, { match: (k) => k === META_KEY });

Deno.test("breakglass with a failed refresh, eraser off: a later sync overwrites B's version", async () => {
  const r = await breakglass({ fence: true, eraser: false }, failRefresh);
  assert.equal(r.error?.code, "model_lock_lost");
  assert.equal(r.store.peekText(`${V2}/raw`), "B's data");
  await r.a.pushChanged();
  assert.equal(r.store.peekText(`${V2}/raw`), "A's data"); // B's acknowledged write is lost
});

Deno.test("breakglass with a failed refresh, eraser on: B's version survives a later sync", async () => {
  const r = await breakglass({ fence: true, eraser: true }, failRefresh);
  assert.ok(r.error instanceof ModelLockLostError);
  assert.ok(r.warnings.includes("a:refresh_failed"));
  assert.deepEqual((await r.a.pushChanged()).uploaded, []);
  assert.equal(r.store.peekText(`${V2}/raw`), "B's data");
  assert.equal(r.store.peekText(MARKER), "2");
  assert.equal(storeHasA(r.store), false);
  await r.a.pullChanged();
  assert.deepEqual(await cacheFiles(r.a), storeFiles(r.store));
});

Deno.test("breakglass, eraser on: a refusal whose refresh succeeds leaves A's cache equal to the store", async () => {
  const r = await breakglass({ fence: true, eraser: true });
  assert.ok(r.error instanceof ModelLockLostError);
  assert.ok(!r.warnings.includes("a:refresh_failed"));
  const files = await cacheFiles(r.a);
  assert.equal(files[`${V2}/raw`], "B's data");
  assert.deepEqual(files, storeFiles(r.store));
  assert.deepEqual(r.a.state.dirtyPaths(), []);
});

/** The lock is force-released while A's first version file is being uploaded. */
async function lostDuringUpload(gates: Gates) {
  const other: { b?: SyncService } = {};
  let broken = false;
  const w = await world(gates, {
    onWrite: async (ctx) => {
      if (broken || !other.b || !ctx.key.startsWith(`${V2}/`)) return;
      broken = true;
      await releaseLock(other.b, { model: "t/m", force: true });
    },
  });
  other.b = w.b;
  const setA = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, "A's data");
  const error = await setA.push([dirA]).then(() => undefined, (e) => e);
  await setA.release();
  return { ...w, error, broken };
}

Deno.test("pre-commit fence, eraser off: A's uploaded version files stay on the store", async () => {
  const r = await lostDuringUpload({ fence: true, eraser: false });
  assert.ok(r.broken);
  assert.equal(r.error?.code, "model_lock_lost");
  assert.equal(r.store.peekText(`${V2}/raw`), "A's data");
});

Deno.test("pre-commit fence, eraser on: the objects A already uploaded are deleted", async () => {
  const r = await lostDuringUpload({ fence: true, eraser: true });
  assert.ok(r.broken);
  assert.ok(r.error instanceof ModelLockLostError);
  assert.deepEqual(r.store.keys(`${V2}/`), []);
  assert.equal(r.store.peekText(MARKER), "1"); // the marker was never committed
  assert.deepEqual((await r.a.pushChanged()).uploaded, []);
  assert.equal(storeHasA(r.store), false);
});

Deno.test("pre-commit refusal under the create-only writer: a peer's equal object is kept", async () => {
  const other: { b?: SyncService } = {};
  const w = await world({ fence: true, eraser: true }, {
    createOnly: true,
    onWrite: async (ctx) => {
      if (!other.b || !ctx.key.startsWith(`${V2}/`)) return;
      await releaseLock(other.b, { model: "t/m", force: true });
      other.b = undefined;
    },
  });
  const setA = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, "A's data");
  w.store.seed(`${V2}/raw`, "A's data"); // a peer published equal bytes first
  other.b = w.b;
  const error = await setA.push([dirA]).then(() => undefined, (e) => e);
  await setA.release();
  assert.ok(error instanceof ModelLockLostError);
  assert.equal(w.store.peekText(`${V2}/raw`), "A's data"); // the peer's object, not deleted
  assert.equal(w.store.peek(`${V2}/metadata.yaml`), undefined); // A's own upload, deleted
});

/** Breakglass where A's process dies right after the erasure journal is written. */
async function crashAfterJournal(gates: Gates, restartGates: Gates) {
  let crashed = false;
  const r = await breakglass(gates, (w) => {
    // The erasure's first step after the journal: the dirty set.
    const clean = w.a.state.clean.bind(w.a.state);
    w.a.state.clean = (paths: readonly string[]) => {
      if (crashed) return clean(paths);
      crashed = true;
      return Promise.reject(new Error("the process died"));
    };
  });
  const restarted = await r.clone("a", 1, r.a.cacheDir, restartGates);
  return { ...r, crashed, restarted };
}

Deno.test("crash after the refusal, restarted without the eraser: the refused run is pushed", async () => {
  const r = await crashAfterJournal({ fence: true, eraser: true }, { fence: true, eraser: false });
  assert.ok(r.crashed);
  await r.restarted.pushChanged();
  assert.equal(r.store.peekText(`${V2}/raw`), "A's data");
});

Deno.test("crash after the refusal: a restarted clone pushes nothing of the refused run", async () => {
  const r = await crashAfterJournal({ fence: true, eraser: true }, { fence: true, eraser: true });
  assert.ok(r.crashed);
  assert.equal(r.error?.code, "model_lock_lost"); // the refusal still surfaces, not the I/O error
  assert.ok(r.warnings.includes("a:erasure_incomplete"));
  assert.ok((await r.restarted.cache.readState(ERASURE_JOURNAL)) !== null);
  const result = await r.restarted.pushChanged();
  assert.deepEqual(result.uploaded, []);
  assert.equal(r.store.peekText(`${V2}/raw`), "B's data");
  assert.equal(storeHasA(r.store), false);
  assert.deepEqual(await cacheFiles(r.restarted), storeFiles(r.store)); // refreshed
  assert.deepEqual(r.restarted.state.dirtyPaths(), []);
});

Deno.test("a version directory that existed before the run is kept, held, and released on request", async () => {
  const w = await world({ fence: true, eraser: true });
  const earlier = await writeVersion(w.a, 2, "A's earlier, unpushed data");
  const setA = await acquireModelLocks(w.a, ["t/m"]);
  assert.ok(setA.preexisting.has(earlier));
  await Deno.writeTextFile(`${w.a.cacheDir}/${earlier}/raw`, "A's data"); // the run writes into it
  await releaseLock(w.b, { model: "t/m", force: true });
  const error = await setA.push([earlier]).then(() => undefined, (e) => e);
  await setA.release();
  assert.ok(error instanceof ErasureRefusedError);
  assert.match(error.message, /data\/t\/m\/d\/2: it existed in the cache before the run started/);
  assert.equal((await cacheFiles(w.a))[`${V2}/raw`], "A's data");
  assert.deepEqual((await w.a.pushChanged()).uploaded, []); // held out of a plain sync
  assert.equal(storeHasA(w.store), false);
  assert.ok(w.warnings.includes("a:erasure_held"));
  await resolveHeldVersions(w.a, [earlier], "discard");
  assert.equal((await cacheFiles(w.a))[`${V2}/raw`], undefined);
  assert.deepEqual(w.a.state.dirtyPaths(), []);
  await w.a.pushChanged();
  assert.equal(storeHasA(w.store), false);
});

/** A, under its lock, prepares version 2 with `text` (uploaded, not committed); a breakglass frees the lock. */
async function preparedThenBroken(
  gates: Gates,
  text: string,
  beforeDelete?: (key: string) => Promise<void>,
) {
  const w = await world(gates, { createOnly: true, beforeDelete });
  const setA = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, text);
  const prepared = await w.a.preparePush({
    locks: setA.locks,
    written: [dirA],
    preexisting: setA.preexisting,
    models: setA.models,
  });
  await releaseLock(w.b, { model: "t/m", force: true });
  return { w, setA, dirA, prepared };
}

/** B, under its lock, prepares version 2 with the same output as A's (uploaded, not committed). */
async function prepareSameOutput(b: SyncService) {
  const setB = await acquireModelLocks(b, ["t/m"]);
  const dirB = await writeVersion(b, 2, "same output");
  const preparedB = await b.preparePush({
    locks: setB.locks,
    written: [dirB],
    preexisting: setB.preexisting,
    models: setB.models,
  });
  return { setB, preparedB };
}

/** Two-phase: A prepares version 2 under its lock, a breakglass frees it, then A commits. */
async function twoPhaseBreakglass(gates: Gates) {
  const { w, setA, dirA, prepared } = await preparedThenBroken(gates, "A's data");
  const error = await w.a.commitPush(prepared).then(() => undefined, (e) => e);
  await setA.release();
  // B takes the lock and publishes its own version 2.
  const setB = await acquireModelLocks(w.b, ["t/m"]);
  const errorB = await setB.push([await writeVersion(w.b, 2, "B's data")]).then(
    () => undefined,
    (e) => e,
  );
  await setB.release();
  return { ...w, error, errorB, dirA };
}

Deno.test("two-phase, eraser off: A's prepared version 2 stays in the store and blocks B's", async () => {
  const r = await twoPhaseBreakglass({ fence: true, eraser: false });
  assert.ok(r.error instanceof ModelLockLostError);
  assert.equal(r.store.peekText(`${V2}/raw`), "A's data");
  // B waits on A's upload, not committed: its version stays dirty, not lost.
  assert.equal(r.errorB?.code, "sync_incomplete");
});

Deno.test("two-phase, eraser on: a refused commit erases A's prepared uploads, and B publishes version 2", async () => {
  const r = await twoPhaseBreakglass({ fence: true, eraser: true });
  assert.ok(r.error instanceof ModelLockLostError);
  assert.equal(r.errorB, undefined);
  assert.equal(r.store.peekText(`${V2}/raw`), "B's data");
  assert.ok(!storeHasA(r.store), "nothing of A's refused run is left in the store");
  assert.ok(!(await cacheFiles(r.a))[`${V2}/raw`], "A's refused version left its cache");
});

/**
 * Two-phase, and B's run writes the same output as A's (a deterministic
 * run): B's create-only writes meet A's uncommitted objects with equal
 * bytes and commit them as B's published version 2.
 */
async function twoPhaseSameOutput(gates: Gates) {
  const { w, setA, prepared } = await preparedThenBroken(gates, "same output");
  const setB = await acquireModelLocks(w.b, ["t/m"]);
  await setB.push([await writeVersion(w.b, 2, "same output")]);
  await setB.release();
  const error = await w.a.commitPush(prepared).then(() => undefined, (e) => e);
  await setA.release();
  const fresh = await w.clone("c", 3);
  await fresh.pullChanged();
  return { ...w, error, fresh };
}

Deno.test("two-phase, B's run wrote the same output: A's refused commit keeps B's published version 2", async () => {
  const r = await twoPhaseSameOutput({ fence: true, eraser: true });
  assert.ok(r.error instanceof ModelLockLostError);
  assert.equal(r.store.peekText(`${V2}/raw`), "same output", "B's published object stays");
  assert.equal((await cacheFiles(r.fresh))[`${V2}/raw`], "same output");
  assert.equal((await cacheFiles(r.fresh))[MARKER], "2");
});

Deno.test("two-phase, B's same-output run prepared before A's refused commit: B's commit finds its files gone and writes them again at once, and version 2 is published whole", async () => {
  const { w, setA, prepared } = await preparedThenBroken(
    { fence: true, eraser: true },
    "same output",
  );
  const { setB, preparedB } = await prepareSameOutput(w.b);
  // A's refused commit erases its uploads: B met them with equal bytes, not committed yet.
  const error = await w.a.commitPush(prepared).then(() => undefined, (e) => e);
  await setA.release();
  assert.ok(error instanceof ModelLockLostError);
  const rb = await w.b.commitPush(preparedB);
  await setB.release();
  assert.deepEqual(
    [...rb.uploaded, ...rb.identical].sort(),
    [`${V2}/metadata.yaml`, `${V2}/raw`, MARKER],
    "written again by B, as B's own, with its marker",
  );
  assert.deepEqual(rb.skipped.filter((s) => s.keepDirty), []);
  assert.ok(!w.warnings.includes("b:unpublished_before_commit"), "nothing left to warn of");
  assert.deepEqual(w.b.state.dirtyPaths(), []);
  const fresh = await w.clone("c", 3);
  await fresh.pullChanged();
  assert.equal((await cacheFiles(fresh))[`${V2}/raw`], "same output");
  assert.equal((await cacheFiles(fresh))[MARKER], "2");
});

Deno.test("two-phase, B's same-output commit lands between A's erasure's index read and its delete: A puts the objects back, and no clone loses version 2", async () => {
  let commitB: (() => Promise<unknown>) | undefined;
  let rb: Awaited<ReturnType<SyncService["commitPush"]>> | undefined;
  const { w, setA, prepared } = await preparedThenBroken(
    { fence: true, eraser: true },
    "same output",
    async (key) => {
      // A's erasure has read the index (version 2 not named); B's commit,
      // whose check found the objects there, lands before A's delete.
      if (commitB && key.startsWith(`${V2}/`)) {
        const go = commitB;
        commitB = undefined;
        rb = await go() as typeof rb;
      }
    },
  );
  const { setB, preparedB } = await prepareSameOutput(w.b);
  commitB = () => w.b.commitPush(preparedB);
  const error = await w.a.commitPush(prepared).then(() => undefined, (e) => e);
  await setA.release();
  await setB.release();
  assert.ok(error instanceof ModelLockLostError);
  assert.deepEqual(rb?.identical.sort(), [`${V2}/metadata.yaml`, `${V2}/raw`]);
  assert.equal(w.store.peekText(`${V2}/raw`), "same output", "put back");
  // Every clone has B's acknowledged version 2, B's too after its pull.
  const fresh = await w.clone("c", 3);
  await fresh.pullChanged();
  await w.b.pullChanged();
  for (const svc of [fresh, w.b]) {
    assert.equal((await cacheFiles(svc))[`${V2}/raw`], "same output");
    assert.equal((await cacheFiles(svc))[MARKER], "2");
  }
  assert.ok(w.warnings.includes("a:erasure_restored"), w.warnings.join(", "));
});

Deno.test("two-phase, B's same-output commit lands whole before A's erasure deletes, and a third clone pulls between A's delete and its second look: nothing is lost", async () => {
  let step = 0;
  // Set once B and C exist.
  const late: { commitB?: () => Promise<unknown>; pullC?: () => Promise<unknown> } = {};
  const { w, setA, prepared } = await preparedThenBroken(
    { fence: true, eraser: true },
    "same output",
    async (key) => {
      if (!key.startsWith(`${V2}/`)) return;
      step++;
      // Before A's first delete, B's commit lands, its look after it too;
      // before the second, C pulls and meets the first file's entry with
      // nothing behind it.
      if (step === 1) await late.commitB!();
      if (step === 2) await late.pullC!();
    },
  );
  const { setB, preparedB } = await prepareSameOutput(w.b);
  const c = await w.clone("c", 3);
  late.commitB = () => w.b.commitPush(preparedB);
  late.pullC = () => c.pullChanged();
  const error = await w.a.commitPush(prepared).then(() => undefined, (e) => e);
  await setA.release();
  await setB.release();
  assert.ok(error instanceof ModelLockLostError);
  assert.ok(step >= 2, "both deletes were reached");
  for (const svc of [c, w.b]) {
    await svc.pullChanged();
    assert.equal((await cacheFiles(svc))[`${V2}/raw`], "same output");
    assert.equal((await cacheFiles(svc))[`${V2}/metadata.yaml`], "version: 2\n");
  }
});

Deno.test("two-phase, the erasure's second look at the index fails once after a same-output commit named its object: the next push puts it back from the bytes the erasure kept", async () => {
  const late: { commitB?: () => Promise<unknown>; store?: InMemoryStore } = {};
  const { w, setA, prepared } = await preparedThenBroken(
    { fence: true, eraser: true },
    "same output",
    async (key) => {
      if (late.commitB && key.startsWith(`${V2}/`)) {
        const go = late.commitB;
        late.commitB = undefined;
        await go();
        // The erasure's next index read fails once.
        late.store!.failNext("get", 1, undefined, {
          match: (k) => k === ".datastore-index.json" || k.startsWith("_index/"),
        });
      }
    },
  );
  late.store = w.store;
  const { setB, preparedB } = await prepareSameOutput(w.b);
  late.commitB = () => w.b.commitPush(preparedB);
  const error = await w.a.commitPush(prepared).then(() => undefined, (e) => e);
  await setA.release();
  await setB.release();
  assert.ok(error instanceof ModelLockLostError, String(error));
  assert.equal((await cacheFiles(w.a))[`${V2}/raw`], undefined, "the refused run left A's cache");
  // A's next push completes the erasure: the peer's named objects are put back.
  await w.a.pushChanged();
  assert.ok(w.warnings.includes("a:erasure_restored"), w.warnings.join(", "));
  const fresh = await w.clone("c", 3);
  pastGrace(fresh);
  await fresh.pullChanged();
  assert.equal((await cacheFiles(fresh))[`${V2}/raw`], "same output", "B's version 2 is whole");
  assert.equal((await cacheFiles(fresh))[`${V2}/metadata.yaml`], "version: 2\n");
  assert.equal(await readErasureJournal(w.a.cache).then((j) => j.trash.length), 0, "nothing kept");
});

Deno.test("a refused run's upload its erasure could not delete yet holds the next run of that version back, never losing it to that leftover", async () => {
  const other: { b?: SyncService } = {};
  // The store fails two deletes of one upload, answering every other call.
  let fails = 2;
  const w = await world({ fence: true, eraser: true }, {
    createOnly: true,
    onWrite: async (ctx) => {
      if (!other.b || !ctx.key.startsWith(`${V2}/`)) return;
      await releaseLock(other.b, { model: "t/m", force: true });
      other.b = undefined;
    },
    beforeDelete: (key) =>
      key === `${V2}/metadata.yaml` && fails-- > 0
        ? Promise.reject(new UnreachableError(`delete ${key}: unreachable`))
        : Promise.resolve(),
  });
  // A's run is refused for its lost lock once its uploads landed; its
  // erasure cannot delete one of them (left pending).
  other.b = w.b;
  const first = await acquireModelLocks(w.a, ["t/m"]);
  const error = await first.push([await writeVersion(w.a, 2, "A's data")])
    .then(() => undefined, (e) => e);
  await first.release();
  assert.ok(error instanceof ModelLockLostError);
  assert.ok(w.warnings.includes("a:erasure_pending"));
  assert.equal(w.store.peekText(`${V2}/metadata.yaml`), "version: 2\n");
  // A runs again and writes version 2 anew, other bytes; its push's erasure
  // still cannot delete the refused run's upload in the way.
  const again = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, "A's second data");
  await Deno.writeTextFile(`${w.a.cacheDir}/${V2}/metadata.yaml`, "version: 2\nrun: second\n");
  const second = await again.push([dirA]).then(() => undefined, (e) => e);
  await again.release();
  assert.notEqual(second?.code, "version_exists", String(second));
  assert.equal(await Deno.readTextFile(`${w.a.cacheDir}/${V2}/raw`), "A's second data");
  assert.ok(w.a.state.dirtyPaths().includes(`${V2}/raw`));
  // The next push erases the leftover and publishes the second run's version.
  await w.a.pushChanged();
  assert.equal(w.store.peekText(`${V2}/raw`), "A's second data");
  assert.equal(journalPending(await readErasureJournal(w.a.cache)), false);
  await w.b.pullChanged();
  assert.equal(await Deno.readTextFile(`${w.b.cacheDir}/${V2}/raw`), "A's second data");
});
