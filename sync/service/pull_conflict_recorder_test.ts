/**
 * conflictRecorder: what a pull's conflict record holds, and when it is
 * told (at once, or later by the `tell` it returns).
 */
import assert from "node:assert/strict";
import { FakeClock, mockPushContext } from "../../packages/testing/mod.ts";
import { createEmitter, type WarningEvent } from "../events.ts";
import type { ConflictRecord } from "./conflicts.ts";
import { conflictRecorder } from "./pull_conflict_recorder.ts";
import type { PullDeps } from "./pull.ts";

async function setup() {
  const clock = new FakeClock(1_000);
  const m = await mockPushContext({ clock });
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  const deps: PullDeps = {
    store: m.store,
    cache: m.cache,
    state: m.state,
    config: m.ctx.config,
    events,
    signal: new AbortController().signal,
    isInternal: () => false,
    now: () => clock.now(),
  };
  const found: ConflictRecord[] = [];
  return { deps, found, warnings, dir: m.cache.dir };
}

const theirs = { v: "v7", h: "abc", s: 3 };

Deno.test("pull conflict recorder: a conflict is recorded with theirs, the time, found by the pull, and told at once", async () => {
  const s = await setup();
  try {
    const { rec } = conflictRecorder(s.deps, s.found)("notes/a.md", null, theirs, "deleted here");
    assert.deepEqual(s.found, [rec]);
    assert.deepEqual(rec.theirs, { version: "v7", hash: "abc", size: 3 });
    assert.equal(rec.foundBy, "pull");
    assert.equal(rec.at, 1_000);
    assert.equal(rec.reason, "deleted here");
    assert.deepEqual(s.warnings.map((w) => w.code), ["pull_conflict"]);
    assert.match(s.warnings[0].message, /notes\/a\.md/);
  } finally {
    await Deno.remove(s.dir, { recursive: true });
  }
});

Deno.test("pull conflict recorder: a conflict recorded for later is told only by its tell", async () => {
  const s = await setup();
  try {
    const held = conflictRecorder(s.deps, s.found)("notes/a.md", null, theirs, "why", true);
    assert.equal(s.found.length, 1);
    assert.equal(s.warnings.length, 0);
    held.tell(false);
    assert.deepEqual(s.warnings.map((w) => w.code), ["pull_conflict"]);
  } finally {
    await Deno.remove(s.dir, { recursive: true });
  }
});
