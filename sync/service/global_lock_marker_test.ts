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
import { peerReadIndex } from "../../packages/testing/mod.ts";
import { VersionConflictError } from "../errors.ts";
import { assertIndexCurrent, clone } from "./clone_kit.ts";
import {
  globalLockSetup,
  markerUploadedVersionLost,
  pushInsideOldClientPush,
  THEIRS,
} from "./global_lock_kit.ts";

const D = "data/t/m/out";
const MARKER = `${D}/latest`;

Deno.test("global lock: a lost version's marker take-back, inside an old client's read-modify-write of the index, leaves the index naming the marker the store holds", async () => {
  const s = await globalLockSetup("sluice-global-marker-");
  const a = s.svc;
  // A run wrote version 2 and moved the marker to it; the push uploaded both
  // (the marker over the committed one), and its commit was cut off. Version
  // 2 changed here since: lost (never rewritten); the marker is reset to 1.
  await markerUploadedVersionLost(s, D);
  // Pushed inside an old client's read-modify-write of the index.
  const error = await pushInsideOldClientPush(s).then(() => undefined, (e) => e);
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
  await markerUploadedVersionLost(s, D);
  await assert.rejects(a.preparePush(), VersionConflictError);
  assert.equal(s.store.peekText(MARKER), "1", "the committed marker is put back");
  await assertIndexCurrent(s.store, { held: true });
});
