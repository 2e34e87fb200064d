/**
 * A pull that holds the datastore's global lock while it runs, for an
 * adoption (`pull --adopt-uncommitted`) on a bucket old swamp clients push
 * to as well ({@link pullUnderGlobalLock}).
 *
 * An old client rewrites the index without a compare-and-swap, under the
 * global lock: an adoption's index commit made while such a client holds
 * it is put back by that client's write. Holding the lock around the pull
 * keeps them out; a lock lost while held is reported, as a push under the
 * lock reports it.
 *
 * @module
 */
import { sayingGlobalLockWait } from "../locks/global_lock_wait.ts";
import { releaseOrWarn } from "../locks/lock_release.ts";
import type { DistributedLock } from "../ports.ts";
import { globalLockLostNow } from "./global_lock_push.ts";
import type { PullOptions } from "./pull_options.ts";
import type { PullResult } from "./pull_result.ts";
import type { SyncService } from "./service.ts";

/**
 * Pulls (`service.pullChanged(options)`) holding `lock`, which is acquired
 * (waiting as the lock's `maxWaitMs` says, with a `global_lock_wait`
 * warning first when another holds it) and released here: give it a lock
 * of its own, not one held already. When the pull adopted files and the
 * lock was lost by its end (taken over or deleted while held), a
 * `global_lock_lost` warning says a client that took it may have put the
 * old index back, and what to run; so too when a pull asked to adopt
 * failed with the lock lost (its adoption may have been committed). A
 * release that rejects is a `lock_release_failed` warning: the pull's
 * outcome stands.
 *
 * @example
 * ```ts
 * import { createSluice } from "../../sluice.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * import { pullUnderGlobalLock } from "./global_lock_pull.ts";
 * const identity = { holder: "me@host", hostname: "host", pid: 1 };
 * const svc = await createSluice({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore(), identity });
 * const lock = svc.lockBackend!.createLock(".datastore.lock", identity);
 * await pullUnderGlobalLock(svc, lock);
 * ```
 */
export async function pullUnderGlobalLock(
  service: SyncService,
  lock: DistributedLock,
  options: PullOptions = {},
): Promise<PullResult> {
  const signal = options.signal;
  const acquire = await sayingGlobalLockWait(
    lock,
    service.events,
    "this pull waits for it",
    signal,
  );
  const lost = async (what: string) => {
    if (!(await globalLockLostNow(lock, true, service.identity).catch(() => false))) return;
    service.events.emit("warning", {
      code: "global_lock_lost",
      message:
        `The global lock ${lock.key} was lost by the end of this pull (taken over or deleted while held): a client that took it over may have rewritten the index without ${what}. Run \`sluice pull\`: it finds any entry dropped so (\`index_entry_dropped\`), and the push after it names them again.`,
      path: lock.key,
    });
  };
  // Acquired and released here, not through the lock's own `withLock`: a
  // third party's release that rejects is a warning (`releaseOrWarn`), as
  // after a push under the lock, never an error in place of the pull's
  // result (its adoption committed).
  await lock.acquire(acquire);
  try {
    let result: PullResult;
    try {
      result = await service.pullChanged(options);
    } catch (e) {
      // A pull that failed after its adoption's commit: it may have adopted.
      if (options.adoptUncommitted?.length) await lost("what this pull adopted, if it did");
      throw e;
    }
    const adopted = result.adopted?.length ?? 0;
    if (adopted > 0) await lost(`the ${adopted} file(s) this pull adopted`);
    return result;
  } finally {
    await releaseOrWarn(lock, service.events);
  }
}
