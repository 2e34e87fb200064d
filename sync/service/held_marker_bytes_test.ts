/**
 * As `held_marker_over_test.ts`, but the committed `latest` marker the run's
 * upload was written over holds bytes that are no bare version number
 * (another tool wrote them, with spaces around the number): the put-back
 * cannot recover them from the version numbers here. The refusal must say
 * what it left in place of the committed marker and how to go on, never
 * leave it so in silence.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { ErasureRefusedError, resolveHeldVersions } from "../../middleware/erasure.ts";
import { acquireModelLocks, modelLockKey } from "../locks/model_locks.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import { assertIndexCurrent, clone, put, read } from "./clone_kit.ts";

const MODEL = "shell/m1";
const DATA = `data/${MODEL}/out`;
const V1 = `${DATA}/1`;
const V2 = `${DATA}/2`;
const META = `${V2}/metadata.yaml`;
const RAW = `${V2}/raw`;
const MARKER = `${DATA}/latest`;
const COMMITTED = " 1\r\n";

Deno.test("a committed marker whose bytes cannot be recovered here is told of, never left behind in silence", async () => {
  const store = new InMemoryStore();
  let armed = false;
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        // The commit's fence has passed; the marker is about to be written.
        if (!armed || key !== MARKER) return;
        armed = false;
        await store.delete(META);
        await store.delete(modelLockKey(MODEL)); // the breakglass
      },
    }),
    "a",
  );
  await put(a, `${V1}/raw`, "raw 1");
  await put(a, `${V1}/metadata.yaml`, "meta 1");
  await put(a, MARKER, COMMITTED);
  await a.pushChanged();
  assert.equal(store.peekText(MARKER), COMMITTED);
  // Another writer's upload of version 2's metadata, never committed.
  await store.put(META, new TextEncoder().encode("same output"), { kind: "create" }, {
    metadata: { [WRITER_METADATA]: "the-other-writer" },
  });
  const warnings: { code: string; message: string; path?: string }[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  armed = true;
  const set = await acquireModelLocks(a, [MODEL]);
  await put(a, META, "same output");
  await put(a, RAW, "a's raw");
  await put(a, MARKER, "2");
  const error = await set.push([V2]).then(() => undefined, (e) => e);
  await set.release();
  assert.equal(armed, false, "the marker was written by the first pass");
  assert.ok(error instanceof ErasureRefusedError, String(error));
  assert.equal(await read(a, MARKER), "2", "the run's marker stays here");
  if (store.peekText(MARKER) !== COMMITTED) {
    // Not put back: told, with the way out.
    const told = warnings.filter((w) => w.code === "committed_marker_unrestored");
    assert.equal(told.length, 1, JSON.stringify(warnings.map((w) => w.code)));
    assert.equal(told[0].path, MARKER);
    assert.ok(told[0].message.includes(`sluice held ${V2} --keep`), told[0].message);
    // The way out it names publishes the held version and its marker.
    assert.deepEqual(await resolveHeldVersions(a, [V2], "keep"), [V2]);
    await a.pushChanged();
    assert.equal(store.peekText(MARKER), "2");
    await assertIndexCurrent(store, { held: true });
  }
});
