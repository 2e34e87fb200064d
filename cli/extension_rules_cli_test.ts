/**
 * The command line on a cache the swamp extension made keeps to the
 * datastore configuration's `classifierRules`: a path a rule classes
 * `internal` is never pushed nor pulled, also when the user runs the
 * `sluice status` / `sluice push` the extension's warnings name.
 */
import assert from "node:assert/strict";
import { sluice } from "./cli_test_kit.ts";
import type { StoreSpec } from "./store_spec.ts";
import { InMemoryStore } from "../packages/testing/in_memory_store.ts";
import { createSluice } from "../sluice.ts";
import { writeAsTool } from "../packages/extension/checkout_kit.ts";
import { memoryS3Datastore } from "../packages/extension/memory_datastore_kit.ts";

Deno.test("the command line run on an extension's cache never publishes a path the datastore's classifierRules class internal", async () => {
  const store = new InMemoryStore();
  const ds = memoryS3Datastore({ mem: store }, createSluice);
  const provider = ds.createProvider({
    bucket: "mem",
    lock: { backend: "store" },
    classifierRules: [{ pattern: "scratch/**", class: "internal" }],
  });
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-rules-" });
  const svc = provider.createSyncService!("/repo", cache);
  await svc.markDirty({ relPath: "notes/a.md" });
  await writeAsTool(cache, "notes/a.md", "shared");
  await svc.markDirty({ relPath: "scratch/tmp.txt" });
  await writeAsTool(cache, "scratch/tmp.txt", "local only");
  await svc.pushChanged({});
  assert.deepEqual(store.keys("notes/"), ["notes/a.md"]);
  assert.deepEqual(store.keys("scratch/"), [], "the extension keeps scratch/ local");

  // The user runs the command line on that cache, as the extension's warnings tell.
  const openStore = (spec: StoreSpec) => ({ store, spec, close: () => {} });
  const status = await sluice(["status", "--cache", cache, "--json"], { openStore });
  assert.ok(!status.out.includes("scratch/tmp.txt"), `status offers to push it:\n${status.out}`);
  const pushed = await sluice(["push", "--cache", cache], { openStore });
  assert.equal(pushed.code, 0, pushed.err);
  assert.deepEqual(store.keys("scratch/"), [], `the command line published it:\n${pushed.out}`);
  await Deno.remove(cache, { recursive: true });
});
