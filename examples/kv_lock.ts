/**
 * A third-party lock backend kept in a small key-value service over HTTP,
 * written from scratch against Sluice's `LockBackend` interface (it does not
 * use Sluice's lock engine). `kv_lock_test.ts` proves it with the lock
 * conformance suite and plugs it into two caches through `createSluice`.
 *
 * The service keeps a revision per key and honours `If-None-Match: *`
 * (create only) and `If-Match: <revision>` (compare-and-swap) on PUT and
 * DELETE, answering 412 when the condition fails; {@link kvHandler} is such a
 * service, in process. A lock is one key whose value is the lock info plus
 * `renewedAt` (clock ms): acquire creates it, or takes over a stale one by
 * compare-and-swap on the revision it read; every heartbeat rewrites it by
 * compare-and-swap (renewing `acquiredAt` too); release and the breakglass
 * delete it only while it carries their nonce.
 *
 * @module
 */
import {
  type CallOptions,
  type Clock,
  type DistributedLock,
  type Identity,
  type LockBackend,
  type LockInfo,
  type LockLoss,
  type LockOptions,
  LockReadError,
  LockTimeoutError,
  systemClock,
} from "../mod.ts";

/** How the locks reach the service: `fetch` or a stand-in. */
export type Fetch = (request: Request) => Promise<Response>;

/** Options of {@link kvLockBackend}. */
export interface KvLockOptions {
  /** Base URL of the service, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** Time; default the system clock. */
  readonly clock?: Clock;
  /** Sends a request; default `fetch`. */
  readonly fetch?: Fetch;
}

/** The stored value: the lock info plus the time of the last renewal (clock ms). */
interface Body extends LockInfo {
  readonly renewedAt: number;
}

type Read = { readonly body: Body; readonly rev: string } | null;

const infoOf = ({ renewedAt: _r, ...info }: Body): LockInfo => info;

/**
 * A lock backend on a key-value service.
 *
 * @example
 * ```ts
 * import { kvHandler, kvLockBackend } from "./kv_lock.ts";
 * const service = kvHandler();
 * const backend = kvLockBackend({ url: "http://kv", fetch: service.handle });
 * const lock = backend.createLock("data/t/m/.lock", { holder: "me@h", hostname: "h", pid: 1 });
 * await lock.withLock(async () => {});
 * ```
 */
export function kvLockBackend(options: KvLockOptions): LockBackend {
  return {
    name: "kv",
    createLock: (key, identity, lockOptions = {}) =>
      new KvLock(options, key, identity, lockOptions),
  };
}

class KvLock implements DistributedLock {
  readonly key: string;
  readonly #url: string;
  readonly #clock: Clock;
  readonly #fetch: Fetch;
  readonly #ttl: number;
  readonly #beat: number;
  readonly #maxWait: number;
  readonly #retry: number;
  #nonce?: string;
  #timer?: unknown;
  #loss?: LockLoss;

  constructor(o: KvLockOptions, key: string, readonly identity: Identity, l: LockOptions) {
    this.key = key;
    this.#url = `${o.url}/${encodeURIComponent(key)}`;
    this.#clock = o.clock ?? systemClock;
    this.#fetch = o.fetch ?? ((r) => fetch(r));
    this.#ttl = l.ttlMs ?? 30_000;
    this.#beat = l.heartbeatMs ?? Math.floor(this.#ttl / 3);
    this.#maxWait = l.maxWaitMs ?? 60_000;
    this.#retry = l.retryDelayMs ?? 500;
  }

  get nonce(): string | undefined {
    return this.#nonce;
  }
  get lost(): boolean {
    return this.#loss !== undefined;
  }
  get loss(): LockLoss | undefined {
    return this.#loss;
  }

