import assert from "node:assert/strict";
import { isLayoutInternal, META_KEY } from "../sync/transfer/bucket_layout.ts";
import {
  REFUSED_RUN_ERASER,
  refusedRunEraser,
  refusedRunEraserEntry,
} from "./refused_run_eraser.ts";
import {
  arranged,
  arrangedUploaded,
  DATA,
  enc,
  heldWithCreatedMarker,
  KEY,
  lost,
  MARKER,
  run,
  runRefused,
  V1,
  V2,
} from "./refused_run_eraser_kit.ts";
import { lockFenceEntry } from "./lock_fence.ts";
import { PATH_CLASSIFIER, pathClassifier } from "./path_classifier.ts";
import { createOnlyWriterEntry } from "./create_only_writer.ts";
import {
  FakeClock,
  hookedStore,
  InMemoryStore,
  mockPushContext,
  planEntry,
  spyNext,
} from "../packages/testing/mod.ts";
import { SluiceError, UnreachableError } from "../sync/errors.ts";
import { LockReadError, ModelLockLostError } from "../sync/lock_errors.ts";
import {
  emptyJournal,
  ERASURE_JOURNAL,
  ErasureRefusedError,
  journalPending,
  readErasureJournal,
  resolveHeldVersions,
  writeErasureJournal,
} from "./erasure.ts";
import { sha256Hex } from "../sync/hash.ts";
import { encodeLockInfo } from "../sync/locks/lock_body.ts";
import { storeLockBackend } from "../sync/locks/lock_engine.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";
import { Pipeline } from "../sync/pipeline.ts";
import { type DistributedLock, type Identity, type LockInfo, PutModes } from "../sync/ports.ts";
import { PUSH_PHASES, type PushContext, WRITE_PHASES, type WriteContext } from "../sync/context.ts";
import { createSyncService, type SyncService } from "../sync/service/service.ts";
import { walkFiles } from "../sync/transfer/cache.ts";
import { DANGLING_GRACE_MS } from "../sync/service/dangling_entries.ts";

/** Moves `svc`'s fake clock past the grace a pull gives a dangling index entry. */
const pastGrace = (svc: SyncService) =>
  (svc.clock as FakeClock).set(svc.clock.now() + DANGLING_GRACE_MS);

// --- the gate alone, on a mock context ---

Deno.test("a push that is not refused passes through untouched", async () => {
  const m = await arranged();
  assert.equal(await run(m), undefined);
  const err = await run(m, () => {
    throw new LockReadError(KEY, "timeout");
  });
  assert.ok(err instanceof LockReadError);
  assert.equal(await m.cache.read(`${V2}/raw`) !== null, true);
  assert.deepEqual(m.state.dirtyPaths(), [`${V2}/raw`, MARKER]);
});

Deno.test("a refusal erases exactly the run's versions, recomputes the marker and refreshes", async () => {
  const m = await arranged();
  const err = await runRefused(m);
  assert.ok(err instanceof ModelLockLostError);
  assert.deepEqual(err.discarded, [V2]);
  assert.equal(await m.cache.read(`${V2}/raw`), null);
  assert.equal(new TextDecoder().decode((await m.cache.read(`${V1}/raw`))!), "first");
  assert.equal(new TextDecoder().decode((await m.cache.read(MARKER))!), "1");
  assert.deepEqual(m.state.dirtyPaths(), []); // the marker equals its synced copy again
  assert.equal(m.state.synced(`${V2}/raw`), undefined);
  assert.deepEqual(m.refreshed, [["data/t/m"]]);
  assert.equal(journalPending(await readErasureJournal(m.cache)), false);
  assert.ok(m.gates.some((g) => g.gate === REFUSED_RUN_ERASER && g.message.includes(V2)));
});

