/**
 * A clone whose namespace is set in its configuration but that never ran
 * `namespace set` has no local manifest: the tool's marks made before a
 * service is bound cannot tell the namespace and go to the solo state. The
 * first sync of the namespace moves them there, so the write they announce
 * is pushed, not left local and untold. A file it hydrates before a service
 * is bound is looked for in the namespace the datastore registered.
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
    assert.equal(await first.pushChanged({ namespace: "prod" }), 2); // raw, metadata.yaml
    assert.equal(store.peekText("prod/data/t/m/d/1/raw"), "one");

    // The next commands: each service marks before its push binds it.
    for (const n of [2, 3]) {
      const next = ds.createProvider(CHECKOUT_CONFIG).createSyncService("/repo/a", cache);
      await next.markDirty({ relPath: `prod/data/t/m/d/${n}` });
      await write(`prod/data/t/m/d/${n}/raw`, `v${n}`);
      await write(`prod/data/t/m/e/${n}/raw`, "unmarked");
      assert.equal(await next.pushChanged({ namespace: "prod" }), 2, `push ${n}`);
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

Deno.test("a file hydrated before the namespace is bound, with no local manifest, is found in the registered namespace", async () => {
  const store = new InMemoryStore();
  const a = await checkout(store, "a", createSluice);
  const b = await checkout(store, "b", createSluice);
  try {
    // a set the namespace (registered in the datastore, its local manifest written) and ran.
    await a.ds.createProvider(CHECKOUT_CONFIG).registerNamespace("/repo/a/.swamp", "prod", "r1");
    await a.write("prod/.namespace.json", "{}");
    await a.svc.markDirty({ relPath: "prod/data/t/m/d" });
    await a.write("prod/data/t/m/d/1/raw", "one");
    await a.write("prod/data/t/m/d/latest", "1");
    assert.equal(await a.svc.pushChanged({ namespace: "prod" }), 3); // raw, metadata.yaml, latest

    // b's configuration names the namespace, but b never ran `namespace set`:
    // a read-only command hydrates through a service no sync has bound.
    assert.equal(await b.svc.hydrateFile!("prod/data/t/m/d/1/raw"), true);
    assert.equal(await Deno.readTextFile(`${b.cache}/prod/data/t/m/d/1/raw`), "one");
    assert.equal(await b.svc.hydrateFile!("prod/data/t/m/d/9/raw"), false);

    // b's next command: the namespace's pull agrees with the hydrated file, and a write is pushed.
    const { ds } = watchedDatastore(store, { createService: createSluice, name: "b" });
    const next = ds.createProvider(CHECKOUT_CONFIG).createSyncService("/repo/b", b.cache);
    assert.equal(await next.pullChanged({ namespace: "prod" }), 2); // latest, metadata.yaml
    await next.markDirty({ relPath: "prod/data/t/m/d" });
    await b.write("prod/data/t/m/d/2/raw", "two");
    await b.write("prod/data/t/m/d/latest", "2");
    assert.equal(await next.pushChanged({ namespace: "prod" }), 3);
    assert.equal(store.peekText("prod/data/t/m/d/2/raw"), "two");
    assert.deepEqual(b.warnings, []);
  } finally {
    await Deno.remove(a.cache, { recursive: true });
    await Deno.remove(b.cache, { recursive: true });
  }
});
