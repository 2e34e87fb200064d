import assert from "node:assert/strict";
import { mockPushContext, planEntry } from "../packages/testing/mod.ts";
import { emptyJournal } from "./erasure_journal.ts";
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
    assert.match(e.reason!, /another run under a model lock lost since/);
  }
  assert.equal(other.action, "put");
  assert.deepEqual(m.warnings, []);
});