Deno.test("a marker with no version left is removed; one naming an unpushed version stays dirty", async () => {
  const m = await mockPushContext({ written: [V1] });
  await m.cache.write(`${V1}/raw`, enc("x"));
  await m.cache.write(MARKER, enc("1"));
  await m.state.markDirty(`${V1}/raw`);
  await m.state.markDirty(MARKER);
  assert.ok((await runRefused(m)) instanceof ModelLockLostError);
  assert.equal(await m.cache.read(MARKER), null);
  assert.deepEqual(m.state.dirtyPaths(), []);

  const n = await arranged({ written: [`${DATA}/3`], preexisting: new Set([V1, V2]) });
  await n.cache.write(`${DATA}/3/raw`, enc("run 3"));
  await n.cache.write(MARKER, enc("3"));
  assert.ok((await runRefused(n)) instanceof ModelLockLostError);
  assert.equal(new TextDecoder().decode((await n.cache.read(MARKER))!), "2");
  assert.deepEqual(n.state.dirtyPaths(), [`${V2}/raw`, MARKER]); // the earlier run still pushes
});

Deno.test("a failed refresh is a warning and never replaces the refusal", async () => {
  const m = await mockPushContext({
    written: [V2],
    refresh: () => Promise.reject(new Error("datastore unreachable")),
  });
  await m.cache.write(`${V2}/raw`, enc("A"));
  await m.state.markDirty(`${V2}/raw`);
  const err = await runRefused(m);
  assert.ok(err instanceof ModelLockLostError);
  assert.equal(m.warnings.length, 1);
  assert.equal(m.warnings[0].code, "refresh_failed");
  assert.match(m.warnings[0].message, /datastore unreachable/);
  assert.equal(await m.cache.read(`${V2}/raw`), null);
});

Deno.test("a version that cannot be attributed is never deleted: erasure_refused, then held", async () => {
  const cases: { written: string[]; preexisting: Set<string>; why: RegExp }[] = [
    { written: [V2], preexisting: new Set([V1, `${V2}/`]), why: /existed in the cache before/ },
    { written: [V1, V2], preexisting: new Set(), why: /already synced with the datastore/ },
    { written: ["data/t/m", V2], preexisting: new Set(), why: /not a data version directory/ },
  ];
  for (const c of cases) {
    const m = await arranged(c);
    const err = await runRefused(m);
    assert.ok(err instanceof ErasureRefusedError, c.why.source);
    assert.equal(err.code, "erasure_refused");
    assert.equal(err.exitCode, 1);
    assert.match(err.message, c.why);
    assert.match(err.message, /nothing was deleted/);
    assert.ok(err.cause instanceof ModelLockLostError);
    assert.equal(new TextDecoder().decode((await m.cache.read(`${V2}/raw`))!), "A's data");
    assert.deepEqual(m.state.dirtyPaths(), [`${V2}/raw`, MARKER]);
    // The next push (a plain sync) holds them back, and the marker naming them.
    m.ctx.plan.forEach((e) => (e.action = "put"));
    assert.equal(await run(m), undefined);
    assert.ok(m.ctx.plan.every((e) => e.action === "skip" && e.keepDirty));
    assert.ok(m.warnings.some((w) => w.code === "erasure_held"));
  }
});

Deno.test("a refusal of two steps' flush holds only the model whose version cannot be attributed: the lost lock's own version is erased", async () => {
  // A workflow's step flushes its own model's version 1, which its first
  // pass already committed, under its lock and the lock of a parallel
  // step's model, broken meanwhile, whose version 3 is provably its own.
  const other = "data/t/other/out";
  const m0 = "data/t/m0/out";
  const m = await mockPushContext({ written: [`${other}/1`, `${m0}/3`], preexisting: new Set() });
  await m.cache.write(`${other}/1/raw`, enc("step's data"));
  await m.state.recordSynced(`${other}/1/raw`, {
    hash: await sha256Hex(enc("step's data")),
    version: "r1",
    size: 11,
  });
  await m.cache.write(`${m0}/3/raw`, enc("run's data"));
  await m.state.markDirty(`${m0}/3/raw`);
  m.ctx.plan.push(planEntry(`${m0}/3/raw`, { class: "data-version" }));
  const err = await run(m, () => {
    throw new ModelLockLostError([{ key: "data/t/m0/.lock", newHolder: null }]);
  });
  assert.ok(err instanceof ErasureRefusedError);
  assert.deepEqual(err.held, [`${other}/1`]);
  assert.equal(new TextDecoder().decode((await m.cache.read(`${other}/1/raw`))!), "step's data");
  // The broken lock's run is erased, as its own refusal would have erased it.
  assert.equal(await m.cache.read(`${m0}/3/raw`), null);
  assert.deepEqual(m.state.dirtyPaths(), []);
  const journal = await readErasureJournal(m.cache);
  assert.deepEqual(journal.held.map((h) => h.dirs), [[`${other}/1`]]);
});

