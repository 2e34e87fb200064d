/**
 * The two ports every backend plugs in behind: {@link ObjectStore} and
 * {@link LockBackend} / {@link DistributedLock}, plus the injected
 * {@link Clock} and {@link Identity}. This file is the contract: gates and the
 * sync service see only these types, never a backend.
 *
 * @module
 */

/**
 * How a `put` treats an existing object.
 *
 * - `overwrite`: last writer wins.
 * - `create`: fails with `AlreadyExistsError` if the key exists
 *   (S3 `If-None-Match: *`, GCS `ifGenerationMatch=0`, local hard link).
 * - `update`: fails with `PreconditionFailedError` unless the current version
 *   equals `version` (S3 `If-Match`, GCS `ifGenerationMatch=<gen>`); a missing
 *   key also fails with `PreconditionFailedError`.
 */
export type PutMode =
  | { readonly kind: "overwrite" }
  | { readonly kind: "create" }
  | { readonly kind: "update"; readonly version: string };

/** Shorthands for {@link PutMode} values. */
export const PutModes = {
  overwrite: { kind: "overwrite" } as PutMode,
  create: { kind: "create" } as PutMode,
  update: (version: string): PutMode => ({ kind: "update", version }),
} as const;

/** What a store knows about one object. */
export interface ObjectInfo {
  /** Store-relative key. */
  readonly key: string;
  /** Normalised version: S3 ETag without quotes, GCS generation, or a local version id. */
  readonly version: string;
  /** Size in bytes. */
  readonly size: number;
  /** Last-modified time, milliseconds since the epoch, by the store's clock. */
  readonly lastModified: number;
  /** User metadata stored with the object (lower-case keys). */
  readonly metadata?: Readonly<Record<string, string>>;
}

/**
 * A body read on demand, for files too large to hold whole. Each call of
 * `stream()` opens a fresh stream of exactly `size` bytes (a retry calls it
 * again). The stream errors, before its last bytes, when what it reads is not
 * what was announced (a file changed while it was being uploaded), so a store
 * never completes a write of torn bytes.
 */
export interface BodySource {
  /** Exact length in bytes. */
  readonly size: number;
  /** A fresh stream of the bytes. */
  stream(): ReadableStream<Uint8Array>;
}

/** What `put` writes: whole bytes, or a {@link BodySource} the store streams. */
export type PutBody = Uint8Array | BodySource;

/** An object's info with its bytes as a stream (see {@link ObjectStore.getStream}). */
export interface GetStreamResult extends ObjectInfo {
  /** The body; read it to the end or cancel it. */
  readonly body: ReadableStream<Uint8Array>;
}

/** An object's bytes with its info. */
export interface GetResult extends ObjectInfo {
  /** The whole body. */
  readonly body: Uint8Array;
}

/** Options common to every store call. */
export interface CallOptions {
  /** Cancels the call; the store throws `AbortedError`. */
  readonly signal?: AbortSignal;
  /**
   * One attempt only, even on a store that retries transient failures itself
   * (a best-effort clean-up whose failure changes nothing).
   */
  readonly noRetry?: boolean;
}

/** Options of `put`. */
export interface PutOptions extends CallOptions {
  /** User metadata to store with the object (keys lower-case, ASCII). */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Options of `delete`. */
export interface DeleteOptions extends CallOptions {
  /** Delete only while the object still has this version; else `PreconditionFailedError`. */
  readonly ifVersion?: string;
}

/** Options of `list`. */
export interface ListOptions extends CallOptions {
  /** Page size hint (stores may return fewer). */
  readonly pageSize?: number;
}

/**
 * A bucket prefix seen as a flat key space. Keys are relative to the store's
 * own root (a bucket prefix is part of the store's configuration), use `/`
 * separators and never start with `/`.
 *
 * Errors are typed: `NotFoundError`, `AlreadyExistsError`,
 * `PreconditionFailedError`, `NotImplementedError` (the endpoint refuses a
 * conditional write), `UnreachableError` (transport, timeout, 5xx after
 * retries) and `AbortedError`.
 *
 * @example
 * ```ts
 * import { type ObjectStore, PutModes } from "./ports.ts";
 * async function publish(store: ObjectStore) {
 *   const info = await store.put("a.txt", new TextEncoder().encode("hi"), PutModes.create);
 *   await store.put("a.txt", new TextEncoder().encode("ho"), PutModes.update(info.version));
 * }
 * ```
 */
export interface ObjectStore {
  /** A short human name of the endpoint, e.g. `s3://bucket/prefix`, used in messages and probe caches. */
  readonly endpoint: string;
  /**
   * True when the store retries transient failures itself (the network
   * stores do: only they can tell a lost answer from a conflict). The sync
   * service then makes each call once, so retries live in one layer and a
   * dead endpoint costs `retries + 1` attempts. Stores that leave it unset
   * make one attempt per call and the service retries them.
   */
  readonly retriesInternally?: boolean;
  /**
   * True when a delete with `ifVersion` may remove a version written after
   * its condition was checked (an endpoint that ignores the condition, so
   * the version is compared first, then the object deleted: MinIO's
   * community edition). A push then never takes such a delete's removal of
   * an index entry naming another version for its own (see
   * `IndexChange.foundGone`). Unset: the condition holds atomically.
   */
  readonly deletesChecked?: boolean;
  /** Reads an object; `NotFoundError` when absent. */
  get(key: string, options?: CallOptions): Promise<GetResult>;
  /** Reads an object's info; `null` when absent (a failed read throws). */
  head(key: string, options?: CallOptions): Promise<ObjectInfo | null>;
  /**
   * Writes an object under `mode`; returns the new object's info. A
   * {@link BodySource} body is streamed: the store never holds it whole, and
   * calls `stream()` again for each attempt. A stream that ends early or
   * errors leaves no object (and the old one, if any, untouched).
   */
  put(key: string, body: PutBody, mode: PutMode, options?: PutOptions): Promise<ObjectInfo>;
  /**
   * Reads an object as a stream, so that a large download is never held
   * whole; `NotFoundError` when absent. Optional: callers fall back to
   * {@link ObjectStore.get} (see `openObject` in `sync/transfer/body.ts`).
   */
  getStream?(key: string, options?: CallOptions): Promise<GetStreamResult>;
  /** Deletes an object. Deleting an absent key without `ifVersion` succeeds. */
  delete(key: string, options?: DeleteOptions): Promise<void>;
  /** Lists objects whose key starts with `prefix`, page by page, in key order. */
  list(prefix: string, options?: ListOptions): AsyncIterable<readonly ObjectInfo[]>;
}

/** An opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/** Injected time. Tests pass a `FakeClock`; production uses {@link systemClock}. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with `AbortedError` when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Schedules `fn` after `ms`; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer. */
  clearTimeout(handle: TimerHandle): void;
}

