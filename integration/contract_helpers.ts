/**
 * What the store tests against real servers share: `Deno.test` options for
 * real SDK clients, and the two outage scenarios every backend must pass
 * through the loopback fault proxy (an outage ends in `UnreachableError`
 * within the timeout and heals; a conditional write whose answer was lost is
 * not reported as a conflict).
 *
 * @module
 */
import assert from "node:assert/strict";
import { AlreadyExistsError, UnreachableError } from "../sync/errors.ts";
import { type ObjectStore, PutModes } from "../sync/ports.ts";
import type { StoreUnderTest } from "../packages/testing/store_contract.ts";
import { type FaultProxy, startFaultProxy } from "./proxy.ts";

/** `Deno.test` options for tests with real SDK clients, which keep sockets and timers alive between calls. */
export const realClient = { sanitizeResources: false, sanitizeOps: false } as const;

/** UTF-8 bytes of a string. */
export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** The string of UTF-8 bytes. */
export const dec = (b: Uint8Array): string => new TextDecoder().decode(b);

/**
 * Starts a fault proxy in front of a loopback server.
 *
 * @example
 * ```ts
 * import { proxyTo } from "./contract_helpers.ts";
 * const proxy = await proxyTo("http://127.0.0.1:9000");
 * console.log(proxy.url);
 * await proxy.close();
 * ```
 */
export function proxyTo(endpoint: string): Promise<FaultProxy> {
  const target = new URL(endpoint);
  return startFaultProxy(target.hostname, Number(target.port));
}

/** Timeouts and retries a scenario asks of the store it has made. */
export interface StoreTiming {
  /** Per-attempt deadline. */
  readonly requestTimeoutMs: number;
  /** Retries after the first attempt. */
  readonly retries: number;
  /** First backoff delay. */
  readonly retryBaseDelayMs: number;
  /** Longest backoff delay, when limited. */
  readonly retryMaxDelayMs?: number;
}

/**
 * Makes a store on a fresh bucket of the server, whose client talks to
 * `endpoint` (the proxy's URL) with `timing`.
 */
export type StoreThrough = (endpoint: string, timing: StoreTiming) => Promise<StoreUnderTest>;

/**
 * Runs `fn` with a store whose client talks to the server through a fresh
 * fault proxy; tidies up the store and closes the proxy afterwards, also when
 * `fn` failed.
 */
export async function withStoreThroughProxy(
  serverEndpoint: string,
  storeThrough: StoreThrough,
  timing: StoreTiming,
  fn: (store: ObjectStore, proxy: FaultProxy) => Promise<void>,
): Promise<void> {
  const proxy = await proxyTo(serverEndpoint);
  let cleanup: (() => Promise<void>) | undefined;
  try {
    const made = await storeThrough(proxy.url, timing);
    cleanup = made.cleanup;
    await fn(made.store, proxy);
  } finally {
    await cleanup?.();
    await proxy.close();
  }
}

/** What an `UnreachableError` of the backend says after an outage. */
export interface OutageMessages {
  /** After connections were refused. */
  readonly refused: RegExp;
  /** After the per-attempt deadline passed. */
  readonly timedOut: RegExp;
}

/**
 * Closed and refused connections and a server that stops answering each end
 * in an `UnreachableError` within the retry budget; once healed, the store
 * works and finds nothing changed by the failed calls.
 */
async function checkOutageAndHeal(
  serverEndpoint: string,
  storeThrough: StoreThrough,
  messages: OutageMessages,
): Promise<void> {
  const timing = { requestTimeoutMs: 800, retries: 1, retryBaseDelayMs: 50, retryMaxDelayMs: 100 };
  // Longest a failing call may take: every attempt times out, plus backoff, plus slack.
  const budgetMs = (timing.retries + 1) * timing.requestTimeoutMs + 200 + 1_500;
  const timed = async (p: Promise<unknown>) => {
    const t0 = performance.now();
    const err = await p.then(() => null, (e) => e);
    return { err, ms: performance.now() - t0 };
  };
  await withStoreThroughProxy(serverEndpoint, storeThrough, timing, async (store, proxy) => {
    const v1 = await store.put("lock", enc("one"), PutModes.create);

    // Connections closed.
    await proxy.cut();
    let r = await timed(store.put("lock", enc("two"), PutModes.update(v1.version)));
    assert.ok(r.err instanceof UnreachableError, String(r.err));
    assert.ok(r.ms < budgetMs, `took ${r.ms.toFixed(0)} ms`);
    assert.match(r.err.message, /after 2 attempts/);
    r = await timed(store.head("lock"));
    assert.ok(r.err instanceof UnreachableError, String(r.err));

    // Connections refused.
    await proxy.cut("refuse");
    r = await timed(store.get("lock"));
    assert.ok(r.err instanceof UnreachableError, String(r.err));
    assert.match(r.err.message, messages.refused);

    // A server that stops answering: the per-attempt deadline ends it.
    await proxy.heal();
    proxy.delay(5_000);
    r = await timed(store.head("lock"));
    assert.ok(r.err instanceof UnreachableError, String(r.err));
    assert.match(r.err.message, messages.timedOut);
    assert.ok(r.ms < budgetMs, `took ${r.ms.toFixed(0)} ms`);

    // Healed: service is back and nothing was changed by the failed calls.
    await proxy.heal();
    assert.equal(dec((await store.get("lock")).body), "one");
    const v2 = await store.put("lock", enc("two"), PutModes.update(v1.version));
    assert.notEqual(v2.version, v1.version);
  });
}