Deno.test("a held run's latest marker its push created is deleted at the refusal; its version files stay, and the cache keeps both, held", async () => {
  const { m, store, meta } = await heldWithCreatedMarker();
  const err = await runRefused(m);
  assert.ok(err instanceof ErasureRefusedError);
  assert.match(err.message, /already synced with the datastore/);
  assert.equal(store.peek(MARKER), undefined, "no object named by no index is left at the marker");
  assert.equal(store.peekText(`${V1}/metadata.yaml`), "meta", "held: left in place");
  assert.equal(new TextDecoder().decode((await m.cache.read(MARKER))!), "1");
  assert.deepEqual(m.state.dirtyPaths(), [`${V1}/metadata.yaml`, MARKER]);
  const journal = await readErasureJournal(m.cache);
  assert.deepEqual(journal.held.map((h) => h.uploads), [[
    { path: `${V1}/metadata.yaml`, version: meta.version },
  ]]);
  assert.equal(journalPending(journal), false);
  assert.deepEqual(m.warnings.map((w) => w.code), []);
});

Deno.test("a held run's created marker that cannot be deleted yet stays journaled and the next push deletes it; a peer's object there is kept", async () => {
  const { m, store } = await heldWithCreatedMarker();
  store.unreachable = true;
  assert.ok((await runRefused(m)) instanceof ErasureRefusedError);
  assert.ok(m.warnings.some((w) => w.code === "erasure_pending"));
  assert.deepEqual((await readErasureJournal(m.cache)).uploads.map((u) => u.path), [MARKER]);
  store.heal();
  m.ctx.uploaded.length = 0;
  m.ctx.plan.forEach((e) => (e.action = "put"));
  assert.equal(await run(m), undefined);
  assert.equal(store.peek(MARKER), undefined);
  assert.equal(journalPending(await readErasureJournal(m.cache)), false);
  assert.ok(m.ctx.plan.every((e) => e.action === "skip" && e.keepDirty), "still held");

  const peer = await heldWithCreatedMarker();
  peer.store.seed(MARKER, "2"); // a peer's marker write since
  assert.ok((await runRefused(peer.m)) instanceof ErasureRefusedError);
  assert.equal(peer.store.peekText(MARKER), "2");
});

Deno.test("objects the push uploaded are deleted while still its own; a peer's are kept", async () => {
  const m = await arranged();
  const store = m.store as InMemoryStore;
  const ours = await store.put(`${V2}/raw`, enc("A's data"), PutModes.overwrite);
  const meta = await store.put(`${V2}/metadata.yaml`, enc("a"), PutModes.overwrite);
  store.seed(`${V2}/metadata.yaml`, "peer"); // a peer rewrote it since
  const identical = store.seed(`${V2}/extra`, "same bytes");
  m.ctx.plan.push(planEntry(`${V2}/extra`, { mode: PutModes.create }));
  m.ctx.uploaded.push(
    { path: `${V2}/raw`, info: ours, created: false, outcome: "written" },
    { path: `${V2}/metadata.yaml`, info: meta, created: true, outcome: "written" },
    { path: `${V2}/extra`, info: identical, created: false, outcome: "identical" }, // found equal bytes
  );
  assert.ok((await runRefused(m)) instanceof ModelLockLostError);
  assert.equal(store.peek(`${V2}/raw`), undefined);
  assert.equal(store.peekText(`${V2}/metadata.yaml`), "peer");
  assert.equal(store.peekText(`${V2}/extra`), "same bytes");
});

