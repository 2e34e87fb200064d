/**
 * A loopback TCP proxy that a test controls, to make outages without killing
 * the server: refuse or close connections, add latency, reset connections
 * mid-request, and heal.
 *
 * @module
 */

/** How {@link FaultProxy.cut} makes the outage. */
export type CutMode =
  /** Accept new connections and close them at once; close the live ones too (default). */
  | "close"
  /** Stop listening: new connections are refused (`ECONNREFUSED`); close the live ones. */
  | "refuse";

/** Options of {@link FaultProxy.resetMidRequest}. */
export interface ResetOptions {
  /**
   * `true` (default): forward the request to the server and close the
   * client's connection when the answer starts coming back, so the server may
   * have acted on a request whose answer is lost. `false`: close as soon as
   * request bytes arrive, before the server sees them.
   */
  readonly forwardRequest?: boolean;
  /** Reset only this many exchanges, then heal by itself; default: until {@link FaultProxy.heal}. */
  readonly times?: number;
}

/** Counters of a {@link FaultProxy}. */
export interface FaultProxyStats {
  /** Connections accepted since start. */
  readonly accepted: number;
  /** Connections open now. */
  readonly active: number;
  /** Connections closed by `cut` (at accept or while live). */
  readonly cut: number;
  /** Connections reset by `resetMidRequest`. */
  readonly resets: number;
  /** Bytes forwarded client → server. */
  readonly bytesUp: number;
  /** Bytes forwarded server → client. */
  readonly bytesDown: number;
}

/** A running proxy; see {@link startFaultProxy}. */
export interface FaultProxy {
  /** `127.0.0.1`. */
  readonly host: string;
  /** The proxy's port. */
  readonly port: number;
  /** `http://127.0.0.1:<port>`, for HTTP clients. */
  readonly url: string;
  /** Counters. */
  readonly stats: FaultProxyStats;
  /** Makes an outage; see {@link CutMode}. */
  cut(mode?: CutMode): Promise<void>;
  /** Delays every forwarded chunk, both ways, by `ms` (0 removes the delay). */
  delay(ms: number): void;
  /** Resets connections mid-request; see {@link ResetOptions}. */
  resetMidRequest(options?: ResetOptions): void;
  /** Ends every fault: listens again, forwards normally, no delay. */
  heal(): Promise<void>;
  /** Closes the listener and every connection; waits for all of it. */
  close(): Promise<void>;
}

interface Pair {
  readonly client: Deno.Conn;
  upstream: Deno.Conn | null;
  closed: boolean;
  resetArmed: boolean;
  readonly done: Promise<void>;
}

const CHUNK = 64 * 1024;

class Proxy implements FaultProxy {
  readonly host = "127.0.0.1";
  readonly port: number;
  readonly url: string;
  readonly #targetHost: string;
  readonly #targetPort: number;
  #listener: Deno.Listener | null;
  #acceptLoop: Promise<void> = Promise.resolve();
  readonly #pairs = new Set<Pair>();
  #mode: "pass" | "close" | "refuse" = "pass";
  #delayMs = 0;
  #reset: { forwardRequest: boolean; remaining: number } | null = null;
  readonly #sleeps = new Set<{ timer?: ReturnType<typeof setTimeout>; resolve: () => void }>();
  #closed = false;
  #stats = { accepted: 0, cut: 0, resets: 0, bytesUp: 0, bytesDown: 0 };

