import assert from "node:assert/strict";
import { createSluice } from "../sluice.ts";
import { FakeClock, InMemoryStore } from "../packages/testing/mod.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import { VersionConflictError } from "../sync/errors.ts";
import type { SyncService } from "../sync/service/service.ts";
import { UNFINISHED_REASON, UNFINISHED_VERSION_HOLDER } from "./unfinished_version_holder.ts";

const DIR = "data/shell/cmd/m1/log/1";
const enc = new TextEncoder();

async function service(
  store: InMemoryStore,
  o: { hold?: boolean; disable?: string[] } = {},
): Promise<SyncService> {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-unfinished-" }),
    store,
    identity: { holder: "w@host", hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: {
      retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 },
      ...(o.hold === false ? {} : { unfinishedVersions: "hold" as const }),
    },
    conditional: new ConditionalWrites(),
    ...(o.disable ? { disable: o.disable } : {}),
  });
}

/**
 * Two steps of a workflow on one service: step B's data writer has written
 * `raw` part way (no metadata.yaml yet) when step A's flush runs; then B
 * finalizes its version and flushes. Returns what the store holds and B's
 * flush's error, if any.
 */
async function twoSteps(svc: SyncService, store: InMemoryStore) {
  await svc.markDirty({ relPath: "data/shell/cmd/m1/log" });
  await svc.cache.write(`${DIR}/raw`, enc.encode("line 1\n"));
  await svc.cache.write("data/shell/cmd/m0/out/1/raw", enc.encode("a's output"));
  await svc.cache.write("data/shell/cmd/m0/out/1/metadata.yaml", enc.encode("version: 1\n"));
  await svc.markDirty({ relPath: "data/shell/cmd/m0/out/1" });
  const a = await svc.pushChanged();
  const between = store.peekText(`${DIR}/raw`);
  await svc.cache.write(`${DIR}/raw`, enc.encode("line 1\nline 2\n"));
  await svc.cache.write(`${DIR}/metadata.yaml`, enc.encode("version: 1\nsize: 14\n"));
  await svc.markDirty({ relPath: DIR });
  const b = await svc.pushChanged().then(() => null, (e) => e);
  return { a, between, b };
}

Deno.test("a version still being written is left out of another step's push, kept dirty, and published whole once finalized", async () => {
  const store = new InMemoryStore();
  const svc = await service(store);
  const { a, between, b } = await twoSteps(svc, store);
  assert.equal(between, undefined, "nothing of the unfinished version was published");
  assert.deepEqual(a.uploaded.sort(), [
    "data/shell/cmd/m0/out/1/metadata.yaml",
    "data/shell/cmd/m0/out/1/raw",
  ]);
  assert.deepEqual(a.skipped, [{ path: `${DIR}/raw`, reason: UNFINISHED_REASON, keepDirty: true }]);
  assert.equal(b, null);
  assert.equal(store.peekText(`${DIR}/raw`), "line 1\nline 2\n");
  assert.equal(store.peekText(`${DIR}/metadata.yaml`), "version: 1\nsize: 14\n");
});

Deno.test("without the gate, the other step publishes the version part way and its writer's push is refused: the truncated raw stays", async () => {
  const store = new InMemoryStore();
  const svc = await service(store, { disable: [UNFINISHED_VERSION_HOLDER] });
  const { between, b } = await twoSteps(svc, store);
  assert.equal(between, "line 1\n");
  assert.ok(b instanceof VersionConflictError, String(b));
  assert.equal(store.peekText(`${DIR}/raw`), "line 1\n", "the datastore keeps the truncated raw");
});

Deno.test("the gate holds nothing unless unfinishedVersions is hold (a raw alone is then pushed as it is)", async () => {
  const store = new InMemoryStore();
  const plain = await service(store, { hold: false });
  await plain.cache.write(`${DIR}/raw`, enc.encode("only raw"));
  await plain.markDirty({ relPath: `${DIR}/raw` });
  assert.deepEqual((await plain.pushChanged()).uploaded, [`${DIR}/raw`]);
  const held = await service(new InMemoryStore());
  await held.cache.write(`${DIR}/raw`, enc.encode("only raw"));
  await held.markDirty({ relPath: `${DIR}/raw` });
  const r = await held.pushChanged();
  assert.deepEqual(r.uploaded, []);
  assert.ok(held.state.dirtyPaths().includes(`${DIR}/raw`), "kept dirty");
  assert.ok(held.describe().push.some((line) => line.includes(UNFINISHED_VERSION_HOLDER)));
});
