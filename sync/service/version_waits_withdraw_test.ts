/**
 * A data version held back for another writer's uncommitted upload takes
 * back this push's own uploads of its other files; when that deletion fails
 * (the datastore unreachable), the upload left on the datastore stays this
 * cache's to settle: the file stays dirty, and the next push publishes it or
 * deletes it, so that no object of this cache's is left that no index names.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, put } from "./clone_kit.ts";
import { PutModes } from "../ports.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import { readIndex } from "../transfer/remote_index.ts";

const DIR = "data/shell/cmd/m1/out/1";
const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

Deno.test("a sibling upload whose withdrawal failed, as the version waited, is published or deleted by the next push", async () => {
  const store = new InMemoryStore();
  await store.put(`${DIR}/raw`, new TextEncoder().encode("a's refused run"), PutModes.create, {
    metadata: { [WRITER_METADATA]: "a-writer" },
  });
  const b = await clone(store, "b", undefined, { concurrency: 1 });
  await put(b, `${DIR}/metadata.yaml`, "version: 1\n");
  await put(b, `${DIR}/raw`, "b's run");
  await put(b, "data/shell/cmd/m1/out/latest", "1");
  // The withdrawal of b's metadata.yaml upload meets an outage.
  store.failNext("delete", 10, undefined, { match: (k) => k === `${DIR}/metadata.yaml` });
  await b.pushChanged().catch(() => undefined);
  const left = store.peekText(`${DIR}/metadata.yaml`);
  assert.equal(left, "version: 1\n", "the withdrawal failed: b's upload is still there");
  // The outage over, the other writer's upload erased: b's next push settles it.
  store.heal();
  await store.delete(`${DIR}/raw`);
  await b.pushChanged().catch(() => undefined);
  await b.pushChanged().catch(() => undefined);
  const named = (await readIndex(store, retry))?.entries ?? {};
  const head = await store.head(`${DIR}/metadata.yaml`);
  assert.ok(
    head === null || named[`${DIR}/metadata.yaml`]?.v === head.version,
    `b's upload of metadata.yaml (${head?.version}) is named by the index or gone; the index names ${
      JSON.stringify(Object.keys(named))
    }`,
  );
});
