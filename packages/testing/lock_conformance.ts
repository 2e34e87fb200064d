/**
 * The lock conformance suite: what every {@link LockBackend} must do, as
 * `Deno.test` cases a lock author registers with one call. It runs against the
 * engine locks here and against real S3 and GCS in the integration tests, and
 * third-party lock authors run it against theirs.
 *
 * @module
 */
import type {
  Clock,
  DistributedLock,
  Identity,
  LockBackend,
  LockInfo,
  LockOptions,
  ObjectStore,
} from "../../sync/ports.ts";
import { randomId } from "../../sync/hash.ts";
import { FakeClock, flushMicrotasks } from "./fake_clock.ts";
import { waitFor } from "./wait_for.ts";

/** What `make()` returns for each case: a fresh backend and how to drive it. */
export interface LockConformanceSetup {
  /** The backend under test. */
  readonly backend: LockBackend;
  /** The clock the backend's locks use. */
  readonly clock: FakeClock | Clock;
  /** True when `clock` is a FakeClock the suite advances; false for real time. */
  readonly fake: boolean;
  /** The store under the locks, if any: leftover lock objects are deleted from it after each case. */
  readonly store?: ObjectStore;
  /**
   * Makes a holder crash: it must stop renewing `lock` and never release it.
   * Optional for engine locks (their `abandon()` is used); required otherwise
   * for the stale-lock case.
   */
  readonly crash?: (lock: DistributedLock) => void | Promise<void>;
  /** Makes every read of the lock object fail (transport error); required for the inspect case. */
  readonly breakReads?: () => void | Promise<void>;
  /** Undoes {@link LockConformanceSetup.breakReads}. */
  readonly healReads?: () => void | Promise<void>;
  /** Runs after each case (close clients, remove temp dirs). */
  readonly cleanup?: () => Promise<void>;
}

/** Options of {@link lockConformance}. */
export interface LockConformanceOptions {
  /** Deno's op and resource sanitizers; default true. */
  readonly sanitize?: boolean;
  /** TTL of every lock; default 1 500 ms (small enough for real-time runs). */
  readonly ttlMs?: number;
  /** Prefix of the lock keys (each case uses its own random key); default `conformance/`. */
  readonly keyPrefix?: string;
  /** Registers the cases as ignored (e.g. when a server binary is missing). */
  readonly ignore?: boolean;
}

/** The two identities the cases use. */
export const CONFORMANCE_IDENTITIES: { readonly a: Identity; readonly b: Identity } = {
  a: { holder: "alice@host-a", hostname: "host-a", pid: 101 },
  b: { holder: "bob@host-b", hostname: "host-b", pid: 202 },
};

type Who = keyof typeof CONFORMANCE_IDENTITIES;

/** One turn of the event loop (a macrotask), then the microtasks it queued. */
async function ioTurn(): Promise<void> {
  await new Promise((r) => setTimeout(r, 0));
  await flushMicrotasks();
}

/** A lock error's `code`, for third-party errors that are not SluiceErrors. */
function codeOf(e: unknown): unknown {
  return typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
}

class Harness {
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
function readFaults(h: Harness): {
  breakReads: () => void | Promise<void>;
  healReads: () => void | Promise<void>;
} {
  const { breakReads, healReads } = h.setup;
  if (!breakReads || !healReads) {
    throw new Error("this case needs make() to return breakReads() and healReads()");
  }
  return { breakReads, healReads };
}

function check(cond: boolean, message: string): void {
  if (!cond) throw new Error(message);
}

function holderIs(info: LockInfo | null, who: Who | null, when: string): void {
  const want = who ? CONFORMANCE_IDENTITIES[who].holder : null;
  check(
    (info?.holder ?? null) === want,
    `${when}: expected the lock ${want ? `held by ${want}` : "absent"}, got ${
      JSON.stringify(info)
    }`,
  );
}

type Case = (h: Harness) => Promise<void>;

const CASES: Record<string, Case> = {
  "mutual exclusion between two identities": async (h) => {
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
  },

  "release is idempotent": async (h) => {
    const a = h.lock("a");
    await h.settle(a.acquire(), "a.acquire()");
    await a.release();
    await a.release();
    holderIs(await h.inspect(), null, "after two releases");
    const b = h.lock("b", { maxWaitMs: h.retry });
    await h.settle(b.acquire(), "b.acquire() after a released");
    await a.release();
    holderIs(await h.inspect(), "b", "after a third release by a");
  },

  "withLock releases on return and on throw": async (h) => {
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
  },

  "a stale lock is stolen after its TTL": async (h) => {
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
  },

  "a heartbeat keeps a live lock alive past its TTL": async (h) => {
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
  },

  "loss is detected after a takeover": async (h) => {
    const a = h.lock("a");
    await h.settle(a.acquire(), "a.acquire()");
    const info = await a.inspect();
    const b = h.lock("b");
    check(await b.forceRelease(info!.nonce), "forceRelease with the holder's nonce returned false");
    await h.settle(b.acquire(), "b.acquire() after the breakglass");
    if (a.lost !== undefined) {
      await h.until(() => a.lost === true, "the old holder never noticed it lost the lock");
      check(a.loss?.kind === "taken", `loss kind should be "taken", got ${a.loss?.kind}`);
      const newHolder = a.loss?.newHolder?.holder;
      check(
        newHolder === undefined || newHolder === CONFORMANCE_IDENTITIES.b.holder,
        `wrong new holder ${newHolder}`,
      );
    }
    await a.release();
    holderIs(await h.inspect(), "b", "after the old holder released");
  },

  "forceRelease with the right and the wrong nonce": async (h) => {
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
  },

  "inspect is null only when absent and throws on a failed read": async (h) => {
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
  },

  "an observer's inspect throws on a failed read, as the holder's does": async (h) => {
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
  },

  "acquire never takes a held lock while reads of it fail": async (h) => {
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
  },

  "a former holder's release never deletes the successor's lock": async (h) => {
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
  },
};

/**
 * Registers the lock conformance cases as `Deno.test`s named `<name>: <case>`.
 * `make()` is called once per case and must return a fresh backend. With a
 * FakeClock (`fake: true`) the suite advances time itself; with a real clock
 * keep `ttlMs` small (the default 1 500 ms) since cases wait several TTLs.
 * Lock errors are matched by their `code` (`lock_timeout`), so third-party
 * locks need not throw Sluice's classes.
 *
 * @example
 * ```ts
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
