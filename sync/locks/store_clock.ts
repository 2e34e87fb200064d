/**
 * The store's clock, read from its own stamp on a write: a tiny object at
 * {@link CLOCK_PROBE_KEY} is written over, and its last-modified time taken
 * from the answer. The stale check of a lock
 * compares the store's stamp on the lock with the store's time measured so,
 * never with this machine's clock (see `lock_engine.ts`, "Clocks").
 *
 * @module
 */
import { AbortedError, isRetryable } from "../errors.ts";
import { type Clock, type ObjectStore, PutModes } from "../ports.ts";
import { BUCKET_RECORDS_DIR } from "../transfer/bucket_layout.ts";

/**
 * The clock probe's object: one per store, written over by every probe (one
 * request, and never more than this one object; concurrent probes each get
 * the stamp on their own write). Under Sluice's own prefix, which no index
 * names and no pull or index discovery (Sluice's or another client's) takes
 * for a file.
 */
export const CLOCK_PROBE_KEY = `${BUCKET_RECORDS_DIR}/clock`;

const PROBE_BODY = new TextEncoder().encode("clock probe\n");

/** Where an earlier release wrote the probe: a key other clients' listings took for a file. */
export const LEGACY_CLOCK_PROBE_KEY = ".sluice/clock";

/** Stores whose earlier probe object this process removed already (once each). */
const legacyRemoved = new WeakSet<ObjectStore>();

/** A stamp of the store's on a write, and when this machine's clock saw the answer. */
export interface StoreStamp {
  /** The store's last-modified time of the write (ms since the epoch). */
  readonly stamped: number;
  /** This machine's clock when the answer came. */
  readonly answered: number;
}

/**
 * The store's clock minus `clock` at `stamp` (a lower bound: the store
 * stamped the write before its answer came).
 *
 * @example
 * ```ts
 * import { storeClockOffset } from "./store_clock.ts";
 * storeClockOffset({ stamped: 1_000, answered: 31_000 }); // -30000: this clock runs 30 s ahead
 * ```
 */
export function storeClockOffset(stamp: StoreStamp): number {
  return stamp.stamped - stamp.answered;
}

/**
 * Writes the probe object (see the module) and returns the store's stamp on
 * it; null when the store refused the write or gave no stamp (the caller
 * judges by this machine's clock then). A write that did not get through
 * (a retryable error: the store may answer the next one) throws it, and an
 * abort throws `AbortedError`.
 *
 * @example
 * ```ts
 * import { measureStoreClock } from "./store_clock.ts";
 * import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
 * const clock = new FakeClock();
 * const stamp = await measureStoreClock(new InMemoryStore({ clock }), clock);
 * console.log(stamp?.stamped === clock.now()); // true
 * ```
 */
export async function measureStoreClock(
  store: ObjectStore,
  clock: Clock,
  signal?: AbortSignal,
): Promise<StoreStamp | null> {
  try {
    const written = await store.put(CLOCK_PROBE_KEY, PROBE_BODY, PutModes.overwrite, { signal });
    const stamp = { stamped: written.lastModified, answered: clock.now() };
    if (!legacyRemoved.has(store)) {
      // An earlier release's probe object, which an old client's listing of
      // a bucket without an index would name: removed, once per process.
      // Looked at first: a delete of an absent key leaves a delete marker
      // in a versioned bucket.
      legacyRemoved.add(store);
      const old = await store.head(LEGACY_CLOCK_PROBE_KEY, { signal }).catch(() => null);
      if (old) {
        await store.delete(LEGACY_CLOCK_PROBE_KEY, { signal, ifVersion: old.version })
          .catch(() => {});
      }
    }
    return stamp.stamped > 0 ? stamp : null;
  } catch (e) {
    if (signal?.aborted) throw new AbortedError("Reading the datastore's clock", { cause: e });
    if (isRetryable(e)) throw e;
    return null;
  }
}

/**
 * The store's time now, as {@link measureStoreClock} reads it (a lower
 * bound), or `clock`'s when the probe failed (for a display: a lock's
 * stale check must not fall back on a write that did not get through).
 *
 * @example
 * ```ts
 * import { storeNow } from "./store_clock.ts";
 * import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
 * const clock = new FakeClock();
 * const store = new InMemoryStore({ clock: new FakeClock(clock.now() - 30_000) });
 * console.log(clock.now() - (await storeNow(store, clock))); // 30000
 * ```
 */
export async function storeNow(
  store: ObjectStore,
  clock: Clock,
  signal?: AbortSignal,
): Promise<number> {
  let stamp: StoreStamp | null = null;
  try {
    stamp = await measureStoreClock(store, clock, signal);
  } catch (e) {
    if (!isRetryable(e)) throw e;
  }
  return clock.now() + (stamp ? storeClockOffset(stamp) : 0);
}
