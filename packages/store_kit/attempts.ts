/**
 * The attempt loop of a bucket store: each attempt bounded by a per-attempt
 * deadline (counted from the last progress of a transfer) and the caller's
 * signal, transient failures retried with jittered exponential backoff, and
 * a hook that may turn a final failure into success once an earlier attempt
 * may have landed (a lost answer).
 *
 * @module
 */
import { AbortedError } from "../../sync/errors.ts";
import { systemClock } from "../../sync/clock.ts";
import type { Clock } from "../../sync/ports.ts";
import {
  SourceFailure,
  StoreAttemptTimeout,
  type StoreFailure,
  type StoreRequestContext,
} from "./failure.ts";

/** The defaults of the bucket stores' timing options. */
export const STORE_DEFAULTS = {
  /** Per-attempt deadline in ms. */
  requestTimeoutMs: 30_000,
  /** Extra attempts after a transient failure. */
  retries: 3,
  /** First backoff in ms. */
  retryBaseDelayMs: 200,
  /** Largest backoff in ms. */
  retryMaxDelayMs: 5_000,
} as const;

/** What a store reports before sleeping for a retry. */
export interface StoreRetryEvent {
  /** The operation. */
  readonly op: StoreRequestContext["op"];
  /** Store-relative key or list prefix. */
  readonly key: string;
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  /** The backoff before the next attempt. */
  readonly delayMs: number;
  /** Why it failed (redacted). */
  readonly detail: string;
}

/** The timing options of {@link AttemptRunner}, as the stores take them. */
export interface AttemptOptions {
  /** Per-attempt deadline in ms; default 30 000. */
  readonly requestTimeoutMs?: number;
  /** Extra attempts after a transient failure; default 3. */
  readonly retries?: number;
  /** First backoff in ms (doubled each retry, jittered ±50%); default 200. */
  readonly retryBaseDelayMs?: number;
  /** Largest backoff in ms; default 5 000. */
  readonly retryMaxDelayMs?: number;
  /** Time for backoff sleeps and deadlines; default the system clock. */
  readonly clock?: Clock;
  /** Random source in [0, 1) for jitter; default `Math.random`. */
  readonly random?: () => number;
  /** Called before each retry sleep. */
  readonly onRetry?: (event: StoreRetryEvent) => void;
}

/**
 * One attempt's work: gets a signal that aborts when the attempt is abandoned
 * (its reason the deadline's error, or `AbortedError`), and `progress`, which
 * a transfer calls whenever bytes move so that the deadline measures idle
 * time rather than the whole transfer. A {@link SourceFailure} it throws ends
 * the call with the source's own error, unmapped and never retried.
 */
export type AttemptFn<T> = (signal: AbortSignal, progress: () => void) => Promise<T>;

/** A final failure turned into a value, see {@link AttemptHooks.recover}. */
export type Recovery<T> = { readonly value: T } | undefined;

/** How a backend reads its failures, for {@link AttemptRunner.run}. */
export interface AttemptHooks<T, F extends StoreFailure> {
  /** Classifies one failed attempt (the deadline's error included). */
  classify(error: unknown): F;
  /** The typed error thrown once the loop stops. */
  toError(failure: F, cause: unknown, attempts: number): Error;
  /**
   * Offered every failure that is neither transient nor aborted, told
   * whether an earlier attempt of this call may have taken effect (lost
   * answer); a value it returns is the call's result.
   */
  recover?(failure: F, ambiguousBefore: boolean): Promise<Recovery<T>>;
}

/**
 * Runs a store's requests: see the module doc.
 *
 * @example
 * ```ts
 * import { AttemptRunner } from "./attempts.ts";
 * import { storeFailureToError, type StoreFailure } from "./failure.ts";
 * const runner = new AttemptRunner({ retries: 2, requestTimeoutMs: 5_000 });
 * const text = await runner.run(
 *   { op: "get", key: "a" },
 *   undefined,
 *   async (signal) => (await fetch("http://127.0.0.1:8080/a", { signal })).text(),
 *   {
 *     classify: (e): StoreFailure => ({ kind: "transient", ambiguous: true, detail: String(e) }),
 *     toError: (f, cause, attempts) => storeFailureToError(f, { op: "get", key: "a" }, { cause, attempts }),
 *   },
 * );
 * ```
 */
export class AttemptRunner {
  /** The per-attempt deadline in ms. */
  readonly timeoutMs: number;
  /** Extra attempts after a transient failure. */
  readonly retries: number;
  /** The clock of deadlines and sleeps. */
  readonly clock: Clock;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #random: () => number;
  readonly #onRetry?: (event: StoreRetryEvent) => void;
  readonly #timeoutError: (timeoutMs: number) => Error;

