import assert from "node:assert/strict";
import { LOCKFILE_GUARD, lockfileGuard, lockfileGuardEntry } from "./lockfile_guard.ts";
import { CONFIG_CAS_WRITER, configCasWriter } from "./config_cas_writer.ts";
import { PATH_CLASSIFIER, pathClassifier } from "./path_classifier.ts";
import { PUSH_PHASES, type PushContext, WRITE_PHASES, type WriteContext } from "../sync/context.ts";
import type { WarningEvent } from "../sync/events.ts";
import { sha256Hex } from "../sync/hash.ts";
import { storeLockBackend } from "../sync/locks/lock_engine.ts";
import {
  MANAGED_LOCKFILE_PATH,
  retryPendingLockfile,
  updateManagedLockfile,
} from "../sync/locks/lockfile_txn.ts";
import { Pipeline } from "../sync/pipeline.ts";
import { PutModes } from "../sync/ports.ts";
import { INDEX_KEY, readIndexAround } from "../sync/transfer/remote_index.ts";
import { createSyncService, type SyncService } from "../sync/service/service.ts";
import {
  FakeClock,
  InMemoryStore,
  mockPushContext,
  planEntry,
  spyNext,
  writeCacheFile,
} from "../packages/testing/mod.ts";

const LOCKFILE = MANAGED_LOCKFILE_PATH;
const enc = (s: string) => new TextEncoder().encode(s);

const writeFile = writeCacheFile;

// --- the gate alone ---------------------------------------------------------

Deno.test("the lockfile is left out of the push, its mark cleared, and a changed copy reported", async () => {
  const m = await mockPushContext({
    kind: "walk",
    plan: [
      planEntry(LOCKFILE, { class: "managed-lockfile", syncedHash: "old", syncedVersion: "v1" }),
      planEntry("outputs/o.txt", { class: "other" }),
    ],
  });
  await m.cache.write(LOCKFILE, enc('{"X":1}'));
  const next = spyNext();
  await lockfileGuard()(m.ctx, next);
  assert.equal(next.calls, 1);
  const [lock, other] = m.ctx.plan;
  assert.equal(lock.action, "skip");
  assert.equal(lock.keepDirty, false);
  assert.equal(lock.unpublished, true, "a changed copy is left out, not published");
  assert.ok(lock.handledBy.includes(LOCKFILE_GUARD));
  assert.equal(other.action, "put");
  assert.equal(other.mode, undefined);
  assert.equal(m.warnings.length, 1);
  assert.equal(m.warnings[0].code, "lockfile_guarded");
  assert.equal(m.warnings[0].path, LOCKFILE);
  assert.match(m.warnings[0].message, /only by its transaction/);
  assert.equal((m.store as InMemoryStore).count(), 0, "the guard never touches the store");
});

Deno.test("an unchanged lockfile is left out silently; a namespaced one and a deletion are guarded", async () => {
  const body = enc('{"X":1}');
  const ns = `prod/${LOCKFILE}`;
  const m = await mockPushContext({
    plan: [
      planEntry(LOCKFILE, { class: "managed-lockfile", syncedHash: await sha256Hex(body) }),
      planEntry(ns, { class: "managed-lockfile", action: "delete", syncedVersion: "v3" }),
    ],
  });
  await m.cache.write(LOCKFILE, body);
  await lockfileGuard()(m.ctx, spyNext());
  assert.ok(m.ctx.plan.every((e) => e.action === "skip" && !e.keepDirty));
  assert.deepEqual(m.ctx.plan.map((e) => !!e.unpublished), [false, true]);
  assert.deepEqual(m.warnings.map((w) => w.path), [ns]);
  assert.match(m.warnings[0].message, /local deletion/);
});

Deno.test("the guard recognises the lockfile even when no classifier ran", async () => {
  const m = await mockPushContext({ plan: [planEntry(LOCKFILE)] });
  await m.cache.write(LOCKFILE, enc("{}"));
  await lockfileGuard()(m.ctx, spyNext());
  assert.equal(m.ctx.plan[0].action, "skip");
});

