/**
 * A push under the global lock that loses a data version of its own (changed
 * here since its upload, whose commit was cut off: a data version is never
 * rewritten) while an old client holds the lock and rewrites the index from
 * a read made before: the version's `latest` marker, reset here to its
 * synced copy, takes back this cache's upload of the marker that was written
 * over the committed one, putting the committed bytes back and naming them
 * in the index. That index write is made under the lock, so that the old
 * client's write does not put back the entry naming the version the upload
 * replaced, which the store no longer holds.
 */
import assert from "node:assert/strict";
import { peerPush, peerReadIndex, waitFor } from "../../packages/testing/mod.ts";
import { VersionConflictError } from "../errors.ts";
import { pushUnderGlobalLock } from "./global_lock_push.ts";
import { assertIndexCurrent, clone, put } from "./clone_kit.ts";
import { type GlobalLockSetup, globalLockSetup, lockRefused, THEIRS } from "./global_lock_kit.ts";

const D = "data/t/m/out";
const MARKER = `${D}/latest`;

/**
 * A push under the global lock, started inside an old client's push made
 * under that lock, between its read of the index and its write of it; the
 * old client writes once this push waits for the lock, or ends. Returns
 * what the push threw.
 */
async function failingInsideOldClientPush(
  s: GlobalLockSetup,
): Promise<unknown> {
  let done = false;
  let run: Promise<unknown> | undefined;
  s.store.resetLog();
  await s.oldClientLock.withLock(() =>
    peerPush(s.store, { [THEIRS]: "theirs\n" }, {
      now: () => s.clock.now(),
      afterRead: async () => {
        run = pushUnderGlobalLock(s.svc, s.lock()).then(
          () => undefined,
          (e) => e,
        ).finally(() => (done = true));
        await waitFor(() => lockRefused(s.store) || done, { clock: s.clock, stepMs: 50 });
      },
    })
  );
  await waitFor(() => done, { clock: s.clock, stepMs: 50 });
  return await run!;
}

Deno.test("global lock: a lost version's marker take-back, inside an old client's read-modify-write of the index, leaves the index naming the marker the store holds", async () => {
  const s = await globalLockSetup("sluice-global-marker-");
  const a = s.svc;
  await put(a, `${D}/1/raw`, "v1");
  await put(a, `${D}/1/metadata.yaml`, "version: 1");
  await put(a, MARKER, "1");
  await a.pushChanged();
  // A run wrote version 2 and moved the marker to it; the push uploaded both
  // (the marker over the committed one), and its commit was cut off.
  await put(a, `${D}/2/raw`, "v2");
  await put(a, `${D}/2/metadata.yaml`, "version: 2");
  await put(a, MARKER, "2");
  s.store.failNext("put", 50, undefined, {
    match: (k) => k.startsWith("_") || k.startsWith("."),
  });
  await assert.rejects(a.pushChanged());
  s.store.heal();
  assert.equal(s.store.peekText(MARKER), "2", "the marker upload landed");
  // Version 2 changed here since: lost (never rewritten); the marker is reset to 1.
  await put(a, `${D}/2/raw`, "v2 changed");
  const error = await failingInsideOldClientPush(s);
  assert.ok(error instanceof VersionConflictError, String(error));
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/${MARKER}`), "1");
  assert.ok(Object.hasOwn(await peerReadIndex(s.store), THEIRS), "the old client's entry stays");
  // The index names the marker the store holds, and a fresh clone gets it.
  await assertIndexCurrent(s.store, { held: true });
  const b = await clone(s.store, "b");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.vanished, []);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/${MARKER}`), "1");
});

Deno.test("a preparation that throws its lost version (no commit to come: not asked to keep the rest) still takes the marker back", async () => {
  const s = await globalLockSetup("sluice-prepare-marker-");
  const a = s.svc;
  await put(a, `${D}/1/raw`, "v1");
  await put(a, `${D}/1/metadata.yaml`, "version: 1");
  await put(a, MARKER, "1");
  await a.pushChanged();
  await put(a, `${D}/2/raw`, "v2");
  await put(a, `${D}/2/metadata.yaml`, "version: 2");
  await put(a, MARKER, "2");
  s.store.failNext("put", 50, undefined, {
    match: (k) => k.startsWith("_") || k.startsWith("."),
  });
  await assert.rejects(a.pushChanged());
  s.store.heal();
  assert.equal(s.store.peekText(MARKER), "2", "the marker upload landed");
  await put(a, `${D}/2/raw`, "v2 changed");
  await assert.rejects(a.preparePush(), VersionConflictError);
  assert.equal(s.store.peekText(MARKER), "1", "the committed marker is put back");
  await assertIndexCurrent(s.store, { held: true });
});
