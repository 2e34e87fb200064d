import assert from "node:assert/strict";
import { mockPushContext, planEntry } from "../packages/testing/mod.ts";
import { emptyJournal } from "./erasure_journal.ts";
import type { DistributedLock } from "../sync/ports.ts";
import { hold, REFUSED_RUN_ERASER, resume } from "./refused_run_hold.ts";

const V2 = "data/t/m/d/2";
const OTHER = "notes/n.txt";

Deno.test("hold leaves a held run's version out of the push, kept dirty, and warns once; other entries go on", async () => {
  const m = await mockPushContext({ written: [] });
  m.ctx.plan.push(planEntry(`${V2}/raw`, { class: "data-version" }), planEntry(OTHER));
  await hold(m.ctx, {
    ...emptyJournal(),
    held: [{ dirs: [V2], problems: [], uploads: [], at: 0 }],
  });
  const [raw, other] = m.ctx.plan;
  assert.equal(raw.action, "skip");
  assert.equal(raw.keepDirty, true);
  assert.match(raw.reason!, /held out of pushes/);
  assert.equal(other.action, "put");
  assert.deepEqual(m.warnings.map((w) => w.code), ["erasure_held"]);
  assert.ok(m.gates.some((g) => g.gate === REFUSED_RUN_ERASER));
});

Deno.test("hold and resume with an empty journal change nothing and say nothing", async () => {
  const m = await mockPushContext({ written: [] });
  m.ctx.plan.push(planEntry(`${V2}/raw`, { class: "data-version" }));
  await hold(m.ctx, emptyJournal());
  assert.deepEqual(await resume(m.ctx, emptyJournal()), []);
  assert.equal(m.ctx.plan[0].action, "put");
  assert.deepEqual(m.warnings, []);
});

Deno.test("hold leaves out another run's versions under a lost lock (holdBack), and a marker naming one, kept dirty, with no warning", async () => {
  const m = await mockPushContext({ written: [], holdBack: [V2] });
  await m.cache.write("data/t/m/d/latest", new TextEncoder().encode("2"));
  m.ctx.plan.push(
    planEntry(`${V2}/raw`, { class: "data-version" }),
    planEntry("data/t/m/d/latest", { class: "latest-marker" }),
    planEntry(OTHER),
  );
  await hold(m.ctx, emptyJournal());
  const [raw, marker, other] = m.ctx.plan;
  for (const e of [raw, marker]) {
    assert.equal(e.action, "skip");
    assert.equal(e.keepDirty, true);
    assert.match(e.reason!, /under the model lock of another run of this process/);
  }
  assert.equal(other.action, "put");
  assert.deepEqual(m.warnings, []);
});

Deno.test("resume: a user's deletion of a marker a peer committed (the refused run's kept upload, synced here since) is not dropped silently", async () => {
  const { WRITER_METADATA } = await import("../sync/transfer/writer_id.ts");
  const { PutModes } = await import("../sync/ports.ts");
  const { sha256Hex } = await import("../sync/hash.ts");
  const { updateIndex } = await import("../sync/transfer/remote_index.ts");
  const { writeErasureJournal } = await import("./erasure_journal.ts");
  const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
  const enc = (s: string) => new TextEncoder().encode(s);
  const MARKER = "data/t/m/d/latest";
  const m = await mockPushContext({ written: [] });
  await m.cache.writeState("writer.json", { id: "me" });
  // The refused run created the marker on the datastore (its erasure pending).
  const up = await m.store.put(MARKER, enc("1"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "me" },
  });
  // A peer's push met it with equal bytes and committed it as its own.
  const h = await sha256Hex(enc("1"));
  await updateIndex(m.store, {
    set: { [MARKER]: { v: up.version, h, s: 1 } },
    remove: [],
    base: { [MARKER]: null },
  }, NO_RETRY);
  // A pull here synced the peer's committed marker; the user then deleted it.
  m.state.setSynced(MARKER, { hash: h, version: up.version, size: 1 });
  await m.state.markDirty(MARKER);
  m.ctx.plan.push(
    planEntry(MARKER, { action: "delete", class: "latest-marker", syncedVersion: up.version }),
  );
  const j = { ...emptyJournal(), uploads: [{ path: MARKER, version: up.version }] };
  await writeErasureJournal(m.cache, j);
  await resume(m.ctx, j);
  const [e] = m.ctx.plan;
  const held = await m.store.get(MARKER);
  assert.equal(
    new TextDecoder().decode(held.body),
    "1",
    "the erasure kept the peer's committed marker",
  );
  assert.ok(
    e.action === "delete" || e.keepDirty === true,
    `the user's deletion is neither done nor kept dirty: ${e.action}, keepDirty ${e.keepDirty}, ${e.reason}`,
  );
});

Deno.test("hold leaves out everything under another run's model directory (holdBack), a version written after the list was made and the markers included, but a model directory of this push's own locks inside it", async () => {
  const lock = { key: "data/t/m/x/.lock" } as unknown as DistributedLock; // the model t/m/x
  const m = await mockPushContext({ written: [], holdBack: ["data/t/m"], locks: [lock] });
  m.ctx.plan.push(
    planEntry("data/t/m/d/7/raw", { class: "data-version" }),
    planEntry("data/t/m/d/7/metadata.yaml", { class: "data-version" }),
    planEntry("data/t/m/d/latest", { class: "latest-marker" }),
    planEntry("data/t/m/x/d/1/raw", { class: "data-version" }),
    planEntry("data/t/mm/d/1/raw", { class: "data-version" }),
    planEntry(OTHER),
  );
  await hold(m.ctx, emptyJournal());
  const [raw, meta, marker, own, near, other] = m.ctx.plan;
  for (const e of [raw, meta, marker]) {
    assert.equal(e.action, "skip", e.path);
    assert.equal(e.keepDirty, true);
    assert.match(e.reason!, /under the model lock of another run of this process/);
  }
  for (const e of [own, near, other]) assert.equal(e.action, "put", e.path);
  assert.deepEqual(m.warnings, []);
});
