import assert from "node:assert/strict";
import { hookedStore, InMemoryStore, mockPushContext } from "../packages/testing/mod.ts";
import { clone, processOver } from "../sync/service/clone_kit.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";
import type { SyncService } from "../sync/service/service.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { ModelLockLostError } from "../sync/lock_errors.ts";
import { ErasureRefusedError } from "./erasure.ts";
import { emptyJournal } from "./erasure_journal.ts";
import { refuse } from "./refused_run_steps.ts";

const DIR = "data/t/m/out/1";
const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const lost = () => new ModelLockLostError([{ key: "data/t/m/.lock", newHolder: "b@host (pid 2)" }]);

/** A push context whose run wrote `DIR` (its files in the cache) under the lock now lost. */
async function runWrote(preexisting: ReadonlySet<string> = new Set()) {
  const m = await mockPushContext({ written: [DIR], preexisting, models: ["t/m"] });
  await m.cache.write(`${DIR}/raw`, new TextEncoder().encode("run's output"));
  await m.cache.write(`${DIR}/metadata.yaml`, new TextEncoder().encode("version: 1\n"));
  return m;
}

Deno.test("refuse: a run's own version is erased from the cache, named as discarded, its model refreshed, and the lock's loss rethrown", async () => {
  const m = await runWrote();
  const err = lost();
  const thrown = await refuse(m.ctx, err, emptyJournal(), []).then(
    () => assert.fail("refused"),
    (e: unknown) => e,
  );
  assert.equal(thrown, err, "the lock's loss, rethrown");
  assert.deepEqual(err.discarded, [DIR]);
  assert.equal(m.cache.exists(`${DIR}/raw`), false, "erased from the cache");
  assert.deepEqual(m.refreshed, [["data/t/m"]]);
});

Deno.test("refuse: a version directory there before the run cannot be told from another run's: held, nothing erased", async () => {
  const m = await runWrote(new Set([DIR]));
  const thrown = await refuse(m.ctx, lost(), emptyJournal(), []).then(
    () => assert.fail("refused"),
    (e: unknown) => e,
  );
  assert.ok(thrown instanceof ErasureRefusedError, String(thrown));
  assert.equal(thrown.code, "erasure_refused");
  assert.equal(m.cache.exists(`${DIR}/raw`), true, "its files kept");
});

for (
  const shape of ["made, holding nothing yet", "holding its raw, no metadata.yaml yet", "whole"]
) {
  Deno.test(`refuse: a run's version directory ${shape} is erased; the refresh fetches nothing into it unless it was whole`, async () => {
    const left: (readonly string[] | undefined)[] = [];
    const m = await mockPushContext({
      written: [DIR],
      preexisting: new Set(),
      models: ["t/m"],
      refresh: (_prefixes, leave) => {
        left.push(leave);
        return Promise.resolve();
      },
    });
    if (shape !== "made, holding nothing yet") {
      await m.cache.write(`${DIR}/raw`, new TextEncoder().encode("run's output"));
    }
    if (shape === "whole") {
      await m.cache.write(`${DIR}/metadata.yaml`, new TextEncoder().encode("version: 1\n"));
    }
    const err = lost();
    await refuse(m.ctx, err, emptyJournal(), []).then(() => assert.fail("refused"), () => {});
    assert.deepEqual(err.discarded, [DIR]);
    assert.deepEqual(m.refreshed, [["data/t/m"]]);
    // The run's writer may go on writing into a directory it has not
    // finished: the datastore's copy of that version is not put there.
    assert.deepEqual(left, [shape === "whole" ? [] : [DIR]]);
  });
}

// --- end to end: an earlier push of the run stopped before its commit ---

const DATA = "data/t/m/d";
const V1 = `${DATA}/1`;

