import assert from "node:assert/strict";
import {
  CONFIG_CAS_WRITER,
  configCasWriter,
  configCasWriterEntry,
  PUSH_WAITING_UNCOMMITTED,
  WRITER_METADATA,
} from "./config_cas_writer.ts";
import { lockfileGuardEntry } from "./lockfile_guard.ts";
import { PATH_CLASSIFIER, pathClassifier } from "./path_classifier.ts";
import { PUSH_PHASES, type PushContext, WRITE_PHASES, type WriteContext } from "../sync/context.ts";
import {
  AlreadyExistsError,
  PreconditionFailedError,
  SluiceError,
  UnreachableError,
} from "../sync/errors.ts";
import type { WarningEvent } from "../sync/events.ts";
import { Pipeline } from "../sync/pipeline.ts";
import { pushLeftBehind } from "../sync/service/push.ts";
import { PutModes } from "../sync/ports.ts";
import { createSyncService, type SyncService } from "../sync/service/service.ts";
import {
  FakeClock,
  InMemoryStore,
  mockPushContext,
  mockWriteContext,
  peerPush,
  planEntry,
  spyNext,
  writeCacheFile,
} from "../packages/testing/mod.ts";

const FILE = "config/vaults/v1.yaml";

// --- the gate alone ---------------------------------------------------------

Deno.test("writes other than conditional config, marker, index and other writes pass through untouched", async () => {
  const m = await mockPushContext();
  const gate = configCasWriter();
  const plain = mockWriteContext(m.ctx, "data/t/m/d/1/raw", "x", {
    entry: planEntry("data/t/m/d/1/raw", { class: "data-version" }),
    mode: PutModes.create,
  });
  const failing = spyNext(() => {
    throw new PreconditionFailedError("data/t/m/d/1/raw");
  });
  await assert.rejects(gate(plain, failing), PreconditionFailedError);
  const overwrite = mockWriteContext(m.ctx, FILE, "x", {
    entry: planEntry(FILE, { class: "config" }),
  });
  await assert.rejects(
    gate(
      overwrite,
      spyNext(() => {
        throw new PreconditionFailedError(FILE);
      }),
    ),
    PreconditionFailedError,
  );
});

Deno.test("a refused swap on a config file a peer changed becomes a dirty skip with a warning", async () => {
  const m = await mockPushContext();
  (m.store as InMemoryStore).seed(FILE, "peer");
  const ctx = mockWriteContext(m.ctx, FILE, "mine", {
    entry: planEntry(FILE, { class: "config", syncedVersion: "v0" }),
    mode: PutModes.update("v0"),
  });
  const next = spyNext(() => {
    throw new PreconditionFailedError(FILE);
  });
  await configCasWriter()(ctx, next);
  assert.equal(next.calls, 1);
  assert.equal(ctx.entry.action, "skip");
  assert.equal(ctx.entry.keepDirty, true);
  assert.ok(ctx.entry.handledBy.includes(CONFIG_CAS_WRITER));
  assert.equal(ctx.result, undefined);
  assert.deepEqual(m.state.dirtyPaths(), [FILE], "kept dirty even when a walk found it");
  assert.equal(m.warnings.length, 1);
  assert.equal(m.warnings[0].code, "config_changed_remotely");
  assert.equal(m.warnings[0].path, FILE);
  assert.match(m.warnings[0].message, /wrote it \(version v1\) on the datastore/);
  assert.match(m.warnings[0].message, /conflict/);
});

