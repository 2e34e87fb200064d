/**
 * The warning a push of the tool gives when the global lock the tool held
 * around it was lost by its end (`global_lock_lost`): the push published
 * something while the lock that should have covered it was gone.
 *
 * @module
 */
import { globalLockLostNow, globalLockLostWarning } from "../../sync/service/global_lock_push.ts";
import type { DistributedLock } from "../../sync/ports.ts";
import type { SyncService } from "../../sync/service/service.ts";

/**
 * Warns (`global_lock_lost`) when the global lock the tool held around a
 * push that published something (`r`) was lost by the end of it: its
 * heartbeat saw it gone, or (with `look`: beside old clients), taken over
 * faster than a heartbeat, the lock object names another holder now (one
 * read; a failed read says nothing).
 */
export async function warnIfGlobalLost(
  svc: SyncService,
  lock: DistributedLock | undefined,
  r: { readonly uploaded: readonly string[]; readonly deleted: readonly string[] },
  look: boolean,
): Promise<void> {
  if (!lock || r.uploaded.length + r.deleted.length === 0) return;
  // The read only beside old clients, whose index rewrites the lock keeps out.
  if (await globalLockLostNow(lock, look, svc.identity)) {
    svc.events.emit("warning", globalLockLostWarning(lock.key));
  }
}