Deno.test("a remote deletion that fails stays journaled and the next push completes it", async () => {
  const { m, store } = await arrangedUploaded();
  store.unreachable = true;
  assert.ok((await runRefused(m)) instanceof ModelLockLostError);
  assert.ok(m.warnings.some((w) => w.code === "erasure_pending"));
  assert.equal(await m.cache.read(`${V2}/raw`), null);
  assert.equal((await readErasureJournal(m.cache)).uploads.length, 1);
  store.heal();
  m.ctx.uploaded.length = 0;
  assert.equal(await run(m), undefined);
  assert.equal(store.peek(`${V2}/raw`), undefined);
  assert.equal(journalPending(await readErasureJournal(m.cache)), false);
});

Deno.test("a refusal whose erasure could not delete an upload names it as left on the datastore, never saying nothing was pushed", async () => {
  const { m, store } = await arrangedUploaded();
  store.unreachable = true;
  const error = await runRefused(m);
  assert.ok(error instanceof ModelLockLostError);
  assert.equal(store.peekText(`${V2}/raw`), "A's data");
  assert.doesNotMatch(error.message, /Nothing was pushed/);
  assert.match(
    error.message,
    /data\/t\/m\/d\/2\/raw .*could not be deleted from the datastore yet/,
  );
  assert.match(error.message, /Nothing was published/);
});

Deno.test("a journaled erasure interrupted by a crash is completed before the next push", async () => {
  const m = await arranged();
  // A journal as written before it recorded moves, trash and markers.
  await m.cache.writeState(ERASURE_JOURNAL, {
    format: 1,
    erase: [V2],
    uploads: [],
    prefixes: ["data/t/m"],
    held: [],
  });
  const next = spyNext();
  await refusedRunEraser()(m.ctx, next);
  assert.equal(next.calls, 1);
  assert.ok(m.ctx.plan.every((e) => e.action === "skip" && !e.keepDirty));
  assert.equal(await m.cache.read(`${V2}/raw`), null);
  assert.deepEqual(m.state.dirtyPaths(), []);
  assert.deepEqual(m.refreshed, [["data/t/m"]]);
  assert.equal(journalPending(await readErasureJournal(m.cache)), false);
});

Deno.test("a resumed erasure reports a marker changed here that named the erased version, and keeps one naming a version left", async () => {
  for (const [marker, kept] of [["2", false], ["1", true]] as const) {
    const m = await arranged();
    // The crash came before the erasure; then the marker was set by hand.
    await m.cache.writeState(ERASURE_JOURNAL, {
      ...emptyJournal(),
      erase: [V2],
      prefixes: ["data/t/m"],
    });
    await m.cache.write(MARKER, enc(marker));
    await refusedRunEraser()(m.ctx, spyNext());
    assert.equal(new TextDecoder().decode((await m.cache.read(MARKER))!), "1", marker);
    const reset = m.warnings.filter((w) => w.code === "latest_reset");
    if (kept) {
      assert.deepEqual(reset, [], "a marker naming version 1, still here, is left as set");
    } else {
      assert.equal(reset.length, 1, "the reset of a marker changed here is reported");
      assert.equal(reset[0].path, MARKER);
      assert.match(reset[0].message, /named version 2.*now names version 1/s);
    }
  }
});

Deno.test("the refresh of a completed earlier erasure waits until this push is decided", async () => {
  // An earlier refused run's remote deletion is still to do (an outage failed it).
  const journaled = async (m: Awaited<ReturnType<typeof arranged>>) =>
    await m.cache.writeState(ERASURE_JOURNAL, {
      ...emptyJournal(),
      uploads: [{ path: "data/t/m/d/9/raw", version: "gone" }],
      prefixes: ["data/t/m"],
    });
  // Pushed: the refresh comes after the push, never over this run's new version.
  const ok = await arranged();
  await journaled(ok);
  let before = -1;
  assert.equal(await run(ok, () => void (before = ok.refreshed.length)), undefined);
  assert.equal(before, 0, "no refresh before the push went through");
  assert.deepEqual(ok.refreshed, [["data/t/m"]]);
  // Refused: the run's version is erased first, then one refresh covers both.
  const refused = await arranged();
  await journaled(refused);
  let seen = -1;
  const e = await run(refused, () => {
    seen = refused.refreshed.length;
    throw lost();
  });
  assert.ok(e instanceof ModelLockLostError);
  assert.equal(seen, 0, "no refresh while the run's version was still in the cache");
  assert.equal(await refused.cache.read(`${V2}/raw`), null);
  assert.deepEqual(refused.refreshed, [["data/t/m"]]);
});