Deno.test("a refused create of a config file this cache has no synced version of says a peer wrote it, not 'since last synced'", async () => {
  const m = await mockPushContext();
  await peerPush(m.store as InMemoryStore, { [FILE]: "peer" }); // committed: named by the index
  const ctx = mockWriteContext(m.ctx, FILE, "mine", {
    entry: planEntry(FILE, { class: "config" }),
    mode: PutModes.create,
  });
  await configCasWriter()(
    ctx,
    spyNext(() => {
      throw new AlreadyExistsError(FILE);
    }),
  );
  assert.equal(ctx.entry.action, "skip");
  assert.match(ctx.entry.reason ?? "", /not based on the datastore's version/);
  assert.match(
    m.warnings[0].message,
    /wrote it \(version \S+\) on the datastore, a change this cache.s copy is not based on/,
  );
  assert.doesNotMatch(m.warnings[0].message, /last synced/);
});

Deno.test("a refused create over identical bytes counts as done", async () => {
  const m = await mockPushContext();
  const info = (m.store as InMemoryStore).seed(FILE, "same");
  const ctx = mockWriteContext(m.ctx, FILE, "same", {
    entry: planEntry(FILE, { class: "config" }),
    mode: PutModes.create,
  });
  await configCasWriter()(
    ctx,
    spyNext(() => {
      throw new AlreadyExistsError(FILE, info.version);
    }),
  );
  assert.equal(ctx.entry.action, "put");
  assert.equal(ctx.outcome, "identical");
  assert.equal(ctx.result?.version, info.version);
  assert.deepEqual(m.warnings, []);
});

Deno.test("this cache's own uncommitted write is replaced; a peer's object stays a conflict", async () => {
  const MARKER = "data/t/m/d/latest";
  const m = await mockPushContext();
  const store = m.store as InMemoryStore;
  // A first push wrote the marker and crashed before its commit: the object carries this
  // cache's writer id, and the synced manifest still names the committed version v0.
  const first = mockWriteContext(m.ctx, MARKER, "2", {
    entry: planEntry(MARKER, { class: "latest-marker", syncedVersion: "v0" }),
    mode: PutModes.update("v0"),
  });
  await configCasWriter()(first, spyNext(() => {}));
  const writer = first.metadata[WRITER_METADATA];
  assert.ok(writer, "every conditional write carries the writer id");
  const orphan = store.seed(MARKER, "2", { [WRITER_METADATA]: writer });
  const again = mockWriteContext(m.ctx, MARKER, "3", {
    entry: planEntry(MARKER, { class: "latest-marker", syncedVersion: "v0" }),
    mode: PutModes.update("v0"),
  });
  await configCasWriter()(
    again,
    spyNext(() => {
      throw new PreconditionFailedError(MARKER);
    }),
  );
  assert.equal(again.entry.action, "put");
  assert.equal(again.outcome, "written");
  assert.notEqual(again.result?.version, orphan.version);
  assert.equal(store.peekText(MARKER), "3");
  assert.deepEqual(m.warnings, []);
  // A peer's object (another writer id) is never replaced.
  store.seed(MARKER, "9", { [WRITER_METADATA]: "a-peer" });
  const third = mockWriteContext(m.ctx, MARKER, "4", {
    entry: planEntry(MARKER, { class: "latest-marker", syncedVersion: "v0" }),
    mode: PutModes.update("v0"),
  });
  await configCasWriter()(
    third,
    spyNext(() => {
      throw new PreconditionFailedError(MARKER);
    }),
  );
  assert.equal(third.entry.action, "skip");
  assert.equal(store.peekText(MARKER), "9");
});

Deno.test("a replacement of this cache's own uncommitted write that landed with its answer lost is done, not a conflict", async () => {
  const MARKER = "data/t/m/d/latest";
  const m = await mockPushContext({
    config: { retry: { retries: 1, minTimeoutMs: 0, maxTimeoutMs: 0 } },
  });
  const store = m.store as InMemoryStore;
  const first = mockWriteContext(m.ctx, MARKER, "2", {
    entry: planEntry(MARKER, { class: "latest-marker", syncedVersion: "v0" }),
    mode: PutModes.update("v0"),
  });
  await configCasWriter()(first, spyNext(() => {}));
  store.seed(MARKER, "2", { [WRITER_METADATA]: first.metadata[WRITER_METADATA] });
  const again = mockWriteContext(m.ctx, MARKER, "3", {
    entry: planEntry(MARKER, { class: "latest-marker", syncedVersion: "v0" }),
    mode: PutModes.update("v0"),
  });
  // The replacement lands and its answer is lost; its retry is refused (it met itself).
  store.failNext("put", 1, () => new UnreachableError("the answer was lost"), {
    afterEffect: true,
    match: (k) => k === MARKER,
  });
  await configCasWriter()(
    again,
    spyNext(() => {
      throw new PreconditionFailedError(MARKER);
    }),
  );
  assert.equal(store.peekText(MARKER), "3");
  assert.equal(again.entry.action, "put", "not a conflict");
  assert.equal(again.outcome, "identical");
  assert.equal(again.result?.version, (await store.head(MARKER))?.version);
  assert.deepEqual(m.warnings, []);
});

Deno.test("a config file deleted remotely is skipped; transport errors still fail the write", async () => {
  const m = await mockPushContext();
  const ctx = mockWriteContext(m.ctx, FILE, "mine", {
    entry: planEntry(FILE, { class: "config", syncedVersion: "v0" }),
    mode: PutModes.update("v0"),
  });
  await configCasWriter()(
    ctx,
    spyNext(() => {
      throw new PreconditionFailedError(FILE, "it does not exist");
    }),
  );
  assert.equal(ctx.entry.action, "skip");
  assert.match(m.warnings[0].message, /deleted it/);
  const other = mockWriteContext(m.ctx, FILE, "mine", {
    entry: planEntry(FILE, { class: "config" }),
    mode: PutModes.create,
  });
  await assert.rejects(
    configCasWriter()(
      other,
      spyNext(() => {
        throw new UnreachableError("down");
      }),
    ),
    UnreachableError,
  );
});

Deno.test("the default entry registers in the write mode phase", () => {
  const e = configCasWriterEntry();
  assert.equal(e.name, CONFIG_CAS_WRITER);
  assert.equal(e.phase, "mode");
});

// --- incident 004: a peer's config change and a walk push -------------------

interface Clone {
  readonly svc: SyncService;
  readonly warnings: WarningEvent[];
}

async function clone(
  store: InMemoryStore,
  clock: FakeClock,
  name: string,
  gates: { guard: boolean; writer: boolean },
  cacheDir?: string,
): Promise<Clone> {
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  push.add({ name: PATH_CLASSIFIER, phase: "classify", middleware: pathClassifier() });
  if (gates.guard) push.add(lockfileGuardEntry());
  const write = new Pipeline<WriteContext>(WRITE_PHASES);
  if (gates.writer) write.add(configCasWriterEntry());
  const svc = await createSyncService({
    cacheDir: cacheDir ?? await Deno.makeTempDir({ prefix: `sluice-004c-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock,
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
    push,
    write,
  });
  const warnings: WarningEvent[] = [];
  svc.events.on("warning", (w) => warnings.push(w));
  return { svc, warnings };
}

function writeFile(svc: SyncService, path: string, text: string) {
  return writeCacheFile(svc.cacheDir, path, text);
}

/** A publishes v1; C pulls it, changes it and pushes; A changes its own stale copy too. */
async function bothChanged(gates: { guard: boolean; writer: boolean }) {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const a = await clone(store, clock, "a", gates);
  const c = await clone(store, clock, "c", gates);
  await writeFile(a.svc, FILE, "vault: a0\n");
  await a.svc.markDirty({ relPath: FILE });
  await a.svc.pushChanged();
  await c.svc.pullChanged();
  await writeFile(c.svc, FILE, "vault: c1\n");
  await c.svc.markDirty({ relPath: FILE });
  await c.svc.pushChanged();
  await writeFile(a.svc, FILE, "vault: a1\n");
  await a.svc.markDirty(); // a walk push, as every config-tier command does
  return { store, a, c };
}

for (const on of [true, false]) {
  Deno.test(`004 a walk push never overwrites a config file a peer changed (gate ${on ? "on" : "off"})`, async () => {
    const { store, a } = await bothChanged({ guard: on, writer: on });
    const r = await a.svc.pushChanged();
    if (!on) {
      assert.equal(store.peekText(FILE), "vault: a1\n", "the loss: C's change was overwritten");
      assert.ok(!a.warnings.some((w) => w.code === "config_changed_remotely"));
      return;
    }
    assert.equal(store.peekText(FILE), "vault: c1\n", "C's change survives");
    assert.deepEqual(r.uploaded, []);
    assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [[FILE, true]]);
    const w = a.warnings.find((x) => x.code === "config_changed_remotely");
    assert.equal(w?.path, FILE);
    assert.match(w?.message ?? "", /config\/vaults\/v1\.yaml/);
    assert.deepEqual(a.svc.state.dirtyPaths(), [FILE], "A's copy stays dirty");
    assert.equal(a.svc.state.bulkPending(), false);
    // The next pull reports the conflict and overwrites neither side.
    const pulled = await a.svc.pullChanged();
    assert.deepEqual(pulled.conflicts, [FILE]);
    // Recorded by the push with both versions (the pull does not warn again for the same version).
    assert.equal(a.svc.conflicts()[0]?.path, FILE);
    assert.equal(a.svc.conflicts()[0]?.theirs?.version, (await store.head(FILE))?.version);
    assert.equal(await Deno.readTextFile(`${a.svc.cacheDir}/${FILE}`), "vault: a1\n");
    assert.equal(store.peekText(FILE), "vault: c1\n");
  });
}

Deno.test("004 without the write gate the guard still refuses the overwrite, as a failed push", async () => {
  const { store, a } = await bothChanged({ guard: true, writer: false });
  const err = await a.svc.pushChanged().catch((e) => e);
  assert.ok(err instanceof SluiceError);
  assert.equal(err.code, "precondition_failed");
  assert.equal(store.peekText(FILE), "vault: c1\n");
});

Deno.test("004 after a sync state reset, agreeing config files count as synced and changed ones stay dirty", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const gates = { guard: true, writer: true };
  let a = await clone(store, clock, "a", gates);
  const c = await clone(store, clock, "c", gates);
  await writeFile(a.svc, FILE, "vault: a0\n");
  await writeFile(a.svc, "config/same.yaml", "same\n");
  await a.svc.markDirty();
  await a.svc.pushChanged();
  await c.svc.pullChanged();
  await writeFile(c.svc, FILE, "vault: c1\n");
  await c.svc.markDirty({ relPath: FILE });
  await c.svc.pushChanged();
  await Deno.remove(`${a.svc.cacheDir}/.sluice/manifest.json`);
  a = await clone(store, clock, "a", gates, a.svc.cacheDir);
  await a.svc.markDirty();
  const r = await a.svc.pushChanged();
  assert.deepEqual(r.identical, ["config/same.yaml"]);
  assert.deepEqual(r.uploaded, []);
  assert.equal(store.peekText(FILE), "vault: c1\n");
  assert.deepEqual(a.svc.state.dirtyPaths(), [FILE]);
  assert.ok(a.svc.state.synced("config/same.yaml"));
});

Deno.test("a peer's uncommitted write is waited for, not taken as theirs; once committed it is a conflict", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const gates = { guard: true, writer: true };
  const a = await clone(store, clock, "a", gates);
  const c = await clone(store, clock, "c", gates);
  await writeFile(a.svc, FILE, "vault: a0\n");
  await a.svc.markDirty({ relPath: FILE });
  await a.svc.pushChanged();
  await c.svc.pullChanged();
  // A's next push uploads its edit and stops before its index update: the
  // object carries A's writer id, the index still names the version both synced.
  const aId = (await a.svc.cache.readState<{ id: string }>("writer.json"))?.id;
  assert.ok(aId);
  store.seed(FILE, "vault: a1\n", { [WRITER_METADATA]: aId });
  await writeFile(a.svc, FILE, "vault: a1\n");
  await a.svc.markDirty({ relPath: FILE });
  await writeFile(c.svc, FILE, "vault: c1\n");
  await c.svc.markDirty({ relPath: FILE });
  const r = await c.svc.pushChanged();
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(r.conflicts, [], "an uncommitted object is nobody's committed change");
  assert.deepEqual(c.svc.conflicts(), []);
  assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [[FILE, true]]);
  assert.deepEqual(pushLeftBehind(r).left.map((l) => l.path), [FILE], "a sync left incomplete");
  assert.equal(c.warnings.at(-1)?.code, PUSH_WAITING_UNCOMMITTED);
  assert.deepEqual(c.svc.state.dirtyPaths(), [FILE], "C's edit stays dirty");
  assert.equal(store.peekText(FILE), "vault: a1\n", "A's object is not taken from under it");
  // A pushes again: it replaces its own object and commits; now C meets a committed change.
  await a.svc.pushChanged();
  const committed = (await store.head(FILE))?.version;
  const again = await c.svc.pushChanged();
  assert.deepEqual(again.conflicts, [FILE]);
  assert.equal(c.svc.conflicts()[0]?.theirs?.version, committed);
  assert.equal(await Deno.readTextFile(`${c.svc.cacheDir}/${FILE}`), "vault: c1\n");
  const fresh = await clone(store, clock, "fresh", gates);
  const pulled = await fresh.svc.pullChanged();
  assert.deepEqual(pulled.uncommitted, []);
  assert.equal(await Deno.readTextFile(`${fresh.svc.cacheDir}/${FILE}`), "vault: a1\n");
});
