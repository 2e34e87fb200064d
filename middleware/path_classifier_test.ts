import assert from "node:assert/strict";
import { classifyPath, pathClassifier } from "./path_classifier.ts";
import { mockPushContext, planEntry, spyNext } from "../packages/testing/mod.ts";

Deno.test("default rules give each known shape its class", () => {
  const cases: [string, string][] = [
    ["data/aws/ec2/m1/state/3/raw", "data-version"],
    ["data/t/m/d/12/metadata.yaml", "data-version"],
    ["data/a/b/c/m/d/1/raw", "data-version"],
    ["data/t/m/d/latest", "latest-marker"],
    ["data/t/m/d/x/raw", "other"],
    [".datastore-index.json", "internal"],
    ["_index/by-type/aws.json", "internal"],
    ["_index/_meta.json", "internal"],
    [".datastore-sync-state.json", "internal"],
    ["_control/heartbeats/h1", "internal"],
    ["data/t/m/_meta.json", "index"],
    [".catalog-export.json", "index"],
    ["config/upstream_extensions.json", "managed-lockfile"],
    ["config/vaults/v1.yaml", "config"],
    [".sluice/manifest.json", "internal"],
    ["data/t/m/.lock", "internal"],
    [".datastore.lock", "internal"],
    [".locks/prod.lock", "internal"],
    ["x/y.tmp", "internal"],
    [".namespace.json", "internal"],
    ["_catalog.db-wal", "internal"],
    ["workflow-runs/r1.json", "other"],
    ["outputs/o.txt", "other"],
  ];
  for (const [p, c] of cases) assert.equal(classifyPath(p), c, p);
});

Deno.test("a namespace prefix is stripped", () => {
  assert.equal(classifyPath("prod/data/t/m/d/3/raw"), "data-version");
  assert.equal(classifyPath("prod/config/upstream_extensions.json"), "managed-lockfile");
  assert.equal(classifyPath("prod/data/t/m/d/latest"), "latest-marker");
  assert.equal(classifyPath("prod/notes.txt"), "other");
});

Deno.test("extra rules win over the defaults", () => {
  const rules = [{ pattern: "reports/**/*.json", class: "index" as const }, {
    pattern: "config/local.yaml",
    class: "internal" as const,
  }];
  assert.equal(classifyPath("reports/a/b/c.json", rules), "index");
  assert.equal(classifyPath("reports/c.json", rules), "index");
  assert.equal(classifyPath("config/local.yaml", rules), "internal");
  assert.equal(classifyPath("config/other.yaml", rules), "config");
});

Deno.test("the gate classifies every entry, skips internal ones and moves markers to commit", async () => {
  const m = await mockPushContext({
    plan: [
      planEntry("data/t/m/d/1/raw"),
      planEntry("data/t/m/d/latest"),
      planEntry(".datastore.lock"),
      planEntry("logs/a.log"),
    ],
  });
  const next = spyNext();
  await pathClassifier()(m.ctx, next);
  assert.equal(next.calls, 1);
  const [v, latest, lock, log] = m.ctx.plan;
  assert.equal(v.class, "data-version");
  assert.equal(latest.class, "latest-marker");
  assert.equal(latest.commit, true);
  assert.equal(lock.action, "skip");
  assert.equal(log.class, "other");
  assert.ok(m.ctx.plan.every((e) => e.handledBy.includes("path-classifier")));
  assert.equal(m.gates.length, 1);
});
