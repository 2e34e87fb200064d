/**
 * The harness every lock conformance case runs in: a fresh key per case,
 * locks made as the two conformance identities, fake or real time moved
 * along, and the checks the cases share.
 *
 * @module
 */
import type { DistributedLock, LockInfo, LockOptions } from "../../sync/ports.ts";
import { randomId } from "../../sync/hash.ts";
import { FakeClock, flushMicrotasks } from "./fake_clock.ts";
import { waitFor } from "./wait_for.ts";
import {
  CONFORMANCE_IDENTITIES,
  type LockConformanceOptions,
  type LockConformanceSetup,
  type Who,
} from "./lock_conformance_setup.ts";

/** One turn of the event loop (a macrotask), then the microtasks it queued. */
async function ioTurn(): Promise<void> {
  await new Promise((r) => setTimeout(r, 0));
  await flushMicrotasks();
}

/** A lock error's `code`, for third-party errors that are not SluiceErrors. */
export function codeOf(e: unknown): unknown {
  return typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
}

/** One case's state: its key, its TTL and timing, and the locks it made (released on dispose). */
export class Harness {
  readonly key: string;
  readonly ttl: number;
  readonly retry: number;
  readonly step: number;
  readonly locks: DistributedLock[] = [];
  readonly #fake?: FakeClock;
  #observer?: DistributedLock;

  constructor(readonly setup: LockConformanceSetup, options: LockConformanceOptions, slug: string) {
    this.ttl = options.ttlMs ?? 1_500;
    this.retry = Math.max(1, Math.floor(this.ttl / 10));
    this.step = Math.max(1, Math.floor(this.ttl / 30));
    this.key = `${options.keyPrefix ?? "conformance/"}${slug}-${randomId(4)}.lock`;
    if (setup.fake) {
      if (!(setup.clock instanceof FakeClock)) {
        throw new Error("make() said fake: true but clock is not a FakeClock");
      }
      this.#fake = setup.clock;
    }
  }

  get now(): number {
    return this.setup.clock.now();
  }

  lock(who: Who, options: LockOptions = {}): DistributedLock {
    const lock = this.setup.backend.createLock(this.key, CONFORMANCE_IDENTITIES[who], {
      ttlMs: this.ttl,
      retryDelayMs: this.retry,
      maxWaitMs: 4 * this.ttl,
      ...options,
    });
    this.locks.push(lock);
    return lock;
  }

  /** Lets `ms` of (fake or real) time pass, letting timers and I/O run along the way. */
  async elapse(ms: number): Promise<void> {
    if (!this.#fake) {
      const end = Date.now() + ms;
      return await waitFor(() => Date.now() >= end, { timeoutMs: ms + 5_000, stepMs: 20 });
    }
    for (let done = 0; done < ms; done += this.step) {
      await this.#fake.advance(Math.min(this.step, ms - done));
      await ioTurn();
    }
  }

  /**
   * Resolves once `predicate` holds, moving fake time along. With a fake
   * clock, each step also gives the event loop a turn: a backend's real I/O
   * (a heartbeat's write to a file) completes there, and fake time racing
   * ahead of it on a loaded machine would make a held lock look stale.
   */
  async until(predicate: () => boolean | Promise<boolean>, message: string): Promise<void> {
    const check = this.#fake ? async () => (await ioTurn(), await predicate()) : predicate;
    await waitFor(check, {
      clock: this.#fake,
      stepMs: this.#fake ? this.step : 20,
      timeoutMs: 10 * this.ttl,
      message,
    });
  }

  /** Settles `p` while moving fake time along; returns its value or throws its error. */
  async settle<T>(p: Promise<T>, what: string): Promise<T> {
    let done = false;
    p.then(() => (done = true), () => (done = true));
    await this.until(() => done, `${what} did not settle`);
    return await p;
  }

  /** Settles `p` and returns the error it rejected with; fails if it resolved. */
  async rejection(p: Promise<unknown>, what: string): Promise<unknown> {
    try {
      await this.settle(p, what);
    } catch (e) {
      return e;
    }
    throw new Error(`${what} should have failed but succeeded`);
  }

  async inspect(): Promise<LockInfo | null> {
    this.#observer ??= this.lock("b");
    return await this.#observer.inspect();
  }

  async crash(lock: DistributedLock): Promise<void> {
    if (this.setup.crash) return await this.setup.crash(lock);
    const abandon = (lock as { abandon?: unknown }).abandon;
    if (typeof abandon === "function") return abandon.call(lock);
    throw new Error(
      "this backend needs make() to return crash(lock): stop the lock's heartbeat without releasing it",
    );
  }

  async dispose(): Promise<void> {
    await this.setup.healReads?.();
    for (const lock of this.locks) await lock.release().catch(() => {});
    await this.setup.store?.delete(this.key).catch(() => {});
    await this.setup.cleanup?.();
  }
}

/** The setup's read faults, which the failed-read cases need. */
export function readFaults(h: Harness): {
  breakReads: () => void | Promise<void>;
  healReads: () => void | Promise<void>;
} {
  const { breakReads, healReads } = h.setup;
  if (!breakReads || !healReads) {
    throw new Error("this case needs make() to return breakReads() and healReads()");
  }
  return { breakReads, healReads };
}

/** Throws `message` unless `cond` holds. */
export function check(cond: boolean, message: string): void {
  if (!cond) throw new Error(message);
}

/** Checks that `info` is held by `who` (absent for null); `when` names the moment in the failure. */
export function holderIs(info: LockInfo | null, who: Who | null, when: string): void {
  const want = who ? CONFORMANCE_IDENTITIES[who].holder : null;
  check(
    (info?.holder ?? null) === want,
    `${when}: expected the lock ${want ? `held by ${want}` : "absent"}, got ${
      JSON.stringify(info)
    }`,
  );
}

/** One conformance case: drives the backend through `h` and throws on what it got wrong. */
export type Case = (h: Harness) => Promise<void>;
