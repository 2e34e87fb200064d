/**
 * Lock conformance cases on renewal: a heartbeat keeps a live lock alive past
 * its TTL, and a holder whose lock was taken over notices the loss.
 *
 * @module
 */
import { type Case, check, codeOf, holderIs } from "./lock_conformance_harness.ts";
import { CONFORMANCE_IDENTITIES } from "./lock_conformance_setup.ts";

/** The case "a heartbeat keeps a live lock alive past its TTL". */
export const heartbeatKeepsAlive: Case = async (h) => {
  const a = h.lock("a");
  await h.settle(a.acquire(), "a.acquire()");
  const before = await a.inspect();
  await h.elapse(3 * h.ttl);
  const err = await h.rejection(
    h.lock("b", { maxWaitMs: h.retry }).acquire(),
    "b.acquire() of a live lock",
  );
  check(
    codeOf(err) === "lock_timeout",
    `expected code lock_timeout, got ${codeOf(err)} (${err})`,
  );
  const after = await a.inspect();
  holderIs(after, "a", "after three TTLs");
  check(after?.nonce === before?.nonce, "the live lock was replaced (its nonce changed)");
  // Swamp core and the layout's other clients take a lock whose acquiredAt
  // is older than its ttlMs for stale, and break it.
  check(
    Date.parse(after?.acquiredAt ?? "") > Date.parse(before?.acquiredAt ?? ""),
    `the heartbeat did not renew acquiredAt (${before?.acquiredAt} before, ${after?.acquiredAt} after three TTLs): a live lock whose acquiredAt is older than its ttlMs is taken for stale by swamp core`,
  );
  if (a.lost !== undefined) check(a.lost === false, "a live lock reports lost");
};

/** The case "loss is detected after a takeover". */
export const lossIsDetected: Case = async (h) => {
  const a = h.lock("a");
  await h.settle(a.acquire(), "a.acquire()");
  const info = await a.inspect();
  const b = h.lock("b");
  check(await b.forceRelease(info!.nonce), "forceRelease with the holder's nonce returned false");
  await h.settle(b.acquire(), "b.acquire() after the breakglass");
  if (a.lost !== undefined) {
    await h.until(() => a.lost === true, "the old holder never noticed it lost the lock");
    check(
      a.loss?.kind === "taken",
      a.loss === undefined
        ? 'a lock that exposes `lost` exposes `loss` too ({kind, newHolder?, detectedAt}): after a takeover its kind should be "taken", got no loss'
        : `loss kind should be "taken", got ${a.loss.kind}`,
    );
    const newHolder = a.loss?.newHolder?.holder;
    check(
      newHolder === undefined || newHolder === CONFORMANCE_IDENTITIES.b.holder,
      `wrong new holder ${newHolder}`,
    );
  }
  await a.release();
  holderIs(await h.inspect(), "b", "after the old holder released");
};
