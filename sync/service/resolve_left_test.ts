import assert from "node:assert/strict";
import { emptyPushResult, type PushResult } from "./push_result.ts";
import type { ResolveResult } from "./resolve.ts";
import { leftBehindOf, resolutionsLeftBehind } from "./resolve_left.ts";

const MARKER = "data/t/m/out/latest";
const RAW = "data/t/m/out/1/raw";

/** A `--mine` of `path`, resolved unless told, with its push. */
function mine(path: string, push: Partial<PushResult>, resolved = true): ResolveResult {
  const r = {
    path,
    resolution: "mine" as const,
    resolved,
    setAside: [],
    conflicts: [],
    push: { ...emptyPushResult(), ...push },
  };
  return { ...r, leftBehind: leftBehindOf(r) };
}

const held = (path: string, reason = "held") => ({ path, reason, keepDirty: true });

Deno.test("leftBehindOf: a path the push held beside the resolved one is left behind with its reason", () => {
  const r = mine(RAW, { deleted: [RAW], skipped: [held(MARKER, "another writer's upload")] });
  assert.deepEqual(r.leftBehind, {
    conflicts: [],
    left: [{ path: MARKER, reason: "another writer's upload" }],
  });
});

Deno.test("leftBehindOf: a conflict the push met beside the path is one left, not a file for a later run", () => {
  const r = mine(RAW, { deleted: [RAW], skipped: [held(MARKER)], conflicts: [MARKER] });
  assert.deepEqual(r.leftBehind, { conflicts: [MARKER], left: [] });
});

Deno.test("leftBehindOf: the path itself held is left with the push's reason; one skipped but not held is not", () => {
  const r = mine(
    RAW,
    { skipped: [held(RAW, "waits"), { ...held(MARKER), keepDirty: false }] },
    false,
  );
  assert.deepEqual(r.leftBehind, { conflicts: [], left: [{ path: RAW, reason: "waits" }] });
});

Deno.test("leftBehindOf: theirs not taken names the path", () => {
  const r = {
    path: RAW,
    resolution: "theirs" as const,
    resolved: false,
    setAside: [],
    conflicts: [],
  };
  assert.deepEqual(leftBehindOf(r).left.map((l) => l.path), [RAW]);
});

Deno.test("resolutionsLeftBehind: a later resolution settles what an earlier push left at its path", () => {
  const first = mine(RAW, { deleted: [RAW], skipped: [held(MARKER)], conflicts: [MARKER] });
  const second = mine(MARKER, { uploaded: [MARKER] });
  assert.deepEqual(resolutionsLeftBehind([first, second]), { conflicts: [], left: [] });
  assert.deepEqual(resolutionsLeftBehind([first]).conflicts, [MARKER]);
});

Deno.test("resolutionsLeftBehind: a later push publishing a path held earlier settles it; one held twice is told once", () => {
  const a = mine(RAW, { deleted: [RAW], skipped: [held(MARKER)] });
  const b = mine("data/t/m/out/2/raw", {
    deleted: ["data/t/m/out/2/raw"],
    skipped: [held(MARKER)],
  });
  assert.deepEqual(resolutionsLeftBehind([a, b]).left, [{ path: MARKER, reason: "held" }]);
  const c = mine("data/t/m/out/3/raw", { deleted: ["data/t/m/out/3/raw"], uploaded: [MARKER] });
  assert.deepEqual(resolutionsLeftBehind([a, b, c]).left, []);
});
