/**
 * A run's push under the global lock that loses its data version in the
 * preparation (set aside, `version_exists`), its `latest` marker's
 * take-back left to the commit, and whose model lock is broken before
 * that commit: nothing of the run is left to commit, so it ends as a
 * plain push whose write lost its version ends (`version_exists`, the
 * copies set aside kept), never refused at a commit pass for its lost lock
 * with those copies still set aside (a refusal leaves no byte of the run
 * anywhere). The take-back is still made, under the global lock.
 */
import assert from "node:assert/strict";
import { VersionConflictError } from "../errors.ts";
import { ModelLockLostError } from "../lock_errors.ts";
import { acquireModelLocks } from "../locks/model_locks.ts";
import { setAsideReasons } from "../transfer/cache_state.ts";
import { assertIndexCurrent } from "./clone_kit.ts";
import {
  globalLockSetup,
  markerUploadedVersionLost,
  pushLosingModelLock,
} from "./global_lock_kit.ts";

const D = "data/t/m/out";
const MARKER = `${D}/latest`;

Deno.test("global lock: a run that lost its version in the preparation and its lock before the commit ends with version_exists, its copies set aside and its marker taken back", async () => {
  const s = await globalLockSetup("sluice-global-lost-refused-");
  const a = s.svc;
  // Version 2 and the marker naming it uploaded (the marker over the
  // committed one), the commit cut off; version 2 changed here since.
  await markerUploadedVersionLost(s, D);
  const set = await acquireModelLocks(a, ["t/m"]);
  // The push prepares while another client holds the global lock; the
  // model lock is broken while its commit waits for it.
  const error = await pushLosingModelLock(s, set, "t/m", {
    written: [`${D}/2`],
    preexisting: new Set([`${D}/1`]),
  });
  assert.ok(!(error instanceof ModelLockLostError), String(error));
  assert.ok(error instanceof VersionConflictError, String(error));
  const aside = (await setAsideReasons(a.cache.stateDir)).filter((r) =>
    r.why?.path?.startsWith(`${D}/2/`)
  );
  assert.equal(aside.length, 2, "both files of version 2 are set aside");
  // The marker's take-back: the committed marker put back and named.
  assert.equal(s.store.peekText(MARKER), "1");
  await assertIndexCurrent(s.store, { held: true });
});
