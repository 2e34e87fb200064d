/**
 * Swamp's token commands (`access token mint`, the serve device login and
 * token migration) mark the whole cache dirty and call `pushChanged()` with
 * no namespace, on the service that a model lock's scoped pull bound to
 * the repository's namespace. A call that names no namespace is taken as
 * the bound one; one naming another namespace is still refused.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { checkout } from "./checkout_kit.ts";

Deno.test("a push naming no namespace, on a service bound to one, pushes that namespace's marked writes", async () => {
  const store = new InMemoryStore();
  const a = await checkout(store, "a", createSluice);
  try {
    await a.write("prod/.namespace.json", "{}");
    const model = { modelType: "swamp/server-token", modelId: "t1" };
    await a.svc.pullChanged({ namespace: "prod", context: { models: [model] } });
    await a.write("prod/auto-definitions/swamp/server-token/t1.yaml", "token");
    await a.svc.markDirty();
    assert.equal(await a.svc.pushChanged(), 1);
    assert.equal(store.peekText("prod/auto-definitions/swamp/server-token/t1.yaml"), "token");
    assert.deepEqual(store.keys("auto-definitions"), []);
    assert.equal(await a.svc.pullChanged(), 0);
    await assert.rejects(a.svc.pushChanged({ namespace: "other" }), /Namespace mismatch/);
    // Its first pull, of a datastore nothing was pushed to yet, says so; nothing else is told.
    assert.deepEqual(a.warnings.map((w) => w.code), ["datastore_empty"]);
  } finally {
    await Deno.remove(a.cache, { recursive: true });
  }
});
