import assert from "node:assert/strict";
import {
  createPushContext,
  type PlanEntry,
  PUSH_PHASES,
  type PushContextInit,
  PushVar,
  WRITE_PHASES,
} from "./context.ts";
import type { GateEvent } from "./events.ts";
import { mockPushContext } from "../packages/testing/mod.ts";

/** The fields of a push context that {@link createPushContext} takes, from the test kit's context. */
async function init(dryRun: boolean): Promise<{ init: PushContextInit; gates: GateEvent[] }> {
  const { ctx } = await mockPushContext();
  const gates: GateEvent[] = [];
  ctx.events.on("gate", (g) => gates.push(g));
  const { beforeCommit: _b, vars: _v, note: _n, ...rest } = ctx;
  return { init: { ...rest, dryRun }, gates };
}

const entry = (path: string): PlanEntry => ({ path, action: "put", handledBy: [] });

Deno.test("the pipeline phases are in their documented order", () => {
  assert.deepEqual(PUSH_PHASES, ["initialize", "classify", "guard", "erase", "fence", "finalize"]);
  assert.deepEqual(WRITE_PHASES, ["prepare", "mode", "conditional", "finalize"]);
});

Deno.test("createPushContext fills the optional fields and starts with no commit hooks", async () => {
  const { init: i } = await init(false);
  const { locks: _l, written: _w, preexisting: _p, models: _m, uploaded: _u, ...bare } = i;
  const ctx = createPushContext(bare);
  assert.deepEqual(ctx.locks, []);
  assert.deepEqual(ctx.written, []);
  assert.equal(ctx.preexisting.size, 0);
  assert.deepEqual(ctx.models, []);
  assert.deepEqual(ctx.uploaded, []);
  assert.deepEqual(ctx.beforeCommit, []);
  assert.equal(ctx.store, i.store);
});

Deno.test("push vars are created on first use, once per push, and never shared between pushes", async () => {
  const { init: i } = await init(false);
  let made = 0;
  const SEEN = new PushVar("test/seen", () => {
    made++;
    return new Set<string>();
  });
  const a = createPushContext(i);
  const b = createPushContext(i);
  assert.equal(made, 0);
  a.vars.get(SEEN).add("x");
  assert.deepEqual([...a.vars.get(SEEN)], ["x"]);
  assert.equal(made, 1);
  assert.deepEqual([...b.vars.get(SEEN)], []);
  assert.equal(made, 2);
  // Two keys of the same name are still two keys.
  assert.equal(a.vars.get(new PushVar("test/seen", () => 7)), 7);
});

Deno.test("note records each gate once on its entry and emits a gate event", async () => {
  const { init: i, gates } = await init(false);
  const ctx = createPushContext(i);
  const e = entry("a.txt");
  ctx.note("gate-a", "did a", e);
  ctx.note("gate-a", "did a again", e);
  ctx.note("gate-b", "push-wide");
  assert.deepEqual(e.handledBy, ["gate-a"]);
  assert.deepEqual(gates, [
    { gate: "gate-a", message: "did a", path: "a.txt" },
    { gate: "gate-a", message: "did a again", path: "a.txt" },
    { gate: "gate-b", message: "push-wide", path: undefined },
  ]);
});

Deno.test("a dry run records gates on entries but emits no gate event", async () => {
  const { init: i, gates } = await init(true);
  const ctx = createPushContext(i);
  const e = entry("a.txt");
  ctx.note("gate-a", "would do a", e);
  assert.deepEqual(e.handledBy, ["gate-a"]);
  assert.deepEqual(gates, []);
});
