/**
 * The conformance suite catches what a lock author gets wrong: a small lock
 * backend over a shared map, with one flaw at a time switched on, must fail
 * the case written for that flaw (and, flawless, pass it). A suite that
 * passes a broken backend would let it break mutual exclusion inside Sluice.
 */
import assert from "node:assert/strict";
import type {
  CallOptions,
  Clock,
  DistributedLock,
  Identity,
  LockBackend,
  LockInfo,
  LockLoss,
  LockOptions,
} from "../../sync/ports.ts";
import { LockReadError, LockTimeoutError } from "../../sync/lock_errors.ts";
import { FakeClock } from "./fake_clock.ts";
import { LOCK_CONFORMANCE_CASES, runLockConformanceCase } from "./lock_conformance.ts";

/** What the lock gets wrong. */
interface Flaws {
  /** `inspect()` on an instance that does not hold the lock says "absent" when the read fails. */
  observerNullOnReadError?: boolean;
  /** `acquire()` takes a failed read for "absent", and takes the lock. */
  stealOnReadError?: boolean;
  /** The `nonce` the lock exposes is not the one its body names (the lock fence then refuses every push). */
  nonceOffBody?: boolean;
  /** `lost` turns true after a takeover, but `loss` says nothing of it. */
  lostWithoutLoss?: boolean;
}

interface Held {
  info: LockInfo;
  renewedAt: number;
}

/** A key-value server shared by every lock of one case; its reads can be broken. */
class Kv {
  readonly map = new Map<string, Held>();
  broken = false;
  read(key: string): Held | undefined {
    if (this.broken) throw new Error("connection refused");
    return this.map.get(key);
  }
}

class MapLock implements DistributedLock {
  #nonce?: string;
  #timer?: unknown;
  #loss?: LockLoss;
  readonly #ttl: number;
  readonly #maxWait: number;
  readonly #retry: number;

  constructor(
    readonly kv: Kv,
    readonly clock: Clock,
    readonly key: string,
    readonly identity: Identity,
    o: LockOptions,
    readonly flaws: Flaws,
  ) {
    this.#ttl = o.ttlMs ?? 30_000;
    this.#maxWait = o.maxWaitMs ?? 60_000;
    this.#retry = o.retryDelayMs ?? 500;
  }
  get nonce(): string | undefined {
    return this.flaws.nonceOffBody && this.#nonce ? `${this.#nonce}-local` : this.#nonce;
  }
  get lost(): boolean {
    return this.#loss !== undefined;
  }
  get loss(): LockLoss | undefined {
    return this.flaws.lostWithoutLoss ? undefined : this.#loss;
  }