  /** The stored value and its revision, `null` only when absent; any failure throws `LockReadError`. */
  async #read(signal?: AbortSignal): Promise<Read> {
    let res: Response;
    try {
      res = await this.#fetch(new Request(this.#url, { signal }));
    } catch (e) {
      throw new LockReadError(this.key, String(e), { cause: e });
    }
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new LockReadError(this.key, `the service answered ${res.status}`);
    }
    const text = await res.text();
    try {
      const body = JSON.parse(text) as Body;
      if (typeof body.nonce !== "string" || typeof body.renewedAt !== "number") {
        throw new Error("fields missing");
      }
      return { body, rev: res.headers.get("etag") ?? "" };
    } catch (e) {
      throw new LockReadError(this.key, `malformed value: ${(e as Error).message}`, {
        cause: e,
        malformed: true,
      });
    }
  }

  /** A conditional write: the new revision, or null when its condition failed. */
  async #write(method: "PUT" | "DELETE", condition: string | "create", body?: Body) {
    const headers: Record<string, string> = condition === "create"
      ? { "if-none-match": "*" }
      : { "if-match": condition };
    const res = await this.#fetch(
      new Request(this.#url, { method, headers, body: body && JSON.stringify(body) }),
    );
    await res.body?.cancel();
    if (res.status === 412) return null;
    if (!res.ok) throw new Error(`the service answered ${res.status} to ${method} ${this.key}`);
    return res.headers.get("etag") ?? "";
  }

  #body(nonce: string): Body {
    const now = this.#clock.now();
    const { holder, hostname, pid } = this.identity;
    const acquiredAt = new Date(now).toISOString();
    return { holder, hostname, pid, acquiredAt, ttlMs: this.#ttl, nonce, renewedAt: now };
  }

  async acquire(options: CallOptions = {}): Promise<void> {
    const start = this.#clock.now();
    for (;;) {
      // A failed read is no free lock: wait and read again.
      const current = await this.#read(options.signal).catch(() => undefined);
      const nonce = crypto.randomUUID();
      const stale = current && current.body.renewedAt + current.body.ttlMs < this.#clock.now();
      if (current === null || stale) {
        // Create, or take a stale one over only while it is the one read.
        const rev = await this.#write("PUT", current ? current.rev : "create", this.#body(nonce));
        if (rev !== null) {
          this.#nonce = nonce;
          this.#loss = undefined;
          this.#schedule();
          return;
        }
        continue; // another acquirer was first: read again at once
      }
      if (this.#clock.now() - start >= this.#maxWait) {
        throw new LockTimeoutError(this.key, this.#maxWait, current?.body.holder);
      }
      await this.#clock.sleep(this.#retry, options.signal);
    }
  }

  async release(): Promise<void> {
    this.#stop();
    const nonce = this.#nonce;
    this.#nonce = undefined;
    if (!nonce) return;
    const current = await this.#read();
    if (current?.body.nonce === nonce) await this.#write("DELETE", current.rev);
  }

  /** Simulates a crashed holder (for tests): stops renewing and forgets the lock without releasing it. */
  abandon(): void {
    this.#stop();
    this.#nonce = undefined;
  }

  async withLock<T>(fn: () => Promise<T>, options: CallOptions = {}): Promise<T> {
    await this.acquire(options);
    try {
      return await fn();
    } finally {
      await this.release();
    }
  }

  async inspect(options: CallOptions = {}): Promise<LockInfo | null> {
    const current = await this.#read(options.signal);
    return current && infoOf(current.body);
  }

  async forceRelease(nonce: string): Promise<boolean> {
    const current = await this.#read();
    if (current?.body.nonce !== nonce) return false;
    return (await this.#write("DELETE", current.rev)) !== null;
  }

  #schedule(): void {
    this.#timer = this.#clock.setTimeout(() => void this.#heartbeat(), this.#beat);
  }

  #stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #heartbeat(): Promise<void> {
    const nonce = this.#nonce;
    if (!nonce) return;
    try {
      const current = await this.#read();
      if (current?.body.nonce !== nonce) {
        const kind = current ? "taken" : "absent";
        const newHolder = current ? infoOf(current.body) : undefined;
        this.#loss = { kind, newHolder, detectedAt: this.#clock.now() };
        return;
      }
      // acquiredAt is the last renewal too: other clients judge staleness by it.
      const now = this.#clock.now();
      const renewed = { ...current.body, acquiredAt: new Date(now).toISOString(), renewedAt: now };
      await this.#write("PUT", current.rev, renewed); // a failed condition: read again next beat
    } catch { /* unreachable this time: try again on the next beat; not a loss by itself */ }
    if (!this.#loss && this.#nonce === nonce) this.#schedule();
  }
}

/** An in-process key-value service with revisions, and a switch that fails its reads. */
export interface KvHandler {
  /** Answers one request (pass it as the backend's `fetch`, or to `Deno.serve`). */
  readonly handle: Fetch;
  /** While true, every GET answers 503. */
  failReads: boolean;
}

/**
 * The key-value service the locks expect, in process.
 *
 * @example
 * ```ts
 * import { kvHandler } from "./kv_lock.ts";
 * const kv = kvHandler();
 * const res = await kv.handle(new Request("http://kv/a", { method: "PUT", body: "x" }));
 * console.log(res.headers.get("etag")); // "1"
 * ```
 */
export function kvHandler(): KvHandler {
  const data = new Map<string, { value: string; rev: string }>();
  let next = 1;
  const answer = (status: number, headers?: Record<string, string>, body?: string) =>
    Promise.resolve(new Response(body ?? null, { status, headers }));
  const kv: KvHandler = {
    failReads: false,
    handle: async (req) => {
      const key = decodeURIComponent(new URL(req.url).pathname.slice(1));
      const current = data.get(key);
      if (req.method === "GET") {
        if (kv.failReads) return await answer(503);
        return current
          ? await answer(200, { etag: current.rev }, current.value)
          : await answer(404);
      }
      const ifMatch = req.headers.get("if-match");
      if (req.headers.get("if-none-match") === "*" && current) return await answer(412);
      if (ifMatch !== null && current?.rev !== ifMatch) return await answer(412);
      if (req.method === "DELETE") {
        data.delete(key);
        return await answer(204);
      }
      if (req.method !== "PUT") return await answer(405);
      const rev = String(next++);
      data.set(key, { value: await req.text(), rev });
      return await answer(200, { etag: rev });
    },
  };
  return kv;
}