Deno.test("a pending lockfile change is pointed to `sluice lockfile retry`", async () => {
  const m = await mockPushContext({ plan: [planEntry(LOCKFILE, { class: "managed-lockfile" })] });
  await m.cache.write(LOCKFILE, enc('{"X":1}'));
  await m.cache.writeState("lockfile-pending.json", {
    format: 1,
    deltas: { [LOCKFILE]: { set: { X: 1 }, remove: [] } },
  });
  await lockfileGuard()(m.ctx, spyNext());
  assert.match(m.warnings[0].message, /pending lockfile change \(set X\)/);
  assert.match(m.warnings[0].message, /sluice lockfile retry/);
});

Deno.test("config files get a compare-and-swap mode; other classes are untouched", async () => {
  const m = await mockPushContext({
    plan: [
      planEntry("config/vaults/v1.yaml", { class: "config", syncedVersion: "v7" }),
      planEntry("config/vaults/new.yaml", { class: "config" }),
      planEntry("config/gone.yaml", { class: "config", action: "delete", syncedVersion: "v2" }),
      planEntry("data/t/m/d/latest", { class: "latest-marker", commit: true }),
    ],
  });
  await lockfileGuard()(m.ctx, spyNext());
  const [v1, fresh, gone, marker] = m.ctx.plan;
  assert.deepEqual(v1.mode, PutModes.update("v7"));
  assert.deepEqual(fresh.mode, PutModes.create);
  assert.equal(gone.mode, undefined, "deletes are already conditional on the synced version");
  assert.equal(marker.mode, undefined);
  assert.deepEqual(m.warnings, []);
});

Deno.test("a dry run (status) reports nothing", async () => {
  const m = await mockPushContext({ plan: [planEntry(LOCKFILE, { class: "managed-lockfile" })] });
  await m.cache.write(LOCKFILE, enc("{}"));
  const ctx: PushContext = { ...m.ctx, dryRun: true };
  await lockfileGuard()(ctx, spyNext());
  assert.equal(ctx.plan[0].action, "skip");
  assert.deepEqual(m.warnings, []);
});

Deno.test("the default entry registers in the guard phase", () => {
  const e = lockfileGuardEntry();
  assert.equal(e.name, LOCKFILE_GUARD);
  assert.equal(e.phase, "guard");
  const p = new Pipeline<PushContext>(PUSH_PHASES).add(e).add({
    name: PATH_CLASSIFIER,
    phase: "classify",
    middleware: pathClassifier(),
  });
  assert.deepEqual(p.names(), [PATH_CLASSIFIER, LOCKFILE_GUARD]);
});

// --- incident 004: two checkouts over one store -----------------------------

interface Clone {
  readonly svc: SyncService;
  readonly warnings: WarningEvent[];
}