async function writeVersion(svc: SyncService, text: string, meta: string): Promise<string> {
  await Deno.mkdir(`${svc.cacheDir}/${V1}`, { recursive: true });
  await Deno.writeTextFile(`${svc.cacheDir}/${V1}/raw`, text);
  await Deno.writeTextFile(`${svc.cacheDir}/${V1}/metadata.yaml`, meta);
  await Deno.writeTextFile(`${svc.cacheDir}/${DATA}/latest`, "1");
  await svc.markDirty({ relPaths: [`${V1}/raw`, `${V1}/metadata.yaml`, `${DATA}/latest`] });
  return V1;
}

/**
 * `inner` seen through a store that makes it unreachable once both files of
 * version 1 have landed: the first push of that version stops between its
 * uploads and its commit.
 */
function downOnceV1Landed(inner: InMemoryStore): InMemoryStore {
  let landed = 0;
  let armed = true;
  return hookedStore(inner, {
    after: (key) => {
      if (armed && key.startsWith(`${V1}/`) && ++landed === 2) {
        armed = false;
        inner.unreachable = true;
      }
      return Promise.resolve();
    },
  });
}

/**
 * A's first push of version 1 stops between its uploads and its commit; a
 * breakglass frees the lock, and the run's next push is refused for it
 * (with `failLook`, the datastore failing every look at version 1's paths
 * meanwhile; with `lookAgain`, failing too the next push's erasure's looks
 * at them). A's next run then writes version 1 anew and must publish it.
 */
async function refusedAfterStoppedPush(failLook: boolean, lookAgain = false) {
  const inner = new InMemoryStore();
  const store = downOnceV1Landed(inner);
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  const run = await acquireModelLocks(a, ["t/m"]);
  const dir = await writeVersion(a, "A's data", "version: 1\n");
  const stopped = await run.push([dir]).then(() => undefined, (e) => e);
  assert.ok(stopped, "the first push stopped before its commit");
  inner.unreachable = false;
  assert.equal(inner.peekText(`${V1}/raw`), "A's data", "its uploads landed, named by no index");
  // A breakglass frees the lock; the run's next push is refused for it.
  await releaseLock(b, { model: "t/m", force: true });
  if (failLook) inner.failNext("head", 1000, undefined, { match: (k) => k.startsWith(`${V1}/`) });
  const refused = await run.push([dir]).then(() => undefined, (e) => e);
  inner.heal();
  assert.ok(refused instanceof ModelLockLostError, String(refused));
  await run.release();
  if (failLook) {
    // Not looked at: left, and said to be left, for the next push to erase.
    assert.equal(inner.peekText(`${V1}/raw`), "A's data");
    assert.ok(refused.message.includes("erasure_pending"), refused.message);
    assert.ok(refused.message.includes(`${V1}/raw`), refused.message);
    assert.ok(!refused.message.includes("Nothing was pushed"), refused.message);
  } else {
    assert.equal(inner.peekText(`${V1}/raw`), undefined, "the refused run's upload is erased");
    assert.equal(inner.peekText(`${V1}/metadata.yaml`), undefined);
  }
  // A's next run writes version 1 anew, other bytes, and publishes it.
  const again = await acquireModelLocks(a, ["t/m"]);
  await writeVersion(a, "A's second data", "version: 1\nrun: second\n");
  if (lookAgain) {
    // The erasure's looks fail again: the version waits on the uploads, never lost to them.
    inner.failNext("head", 2, undefined, { match: (k) => k.startsWith(`${V1}/`) });
    const waited = await again.push([dir]).then(() => undefined, (e) => e);
    assert.ok(a.state.dirtyPaths().some((p) => p.startsWith(`${V1}/`)), String(waited));
    assert.equal(await Deno.readTextFile(`${a.cacheDir}/${V1}/raw`), "A's second data");
  }
  const second = await again.push([dir]).then(() => undefined, (e) => e);
  await again.release();
  assert.equal(second, undefined, String(second));
  const index = await readIndex(inner, { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 });
  assert.ok(index && Object.hasOwn(index.entries, `${V1}/raw`), "version 1 is published");
  assert.equal(inner.peekText(`${V1}/raw`), "A's second data");
}

