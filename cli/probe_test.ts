import assert from "node:assert/strict";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { describeProbe, probeWithLatency } from "./probe.ts";

Deno.test("probe: an endpoint that honours conditional writes", async () => {
  const store = new InMemoryStore();
  const r = await probeWithLatency(store);
  assert.equal(r.create, "honoured");
  assert.equal(r.update, "honoured");
  assert.deepEqual(r.requests.map((q) => [q.op, q.mode, q.outcome]), [
    ["put", "create", "ok"],
    ["put", "create", "already_exists"],
    ["put", "overwrite", "ok"],
    ["put", "update", "precondition_failed"],
    ["delete", undefined, "ok"],
  ]);
  assert.ok(r.maxMs >= r.medianMs);
  assert.equal(store.keys().length, 0, "the probe cleans up");
  assert.match(describeProbe(r).join("\n"), /Conditional writes are honoured/);
});

Deno.test("probe: an endpoint that silently ignores them is named as such", async () => {
  const store = new InMemoryStore();
  store.conditionalMode = "ignore";
  const r = await probeWithLatency(store);
  assert.equal(r.create, "ignored");
  assert.equal(r.update, "ignored");
  const text = describeProbe(r).join("\n");
  assert.match(text, /IGNORED/);
  assert.match(text, /silently ignores conditional writes/);
  assert.equal(store.keys().length, 0);
});

Deno.test("probe: an endpoint that refuses them", async () => {
  const store = new InMemoryStore();
  store.conditionalMode = "refuse";
  const r = await probeWithLatency(store);
  assert.equal(r.create, "refused");
  assert.equal(r.update, "refused");
  assert.match(describeProbe(r).join("\n"), /REFUSED[\s\S]*check-then-write/);
});

Deno.test("probe: an unreachable endpoint fails with its typed error", async () => {
  const store = new InMemoryStore();
  store.unreachable = true;
  await assert.rejects(probeWithLatency(store), (e: unknown) => {
    assert.equal((e as { code?: string }).code, "unreachable");
    return true;
  });
});