  /** `timeoutError` makes the deadline's error; default a {@link StoreAttemptTimeout}. */
  constructor(
    options: AttemptOptions = {},
    timeoutError: (timeoutMs: number) => Error = (ms) => new StoreAttemptTimeout(ms),
  ) {
    this.timeoutMs = options.requestTimeoutMs ?? STORE_DEFAULTS.requestTimeoutMs;
    this.retries = Math.max(0, options.retries ?? STORE_DEFAULTS.retries);
    this.#baseDelayMs = options.retryBaseDelayMs ?? STORE_DEFAULTS.retryBaseDelayMs;
    this.#maxDelayMs = options.retryMaxDelayMs ?? STORE_DEFAULTS.retryMaxDelayMs;
    this.clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#onRetry = options.onRetry;
    this.#timeoutError = timeoutError;
  }

  /** The jittered backoff after failed attempt `attempt` (1-based). */
  backoff(attempt: number): number {
    const base = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** (attempt - 1));
    return Math.round(base * (0.5 + this.#random()));
  }

  /** The deadline's error, as attempts and stalled bodies fail with it. */
  timeoutError(): Error {
    return this.#timeoutError(this.timeoutMs);
  }

  /**
   * Runs `fn` until it succeeds, fails for good, or runs out of retries
   * (`ctx.noRetry`: one attempt); the caller's signal ends it with
   * `AbortedError`.
   */
  async run<T, F extends StoreFailure>(
    ctx: StoreRequestContext,
    signal: AbortSignal | undefined,
    fn: AttemptFn<T>,
    hooks: AttemptHooks<T, F>,
  ): Promise<T> {
    let ambiguousBefore = false;
    for (let attempt = 1;; attempt++) {
      if (signal?.aborted) {
        throw new AbortedError(`The ${ctx.op} of ${ctx.key}`, { cause: signal.reason });
      }
      let error: unknown;
      try {
        return await this.attempt(ctx, signal, fn);
      } catch (e) {
        error = e;
      }
      if (error instanceof AbortedError) throw error;
      // The caller's own body source failed: its error, untouched, never retried.
      if (error instanceof SourceFailure) throw error.error;
      const failure = hooks.classify(error);
      if (failure.kind === "transient" && attempt <= (ctx.noRetry ? 0 : this.retries)) {
        ambiguousBefore ||= failure.ambiguous;
        const delayMs = this.backoff(attempt);
        this.#onRetry?.({ op: ctx.op, key: ctx.key, attempt, delayMs, detail: failure.detail });
        try {
          await this.clock.sleep(delayMs, signal);
        } catch (e) {
          throw new AbortedError(`The ${ctx.op} of ${ctx.key}`, { cause: e });
        }
        continue;
      }
      if (failure.kind !== "transient" && failure.kind !== "aborted" && hooks.recover) {
        const recovered = await hooks.recover(failure, ambiguousBefore);
        if (recovered) return recovered.value;
      }
      throw hooks.toError(failure, error, attempt);
    }
  }

  /**
   * One attempt, bounded by the deadline and the caller's signal: it settles
   * when either ends it, whatever `fn` does (a client that cannot take a
   * signal is abandoned). The deadline counts from the attempt's start or
   * its last progress, whichever is later.
   */
  attempt<T>(ctx: StoreRequestContext, signal: AbortSignal | undefined, fn: AttemptFn<T>) {
    const clock = this.clock;
    const timeoutMs = this.timeoutMs;
    return new Promise<T>((resolve, reject) => {
      const controller = new AbortController();
      let settled = false;
      let lastProgress = clock.now();
      const progress = () => {
        lastProgress = clock.now();
      };
      const finish = () => {
        settled = true;
        clock.clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        if (settled) return;
        finish();
        const error = new AbortedError(`The ${ctx.op} of ${ctx.key}`, { cause: signal?.reason });
        controller.abort(error);
        reject(error);
      };
      const onDeadline = () => {
        if (settled) return;
        const idle = clock.now() - lastProgress;
        if (idle < timeoutMs) {
          timer = clock.setTimeout(onDeadline, timeoutMs - idle);
          return;
        }
        finish();
        const error = this.timeoutError();
        controller.abort(error);
        reject(error);
      };
      let timer = clock.setTimeout(onDeadline, timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      let started: Promise<T>;
      try {
        started = fn(controller.signal, progress);
      } catch (e) {
        started = Promise.reject(e);
      }
      started.then(
        (value) => {
          if (settled) return;
          finish();
          resolve(value);
        },
        (e) => {
          if (settled) return;
          finish();
          reject(e);
        },
      );
    });
  }
}