Deno.test("a run refused for its lost lock erases the uploads an earlier push of its version left uncommitted, so the next run of that version is not lost to them", async () => {
  await refusedAfterStoppedPush(false);
});

Deno.test("uploads an earlier push left that the refusal could not look at are said to be left and erased by the next push, so the next run of that version is not lost to them", async () => {
  await refusedAfterStoppedPush(true);
});

Deno.test("uploads an earlier push left that neither the refusal nor the next push's erasure could look at hold the next run's version back, never lose it to them", async () => {
  await refusedAfterStoppedPush(true, true);
});

/**
 * Chaos seed 218600236 (I1): A's run is refused for its lost lock once its
 * uploads landed, and its erasure cannot delete one of them yet (left
 * pending). B's run writes the same bytes there: its create meets A's
 * upload, takes it as its own and commits it. A second process over A's
 * cache pushes, and its erasure finds the upload named: kept, B's. A's
 * first process, which recorded the upload as its write, then pushes: the
 * version B published must stay named and on the datastore.
 */
Deno.test("a refused run's upload a peer committed as its own, kept by another process's erasure over the same cache, is never taken back by the refused run's process", async () => {
  const inner = new InMemoryStore();
  const store = downOnceV1Landed(inner);
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-a-" });
  const a = await processOver(store, cacheDir, 1);
  const b = await clone(store, "b");
  const run = await acquireModelLocks(a, ["t/m"]);
  const dir = await writeVersion(a, "A's data", "version: 1\n");
  assert.ok(await run.push([dir]).then(() => undefined, (e) => e), "stopped before its commit");
  inner.unreachable = false;
  await releaseLock(b, { model: "t/m", force: true });
  // The refusal's erasure cannot delete the upload of metadata.yaml yet.
  inner.failNext("delete", 1000, undefined, { match: (k) => k === `${V1}/metadata.yaml` });
  const refused = await run.push([dir]).then(() => undefined, (e) => e);
  inner.heal();
  await run.release();
  assert.ok(refused instanceof ModelLockLostError, String(refused));
  assert.equal(inner.peekText(`${V1}/metadata.yaml`), "version: 1\n", "left pending");
  // B's run writes the same metadata: its create meets A's upload and commits it.
  const other = await acquireModelLocks(b, ["t/m"]);
  await writeVersion(b, "B's data", "version: 1\n");
  const published = await other.push([V1]).then(() => undefined, (e) => e);
  await other.release();
  assert.equal(published, undefined, String(published));
  const named = async () => (await readIndex(inner, NO_RETRY))?.entries[`${V1}/metadata.yaml`];
  const entry = await named();
  assert.ok(entry, "B's commit names the upload it met");
  // A's process pulls; then another process over A's cache completes the
  // erasure: the upload is B's, kept.
  await a.pullChanged();
  await (await processOver(store, cacheDir, 2)).pushChanged();
  assert.equal(inner.peekText(`${V1}/metadata.yaml`), "version: 1\n");
  // A's process runs again, writes version 2 and pushes it: B's version 1 stays.
  const next = await acquireModelLocks(a, ["t/m"]);
  const v2 = `${DATA}/2`;
  await Deno.mkdir(`${a.cacheDir}/${v2}`, { recursive: true });
  await Deno.writeTextFile(`${a.cacheDir}/${v2}/raw`, "A's next data");
  await Deno.writeTextFile(`${a.cacheDir}/${v2}/metadata.yaml`, "version: 2\n");
  await Deno.writeTextFile(`${a.cacheDir}/${DATA}/latest`, "2");
  await a.markDirty({ relPaths: [`${v2}/raw`, `${v2}/metadata.yaml`, `${DATA}/latest`] });
  const pushed = await next.push([v2]).then(() => undefined, (e) => e);
  await next.release();
  assert.equal(pushed, undefined, String(pushed));
  assert.deepEqual(await named(), entry, "B's version stays named");
  assert.equal(inner.peekText(`${V1}/metadata.yaml`), "version: 1\n", "and on the datastore");
});