/**
 * Conditional writes and a conditional delete whose answers are lost (the
 * server acts, the connection is reset before the client hears) succeed on
 * retry instead of failing their own condition; another writer's object
 * still fails it.
 */
async function checkLostAnswers(
  serverEndpoint: string,
  storeThrough: StoreThrough,
  timing: StoreTiming,
): Promise<void> {
  await withStoreThroughProxy(serverEndpoint, storeThrough, timing, async (store, proxy) => {
    // The server applies the create, the client never hears; the retry meets a failed condition.
    proxy.resetMidRequest({ times: 1 });
    const info = await store.put("v/1/raw", enc("mine"), PutModes.create);
    assert.equal(proxy.stats.resets, 1);
    assert.equal(dec((await store.get("v/1/raw")).body), "mine");
    assert.equal((await store.head("v/1/raw"))?.version, info.version);

    // Same for a compare-and-swap update (a lock heartbeat, say).
    proxy.resetMidRequest({ times: 1 });
    const next = await store.put("v/1/raw", enc("mine, again"), PutModes.update(info.version));
    assert.equal(proxy.stats.resets, 2);
    assert.equal((await store.head("v/1/raw"))?.version, next.version);

    // A conditional delete that lost an answer: the object is gone, so it is done.
    proxy.resetMidRequest({ times: 1 });
    await store.delete("v/1/raw", { ifVersion: next.version });
    assert.equal(proxy.stats.resets, 3);
    assert.equal(await store.head("v/1/raw"), null);

    // Another writer's object still fails the condition.
    await store.put("v/2/raw", enc("theirs"), PutModes.create);
    proxy.resetMidRequest({ times: 1 });
    await assert.rejects(store.put("v/2/raw", enc("other"), PutModes.create), AlreadyExistsError);
    assert.equal(dec((await store.get("v/2/raw")).body), "theirs");
  });
}

/** A server of {@link faultProxyTests}: where it listens and how to make stores on it. */
export interface ProxiedServer {
  /** The server's own endpoint, `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Makes stores on fresh buckets of the server that talk to the proxy. */
  readonly storeThrough: StoreThrough;
}

/** Options of {@link faultProxyTests}. */
export interface FaultProxyTestOptions {
  /** Skips the tests (e.g. when the server is not installed). */
  readonly ignore: boolean;
  /** The server, started (or shared) by the first test that needs it. */
  readonly server: () => Promise<ProxiedServer>;
  /** What the backend's outage errors say. */
  readonly messages: OutageMessages;
  /** Timeouts and retries of the lost-answer test's store. */
  readonly lostAnswerTiming: StoreTiming;
}

/**
 * Registers the two fault-proxy tests every backend must pass, named
 * `<label> through the fault proxy: …`: an outage is Unreachable within the
 * timeout and heal restores; a conditional write whose answer was lost is not
 * reported as a conflict.
 *
 * @example
 * ```ts
 * import { faultProxyTests } from "./contract_helpers.ts";
 * import { S3Store } from "../packages/s3/store.ts";
 * faultProxyTests("MinIO", {
 *   ignore: false,
 *   server: () =>
 *     Promise.resolve({
 *       endpoint: "http://127.0.0.1:9000",
 *       storeThrough: (endpoint, timing) =>
 *         Promise.resolve({ store: new S3Store({ bucket: "b", endpoint, ...timing }) }),
 *     }),
 *   messages: { refused: /ECONNREFUSED/, timedOut: /timed out/ },
 *   lostAnswerTiming: { requestTimeoutMs: 5_000, retries: 2, retryBaseDelayMs: 20 },
 * });
 * ```
 */
export function faultProxyTests(label: string, options: FaultProxyTestOptions): void {
  Deno.test({
    name:
      `${label} through the fault proxy: an outage is Unreachable within the timeout, and heal restores`,
    ignore: options.ignore,
    ...realClient,
    fn: async () => {
      const { endpoint, storeThrough } = await options.server();
      await checkOutageAndHeal(endpoint, storeThrough, options.messages);
    },
  });
  Deno.test({
    name:
      `${label} through the fault proxy: a conditional write whose answer was lost is not reported as a conflict`,
    ignore: options.ignore,
    ...realClient,
    fn: async () => {
      const { endpoint, storeThrough } = await options.server();
      await checkLostAnswers(endpoint, storeThrough, options.lostAnswerTiming);
    },
  });
}
