/**
 * The shape datastore extensions implement, in our own words: a
 * {@link DatastoreProvider}, with the {@link SyncServiceContract},
 * {@link LockShape} and {@link Verifier} it hands out.
 *
 * @module
 */
import type { CallOptions, Identity, LockOptions } from "../../sync/ports.ts";
import type { ProbeResult } from "../../sync/transfer/conditional.ts";
import type { ErrorCode } from "../../sync/errors.ts";

/** The lock shape datastore extensions implement (what `createLock` returns). */
export interface LockShape {
  /** Store key of the lock object. */
  readonly key: string;
  /** Waits until the lock is ours. */
  acquire(options?: CallOptions): Promise<void>;
  /** Releases the lock if still ours; safe to call twice. */
  release(): Promise<void>;
  /** Runs `fn` under the lock and always releases. */
  withLock<T>(fn: () => Promise<T>, options?: CallOptions): Promise<T>;
  /** The lock body, `null` only when absent; a failed read throws. */
  inspect(options?: CallOptions): Promise<
    {
      readonly holder: string;
      readonly hostname: string;
      readonly pid: number;
      readonly acquiredAt: string;
      readonly ttlMs: number;
      readonly nonce: string;
    } | null
  >;
  /** Breakglass: deletes the lock if it carries `nonce`. */
  forceRelease(nonce: string): Promise<boolean>;
}

/** The sync service contract a datastore extension calls. */
export interface SyncServiceContract {
  /** Pulls what changed remotely. */
  pullChanged(options?: { signal?: AbortSignal; prefixes?: readonly string[] }): Promise<{
    readonly fetched: readonly string[];
    readonly removed: readonly string[];
    readonly conflicts: readonly string[];
  }>;
  /** Pushes what is dirty locally. */
  pushChanged(options?: { signal?: AbortSignal }): Promise<{
    readonly uploaded: readonly string[];
    readonly deleted: readonly string[];
  }>;
  /** Marks one path, several, or (with neither) everything dirty. */
  markDirty(
    options?: { relPath?: string; relPaths?: readonly string[]; signal?: AbortSignal },
  ): Promise<void>;
  /** What the service can do. */
  capabilities(): { readonly push: boolean; readonly pull: boolean; readonly locks: boolean };
}

/** What a health check reports. */
export interface VerifyResult {
  /** True when the store answered and its conditional writes satisfy the config. */
  readonly ok: boolean;
  /** Round trip of one metadata read, in ms (`-1` when the store did not answer). */
  readonly latencyMs: number;
  /** The conditional-write probe's finding; `null` when not probed (`off`, or unreachable). */
  readonly conditionalWrites: ProbeResult | null;
  /** One line saying what was found and, when not ok, what to do. */
  readonly message: string;
  /** The store's endpoint description. */
  readonly endpoint: string;
  /**
   * When not ok, what failed as a Sluice error code (`unreachable` when the
   * store did not answer, the store's own code when it refused, such as
   * `invalid_config` for a missing bucket, `conditional_writes_unsupported`
   * when the config requires conditional writes the store does not honour):
   * `EXIT_CODES[code]` is the exit code a command reporting it ends with.
   */
  readonly code?: ErrorCode;
}

/** A datastore health check. */
export interface Verifier {
  /** Runs the check; never throws for store failures (they make `ok` false). */
  verify(options?: { signal?: AbortSignal }): Promise<VerifyResult>;
}

/** Options of {@link DatastoreProvider.createLock}: lock timings plus who and which lock. */
export interface ProviderLockOptions extends LockOptions {
  /** Who locks; default the provider's identity. */
  readonly identity?: Identity;
  /** Lock key; default the global datastore lock (`.datastore.lock`). */
  readonly key?: string;
}

/** The provider shape datastore extensions implement. */
export interface DatastoreProvider {
  /** Creates (does not acquire) a lock of the datastore at `datastorePath`. */
  createLock(datastorePath: string, options?: ProviderLockOptions): LockShape;
  /** A health check of the store. */
  createVerifier(): Verifier;
  /** A sync service mirroring the store into `cachePath`. */
  createSyncService(repoDir: string, cachePath: string): Promise<SyncServiceContract>;
  /** The datastore's path, e.g. `s3://bucket/prefix`. */
  resolveDatastorePath(repoDir: string): string;
  /** Where the repository's cache of this datastore lives. */
  resolveCachePath(repoDir: string): string;
}
