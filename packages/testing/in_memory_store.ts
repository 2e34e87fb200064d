/**
 * An exact in-memory {@link ObjectStore} with fault injection, for core tests.
 *
 * @module
 */
import {
  AbortedError,
  AlreadyExistsError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  UnreachableError,
} from "../../sync/errors.ts";
import type {
  CallOptions,
  Clock,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
} from "../../sync/ports.ts";
import { bodyBytes, CHUNK_BYTES, isBodySource } from "../../sync/transfer/body.ts";
import { systemClock } from "../../sync/clock.ts";
import { createHash } from "node:crypto";

/** The store operations, as counted in the request log. */
export type StoreOp = "get" | "head" | "put" | "delete" | "list";

/**
 * How the store treats conditional writes:
 * - `honour`: exact (the default);
 * - `ignore`: silently ignores preconditions and writes anyway (as s3rver does);
 * - `refuse`: answers `NotImplementedError` to any conditional write.
 */
export type ConditionalMode = "honour" | "ignore" | "refuse";

/** One logged request. */
export interface RequestRecord {
  readonly op: StoreOp;
  readonly key: string;
  readonly mode?: PutMode["kind"];
  readonly outcome: "ok" | "error";
}

interface Entry {
  body: Uint8Array;
  version: string;
  lastModified: number;
  metadata: Record<string, string>;
}

interface ScheduledFault {
  remaining: number;
  error: () => Error;
  afterEffect: boolean;
  match?: (key: string) => boolean;
}

/** Options of {@link InMemoryStore}. */
export interface InMemoryStoreOptions {
  /** Clock for last-modified times and latency; default the system clock. */
  readonly clock?: Clock;
  /** Name shown in messages; default `memory://<n>`. */
  readonly endpoint?: string;
  /** Page size of `list`; default 1000. */
  readonly pageSize?: number;
  /**
   * Versions derived from the bytes, as an S3 ETag is (the MD5 of a
   * single-part upload): two writes of the same bytes carry the same version.
   * Default false: every write gets a new version, as a GCS generation does.
   */
  readonly versionFromBytes?: boolean;
}

let storeCounter = 0;

/**
 * An in-memory bucket. Exact in every put mode, with fault injection:
 * unreachable on/off, "fail the next N calls of an operation", latency,
 * ignored or refused preconditions, and a request log.
 *
 * @example
 * ```ts
 * import { InMemoryStore } from "./in_memory_store.ts";
 * import { PutModes } from "../../sync/ports.ts";
 * const store = new InMemoryStore();
 * await store.put("k", new Uint8Array([1]), PutModes.create);
 * store.failNext("put", 1, () => new Error("boom"));
 * ```
 */
export class InMemoryStore implements ObjectStore {
  readonly endpoint: string;
  /** Every request, in order. */
  readonly log: RequestRecord[] = [];
  /** How conditional writes behave; see {@link ConditionalMode}. */
  conditionalMode: ConditionalMode = "honour";
  /** While true every call fails with `UnreachableError`. */
  unreachable = false;
  /** Added latency per call, waited on the store's clock. */
  latencyMs = 0;
  /** How many puts received a streamed body (a `BodySource`) rather than bytes. */
  streamedPuts = 0;
  /** How many reads went through {@link InMemoryStore.getStream}. */
  streamedGets = 0;

  readonly #clock: Clock;
  readonly #pageSize: number;
  readonly #objects = new Map<string, Entry>();
  readonly #faults = new Map<StoreOp, ScheduledFault[]>();
  #versionSeq = 0;
  readonly #versionFromBytes: boolean;

  constructor(options: InMemoryStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#versionFromBytes = options.versionFromBytes ?? false;
    this.endpoint = options.endpoint ?? `memory://${++storeCounter}`;
    this.#pageSize = options.pageSize ?? 1000;
  }

