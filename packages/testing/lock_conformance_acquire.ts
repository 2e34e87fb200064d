/**
 * Lock conformance cases on acquiring: mutual exclusion between two
 * identities, idempotent release, withLock releasing on return and throw, and
 * the nonce a held lock exposes.
 *
 * @module
 */
import type { LockInfo } from "../../sync/ports.ts";
import { type Case, check, codeOf, holderIs } from "./lock_conformance_harness.ts";
import { CONFORMANCE_IDENTITIES } from "./lock_conformance_setup.ts";

/** The case "mutual exclusion between two identities". */
export const mutualExclusion: Case = async (h) => {
  const a = h.lock("a");
  await h.settle(a.acquire(), "a.acquire()");
  const b = h.lock("b", { maxWaitMs: Math.floor(h.ttl / 2) });
  const err = await h.rejection(b.acquire(), "b.acquire() while a holds the lock");
  check(
    codeOf(err) === "lock_timeout",
    `expected code lock_timeout, got ${codeOf(err)} (${err})`,
  );
  const msg = err instanceof Error ? err.message : String(err);
  check(msg.includes(h.key), `the timeout should name the key ${h.key}: ${msg}`);
  check(
    msg.includes(CONFORMANCE_IDENTITIES.a.holder),
    `the timeout should name the holder: ${msg}`,
  );
  holderIs(await b.inspect(), "a", "after b timed out");
  await a.release();
  await h.settle(b.acquire(), "b.acquire() after a released");
  holderIs(await h.inspect(), "b", "after b acquired");
};

/** The case "release is idempotent". */
export const releaseIsIdempotent: Case = async (h) => {
  const a = h.lock("a");
  await h.settle(a.acquire(), "a.acquire()");
  await a.release();
  await a.release();
  holderIs(await h.inspect(), null, "after two releases");
  const b = h.lock("b", { maxWaitMs: h.retry });
  await h.settle(b.acquire(), "b.acquire() after a released");
  await a.release();
  holderIs(await h.inspect(), "b", "after a third release by a");
};

/** The case "withLock releases on return and on throw". */
export const withLockReleases: Case = async (h) => {
  const a = h.lock("a");
  let inside: LockInfo | null = null;
  const value = await h.settle(
    a.withLock(async () => {
      inside = await a.inspect();
      return 42;
    }),
    "withLock",
  );
  check(value === 42, `withLock should return fn's value, got ${value}`);
  holderIs(inside, "a", "inside withLock");
  holderIs(await h.inspect(), null, "after withLock returned");
  const boom = new Error("boom");
  const err = await h.rejection(
    a.withLock(() => Promise.reject(boom)),
    "withLock(fn that throws)",
  );
  check(err === boom, `withLock should rethrow fn's error, got ${err}`);
  holderIs(await h.inspect(), null, "after withLock threw");
};

/** The case "the nonce a held lock exposes is the one its body names, new at each acquisition". */
export const nonceNamesTheBody: Case = async (h) => {
  const a = h.lock("a");
  const seen: string[] = [];
  for (const round of ["first", "second"]) {
    await h.settle(a.acquire(), `a.acquire() (${round})`);
    const body = await h.inspect();
    holderIs(body, "a", `after the ${round} acquire`);
    const nonce = body!.nonce;
    check(
      typeof nonce === "string" && nonce !== "",
      `the lock body names no nonce (${
        JSON.stringify(nonce)
      }): the breakglass and the lock fence tell acquisitions apart by it`,
    );
    // The lock fence refuses a push whose lock exposes a nonce its body does
    // not name (taken for another acquisition): every push would be refused.
    check(
      a.nonce === undefined || a.nonce === nonce,
      `the lock's nonce ${JSON.stringify(a.nonce)} is not the nonce its body names (${
        JSON.stringify(nonce)
      }) after the ${round} acquire: the lock fence would refuse every push under it as model_lock_lost`,
    );
    seen.push(nonce);
    await a.release();
  }
  check(
    seen[0] !== seen[1],
    `a second acquisition wrote the first one's nonce (${
      JSON.stringify(seen[0])
    }): the nonce must be new at each acquisition`,
  );
};