Deno.test("a dry run over an erasure cut off after its move shows a later run's same version as to push", async () => {
  const m = await arranged();
  // The refused run's V2 was moved away before a crash; the V2 in the cache is a later run's.
  await m.cache.moveToState(`${V1}/nothing`, "erasing/x");
  await writeErasureJournal(m.cache, {
    ...emptyJournal(),
    erase: [V2],
    moving: { [V2]: "erasing/x" },
  });
  await refusedRunEraser()({ ...m.ctx, dryRun: true }, spyNext());
  assert.equal(m.ctx.plan[0].path, `${V2}/raw`);
  assert.equal(m.ctx.plan[0].action, "put");
});

Deno.test("a dry run erases nothing and shows journaled entries as left out", async () => {
  const m = await arranged();
  const ctx: PushContext = { ...m.ctx, dryRun: true };
  const refused = await refusedRunEraser()(
    ctx,
    spyNext(() => {
      throw lost();
    }),
  ).then(() => undefined, (e) => e);
  assert.ok(refused instanceof ModelLockLostError);
  assert.notEqual(await m.cache.read(`${V2}/raw`), null);
  await writeErasureJournal(m.cache, { ...emptyJournal(), erase: [V2] });
  await refusedRunEraser()(ctx, spyNext());
  assert.equal(m.ctx.plan[0].action, "skip");
  assert.notEqual(await m.cache.read(`${V2}/raw`), null);
});

Deno.test("a malformed journal fails the push closed", async () => {
  const m = await arranged();
  await m.cache.writeState(ERASURE_JOURNAL, { format: 2 });
  const next = spyNext();
  await assert.rejects(() => refusedRunEraser()(m.ctx, next), SluiceError);
  assert.equal(next.calls, 0);
});

Deno.test("the entry helper registers the eraser before the fence", () => {
  const p = new Pipeline<PushContext>(PUSH_PHASES).add(lockFenceEntry()).add(
    refusedRunEraserEntry(),
  );
  assert.deepEqual(p.names(), [REFUSED_RUN_ERASER, "lock-fence"]);
});

// --- incident 002 (and 001 with the eraser) end to end: two clones sharing one store ---

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

interface Gates {
  readonly fence: boolean;
  readonly eraser: boolean;
}