  /**
   * Makes the next `count` calls of `op` (optionally only for keys matching
   * `match`) fail with `error()`. With `afterEffect`, the call takes effect
   * first and then fails (a lost response).
   */
  failNext(
    op: StoreOp,
    count: number,
    error: () => Error = () => new UnreachableError("injected failure"),
    options: { afterEffect?: boolean; match?: (key: string) => boolean } = {},
  ): void {
    const list = this.#faults.get(op) ?? [];
    list.push({
      remaining: count,
      error,
      afterEffect: options.afterEffect ?? false,
      match: options.match,
    });
    this.#faults.set(op, list);
  }

  /** Removes every scheduled fault and heals the store. */
  heal(): void {
    this.#faults.clear();
    this.unreachable = false;
    this.latencyMs = 0;
  }

  /** Number of logged requests, optionally of one operation. */
  count(op?: StoreOp): number {
    return op ? this.log.filter((r) => r.op === op).length : this.log.length;
  }

  /** Clears the request log. */
  resetLog(): void {
    this.log.length = 0;
  }

  /** Direct read for assertions (no log, no faults). */
  peek(key: string): Uint8Array | undefined {
    return this.#objects.get(key)?.body.slice();
  }

  /** Direct read as text for assertions. */
  peekText(key: string): string | undefined {
    const b = this.#objects.get(key)?.body;
    return b ? new TextDecoder().decode(b) : undefined;
  }

