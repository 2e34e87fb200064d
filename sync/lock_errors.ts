/**
 * The errors of locks: a wait that timed out, a lock that could not be read
 * (never taken for a released one), a run that lost its model lock, and a
 * managed lockfile the datastore holds malformed.
 *
 * @module
 */
import { ConfigError, preview, SluiceError } from "./errors.ts";
import { lockReleaseCommand } from "./locks/lock_object.ts";

/** `acquire` gave up waiting for a lock another process holds. */
export class LockTimeoutError extends SluiceError {
  /** The lock key. */
  readonly key: string;
  constructor(key: string, waitedMs: number, holder?: string) {
    super(
      "lock_timeout",
      `Timed out after ${waitedMs} ms waiting for lock ${key}${
        holder ? `, held by ${holder}` : ""
      }. Nothing was changed. Run the command again later; if the holder is gone for good, break the lock with \`${
        lockReleaseCommand(key)
      }\`.`,
      { retryable: true },
    );
    this.key = key;
  }
}

/**
 * True for a lock's timeout: Sluice's {@link LockTimeoutError}, or any error
 * whose `code` is `lock_timeout` (a third-party lock need not throw Sluice's
 * classes: the lock conformance suite matches its errors by their code).
 *
 * @example
 * ```ts
 * import { isLockTimeout } from "./lock_errors.ts";
 * isLockTimeout(Object.assign(new Error("busy"), { code: "lock_timeout" })); // true
 * ```
 */
export function isLockTimeout(e: unknown): boolean {
  return e instanceof LockTimeoutError ||
    (typeof e === "object" && e !== null && (e as { code?: unknown }).code === "lock_timeout");
}

/** A lock object could not be read (transport, timeout, malformed body). Never means "released". */
export class LockReadError extends SluiceError {
  /** The lock key. */
  readonly key: string;
  constructor(
    key: string,
    detail: string,
    options: { cause?: unknown; malformed?: boolean } = {},
  ) {
    // A read refused for the datastore's configuration (a missing bucket,
    // refused credentials, another server at the endpoint) fails the same
    // way at every attempt: the way out is the configuration, not a wait.
    const config = options.cause instanceof ConfigError ? options.cause : undefined;
    const next = options.malformed
      ? `The object is no lock; to remove it, run \`sluice lock release --force\` (with \`--model\` for a model lock), which deletes that very object, or wait until it is stale (its last write plus the lock's TTL)`
      : config
      ? `Running the command again cannot help: fix "${config.field}" in the datastore configuration, then run the command again`
      : "Run the command again once the datastore is reachable";
    super(
      "lock_read_failed",
      `Could not read lock ${key}: ${detail}. The lock's state is unknown, so it was treated as neither held nor released, and nothing that needed it went ahead (no commit under it, no release of it). ${next}.`,
      { cause: options.cause, retryable: config === undefined },
    );
    this.key = key;
  }
}

/**
 * The datastore's copy of the managed lockfile is not a JSON object of
 * entries. Nothing was published over it and the change stays pending;
 * retrying cannot help until `sluice lockfile repair` has replaced it.
 *
 * @example
 * ```ts
 * import { LockfileRemoteMalformedError } from "./lock_errors.ts";
 * const e = new LockfileRemoteMalformedError("config/upstream_extensions.json", "v7", "not a JSON object: it is an array", new TextEncoder().encode("[1]"), "set @acme/ssh");
 * console.log(e.code, e.exitCode); // lockfile_remote_malformed 65
 * ```
 */
export class LockfileRemoteMalformedError extends SluiceError {
  /** The lockfile path (and store key). */
  readonly path: string;
  /** The malformed object's version. */
  readonly version: string;
  /** What is wrong with it (the parse error). */
  readonly problem: string;
  /** A short single-line preview of its bytes. */
  readonly preview: string;
  constructor(path: string, version: string, problem: string, body: Uint8Array, change: string) {
    const shown = preview(new TextDecoder().decode(body), 60);
    super(
      "lockfile_remote_malformed",
      `The datastore's copy of the managed lockfile ${path} (version ${version}) is not a JSON object of entries: ${problem}; it begins ${
        JSON.stringify(shown)
      }. Nothing was published and that copy was left as it is; this checkout's change (${change}) is kept as a pending delta in the cache. Retrying cannot help until the copy is repaired: run \`sluice lockfile repair --dry-run\` to see the problem and what would be published, then \`sluice lockfile repair\`, which sets the bad copy aside in the cache's set-aside area (\`sluice status\` lists it) and republishes this cache's last good copy with the pending changes.`,
    );
    this.path = path;
    this.version = version;
    this.problem = problem;
    this.preview = shown;
  }
}

/** One lock a run lost before it could push. */
export interface LostLock {
  /** The lock key. */
  readonly key: string;
  /** Who holds it now, when known (`null`: released). */
  readonly newHolder: string | null;
  /** What is true of it, said in place of its holder (see `LockLoss.state`). */
  readonly state?: string;
}

/** How a lost lock is named in a message: its key, and who holds it now or what is true of it. */
export function lostLockText(l: LostLock): string {
  return `${l.key} (${l.state ?? (l.newHolder ? `now held by ${l.newHolder}` : "now released")})`;
}

/**
 * A run's model lock was force-released or taken over before its push.
 * Nothing was pushed and the run's own data versions were discarded.
 */
export class ModelLockLostError extends SluiceError {
  /** The locks that no longer name this run. */
  readonly lost: readonly LostLock[];
  /** Data version directories this run wrote and that were discarded (set by the eraser). */
  discarded: readonly string[] = [];
  constructor(lost: readonly LostLock[], message?: string) {
    const names = lost.map(lostLockText).join(", ");
    super(
      "model_lock_lost",
      message ??
        `This run lost its lock on ${names} before pushing: the lock was force-released or taken over by another process, which may have written the same data version. Nothing was pushed; this run's data versions were discarded (other files it wrote, such as its output records, stay in the cache for the next push), and the model's data is refreshed from the datastore when it can be reached. Run the method or workflow again.`,
    );
    this.lost = lost;
  }
}
