import assert from "node:assert/strict";
import {
  arranged,
  arrangedUploaded,
  heldWithCreatedMarker,
  lost,
  MARKER,
  run,
  runRefused,
  V1,
  V2,
} from "./refused_run_eraser_kit.ts";

const text = (b: Uint8Array | null | undefined) => (b ? new TextDecoder().decode(b) : b);

Deno.test("arranged: version 1 and its marker synced, the run's version 2 and marker written here, dirty and planned", async () => {
  const m = await arranged();
  assert.equal(m.state.synced(`${V1}/raw`)?.version, "r1");
  assert.equal(m.state.synced(MARKER)?.version, "r1");
  assert.equal(text(await m.cache.read(`${V2}/raw`)), "A's data");
  assert.equal(text(await m.cache.read(MARKER)), "2");
  assert.deepEqual(m.state.dirtyPaths().sort(), [`${V2}/raw`, MARKER].sort());
  assert.deepEqual(m.ctx.plan.map((e) => e.path), [`${V2}/raw`, MARKER]);
});

Deno.test("arrangedUploaded: the run's raw is on the store, a created upload of the push", async () => {
  const { m, store } = await arrangedUploaded();
  assert.equal(store.peekText(`${V2}/raw`), "A's data");
  assert.deepEqual(m.ctx.uploaded.map((u) => [u.path, u.created]), [[`${V2}/raw`, true]]);
});

Deno.test("heldWithCreatedMarker: version 1's metadata and the marker uploaded as created, none named", async () => {
  const { m, store, meta } = await heldWithCreatedMarker();
  assert.equal(store.peekText(`${V1}/metadata.yaml`), "meta");
  assert.equal(store.peekText(MARKER), "1");
  assert.equal(m.ctx.uploaded[0].info.version, meta.version);
  assert.deepEqual(m.ctx.uploaded.map((u) => u.path), [`${V1}/metadata.yaml`, MARKER]);
});

Deno.test("run resolves to what the pipeline threw; runRefused to the lock loss", async () => {
  assert.equal(await run(await arranged()), undefined);
  const refused = await runRefused(await arranged());
  assert.equal((refused as Error).name, lost().name);
  assert.equal((refused as Error).message, lost().message);
});
