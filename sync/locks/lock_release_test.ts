import assert from "node:assert/strict";
import { createEmitter, type WarningEvent } from "../events.ts";
import type { DistributedLock } from "../ports.ts";
import { releaseOrWarn } from "./lock_release.ts";

function lockReleasing(release: () => Promise<void>): DistributedLock {
  const no = () => Promise.reject(new Error("not used"));
  return {
    key: "data/m/.lock",
    acquire: no,
    release,
    withLock: no,
    inspect: no,
    forceRelease: no,
  };
}

Deno.test("releaseOrWarn: a release that rejects is a lock_release_failed warning naming the lock and the failure, never the caller's error; one that succeeds says nothing", async () => {
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  let released = 0;
  await releaseOrWarn(lockReleasing(() => Promise.resolve(void released++)), events);
  assert.equal(released, 1);
  assert.equal(warnings.length, 0);
  await releaseOrWarn(lockReleasing(() => Promise.reject(new Error("kv: 500 on DELETE"))), events);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].code, "lock_release_failed");
  assert.equal(warnings[0].path, "data/m/.lock");
  assert.match(warnings[0].message, /Could not release lock data\/m\/\.lock: .*kv: 500 on DELETE/);
  assert.match(warnings[0].message, /stale after its TTL/);
});
