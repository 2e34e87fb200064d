/**
 * The refused-run eraser alone, on a mock push context; its end-to-end
 * tests are in `refused_run_eraser_test.ts`.
 */
import assert from "node:assert/strict";
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
import {
  type InMemoryStore,
  mockPushContext,
  planEntry,
  spyNext,
} from "../packages/testing/mod.ts";
import { SluiceError } from "../sync/errors.ts";
import { LockReadError, ModelLockLostError } from "../sync/lock_errors.ts";
import {
  emptyJournal,
  ERASURE_JOURNAL,
  ErasureRefusedError,
  journalPending,
  readErasureJournal,
  writeErasureJournal,
} from "./erasure.ts";
import { sha256Hex } from "../sync/hash.ts";
import { Pipeline } from "../sync/pipeline.ts";
import { PutModes } from "../sync/ports.ts";
import { PUSH_PHASES, type PushContext } from "../sync/context.ts";

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