async function clone(
  store: InMemoryStore,
  clock: FakeClock,
  name: string,
  guarded: boolean,
  cacheDir?: string,
): Promise<Clone> {
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  push.add({ name: PATH_CLASSIFIER, phase: "classify", middleware: pathClassifier() });
  const write = new Pipeline<WriteContext>(WRITE_PHASES);
  if (guarded) {
    push.add(lockfileGuardEntry());
    write.add({ name: CONFIG_CAS_WRITER, phase: "mode", middleware: configCasWriter() });
  }
  const svc = await createSyncService({
    cacheDir: cacheDir ?? await Deno.makeTempDir({ prefix: `sluice-004-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock,
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
    lockBackend: storeLockBackend(store, { clock }),
    push,
    write,
  });
  const warnings: WarningEvent[] = [];
  svc.events.on("warning", (w) => warnings.push(w));
  return { svc, warnings };
}

function remoteNames(store: InMemoryStore): string[] {
  return Object.keys(JSON.parse(store.peekText(LOCKFILE) ?? "{}")).sort();
}

function lockfilePuts(store: InMemoryStore): number {
  return store.log.filter((l) => l.op === "put" && l.key === LOCKFILE).length;
}

/** "model create": the command writes its own file, then marks everything dirty and pushes. */
async function modelCreate(a: SyncService, store: InMemoryStore): Promise<number> {
  await writeFile(a.cacheDir, "models/command/shell/m1.yaml", "type: command/shell\n");
  await a.markDirty();
  store.resetLog();
  const r = await a.pushChanged();
  assert.ok(r.uploaded.includes("models/command/shell/m1.yaml"));
  return lockfilePuts(store);
}

Deno.test("a lockfile never synced here that holds the datastore's very bytes is recorded as synced, with no warning", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  let a = await clone(store, clock, "a", true);
  await updateManagedLockfile(a.svc, { set: { X: { version: "1" } } });
  // A's sync state is lost; its copy of the lockfile is the datastore's.
  await Deno.remove(`${a.svc.cacheDir}/.sluice/manifest.json`);
  a = await clone(store, clock, "a", true, a.svc.cacheDir);
  assert.equal(a.svc.state.synced(LOCKFILE), undefined);
  await writeFile(a.svc.cacheDir, "models/command/shell/m1.yaml", "type: command/shell\n");
  await a.svc.markDirty();
  store.resetLog();
  const r = await a.svc.pushChanged();
  assert.equal(lockfilePuts(store), 0);
  assert.deepEqual(a.warnings.filter((w) => w.code === "lockfile_guarded"), []);
  assert.ok(
    !r.skipped.some((x) => x.path === LOCKFILE && x.unpublished),
    "nothing left out: the datastore holds it",
  );
  assert.equal(a.svc.state.synced(LOCKFILE)?.version, (await store.head(LOCKFILE))?.version);
  // A stale copy (other bytes) is still guarded and told of.
  await writeFile(a.svc.cacheDir, LOCKFILE, JSON.stringify({ W: 1 }));
  await a.svc.markDirty();
  await a.svc.pushChanged();
  assert.ok(a.warnings.some((w) => w.code === "lockfile_guarded"));
  assert.deepEqual(remoteNames(store), ["X"]);
});

for (const guarded of [true, false]) {
  const label = guarded ? "gate on" : "gate off";

  Deno.test(`004 model create after a peer added an extension, sync state reset (${label})`, async () => {
    const clock = new FakeClock();
    const store = new InMemoryStore({ clock });
    let a = await clone(store, clock, "a", guarded);
    const c = await clone(store, clock, "c", guarded);
    await updateManagedLockfile(a.svc, { set: { X: { version: "1" } } });
    await updateManagedLockfile(c.svc, { set: { Y: { version: "1" } } });
    // A's sync state is lost (a reinstall, a restored backup): its manifest no longer knows
    // which lockfile it synced, so its stale copy looks like any other unsynced file.
    await Deno.remove(`${a.svc.cacheDir}/.sluice/manifest.json`);
    a = await clone(store, clock, "a", guarded, a.svc.cacheDir);
    const puts = await modelCreate(a.svc, store);
    if (guarded) {
      assert.deepEqual(remoteNames(store), ["X", "Y"]);
      assert.equal(puts, 0, "A's push did not write the lockfile at all");
      assert.ok(a.warnings.some((w) => w.code === "lockfile_guarded" && w.path === LOCKFILE));
      assert.deepEqual(a.svc.state.dirtyPaths(), []);
      // A's next pull brings the peer's entry into its cache copy.
      await a.svc.pullChanged();
      assert.deepEqual(
        Object.keys(JSON.parse(await Deno.readTextFile(`${a.svc.cacheDir}/${LOCKFILE}`))).sort(),
        ["X", "Y"],
      );
    } else {
      assert.deepEqual(remoteNames(store), ["X"], "the loss: C's extension Y was erased");
      assert.equal(puts, 1);
    }
  });

  Deno.test(`004 a local edit marked dirty by path is never uploaded (${label})`, async () => {
    const clock = new FakeClock();
    const store = new InMemoryStore({ clock });
    const a = await clone(store, clock, "a", guarded);
    const c = await clone(store, clock, "c", guarded);
    await updateManagedLockfile(a.svc, { set: { X: 1 } });
    await updateManagedLockfile(c.svc, { set: { Y: 1 } });
    // A command edits the cache copy directly (its stale view plus W) and marks only that path.
    await writeFile(a.svc.cacheDir, LOCKFILE, JSON.stringify({ X: 1, W: 1 }));
    await a.svc.markDirty({ relPath: LOCKFILE });
    assert.equal(a.svc.state.bulkPending(), false, "a path mark marks only that path");
    store.resetLog();
    await a.svc.pushChanged();
    if (guarded) {
      assert.deepEqual(remoteNames(store), ["X", "Y"]);
      assert.equal(lockfilePuts(store), 0);
      assert.deepEqual(a.svc.state.dirtyPaths(), []);
    } else {
      assert.deepEqual(remoteNames(store), ["W", "X"], "the loss: Y was erased");
    }
  });

  Deno.test(`004 model create with an intact sync state writes no lockfile (${label})`, async () => {
    const clock = new FakeClock();
    const store = new InMemoryStore({ clock });
    const a = await clone(store, clock, "a", guarded);
    const c = await clone(store, clock, "c", guarded);
    await updateManagedLockfile(a.svc, { set: { X: 1 } });
    await updateManagedLockfile(c.svc, { set: { Y: 1 } });
    // A walk skips files whose content matches the synced manifest, with or without the gate.
    assert.equal(await modelCreate(a.svc, store), 0);
    assert.deepEqual(remoteNames(store), ["X", "Y"]);
  });

  Deno.test(`004 variant: sync push after a failed publish, then retry (${label})`, async () => {
    const clock = new FakeClock();
    const store = new InMemoryStore({ clock });
    const a = await clone(store, clock, "a", guarded);
    const c = await clone(store, clock, "c", guarded);
    await updateManagedLockfile(c.svc, { set: { Y: 1 } });
    store.failNext("put", 1, undefined, { match: (k) => k === LOCKFILE });
    await assert.rejects(updateManagedLockfile(a.svc, { set: { X: 1 } }), /pending delta/);
    await updateManagedLockfile(c.svc, { set: { Z: 1 } });
    // datastore sync --push: a bulk mark and a push.
    await a.svc.markDirty();
    store.resetLog();
    await a.svc.pushChanged();
    if (guarded) {
      assert.deepEqual(remoteNames(store), ["Y", "Z"], "Z survives the sync push");
      assert.equal(lockfilePuts(store), 0);
      const w = a.warnings.find((x) => x.code === "lockfile_guarded");
      assert.match(w?.message ?? "", /pending lockfile change \(set X\)/);
    } else {
      assert.deepEqual(remoteNames(store), ["X", "Y"], "the loss: Z was erased by the push");
    }
    await retryPendingLockfile(a.svc);
    assert.deepEqual(
      remoteNames(store),
      guarded ? ["X", "Y", "Z"] : ["X", "Y"],
      guarded ? "X lands beside Y and Z" : "the retry replays only X: Z stays lost",
    );
  });
}

Deno.test("a lockfile never synced here that holds the bytes of a transaction's copy no index names is guarded, its pending change told, not recorded as synced", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a", true);
  // The datastore's first lockfile: the transaction's copy lands, the index update fails.
  store.failNext("put", 1, undefined, { match: (k) => k === INDEX_KEY });
  const err = await updateManagedLockfile(a.svc, { set: { X: { version: "1" } } }).catch((e) => e);
  assert.equal(err?.code, "lockfile_publish_failed");
  assert.ok(await store.head(LOCKFILE), "the transaction's copy is on the store");
  assert.equal(await readIndexEntry(store, LOCKFILE), undefined, "no index names it");
  assert.equal(a.svc.state.synced(LOCKFILE), undefined);
  await writeFile(a.svc.cacheDir, "models/command/shell/m1.yaml", "type: command/shell\n");
  await a.svc.markDirty();
  const r = await a.svc.pushChanged();
  // Not published: the push says so (exit 2) and points to the pending change.
  assert.ok(r.skipped.some((x) => x.path === LOCKFILE && x.unpublished), "left out");
  const told = a.warnings.filter((w) => w.code === "lockfile_guarded");
  assert.equal(told.length, 1);
  assert.match(told[0].message, /pending lockfile change \(set X\)/);
  assert.equal(a.svc.state.synced(LOCKFILE), undefined, "nothing the index names was synced");
  // The retry publishes it; the copy is then the one synced.
  await retryPendingLockfile(a.svc);
  assert.ok(await readIndexEntry(store, LOCKFILE));
});

async function readIndexEntry(store: InMemoryStore, path: string) {
  return (await readIndexAround(store, "config", { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 }))[
    path
  ];
}
