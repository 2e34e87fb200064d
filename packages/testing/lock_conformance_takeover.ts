/**
 * Lock conformance cases on taking a lock from its holder: a stale lock is
 * stolen after its TTL, forceRelease checks the nonce, and a former holder's
 * release never deletes its successor's lock.
 *
 * @module
 */
import { type Case, check, holderIs } from "./lock_conformance_harness.ts";

/** The case "a stale lock is stolen after its TTL". */
export const staleLockIsStolen: Case = async (h) => {
  const a = h.lock("a");
  await h.settle(a.acquire(), "a.acquire()");
  await h.crash(a);
  const start = h.now;
  const b = h.lock("b", { maxWaitMs: 4 * h.ttl });
  await h.settle(b.acquire(), "b.acquire() of a crashed holder's lock");
  if (h.setup.fake) {
    check(
      h.now - start >= h.ttl,
      `stolen after ${h.now - start} ms, before the TTL of ${h.ttl} ms`,
    );
  }
  holderIs(await h.inspect(), "b", "after b stole the stale lock");
};

/** The case "forceRelease with the right and the wrong nonce". */
export const forceReleaseChecksNonce: Case = async (h) => {
  const a = h.lock("a");
  await h.settle(a.acquire(), "a.acquire()");
  const info = await a.inspect();
  const b = h.lock("b");
  check(
    !(await b.forceRelease(`not-${info!.nonce}`)),
    "forceRelease with a wrong nonce returned true",
  );
  const kept = await h.inspect();
  holderIs(kept, "a", "after a wrong-nonce forceRelease");
  check(kept?.nonce === info!.nonce, "a wrong-nonce forceRelease replaced the lock");
  check(await b.forceRelease(info!.nonce), "forceRelease with the right nonce returned false");
  holderIs(await h.inspect(), null, "after the right-nonce forceRelease");
  check(!(await b.forceRelease(info!.nonce)), "forceRelease of an absent lock returned true");
  await a.release();
};

/** The case "a former holder's release never deletes the successor's lock". */
export const formerHolderSparesSuccessor: Case = async (h) => {
  const a = h.lock("a");
  await h.settle(a.acquire(), "a.acquire()");
  const b = h.lock("b");
  check(
    await b.forceRelease((await a.inspect())!.nonce),
    "forceRelease with the holder's nonce returned false",
  );
  await h.settle(b.acquire(), "b.acquire() after the breakglass");
  const successor = await b.inspect();
  await a.release();
  const after = await h.inspect();
  holderIs(after, "b", "after the former holder released");
  check(after?.nonce === successor?.nonce, "the successor's lock was replaced");
  await b.release();
  holderIs(await h.inspect(), null, "after the successor released");
};
