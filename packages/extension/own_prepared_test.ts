/**
 * A data version a run published
 * with preparePush + commitPush is this cache's own, kept over an older
 * client's blind deletion as pushChanged's is.
 */
import assert from "node:assert/strict";
import { writeAsTool } from "./checkout_kit.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { peerPush } from "../testing/layout_peer.ts";
import { defineStoreDatastore } from "./store_datastore.ts";
import { createSluice } from "../../sluice.ts";
import { envFrom } from "./env.ts";

const CONFIG = { bucket: "mem", lock: { backend: "store", ttlMs: 30_000 } };
const MODEL = { modelType: "shell/cmd", modelId: "m1" };
const LOCK_KEY = "data/shell/cmd/m1/.lock";
const OUT = "data/shell/cmd/m1/out";

for (const prepared of [false, true]) {
  Deno.test(`own flag through the extension: a version published by ${prepared ? "preparePush + commitPush" : "pushChanged"} is kept over an older client's blind deletion`, async () => {
    const store = new InMemoryStore();
    const ds = defineStoreDatastore({
      store,
      createService: createSluice,
      env: envFrom({}),
      identity: { holder: "a@host-a", hostname: "host-a", pid: 97 },
    });
    const cache = await Deno.makeTempDir({ prefix: "sluice-ext-own-" });
    const provider = () => ds.createProvider(CONFIG);
    const svc = provider().createSyncService("/repo/a", cache);
    const lock = provider().createLock("/repo/.swamp", { lockKey: LOCK_KEY, maxWaitMs: 1000 });
    await lock.acquire();
    await svc.pullChanged({ context: { models: [MODEL] } });
    await svc.markDirty({ relPath: OUT });
    await writeAsTool(cache, `${OUT}/1/raw`, "from a");
    await writeAsTool(cache, `${OUT}/latest`, "1");
    await svc.markDirty({ relPath: `${OUT}/1` });
    if (prepared) {
      const manifest = await svc.preparePush({ context: { models: [MODEL] } });
      await svc.commitPush(manifest);
    } else {
      await svc.pushChanged({ context: { models: [MODEL] } });
    }
    await lock.release();
    assert.equal(store.peekText(`${OUT}/1/raw`), "from a");
    await peerPush(store, {}, { remove: [`${OUT}/1/raw`] });
    await svc.pullChanged().catch(() => undefined);
    assert.equal(
      await Deno.readTextFile(`${cache}/${OUT}/1/raw`).catch(() => null),
      "from a",
      "kept in place, a conflict",
    );
  });
}