  /** All keys, sorted (no log, no faults). */
  keys(prefix = ""): string[] {
    return [...this.#objects.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  /** Sets an object directly, bypassing modes (for arranging a test). */
  seed(key: string, body: Uint8Array | string, metadata: Record<string, string> = {}): ObjectInfo {
    const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body.slice();
    const e = this.#write(key, bytes, metadata);
    return this.#info(key, e);
  }

  /** Sets an object's last-modified time directly (for staleness tests). */
  touch(key: string, lastModified: number): void {
    const e = this.#objects.get(key);
    if (e) e.lastModified = lastModified;
  }

  async get(key: string, options: CallOptions = {}): Promise<GetResult> {
    return await this.#call("get", key, undefined, options.signal, () => {
      const e = this.#objects.get(key);
      if (!e) throw new NotFoundError(key);
      return { ...this.#info(key, e), body: e.body.slice() };
    });
  }

  async head(key: string, options: CallOptions = {}): Promise<ObjectInfo | null> {
    return await this.#call("head", key, undefined, options.signal, () => {
      const e = this.#objects.get(key);
      return e ? this.#info(key, e) : null;
    });
  }

  /** Streams the object (chunks of up to 1 MiB, copied). */
  async getStream(key: string, options: CallOptions = {}): Promise<GetStreamResult> {
    this.streamedGets++;
    return await this.#call("get", key, undefined, options.signal, () => {
      const e = this.#objects.get(key);
      if (!e) throw new NotFoundError(key);
      const body = e.body;
      const signal = options.signal;
      let off = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (signal?.aborted) {
            return controller.error(
              new AbortedError(`The get of ${key}`, { cause: signal.reason }),
            );
          }
          if (off >= body.length) return controller.close();
          const n = Math.min(CHUNK_BYTES, body.length - off);
          controller.enqueue(body.slice(off, off + n));
          off += n;
        },
      }, { highWaterMark: 0 }); // a chunk is read when asked for, after any abort
      return { ...this.#info(key, e), body: stream };
    });
  }

  async put(
    key: string,
    body: PutBody,
    mode: PutMode,
    options: PutOptions = {},
  ): Promise<ObjectInfo> {
    // A source is read whole here (this store keeps bytes in memory anyway);
    // its own error propagates unchanged and nothing is written.
    if (isBodySource(body)) this.streamedPuts++;
    const bytes = isBodySource(body) ? await bodyBytes(body, key) : body.slice();
    return await this.#call("put", key, mode.kind, options.signal, () => {
      const cur = this.#objects.get(key);
      if (mode.kind !== "overwrite") {
        if (this.conditionalMode === "refuse") {
          throw new NotImplementedError(key, "injected: conditional writes refused");
        }
        if (this.conditionalMode === "honour") {
          if (mode.kind === "create" && cur) throw new AlreadyExistsError(key, cur.version);
          if (mode.kind === "update" && (!cur || cur.version !== mode.version)) {
            throw new PreconditionFailedError(
              key,
              cur ? `version ${cur.version}, expected ${mode.version}` : "it does not exist",
            );
          }
        }
      }
      return this.#info(key, this.#write(key, bytes, { ...(options.metadata ?? {}) }));
    });
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<void> {
    return await this.#call("delete", key, undefined, options.signal, () => {
      const cur = this.#objects.get(key);
      if (options.ifVersion !== undefined) {
        if (this.conditionalMode === "refuse") {
          throw new NotImplementedError(key, "injected: conditional deletes refused");
        }
        if (this.conditionalMode === "honour" && (!cur || cur.version !== options.ifVersion)) {
          throw new PreconditionFailedError(
            key,
            cur ? `version ${cur.version}, expected ${options.ifVersion}` : "it does not exist",
          );
        }
      }
      this.#objects.delete(key);
    });
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<readonly ObjectInfo[]> {
    const size = Math.max(1, options.pageSize ?? this.#pageSize);
    let after = "";
    for (;;) {
      const page = await this.#call("list", prefix, undefined, options.signal, () => {
        const keys = [...this.#objects.keys()]
          .filter((k) => k.startsWith(prefix) && k > after)
          .sort()
          .slice(0, size);
        return keys.map((k) => this.#info(k, this.#objects.get(k)!));
      });
      if (page.length === 0) return;
      yield page;
      if (page.length < size) return;
      after = page[page.length - 1].key;
    }
  }

  #write(key: string, body: Uint8Array, metadata: Record<string, string>): Entry {
    const e: Entry = {
      body,
      version: this.#versionFromBytes
        ? `"${createHash("md5").update(body).digest("hex")}"`
        : `v${++this.#versionSeq}`,
      lastModified: this.#clock.now(),
      metadata,
    };
    this.#objects.set(key, e);
    return e;
  }

  #info(key: string, e: Entry): ObjectInfo {
    return {
      key,
      version: e.version,
      size: e.body.length,
      lastModified: e.lastModified,
      metadata: { ...e.metadata },
    };
  }

  async #call<T>(
    op: StoreOp,
    key: string,
    mode: PutMode["kind"] | undefined,
    signal: AbortSignal | undefined,
    effect: () => T,
  ): Promise<T> {
    const record = (outcome: "ok" | "error") => this.log.push({ op, key, mode, outcome });
    if (signal?.aborted) {
      record("error");
      throw new AbortedError(`The ${op} of ${key}`);
    }
    const faulted = this.#unfaulted === 0;
    if (faulted && this.latencyMs > 0) await this.#clock.sleep(this.latencyMs, signal);
    if (faulted && this.unreachable) {
      record("error");
      throw new UnreachableError(`${this.endpoint} is unreachable (injected)`);
    }
    const fault = faulted ? this.#takeFault(op, key) : undefined;
    if (fault && !fault.afterEffect) {
      record("error");
      throw fault.error();
    }
    let result: T;
    try {
      result = effect();
    } catch (e) {
      record("error");
      throw e;
    }
    if (fault) {
      record("error");
      throw fault.error();
    }
    record("ok");
    return result;
  }

  /**
   * Runs `fn` with no fault injected into the calls made meanwhile (no
   * latency, outage or scheduled failure; none is used up): for a test's
   * own writes beside the faults it injects into the code under test.
   */
  async withoutFaults<T>(fn: () => Promise<T>): Promise<T> {
    this.#unfaulted++;
    try {
      return await fn();
    } finally {
      this.#unfaulted--;
    }
  }
  #unfaulted = 0;

  #takeFault(op: StoreOp, key: string): ScheduledFault | undefined {
    const list = this.#faults.get(op);
    if (!list) return undefined;
    const f = list.find((x) => x.remaining > 0 && (!x.match || x.match(key)));
    if (!f) return undefined;
    f.remaining--;
    return f;
  }
}
