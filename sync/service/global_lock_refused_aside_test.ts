/**
 * A run's push under the global lock that loses its data version in the
 * preparation (set aside, `version_exists`) beside another file to commit,
 * and whose model lock is broken before that commit: the commit is refused
 * (`model_lock_lost`) and the run's versions discarded, the copies of its
 * lost version the preparation set aside with them, since a refused run
 * leaves no byte of its run anywhere.
 */
import assert from "node:assert/strict";
import { peerPush } from "../../packages/testing/mod.ts";
import { ModelLockLostError } from "../lock_errors.ts";
import { acquireModelLocks } from "../locks/model_locks.ts";
import { setAsideReasons } from "../transfer/cache_state.ts";
import { put } from "./clone_kit.ts";
import { globalLockSetup, MINE, pushLosingModelLock, pushVersionOne } from "./global_lock_kit.ts";

const D = "data/t/m/out";

Deno.test("global lock: a run refused at its commit for its lost lock keeps no copy of its lost version set aside", async () => {
  const s = await globalLockSetup("sluice-global-refused-aside-");
  const a = s.svc;
  await pushVersionOne(a, D);
  const set = await acquireModelLocks(a, ["t/m"]);
  // Another writer publishes version 2 first; the run writes its own, and
  // another file is to push beside it.
  await peerPush(s.store, { [`${D}/2/raw`]: "theirs\n" }, { now: () => s.clock.now() });
  await put(a, `${D}/2/raw`, "the run's bytes");
  await put(a, `${D}/2/metadata.yaml`, "version: 2");
  await put(a, `${D}/latest`, "2");
  await put(a, MINE, "mine\n");
  // The push prepares while another client holds the global lock; the
  // model lock is broken while its commit waits for it.
  const error = await pushLosingModelLock(s, set, "t/m", {
    written: [`${D}/2`],
    preexisting: set.preexisting,
  });
  assert.ok(error instanceof ModelLockLostError, String(error));
  const aside = (await setAsideReasons(a.cache.stateDir)).filter((r) =>
    r.why?.path?.startsWith(`${D}/2/`)
  );
  assert.deepEqual(aside, [], "no copy of the refused run's lost version is set aside");
  assert.doesNotMatch(error.message, /set aside in/);
  assert.match(error.message, /data\/t\/m\/out\/2\/raw/, "the lost version is named");
});
