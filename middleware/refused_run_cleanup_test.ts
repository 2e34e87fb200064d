import assert from "node:assert/strict";
import { mockPushContext } from "../packages/testing/mod.ts";
import { refresh } from "./refused_run_cleanup.ts";

Deno.test("refresh pulls the refused models' prefixes; none, no pull", async () => {
  const m = await mockPushContext({ written: [] });
  await refresh(m.ctx, []);
  assert.deepEqual(m.refreshed, []);
  await refresh(m.ctx, ["data/t/m"]);
  assert.deepEqual(m.refreshed, [["data/t/m"]]);
  assert.deepEqual(m.warnings, []);
});

Deno.test("a refresh that fails is a warning naming the prefixes, never an error", async () => {
  const m = await mockPushContext({
    written: [],
    refresh: () => Promise.reject(new Error("datastore unreachable")),
  });
  await refresh(m.ctx, ["data/t/m"]);
  assert.deepEqual(m.warnings.map((w) => w.code), ["refresh_failed"]);
  assert.match(m.warnings[0].message, /data\/t\/m .*datastore unreachable/);
});
