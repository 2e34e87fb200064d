/**
 * A held version whose files the datastore's index names: a push naming no
 * model published the run's version while the run still held its model
 * lock; the lock is broken, a peer builds the next version on it, and the
 * run's own flush is refused with the version held (it holds files synced
 * before the flush). That version is the datastore's now: discarding the
 * held version (`sluice held <dir> --discard`, which runs in a process of
 * its own beside the one the run ran in) must never turn into its deletion
 * by a later push, and what is said of it must say it was published.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { ErasureRefusedError, resolveHeldVersions } from "./erasure.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";
import { readIndex } from "../sync/transfer/remote_index.ts";
import { clone, put, quick, read } from "../sync/service/clone_kit.ts";
import type { SyncService } from "../sync/service/service.ts";

const MODEL = "shell/m1";
const DATA = `data/${MODEL}/state`;
const V2 = `${DATA}/2`;
const MARKER = `${DATA}/latest`;

/** Writes version `n` of the data as a run does: the data directory marked, then the version's files and the marker. */
async function writeVersion(svc: SyncService, n: number, text: string): Promise<void> {
  await svc.markDirty({ relPath: DATA });
  await put(svc, `${DATA}/${n}/raw`, text);
  await put(svc, `${DATA}/${n}/metadata.yaml`, `version: ${n}\n`);
  await put(svc, MARKER, String(n));
}

/**
 * Clone a's run writes version 2 under its model lock; a push naming no
 * model (a structural command of the same cache) publishes it meanwhile.
 * The lock is broken, b builds version 3 on it, and a's flush is refused:
 * version 2 is held.
 */
async function publishedThenHeld(afterPublished?: (a: SyncService) => Promise<void>) {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const seed = await acquireModelLocks(a, [MODEL]);
  await writeVersion(a, 1, "seed");
  await seed.push([`${DATA}/1`]);
  await seed.release();
  const run = await acquireModelLocks(a, [MODEL]);
  await writeVersion(a, 2, "a's v2");
  const structural = await a.pushChanged();
  assert.ok(structural.uploaded.includes(`${V2}/raw`), "published by the push naming no model");
  await afterPublished?.(a);
  const b = await clone(store, "b");
  await releaseLock(b, { model: MODEL, force: true }); // the breakglass
  const peer = await acquireModelLocks(b, [MODEL]);
  await writeVersion(b, 3, "b's v3, built on v2");
  await peer.push([`${DATA}/3`]);
  await peer.release();
  const error = await run.push([V2]).then(() => undefined, (e) => e);
  await run.release();
  assert.ok(error instanceof ErasureRefusedError, String(error));
  assert.deepEqual(error.held, [V2]);
  return { store, a, b, error };
}

/** The run's next method run on the same service: its scoped pull, a new version, its flush. */
async function nextRun(a: SyncService): Promise<void> {
  const run = await acquireModelLocks(a, [MODEL]);
  try {
    await writeVersion(a, 4, "a's next");
    await run.push([`${DATA}/4`]);
  } finally {
    await run.release();
  }
}

async function assertV2Published(store: InMemoryStore, why: string): Promise<void> {
  assert.equal(store.peekText(`${V2}/raw`), "a's v2", why);
  assert.equal(store.peekText(`${V2}/metadata.yaml`), "version: 2\n", why);
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.ok(Object.hasOwn(entries, `${V2}/raw`), `${why}: the index still names it`);
}

for (const where of ["another process over the cache", "the run's own service"]) {
  Deno.test(`a held version the index names, discarded from ${where}: no later push deletes it, and a fresh clone still gets it`, async () => {
    const { store, a } = await publishedThenHeld();
    // `sluice held --discard` runs in a process of its own over a's cache.
    const resolver = where === "the run's own service" ? a : await clone(store, "a", a.cacheDir);
    assert.deepEqual(await resolveHeldVersions(resolver, [V2], "discard"), [V2]);
    await assertV2Published(store, "the discard deletes nothing published");
    await nextRun(a);
    await assertV2Published(store, "the next push deletes nothing published");
    await a.pushChanged();
    await assertV2Published(store, "nor does a later one");
    const fresh = await clone(store, "fresh");
    await fresh.pullChanged();
    assert.equal(await read(fresh, `${V2}/raw`), "a's v2");
    assert.equal(await read(fresh, `${DATA}/3/raw`), "b's v3, built on v2");
    // The datastore's copy of version 2 is a's again (kept, or pulled back).
    await a.pullChanged();
    assert.equal(await read(a, `${V2}/raw`), "a's v2");
  });
}

Deno.test("a held version the index names, released with keep: the next pushes delete nothing and write nothing over it", async () => {
  const { store, a } = await publishedThenHeld();
  const cli = await clone(store, "a", a.cacheDir);
  assert.deepEqual(await resolveHeldVersions(cli, [V2], "keep"), [V2]);
  const pushed = await cli.pushChanged();
  assert.deepEqual(pushed.deleted, []);
  await nextRun(a);
  await assertV2Published(store, "kept");
  assert.equal(store.peekText(MARKER), "4");
});

Deno.test("the refusal of a version published before its flush says so: which files stay published, never that nothing was pushed or that they were synced before the run", async () => {
  const { error } = await publishedThenHeld();
  assert.doesNotMatch(error.message, /Nothing was pushed/);
  assert.doesNotMatch(error.message, /before this run\b/);
  assert.match(
    error.message,
    /data\/shell\/m1\/state\/2\/metadata\.yaml, data\/shell\/m1\/state\/2\/raw/,
  );
  assert.match(error.message, /published on the datastore/);
  assert.deepEqual((error as { published?: unknown }).published, [
    `${V2}/metadata.yaml`,
    `${V2}/raw`,
  ]);
});

Deno.test("a held version the index names, a file of which the run changed after it was published, discarded from another process: the datastore's bytes are put back and no later push deletes or overwrites it", async () => {
  const { store, a } = await publishedThenHeld(async (svc) => {
    await put(svc, `${V2}/metadata.yaml`, "version: 2\nchanged by the run after its publication\n");
  });
  const cli = await clone(store, "a", a.cacheDir);
  assert.deepEqual(await resolveHeldVersions(cli, [V2], "discard"), [V2]);
  assert.equal(await read(a, `${V2}/metadata.yaml`), "version: 2\n", "the datastore's copy");
  await nextRun(a);
  await a.pushChanged();
  await assertV2Published(store, "the run's change discarded, the published file kept");
});

Deno.test("a held version the index names, a file of which the run deleted after it was published, discarded from another process: the datastore's copy is put back and no later push deletes it", async () => {
  const { store, a } = await publishedThenHeld(async (svc) => {
    await Deno.remove(`${svc.cacheDir}/${V2}/raw`);
    await svc.markDirty({ relPath: `${V2}/raw` });
  });
  const cli = await clone(store, "a", a.cacheDir);
  assert.deepEqual(await resolveHeldVersions(cli, [V2], "discard"), [V2]);
  assert.equal(await read(a, `${V2}/raw`), "a's v2", "the datastore's copy");
  await nextRun(a);
  await a.pushChanged();
  await assertV2Published(store, "the run's deletion discarded, the published file kept");
});