  constructor(targetHost: string, targetPort: number) {
    this.#targetHost = targetHost;
    this.#targetPort = targetPort;
    this.#listener = Deno.listen({ hostname: this.host, port: 0 });
    this.port = (this.#listener.addr as Deno.NetAddr).port;
    this.url = `http://${this.host}:${this.port}`;
    this.#acceptLoop = this.#accept(this.#listener);
  }

  get stats(): FaultProxyStats {
    return { ...this.#stats, active: this.#pairs.size };
  }

  async cut(mode: CutMode = "close"): Promise<void> {
    this.#mode = mode;
    if (mode === "refuse" && this.#listener) {
      const l = this.#listener;
      this.#listener = null;
      l.close();
      await this.#acceptLoop;
    }
    for (const pair of [...this.#pairs]) {
      this.#stats.cut++;
      this.#closePair(pair);
    }
    await Promise.all([...this.#pairs].map((p) => p.done));
  }

  delay(ms: number): void {
    this.#delayMs = Math.max(0, ms);
  }

  resetMidRequest(options: ResetOptions = {}): void {
    this.#reset = {
      forwardRequest: options.forwardRequest ?? true,
      remaining: options.times ?? Number.POSITIVE_INFINITY,
    };
    for (const pair of this.#pairs) pair.resetArmed = true;
  }

  async heal(): Promise<void> {
    this.#mode = "pass";
    this.#delayMs = 0;
    this.#reset = null;
    if (!this.#listener && !this.#closed) {
      this.#listener = await listenAgain(this.host, this.port);
      this.#acceptLoop = this.#accept(this.#listener);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#listener) {
      const l = this.#listener;
      this.#listener = null;
      l.close();
    }
    await this.#acceptLoop;
    for (const s of this.#sleeps) {
      clearTimeout(s.timer);
      s.resolve();
    }
    this.#sleeps.clear();
    const pairs = [...this.#pairs];
    for (const pair of pairs) this.#closePair(pair);
    await Promise.all(pairs.map((p) => p.done));
  }

  async #accept(listener: Deno.Listener): Promise<void> {
    for (;;) {
      let client: Deno.Conn;
      try {
        client = await listener.accept();
      } catch {
        return; // listener closed
      }
      this.#stats.accepted++;
      if (this.#mode !== "pass" || this.#closed) {
        this.#stats.cut++;
        safeClose(client);
        continue;
      }
      this.#open(client);
    }
  }

  #open(client: Deno.Conn): void {
    let resolveDone!: () => void;
    const pair: Pair = {
      client,
      upstream: null,
      closed: false,
      resetArmed: this.#reset !== null,
      done: new Promise<void>((r) => (resolveDone = r)),
    };
    this.#pairs.add(pair);
    (async () => {
      try {
        pair.upstream = await Deno.connect({ hostname: this.#targetHost, port: this.#targetPort });
        if (pair.closed) return;
        await Promise.all([this.#pump(pair, "up"), this.#pump(pair, "down")]);
      } catch {
        // upstream unreachable or a pipe broke: the client sees its connection close
      } finally {
        this.#closePair(pair);
        this.#pairs.delete(pair);
        resolveDone();
      }
    })();
  }

  async #pump(pair: Pair, dir: "up" | "down"): Promise<void> {
    const from = dir === "up" ? pair.client : pair.upstream!;
    const to = dir === "up" ? pair.upstream! : pair.client;
    const buf = new Uint8Array(CHUNK);
    try {
      for (;;) {
        const n = await from.read(buf);
        if (n === null) break;
        const chunk = buf.slice(0, n);
        if (this.#delayMs > 0) await this.#sleep(this.#delayMs);
        if (pair.closed) return;
        if (this.#mode !== "pass") {
          this.#stats.cut++;
          this.#closePair(pair);
          return;
        }
        const reset = this.#reset;
        if (
          reset && pair.resetArmed &&
          ((dir === "up" && !reset.forwardRequest) || (dir === "down" && reset.forwardRequest))
        ) {
          this.#stats.resets++;
          reset.remaining--;
          if (reset.remaining <= 0) this.#reset = null;
          this.#closePair(pair);
          return;
        }
        await writeAll(to, chunk);
        if (dir === "up") this.#stats.bytesUp += n;
        else this.#stats.bytesDown += n;
      }
      // Pass the half-close on, so HTTP/1.0-style request ends still work.
      await to.closeWrite().catch(() => {});
    } catch {
      this.#closePair(pair);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = {
        timer: undefined as ReturnType<typeof setTimeout> | undefined,
        resolve: () => {
          this.#sleeps.delete(entry);
          resolve();
        },
      };
      entry.timer = setTimeout(entry.resolve, ms);
      this.#sleeps.add(entry);
    });
  }

  #closePair(pair: Pair): void {
    if (pair.closed) return;
    pair.closed = true;
    safeClose(pair.client);
    if (pair.upstream) safeClose(pair.upstream);
  }
}

function safeClose(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) off += await conn.write(data.subarray(off));
}

async function listenAgain(hostname: string, port: number): Promise<Deno.Listener> {
  for (let attempt = 0;; attempt++) {
    try {
      return Deno.listen({ hostname, port });
    } catch (e) {
      if (attempt >= 50 || !(e instanceof Deno.errors.AddrInUse)) throw e;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/**
 * Starts a proxy on `127.0.0.1:<free port>` forwarding to
 * `targetHost:targetPort`. Point the client at {@link FaultProxy.url}.
 *
 * @example
 * ```ts
 * import { startFaultProxy } from "./proxy.ts";
 * const proxy = await startFaultProxy("127.0.0.1", 9000);
 * await proxy.cut();      // outage: connections are closed
 * await proxy.heal();     // service restored
 * proxy.delay(2_000);     // every chunk waits 2 s
 * proxy.resetMidRequest({ times: 1 }); // the next answer is lost
 * await proxy.close();
 * ```
 */
export function startFaultProxy(targetHost: string, targetPort: number): Promise<FaultProxy> {
  return Promise.resolve(new Proxy(targetHost, targetPort));
}
