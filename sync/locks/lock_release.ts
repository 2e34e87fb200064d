/**
 * A lock's release whose failure is a warning, never the caller's error: a
 * run's outcome (a push committed, a lock lost) stands whatever the release
 * does. Sluice's engine locks warn of their own failed deletes and never
 * reject; a third party's lock may reject, and is told here the same way.
 *
 * @module
 */
import type { SluiceEmitter } from "../events.ts";
import type { DistributedLock } from "../ports.ts";
import { errorDetail } from "./lock_object.ts";

/**
 * Releases `lock`; a rejection becomes a `lock_release_failed` warning on
 * `events` naming the lock and the failure.
 *
 * @example
 * ```ts
 * import { releaseOrWarn } from "./lock_release.ts";
 * import { createEmitter } from "../events.ts";
 * import type { DistributedLock } from "../ports.ts";
 * async function done(lock: DistributedLock) {
 *   await releaseOrWarn(lock, createEmitter()); // never rejects
 * }
 * ```
 */
export async function releaseOrWarn(
  lock: DistributedLock,
  events: Pick<SluiceEmitter, "emit">,
): Promise<void> {
  try {
    await lock.release();
  } catch (e) {
    events.emit("warning", {
      code: "lock_release_failed",
      message: `Could not release lock ${lock.key}: ${
        errorDetail(e)
      }. It may stay held until it goes stale after its TTL (its backend's own rule), and runs that need it wait meanwhile; to free it sooner, break it through the same lock backend (\`releaseLock\`).`,
      path: lock.key,
    });
  }
}
