/**
 * The shapes a datastore extension of the "swamp" tool exports and hands out,
 * declared here in our own words from the documented contract: the
 * `datastore` export, the provider, the lock, the health check and the sync
 * service. The extension in this package adapts Sluice's own API
 * (`packages/provider/`, `sync/service/service.ts`) to these shapes; nothing here is
 * Sluice's API.
 *
 * Rules that types cannot carry are stated on each member: which calls are
 * synchronous, what a call must never do (I/O in `createProvider`, throwing
 * from `verify`), and what counts are returned.
 *
 * @module
 */

/** What a lock object holds (the JSON body written to the bucket). */
export interface SwampLockInfo {
  /** `user@host` of the holder. */
  readonly holder: string;
  /** Host name of the holder. */
  readonly hostname: string;
  /** Process id of the holder. */
  readonly pid: number;
  /** ISO time of acquisition, refreshed by every heartbeat. */
  readonly acquiredAt: string;
  /** Time to live of the lock in milliseconds. */
  readonly ttlMs: number;
  /** Per-acquisition token; required for the breakglass. */
  readonly nonce?: string;
}

/** Options of `createLock`; every field optional. */
export interface SwampLockOptions {
  /** Key of the lock object; default `.datastore.lock`. */
  readonly lockKey?: string;
  /** Time to live; default 30 000 ms. */
  readonly ttlMs?: number;
  /** Delay between acquire attempts; default 1 000 ms. */
  readonly retryIntervalMs?: number;
  /** How long `acquire` waits; default 60 000 ms. */
  readonly maxWaitMs?: number;
}

/** A lock over the datastore (all methods asynchronous). */
export interface SwampDistributedLock {
  /** Waits until held; rejects with an error named `LockTimeoutError` after `maxWaitMs`. */
  acquire(): Promise<void>;
  /** Stops the heartbeat and deletes the lock if still ours; safe to repeat; never rejects. */
  release(): Promise<void>;
  /** Acquires, runs `fn` (sync or async), releases in a `finally`. */
  withLock<T>(fn: () => T | Promise<T>): Promise<T>;
  /** The lock body, or `null` when no lock object exists. */
  inspect(): Promise<SwampLockInfo | null>;
  /** Breakglass: deletes the lock only if it carries `expectedNonce`; true when deleted. */
  forceRelease(expectedNonce: string): Promise<boolean>;
}

/** The fields a lock timeout error carries besides its name `"LockTimeoutError"`. */
export interface SwampLockTimeoutFields {
  /** Always `"LockTimeoutError"`. */
  readonly name: string;
  /** The lock key waited for. */
  readonly lockKey: string;
  /** Who held it when the wait ended (`"unknown"` when it could not be read). */
  readonly holder: string;
  /** How long the wait lasted. */
  readonly waitedMs: number;
}

/** What a health check reports. */
export interface SwampHealthResult {
  /** True when the datastore answered as configured. */
  readonly healthy: boolean;
  /** One line: what was found and, when unhealthy, what to do. */
  readonly message: string;
  /** Time the check took, in milliseconds (never negative). */
  readonly latencyMs: number;
  /** The extension's type string. */
  readonly datastoreType: string;
  /** Extra facts, e.g. `{bucket}`. */
  readonly details?: Readonly<Record<string, string>>;
}

/** A health check. `verify` resolves with a report and never rejects. */
export interface SwampVerifier {
  /** Runs the check. */
  verify(): Promise<SwampHealthResult>;
}

/** A model named in a scoped sync. */
export interface SwampModelRef {
  /** The model's type, e.g. `@acme/aws/ec2` (may contain `/`). */
  readonly modelType: string;
  /** The model's id. */
  readonly modelId: string;
}

/** Options of the sync calls; each call uses only some of them. */
export interface SwampSyncOptions {
  /** Cancels the call. */
  readonly signal?: AbortSignal;
  /**
   * `markDirty` only: the path about to be written, relative to the cache
   * root with `/` separators, including `<ns>/` when namespaced; a file or a
   * directory (meaning "walk this subtree").
   */
  readonly relPath?: string;
  /** Scoped sync: only these models. */
  readonly context?: { readonly models?: readonly SwampModelRef[] };
  /** The namespace; omitted or empty means solo mode. */
  readonly namespace?: string;
  /** Pull: skip `raw` data files (lazy hydration). */
  readonly metadataOnly?: boolean;
}

/** Features a sync service advertises; every flag optional. */
export interface SwampSyncCapabilities {
  readonly scopedSync?: boolean;
  readonly lazyHydration?: boolean;
  readonly namespacedSync?: boolean;
  readonly twoPhaseSync?: boolean;
  readonly previewPush?: boolean;
  readonly controlPlane?: boolean;
}

/**
 * The control plane's records (`ControlPlaneStore`): keys are slash paths
 * such as `heartbeats/<id>`, stored under `[<ns>/]_control/`.
 */
