/**
 * The lock conformance suite: what every `LockBackend` must do, as
 * `Deno.test` cases a lock author registers with one call. It runs against the
 * engine locks here and against real S3 and GCS in the integration tests, and
 * third-party lock authors run it against theirs.
 *
 * @module
 */
import { type Case, Harness } from "./lock_conformance_harness.ts";
import type { LockConformanceOptions, LockConformanceSetup } from "./lock_conformance_setup.ts";
import {
  mutualExclusion,
  nonceNamesTheBody,
  releaseIsIdempotent,
  withLockReleases,
} from "./lock_conformance_acquire.ts";
import { heartbeatKeepsAlive, lossIsDetected } from "./lock_conformance_heartbeat.ts";
import {
  forceReleaseChecksNonce,
  formerHolderSparesSuccessor,
  staleLockIsStolen,
} from "./lock_conformance_takeover.ts";
import {
  acquireWaitsOnFailedRead,
  inspectThrowsOnFailedRead,
  observerInspectThrows,
} from "./lock_conformance_inspect.ts";

export {
  CONFORMANCE_IDENTITIES,
  type LockConformanceOptions,
  type LockConformanceSetup,
} from "./lock_conformance_setup.ts";

const CASES: Record<string, Case> = {
  "mutual exclusion between two identities": mutualExclusion,
  "release is idempotent": releaseIsIdempotent,
  "withLock releases on return and on throw": withLockReleases,
  "the nonce a held lock exposes is the one its body names, new at each acquisition":
    nonceNamesTheBody,
  "a stale lock is stolen after its TTL": staleLockIsStolen,
  "a heartbeat keeps a live lock alive past its TTL": heartbeatKeepsAlive,
  "loss is detected after a takeover": lossIsDetected,
  "forceRelease with the right and the wrong nonce": forceReleaseChecksNonce,
  "inspect is null only when absent and throws on a failed read": inspectThrowsOnFailedRead,
  "an observer's inspect throws on a failed read, as the holder's does": observerInspectThrows,
  "acquire never takes a held lock while reads of it fail": acquireWaitsOnFailedRead,
  "a former holder's release never deletes the successor's lock": formerHolderSparesSuccessor,
};

/**
 * Registers the lock conformance cases as `Deno.test`s named `<name>: <case>`.
 * `make()` is called once per case and must return a fresh backend. With a
 * FakeClock (`fake: true`) the suite advances time itself; with a real clock
 * keep `ttlMs` small (the default 1 500 ms) since cases wait several TTLs.
 * Lock errors are matched by their `code` (`lock_timeout`), so third-party
 * locks need not throw Sluice's classes.
 *
 * Call it at the top level of a test module, not inside a test (the example
 * is the first suite of `lock_conformance_test.ts`, so it is not run as a
 * documentation test, which would register tests inside a test).
 *
 * @example
 * ```ts ignore
 * import { FakeClock, InMemoryStore, lockConformance } from "./mod.ts";
 * import { storeLockBackend } from "../../sync/locks/lock_engine.ts";
 * lockConformance("in-memory engine lock", () => {
 *   const clock = new FakeClock();
 *   const store = new InMemoryStore({ clock });
 *   return Promise.resolve({
 *     backend: storeLockBackend(store, { clock }),
 *     clock,
 *     fake: true,
 *     store,
 *     breakReads: () => void (store.unreachable = true),
 *     healReads: () => void (store.unreachable = false),
 *   });
 * });
 * ```
 */
export function lockConformance(
  name: string,
  make: () => Promise<LockConformanceSetup>,
  options: LockConformanceOptions = {},
): void {
  const sanitize = options.sanitize ?? true;
  for (const title of LOCK_CONFORMANCE_CASES) {
    Deno.test({
      name: `${name}: ${title}`,
      ignore: options.ignore ?? false,
      sanitizeOps: sanitize,
      sanitizeResources: sanitize,
      fn: () => runLockConformanceCase(title, make, options),
    });
  }
}

/** The names of the conformance cases, in the order {@link lockConformance} registers them. */
export const LOCK_CONFORMANCE_CASES: readonly string[] = Object.keys(CASES);

/**
 * Runs one conformance case (by its name in {@link LOCK_CONFORMANCE_CASES})
 * against a fresh backend from `make()`; rejects with what the backend got
 * wrong. For a suite of one's own, or to show that a flawed backend fails.
 */
export async function runLockConformanceCase(
  title: string,
  make: () => Promise<LockConformanceSetup>,
  options: LockConformanceOptions = {},
): Promise<void> {
  const run = CASES[title];
  if (!run) throw new Error(`no conformance case named ${JSON.stringify(title)}`);
  const slug = title.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
  const h = new Harness(await make(), options, slug);
  try {
    await run(h);
  } finally {
    await h.dispose();
  }
}
