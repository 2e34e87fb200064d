/**
 * Lock conformance cases on failed reads: inspect is null only when the lock
 * is absent and throws otherwise, for holders and observers alike, and acquire
 * never takes a held lock it cannot read.
 *
 * @module
 */
import { type Case, check, holderIs, readFaults } from "./lock_conformance_harness.ts";

/** The case "inspect is null only when absent and throws on a failed read". */
export const inspectThrowsOnFailedRead: Case = async (h) => {
  const { breakReads, healReads } = readFaults(h);
  const a = h.lock("a");
  holderIs(await a.inspect(), null, "before any acquire");
  await h.settle(a.acquire(), "a.acquire()");
  await breakReads();
  let read: unknown;
  try {
    read = await a.inspect();
  } catch (e) {
    read = e;
  }
  check(
    read instanceof Error,
    `inspect() during a failed read must throw, got ${JSON.stringify(read)}`,
  );
  await healReads();
  holderIs(await a.inspect(), "a", "after reads healed");
  await a.release();
  holderIs(await a.inspect(), null, "after release");
};

/** The case "an observer's inspect throws on a failed read, as the holder's does". */
export const observerInspectThrows: Case = async (h) => {
  const { breakReads, healReads } = readFaults(h);
  const a = h.lock("a");
  await h.settle(a.acquire(), "a.acquire()");
  // Sluice reads the global lock, and the breakglass reads a model's, through
  // instances that do not hold it: a null there reads as "free".
  const seen = h.lock("b");
  holderIs(await seen.inspect(), "a", "an observer, before reads broke");
  for (
    const [who, lock] of [["an observer that read it before", seen], [
      "a new observer",
      h.lock("b"),
    ]] as const
  ) {
    await breakReads();
    let read: unknown;
    try {
      read = await lock.inspect();
    } catch (e) {
      read = e;
    }
    await healReads();
    check(
      read instanceof Error,
      `${who}: inspect() during a failed read must throw, got ${JSON.stringify(read)}`,
    );
  }
  holderIs(await h.inspect(), "a", "after reads healed");
  await a.release();
};

/** The case "acquire never takes a held lock while reads of it fail". */
export const acquireWaitsOnFailedRead: Case = async (h) => {
  const { breakReads, healReads } = readFaults(h);
  const a = h.lock("a");
  await h.settle(a.acquire(), "a.acquire()");
  const before = await a.inspect();
  await breakReads();
  const b = h.lock("b", { maxWaitMs: 2 * h.retry });
  const outcome = await h.settle(
    b.acquire().then(() => "acquired", (e) => e),
    "b.acquire() while reads fail",
  );
  await healReads();
  check(
    outcome !== "acquired",
    "b.acquire() took the lock a holds while reads of it failed: a failed read is not an absent lock",
  );
  const after = await h.inspect();
  holderIs(after, "a", "after b's acquire during failed reads");
  check(after?.nonce === before?.nonce, "a's lock was replaced during failed reads");
  await a.release();
};
