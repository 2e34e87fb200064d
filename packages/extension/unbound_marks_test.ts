/**
 * A clone whose namespace is set in its configuration but that never ran
 * `namespace set` has no local manifest: the tool's marks made before a
 * service is bound cannot tell the namespace and go to the solo state. The
 * first sync of the namespace moves them there, so the write they announce
 * is pushed, not left local and untold.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { checkout, CHECKOUT_CONFIG, watchedDatastore } from "./checkout_kit.ts";

Deno.test("marks made before the namespace is bound, with no local manifest, are pushed by the namespace's push", async () => {
  const store = new InMemoryStore();
  const { svc: first, cache, write, warnings } = await checkout(store, "a", createSluice);
  // Another process of the same checkout.
  const { ds } = watchedDatastore(store, { createService: createSluice, name: "a" });
  try {
    // The first command: a never-synced namespace is walked by its push.
    await first.markDirty({ relPath: "prod/data/t/m/d/1" });
    await write("prod/data/t/m/d/1/raw", "one");
    assert.equal(await first.pushChanged({ namespace: "prod" }), 1);
    assert.equal(store.peekText("prod/data/t/m/d/1/raw"), "one");

    // The next commands: each service marks before its push binds it.
    for (const n of [2, 3]) {
      const next = ds.createProvider(CHECKOUT_CONFIG).createSyncService("/repo/a", cache);
      await next.markDirty({ relPath: `prod/data/t/m/d/${n}` });
      await write(`prod/data/t/m/d/${n}/raw`, `v${n}`);
      await write(`prod/data/t/m/e/${n}/raw`, "unmarked");
      assert.equal(await next.pushChanged({ namespace: "prod" }), 1, `push ${n}`);
      assert.equal(store.peekText(`prod/data/t/m/d/${n}/raw`), `v${n}`);
      assert.equal(store.peekText(`prod/data/t/m/e/${n}/raw`), undefined, "only what was marked");
    }
    // Nothing of the namespace is left in the solo layout.
    assert.deepEqual(store.keys("").filter((k) => !k.startsWith("prod/")), []);
    assert.deepEqual(warnings, []);
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});