/** Who is writing: injected so that two clones in one process differ. */
export interface Identity {
  /** `user@host`. */
  readonly holder: string;
  /** Host name. */
  readonly hostname: string;
  /** Process id (or any per-process number in tests). */
  readonly pid: number;
}

/** The body of a lock object. */
export interface LockInfo {
  /** `user@host` of the holder. */
  readonly holder: string;
  /** Host name of the holder. */
  readonly hostname: string;
  /** Process id of the holder. */
  readonly pid: number;
  /** ISO time of acquisition, rewritten by every heartbeat (so: the last renewal). */
  readonly acquiredAt: string;
  /** Time to live in milliseconds; stale once the object's last-modified time plus this has passed. */
  readonly ttlMs: number;
  /** Random per-acquisition token. */
  readonly nonce: string;
}

/** Why a held lock is considered lost. */
export interface LockLoss {
  /** `absent`: the lock object is gone; `taken`: it carries another nonce. */
  readonly kind: "absent" | "taken";
  /** The new holder when known. */
  readonly newHolder?: LockInfo;
  /** When the loss was detected (clock ms). */
  readonly detectedAt: number;
  /**
   * What is true of the lock now, said in place of its holder where the
   * loss is this process's finding rather than the lock's (it may still
   * name this run).
   */
  readonly state?: string;
}

/** Options for creating a lock. */
export interface LockOptions {
  /** Time to live; default 30 000 ms. */
  readonly ttlMs?: number;
  /** Heartbeat interval; default ttlMs / 3. */
  readonly heartbeatMs?: number;
  /** How long `acquire` waits for a held lock; default 60 000 ms. */
  readonly maxWaitMs?: number;
  /** Delay between acquire attempts; default 500 ms (jittered). */
  readonly retryDelayMs?: number;
}

/** Options of {@link DistributedLock.acquire}. */
export interface AcquireOptions extends CallOptions {
  /**
   * Called once when an attempt finds the lock held by another, with the
   * holder its object names, before the wait for it: Sluice says
   * `global_lock_wait` there. A lock that cannot tell may never call it
   * (Sluice's look before the acquisition is then all that is said).
   */
  readonly onWait?: (holder: LockInfo) => void;
}

/**
 * A lock over a shared store, the shape datastore extensions implement.
 *
 * `inspect()` returns `null` only when the lock object is absent; a failed
 * read throws. Locks made by Sluice's engine also expose `nonce`, `lost` and
 * `loss`, so the lock fence can refuse without another read; third-party
 * locks may leave them undefined (the fence then reads the lock, and a push
 * under the global lock reads it once before its commit, judging it by the
 * holder, hostname and pid it names).
 */
export interface DistributedLock {
  /** Store key of the lock object. */
  readonly key: string;
  /** Waits until the lock is ours; throws `LockTimeoutError` after `maxWaitMs`. */
  acquire(options?: AcquireOptions): Promise<void>;
  /** Releases the lock if still ours; safe to call twice. */
  release(): Promise<void>;
  /** Runs `fn` under the lock and always releases, also on throw. */
  withLock<T>(fn: () => Promise<T>, options?: AcquireOptions): Promise<T>;
  /** The lock object's body, or `null` when absent. A failed read throws. */
  inspect(options?: CallOptions): Promise<LockInfo | null>;
  /** Breakglass: deletes the lock if it carries `nonce`; true only if it did. */
  forceRelease(nonce: string): Promise<boolean>;
  /** This acquisition's nonce while held (engine locks). */
  readonly nonce?: string;
  /** True once a heartbeat found the lock gone or taken (engine locks). */
  readonly lost?: boolean;
  /** Details of the loss (engine locks). */
  readonly loss?: LockLoss;
}

/**
 * A lock plugin: creates locks for keys. Over S3, GCS, the local directory and
 * the in-memory store, one engine backend keeps each lock as an object in the
 * store itself (`storeLockBackend`); third parties register their own by name.
 */
export interface LockBackend {
  /** Registry name, chosen in the datastore setup config (`lock.backend`). */
  readonly name: string;
  /** Creates (does not acquire) the lock at `key` for `identity`. */
  createLock(key: string, identity: Identity, options?: LockOptions): DistributedLock;
}
