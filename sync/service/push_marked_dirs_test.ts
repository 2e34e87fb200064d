import assert from "node:assert/strict";
import type { PlanEntry } from "../context.ts";
import { planEntry } from "../../packages/testing/mod.ts";
import { STRANDED_REASON } from "./plan.ts";
import { settleMarkedDirs } from "./push_marked_dirs.ts";

const entry = (path: string, over: Partial<PlanEntry> = {}): PlanEntry =>
  planEntry(path, { source: "dirty", ...over });
const base = { failures: [], settled: new Set<string>(), committing: false, preparing: false };

Deno.test("marked directories: clean once all under it is done; kept while something under it failed or stays dirty", () => {
  const handled: string[] = [];
  const plan = [
    entry("ok/a"),
    entry("bad/a"),
    entry("open/a", { action: "skip", keepDirty: true }),
    entry("check/a", { action: "skip", strandedCheck: true, reason: STRANDED_REASON }),
  ];
  settleMarkedDirs({
    ...base,
    plan,
    dirs: ["ok", "bad", "open", "check"],
    failures: [{ entry: plan[1] }],
    handled,
  });
  assert.deepEqual(handled, ["ok"]);
});

Deno.test("marked directories: a file of the directory's name, handled itself, does not clean the mark while the directory's part failed", () => {
  const file = entry("clash");
  const gone = entry("clash/x", { action: "delete" });
  const handled = ["clash"];
  settleMarkedDirs({
    ...base,
    plan: [file, gone],
    dirs: ["clash"],
    failures: [{ entry: gone }],
    handled,
  });
  assert.deepEqual(handled, []);
});

Deno.test("marked directories: a commit-step write deferred by a preparation defers the directory to its commit", () => {
  const handled: string[] = [];
  const deferred = settleMarkedDirs({
    ...base,
    preparing: true,
    plan: [entry("d/1/raw"), entry("d/latest", { commit: true })],
    dirs: ["d"],
    handled,
  });
  assert.deepEqual([handled, deferred], [[], ["d"]]);
});

Deno.test("marked directories: one held back from the push (another run's), or holding one, stays marked though nothing is under it", () => {
  const handled: string[] = [];
  settleMarkedDirs({
    ...base,
    plan: [entry("data/t/m3/out/1/raw")],
    dirs: ["data/t/m1/out", "data/t", "data/t/m3/out"],
    handled,
    heldBack: ["data/t/m1"],
  });
  assert.deepEqual(handled, ["data/t/m3/out"]);
});
