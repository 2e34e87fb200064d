/**
 * As `held_marker_over_test.ts`, but the put-back of the committed `latest`
 * marker the run's upload was written over cannot be made: its bytes are no
 * bare version number (another tool wrote them, with spaces around the
 * number), so the version numbers here do not recover them; or the
 * datastore fails its write. No later push makes it (the run is held), so
 * the refusal must say what it left in place of the committed marker and
 * how to go on, never leave it so in silence or as work still to come.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { ErasureRefusedError, resolveHeldVersions } from "../../middleware/erasure.ts";
import { acquireModelLocks, modelLockKey } from "../locks/model_locks.ts";
import { assertIndexCurrent, clone, put, read } from "./clone_kit.ts";

import { MARKER, META, MODEL, othersUpload, RAW, V1, V2 } from "./held_marker_kit.ts";
/**
 * The committed marker holding `committed`, then the refused run; with
 * `failPutBack`, the datastore fails the write that follows the run's
 * marker upload (the put-back's). Asserts that the committed marker is back
 * or that the refusal said it is not, with the way out, which it follows.
 */
async function refusedOver(
  committed: string,
  failPutBack: boolean,
  way: "keep" | "discard" = "keep",
) {
  const store = new InMemoryStore();
  let step: "off" | "fence" | "put-back" = "off";
  const a = await clone(
    hookedStore(store, {
      before: async (key) => {
        if (key !== MARKER) return;
        if (step === "fence") {
          // The commit's fence has passed; the marker is about to be written.
          step = failPutBack ? "put-back" : "off";
          await store.delete(META);
          await store.delete(modelLockKey(MODEL)); // the breakglass
        } else if (step === "put-back") {
          step = "off";
          store.failNext("put", 1, undefined, { match: (k) => k === MARKER });
        }
      },
    }),
    "a",
  );
  await put(a, `${V1}/raw`, "raw 1");
  await put(a, `${V1}/metadata.yaml`, "meta 1");
  await put(a, MARKER, committed);
  await a.pushChanged();
  assert.equal(store.peekText(MARKER), committed);
  // Another writer's upload of version 2's metadata, never committed.
  await othersUpload(store, META);
  const warnings: { code: string; message: string; path?: string }[] = [];
  a.events.on("warning", (w) => warnings.push(w));
  step = "fence";
  const set = await acquireModelLocks(a, [MODEL]);
  await put(a, META, "same output");
  await put(a, RAW, "a's raw");
  await put(a, MARKER, "2");
  const error = await set.push([V2]).then(() => undefined, (e) => e);
  await set.release();
  assert.equal(step, "off", "the marker was written by the first pass, then the put-back's");
  assert.ok(error instanceof ErasureRefusedError, String(error));
  assert.equal(await read(a, MARKER), "2", "the run's marker stays here");
  store.heal();
  if (store.peekText(MARKER) !== committed) {
    // Not put back: told, with the way out.
    const told = warnings.filter((w) => w.code === "committed_marker_unrestored");
    assert.equal(told.length, 1, JSON.stringify(warnings.map((w) => w.code)));
    assert.equal(told[0].path, MARKER);
    assert.ok(told[0].message.includes(`sluice held ${V2} --keep`), told[0].message);
    if (way === "discard") {
      // The other way out it names: the marker recomputed here, then pushed over the upload.
      assert.ok(told[0].message.includes("then push"), told[0].message);
      assert.deepEqual(await resolveHeldVersions(a, [V2], "discard"), [V2]);
      await a.pushChanged();
      assert.equal(store.peekText(MARKER), await read(a, MARKER));
      await assertIndexCurrent(store, { held: true });
      return;
    }
    // The way out it names publishes the held version and its marker.
    assert.deepEqual(await resolveHeldVersions(a, [V2], "keep"), [V2]);
    await a.pushChanged();
    assert.equal(store.peekText(MARKER), "2");
    await assertIndexCurrent(store, { held: true });
  }
}

Deno.test("a committed marker whose bytes cannot be recovered here is told of, never left behind in silence", async () => {
  await refusedOver(" 1\r\n", false);
});

Deno.test("a put-back of the committed marker that the datastore fails is told of as not made, with the way out", async () => {
  await refusedOver("1", true);
});

Deno.test("a put-back of the committed marker that the datastore fails names --discard, then a push, as a way out that leaves no upload behind", async () => {
  await refusedOver("1", true, "discard");
});