export interface SwampControlPlaneStore {
  put(key: string, data: Uint8Array): Promise<void>;
  /** True when this call created the record; false when one was there (left as it is). */
  putIfAbsent?(key: string, data: Uint8Array): Promise<boolean>;
  /** The record's bytes; null when there is none. */
  get(key: string): Promise<Uint8Array | null>;
  /** Deletes the record; deleting one that is not there succeeds. */
  delete(key: string): Promise<void>;
  /** The keys (without `[<ns>/]_control/`) that start with `prefix`. */
  list(prefix: string): Promise<string[]>;
}

declare const manifestBrand: unique symbol;

/** What `preparePush` returns and `commitPush` takes back; opaque to the caller. */
export interface SwampPushManifest {
  readonly [manifestBrand]: true;
}

/** The sync service mirroring a local cache directory to the datastore. */
export interface SwampSyncService {
  /** Brings the cache up to date; resolves with the number of files downloaded. */
  pullChanged(options?: SwampSyncOptions): Promise<number | void>;
  /** Pushes changed cache files; resolves with the number pushed plus deleted. */
  pushChanged(options?: SwampSyncOptions): Promise<number | void>;
  /** Cheap, idempotent hint called before a cache write; no `relPath` means "everything". */
  markDirty(options?: SwampSyncOptions): Promise<void>;
  /** Advertised features; synchronous. */
  capabilities?(): SwampSyncCapabilities;
  /** Downloads one file atomically; true when downloaded, false when absent remotely. */
  hydrateFile?(relPath: string, options?: SwampSyncOptions): Promise<boolean>;
  /** Uploads outside the global lock; touches neither the remote index nor the dirty state. */
  preparePush?(options?: SwampSyncOptions): Promise<SwampPushManifest>;
  /** Under the global lock: merges the manifest into the current remote index, clears the dirty state. */
  commitPush?(manifest: SwampPushManifest, options?: SwampSyncOptions): Promise<number | void>;
  /** Under the global lock: the one-time move of the index from v1 to v2 shards. */
  migrateMonolithToShards?(options?: SwampSyncOptions): Promise<SwampMigratedIndex>;
  /** Direct access to the control plane's records under `[<ns>/]_control/` (synchronous). */
  controlPlaneStore?(): SwampControlPlaneStore;
  /** Other namespaces' catalog exports (`<ns>/.catalog-export.json`); one without an export is left out. */
  pullForeignCatalogs?(
    namespaces: string[],
    signal?: AbortSignal,
  ): Promise<{ namespace: string; rows: unknown[] }[]>;
  /** One file of another namespace, not kept anywhere; `null` when absent. */
  fetchForeignContent?(
    namespace: string,
    relPath: string,
    signal?: AbortSignal,
  ): Promise<Uint8Array | null>;
}

/** What `migrateMonolithToShards` resolves with: the v2 meta's fields. */
export interface SwampMigratedIndex {
  readonly version: number;
  readonly partitions: string[];
  readonly commitSeq: number;
}

/**
 * The provider `createProvider` returns; every member synchronous except
 * the namespace calls.
 */
export interface SwampDatastoreProvider {
  /** A lock for `options.lockKey` (default the global lock); no I/O until used. */
  createLock(datastorePath: string, options?: SwampLockOptions): SwampDistributedLock;
  /** A health check. */
  createVerifier(): SwampVerifier;
  /** A sync service over `cachePath`, returned at once (it opens lazily). */
  createSyncService?(repoDir: string, cachePath: string): SwampSyncService;
  /** The datastore's local path: `<repoDir>/.swamp`. */
  resolveDatastorePath(repoDir: string): string;
  /** The cache path, or `undefined` to let the tool choose its default. */
  resolveCachePath?(repoDir: string): string | undefined;
  /**
   * Writes the namespace manifest `<ns>/.namespace.json`
   * (`{namespace, repoId, registeredAt}`). Rejects when another repository
   * holds the slug, with a message containing
   * "already registered by repo <id>"; the same repository again succeeds
   * and refreshes `registeredAt`. The tool writes its local copy of the
   * manifest only once this resolved.
   */
  registerNamespace?(datastorePath: string, namespace: string, repoId: string): Promise<void>;
  /** The slugs of every namespace manifest; `[]` means solo mode. */
  listNamespaces?(datastorePath: string): Promise<string[]>;
}

/** A zod-like schema: what the loader and conformance helpers look for. */
export interface SwampConfigSchema {
  /** Present on zod schemas. */
  readonly _def: unknown;
  /** Throws on an invalid config. */
  parse(input: unknown): unknown;
  /** Never throws. */
  safeParse(input: unknown): { readonly success: boolean };
}

/** The `datastore` export of an extension's entry file. */
export interface SwampDatastoreExport {
  /** `@collective/name`, lower case; written as a string literal in the object literal. */
  readonly type: string;
  /** Display name. */
  readonly name: string;
  /** One sentence. */
  readonly description: string;
  /** Validates the config before `createProvider` is called. */
  readonly configSchema?: SwampConfigSchema;
  /** Cheap and free of I/O (called many times per command); throws on a bad config. */
  createProvider(config: Record<string, unknown>): SwampDatastoreProvider;
}