  async acquire(options: CallOptions = {}): Promise<void> {
    const start = this.clock.now();
    for (;;) {
      let cur: Held | undefined;
      try {
        cur = this.kv.read(this.key);
      } catch (e) {
        if (!this.flaws.stealOnReadError) throw new LockReadError(this.key, String(e));
        cur = undefined; // the flaw
      }
      if (!cur || cur.renewedAt + cur.info.ttlMs < this.clock.now()) {
        const nonce = crypto.randomUUID();
        const acquiredAt = new Date(this.clock.now()).toISOString();
        this.kv.map.set(this.key, {
          info: { ...this.identity, acquiredAt, ttlMs: this.#ttl, nonce },
          renewedAt: this.clock.now(),
        });
        this.#nonce = nonce;
        this.#loss = undefined;
        this.#beat();
        return;
      }
      if (this.clock.now() - start >= this.#maxWait) {
        throw new LockTimeoutError(this.key, this.#maxWait, cur.info.holder);
      }
      await this.clock.sleep(this.#retry, options.signal);
    }
  }

  release(): Promise<void> {
    this.abandon();
    return Promise.resolve();
  }

  async withLock<T>(fn: () => Promise<T>, options?: CallOptions): Promise<T> {
    await this.acquire(options);
    try {
      return await fn();
    } finally {
      await this.release();
    }
  }

  inspect(): Promise<LockInfo | null> {
    try {
      return Promise.resolve(this.kv.read(this.key)?.info ?? null);
    } catch (e) {
      if (this.flaws.observerNullOnReadError && !this.#nonce) return Promise.resolve(null);
      return Promise.reject(new LockReadError(this.key, String(e)));
    }
  }

  forceRelease(nonce: string): Promise<boolean> {
    if (this.kv.map.get(this.key)?.info.nonce !== nonce) return Promise.resolve(false);
    this.kv.map.delete(this.key);
    return Promise.resolve(true);
  }

  /** Stops renewing; deletes the lock only while it is still this instance's. */
  abandon(): void {
    if (this.#timer !== undefined) this.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    const n = this.#nonce;
    this.#nonce = undefined;
    if (n && this.kv.map.get(this.key)?.info.nonce === n) this.kv.map.delete(this.key);
  }

  #beat(): void {
    this.#timer = this.clock.setTimeout(() => {
      const cur = this.kv.map.get(this.key);
      if (!this.#nonce) return;
      if (!cur || cur.info.nonce !== this.#nonce) {
        this.#loss = { kind: cur ? "taken" : "absent", detectedAt: this.clock.now() };
        return;
      }
      cur.renewedAt = this.clock.now();
      this.#beat();
    }, Math.floor(this.#ttl / 3));
  }
}

function make(flaws: Flaws) {
  return () => {
    const clock = new FakeClock();
    const kv = new Kv();
    const backend: LockBackend = {
      name: "map",
      createLock: (key, identity, o = {}) => new MapLock(kv, clock, key, identity, o, flaws),
    };
    return Promise.resolve({
      backend,
      clock,
      fake: true,
      crash: (lock: DistributedLock) => {
        // Stops the heartbeat and forgets the lock without deleting it.
        const l = lock as MapLock;
        const held = kv.map.get(l.key);
        l.abandon();
        if (held) kv.map.set(l.key, held);
      },
      breakReads: () => void (kv.broken = true),
      healReads: () => void (kv.broken = false),
    });
  };
}

const OBSERVER = "an observer's inspect throws on a failed read, as the holder's does";
const STEAL = "acquire never takes a held lock while reads of it fail";

Deno.test("conformance: the flawless map lock passes the failed-read cases", async () => {
  await runLockConformanceCase(OBSERVER, make({}));
  await runLockConformanceCase(STEAL, make({}));
});

Deno.test("conformance: an observer that reads a failed read as 'free' fails", async () => {
  await assert.rejects(
    runLockConformanceCase(OBSERVER, make({ observerNullOnReadError: true })),
    /an observer that read it before: inspect\(\) during a failed read must throw, got null/,
  );
  // The holder-only case could not see it.
  await runLockConformanceCase(
    "inspect is null only when absent and throws on a failed read",
    make({ observerNullOnReadError: true }),
  );
});

Deno.test("conformance: an acquire that takes a failed read for 'absent' fails", async () => {
  await assert.rejects(
    runLockConformanceCase(STEAL, make({ stealOnReadError: true })),
    /took the lock a holds while reads of it failed/,
  );
});

const NONCE = "the nonce a held lock exposes is the one its body names, new at each acquisition";

/** The failures of `flaws` over the whole suite, one message per failing case. */
async function suiteFailures(flaws: Flaws): Promise<string[]> {
  const failures: string[] = [];
  for (const title of LOCK_CONFORMANCE_CASES) {
    await runLockConformanceCase(title, make(flaws)).catch((e) =>
      failures.push(`${title}: ${e instanceof Error ? e.message : e}`)
    );
  }
  return failures;
}

Deno.test("conformance: the flawless map lock passes the nonce case", async () => {
  await runLockConformanceCase(NONCE, make({}));
});

Deno.test("conformance: a lock whose nonce is not its body's fails the suite", async () => {
  // The lock fence compares the two before every push: such a lock has every
  // push refused as model_lock_lost, and its run's versions discarded.
  const failures = await suiteFailures({ nonceOffBody: true });
  assert.ok(
    failures.some((f) => /the lock's nonce .* is not the nonce its body names/.test(f)),
    `the suite passed a lock whose nonce is not its body's: ${JSON.stringify(failures)}`,
  );
});

const LOSS = "loss is detected after a takeover";

Deno.test("conformance: a lock exposing lost without loss is told to expose loss too", async () => {
  await runLockConformanceCase(LOSS, make({}));
  await assert.rejects(
    runLockConformanceCase(LOSS, make({ lostWithoutLoss: true })),
    /a lock that exposes `lost` exposes `loss` too \(\{kind, newHolder\?, detectedAt\}\): after a takeover its kind should be "taken", got no loss/,
  );
});