/** A third-party lock that, like some registry locks, reports any read failure as "absent". */
class NullOnErrorLock implements DistributedLock {
  readonly key = KEY;
  readonly #store: InMemoryStore;
  readonly #info: LockInfo;
  constructor(store: InMemoryStore, who: Identity) {
    this.#store = store;
    this.#info = { ...who, acquiredAt: "2026-01-01T00:00:00Z", ttlMs: 30_000, nonce: "tp" };
  }
  async acquire(): Promise<void> {
    await this.#store.put(this.key, encodeLockInfo(this.#info), PutModes.create);
  }
  async release(): Promise<void> {
    await this.#store.delete(this.key).catch(() => {});
  }
  withLock<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
  async inspect(): Promise<LockInfo | null> {
    try {
      const got = await this.#store.get(this.key);
      return JSON.parse(new TextDecoder().decode(got.body)) as LockInfo;
    } catch {
      return null; // the flaw: an unreachable store looks like a released lock
    }
  }
  forceRelease(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

interface WorldOptions {
  /** Runs after each write of A's or B's push. */
  readonly onWrite?: (ctx: WriteContext) => Promise<void>;
  /** Adds the create-only writer to the write pipeline. */
  readonly createOnly?: boolean;
  /** Runs ahead of each store delete of any clone. */
  readonly beforeDelete?: (key: string) => Promise<void>;
}

function pipelines(gates: Gates, { onWrite, createOnly }: WorldOptions) {
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  push.add({ name: PATH_CLASSIFIER, phase: "classify", middleware: pathClassifier() });
  if (gates.eraser) push.add(refusedRunEraserEntry());
  if (gates.fence) push.add(lockFenceEntry());
  const write = new Pipeline<WriteContext>(WRITE_PHASES);
  if (createOnly) write.add(createOnlyWriterEntry());
  if (onWrite) {
    write.add({
      name: "spy",
      phase: "prepare",
      middleware: async (ctx, next) => {
        await next();
        await onWrite(ctx);
      },
    });
  }
  return { push, write };
}

async function world(gates: Gates, options: WorldOptions = {}) {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const lockBackend = storeLockBackend(store, { clock });
  const warnings: string[] = [];
  const seen = options.beforeDelete
    ? hookedStore(store, { beforeDelete: options.beforeDelete })
    : store;
  const clone = async (name: string, pid: number, cacheDir?: string, g = gates) => {
    const svc = await createSyncService({
      cacheDir: cacheDir ?? await Deno.makeTempDir({ prefix: `sluice-eraser-${name}-` }),
      store: seen,
      lockBackend,
      identity: { holder: `${name}@host`, hostname: "host", pid },
      clock,
      config: quick,
      ...pipelines(g, options),
    });
    svc.events.on("warning", (w) => warnings.push(`${name}:${w.code}`));
    return svc;
  };
  const a = await clone("a", 1);
  const b = await clone("b", 2);
  await writeVersion(a, 1, "first");
  await a.pushChanged();
  await b.pullChanged();
  return { clock, store, a, b, warnings, clone };
}

async function writeVersion(svc: SyncService, n: number, text: string): Promise<string> {
  const dir = `${DATA}/${n}`;
  await Deno.mkdir(`${svc.cacheDir}/${dir}`, { recursive: true });
  await Deno.writeTextFile(`${svc.cacheDir}/${dir}/raw`, text);
  await Deno.writeTextFile(`${svc.cacheDir}/${dir}/metadata.yaml`, `version: ${n}\n`);
  await Deno.writeTextFile(`${svc.cacheDir}/${MARKER}`, `${n}`);
  await svc.markDirty({ relPaths: [`${dir}/raw`, `${dir}/metadata.yaml`, MARKER] });
  return dir;
}

/** Cache files (internal state left out), path → text. */
async function cacheFiles(svc: SyncService): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const f of walkFiles(svc.cacheDir)) {
    out[f.path] = await Deno.readTextFile(`${svc.cacheDir}/${f.path}`);
  }
  return out;
}

/** Store objects other than the index and locks, key → text. */
function storeFiles(store: InMemoryStore): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of store.keys()) {
    if (!isLayoutInternal(k) && !k.endsWith(".lock")) out[k] = store.peekText(k)!;
  }
  return out;
}

const storeHasA = (store: InMemoryStore) =>
  store.keys().some((k) => (store.peekText(k) ?? "").includes("A's data"));

/** A holds the lock, a breakglass frees it, B takes it and pushes version 2, then A pushes 2. */
async function breakglass(gates: Gates, beforeA?: (w: Awaited<ReturnType<typeof world>>) => void) {
  const w = await world(gates);
  const setA = await acquireModelLocks(w.a, ["t/m"]);
  const dirA = await writeVersion(w.a, 2, "A's data");
  await releaseLock(w.b, { model: "t/m", force: true });
  const setB = await acquireModelLocks(w.b, ["t/m"]);
  await setB.push([await writeVersion(w.b, 2, "B's data")]);
  beforeA?.(w);
  const error = await setA.push([dirA]).then(() => undefined, (e) => e);
  w.store.heal(); // a fault armed for A's push never outlives it
  await setB.release();
  await setA.release();
  return { ...w, error, dirA };
}

/** A's model lock is a third-party lock; the store goes down before A pushes. */
async function lostWhileUnreachable(gates: Gates) {
  const w = await world(gates);
  const lock = new NullOnErrorLock(w.store, w.a.identity);
  await lock.acquire();
  const dirA = await writeVersion(w.a, 2, "A's data");
  w.store.unreachable = true;
  const error = await w.a.pushChanged({
    locks: [lock],
    written: [dirA],
    preexisting: new Set([V1]),
    models: ["t/m"],
  }).then(() => undefined, (e) => e);
  w.store.heal();
  await lock.release();
  return { ...w, error, dirA };
}

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
