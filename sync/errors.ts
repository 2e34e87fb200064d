/**
 * Typed errors. Every error Sluice throws carries a stable `code` and a
 * process `exitCode`, and its message says what happened, what was kept or
 * discarded, and what to run next.
 *
 * @module
 */

/** Stable error codes. Scripts may match on these; they never change meaning. */
export type ErrorCode =
  | "already_exists"
  | "precondition_failed"
  | "not_found"
  | "local_only"
  | "not_implemented"
  | "unreachable"
  | "aborted"
  | "model_lock_lost"
  | "version_exists"
  | "lock_timeout"
  | "lock_read_failed"
  | "global_lock_lost"
  | "conditional_writes_unsupported"
  | "unsafe_path"
  | "path_unreadable"
  | "cache_unwritable"
  | "invalid_config"
  | "lockfile_conflict"
  | "lockfile_local_changed"
  | "lockfile_guarded"
  | "lockfile_publish_failed"
  | "lockfile_remote_malformed"
  | "lost_record_unreadable"
  | "corrupt_download"
  | "file_changed"
  | "push_failed"
  | "pull_failed"
  | "erasure_refused"
  | "cache_not_found"
  | "store_not_found"
  | "invalid_object_name"
  | "sync_incomplete"
  | "conflicts_left"
  | "not_merged"
  | "version_under_marker"
  | "namespace_taken"
  | "internal";

/** Exit codes by error code (sysexits-style where one fits). */
export const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  already_exists: 1,
  precondition_failed: 1,
  not_found: 1,
  local_only: 1,
  not_implemented: 69,
  unreachable: 69,
  aborted: 130,
  model_lock_lost: 1,
  version_exists: 1,
  lock_timeout: 75,
  lock_read_failed: 75,
  global_lock_lost: 75,
  conditional_writes_unsupported: 69,
  unsafe_path: 65,
  path_unreadable: 77,
  cache_unwritable: 73,
  invalid_config: 78,
  lockfile_conflict: 75,
  lockfile_local_changed: 1,
  lockfile_guarded: 1,
  lockfile_publish_failed: 75,
  lockfile_remote_malformed: 65,
  lost_record_unreadable: 65,
  corrupt_download: 74,
  file_changed: 75,
  push_failed: 75,
  pull_failed: 75,
  erasure_refused: 1,
  cache_not_found: 66,
  store_not_found: 66,
  invalid_object_name: 65,
  sync_incomplete: 2,
  conflicts_left: 3,
  not_merged: 1,
  version_under_marker: 1,
  namespace_taken: 1,
  internal: 70,
};

/**
 * Base class of every Sluice error.
 *
 * @example
 * ```ts
 * import { SluiceError } from "./errors.ts";
 * try {
 *   throw new SluiceError("internal", "something broke");
 * } catch (e) {
 *   if (e instanceof SluiceError) console.log(e.code, e.exitCode);
 * }
 * ```
 */
export class SluiceError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** Process exit code a command line should use for this error. */
  readonly exitCode: number;
  /** True when the same operation may succeed if simply run again later. */
  readonly retryable: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean; exitCode?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exitCode = options.exitCode ?? EXIT_CODES[code];
    this.retryable = options.retryable ?? false;
  }
}

/** A create-only write found the key already present. */
export class AlreadyExistsError extends SluiceError {
  /** The key that exists. */
  readonly key: string;
  /** The existing object's version, when the store reported it. */
  readonly existingVersion?: string;
  constructor(key: string, existingVersion?: string, options: { cause?: unknown } = {}) {
    super(
      "already_exists",
      `Object ${key} already exists; the create-only write was refused and the existing object was kept.`,
      options,
    );
    this.key = key;
    this.existingVersion = existingVersion;
  }
}

/** A compare-and-swap (update or conditional delete) found another version. */
export class PreconditionFailedError extends SluiceError {
  /** The key whose version did not match. */
  readonly key: string;
  constructor(key: string, detail = "", options: { cause?: unknown } = {}) {
    super(
      "precondition_failed",
      `Object ${key} changed since it was read${
        detail ? ` (${detail})` : ""
      }; the conditional write was refused and the remote object was kept.`,
      options,
    );
    this.key = key;
  }
}

/** The key does not exist. */
export class NotFoundError extends SluiceError {
  /** The missing key. */
  readonly key: string;
  constructor(key: string, options: { cause?: unknown } = {}) {
    super("not_found", `Object ${key} does not exist.`, options);
    this.key = key;
  }
}

/** The endpoint refuses conditional writes (If-None-Match / If-Match / generation preconditions). */
export class NotImplementedError extends SluiceError {
  /** The key of the refused request. */
  readonly key: string;
  constructor(key: string, detail = "", options: { cause?: unknown } = {}) {
    super(
      "not_implemented",
      `The endpoint refused a conditional write of ${key}${
        detail ? ` (${detail})` : ""
      }: it does not support conditional writes. Nothing was written.`,
      options,
    );
    this.key = key;
  }
}

/** The store could not be reached: transport error, timeout, or server errors after retries. */
export class UnreachableError extends SluiceError {
  /** What failed, without the advice. */
  readonly detail: string;
  /**
   * `next`: what was kept and what to run, when not a sync's (local changes
   * kept dirty, the sync run again).
   */
  constructor(detail: string, options: { cause?: unknown; next?: string } = {}) {
    const { next, ...rest } = options;
    super(
      "unreachable",
      `The datastore could not be reached: ${detail}. Nothing was lost: ${
        next ??
          "local changes stay in the cache and dirty; run the sync again once the datastore is reachable"
      }.`,
      { ...rest, retryable: true },
    );
    this.detail = detail;
  }
}

/** The operation was cancelled through its AbortSignal. */
export class AbortedError extends SluiceError {
  /** The cancelled work, e.g. `The pull`. */
  readonly what: string;
  /** False when the message gives the default account (a sync's), not one of the caller's. */
  readonly keptGiven: boolean;
  /**
   * `what` names the cancelled work; `kept` says what was kept and what to
   * run next (default: files not yet pushed stay dirty for the next sync).
   */
  constructor(
    what: string,
    options: { cause?: unknown; kept?: string } = {},
  ) {
    super(
      "aborted",
      `${what} was cancelled. ${
        options.kept ?? "Files not yet pushed stay dirty and are pushed by the next sync."
      }`,
      { cause: options.cause, retryable: true },
    );
    this.what = what;
    this.keptGiven = options.kept !== undefined;
  }
}

/** A configuration value is missing or has the wrong type. */
export class ConfigError extends SluiceError {
  /** Dotted path of the offending field. */
  readonly field: string;
  constructor(field: string, expected: string, options: { cause?: unknown } = {}) {
    const option = field.startsWith("-");
    // "did you mean …?" ends its own sentence.
    const stop = /[.?!]$/.test(expected) ? "" : ".";
    super(
      "invalid_config",
      option
        ? `Invalid value for ${field}: ${expected}${stop} Nothing was changed; correct the option and run the command again.`
        : `Invalid configuration at "${field}": ${expected}${stop} Nothing was changed; ${
          // Credentials are read from the environment, never from the configuration.
          field === "credentials"
            ? "fix the credentials in the environment the command runs in"
            : "fix the datastore configuration"} and run the command again.`,
      options,
    );
    this.field = field;
  }
}

/** A path or remote key would resolve outside the cache, or is otherwise unsafe. */
export class UnsafePathError extends SluiceError {
  /** The rejected path (escaped for display). */
  readonly path: string;
  constructor(path: string, reason: string) {
    super(
      "unsafe_path",
      `Refused the path ${
        JSON.stringify(preview(path, 120))
      }: ${reason}. Nothing was written for it.`,
    );
    this.path = path;
  }
}

/**
 * A store that keeps keys as files on disk cannot hold a key `a` and keys
 * under `a/` at once: the write of one where the other is refused. A push
 * that deletes the other in the same run makes that deletion first and
 * writes again.
 */
export class KeyClashError extends UnsafePathError {}

/**
 * A path the datastore holds that cannot be placed in the cache: a file is
 * where a directory on its way must be, or a directory is at it (the
 * datastore holds both `a` and `a/b`; a filesystem holds only one).
 */
export class PathBlockedError extends SluiceError {
  /** The path that could not be written. */
  readonly path: string;
  constructor(path: string, why: string, options?: { cause?: unknown }) {
    super(
      "unsafe_path",
      `${
        JSON.stringify(preview(path, 120))
      } cannot be written into the cache: ${why}. Nothing was written for it, and what is in the way was kept.`,
      options,
    );
    this.path = path;
  }
}

/**
 * Why a cache file or directory this process may not read is left out: said
 * once, for the plan, the walk and the upload alike.
 */
export const UNREADABLE_REASON =
  "it cannot be read (permission denied), so nothing of it was pushed and nothing was deleted for it: make it readable (chmod u+r, or run as its owner), then push again";

/**
 * A cache file or directory this process may not read (permission denied).
 * A push leaves it out (kept dirty, or listed as local only) and goes on
 * with the rest; it is never taken for a deletion.
 */
export class UnreadablePathError extends SluiceError {
  /** The cache path that could not be read. */
  readonly path: string;
  constructor(path: string) {
    super(
      "path_unreadable",
      `Cannot read ${JSON.stringify(preview(path, 120))}: ${UNREADABLE_REASON}.`,
    );
    this.path = path;
  }
}

/** True when `e` is a SluiceError with the given code. */
export function hasCode(e: unknown, code: ErrorCode): boolean {
  return e instanceof SluiceError && e.code === code;
}

/** True when `e` is worth retrying (transport trouble, not a decision). */
export function isRetryable(e: unknown): boolean {
  return e instanceof SluiceError && e.retryable;
}

/** A short, single-line preview of a string for error messages. */
export function preview(s: string, max = 80): string {
  const flat = s.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/**
 * A data version already exists on the datastore with other bytes: another
 * writer published it first, or this cache uploaded it before and its local
 * copy changed since (`ownEarlier`; `"mixed"`, kept as undefined, when the keys are of both kinds).
 */
export class VersionConflictError extends SluiceError {
  /** The conflicting version keys. */
  readonly keys: readonly string[];
  /** Where the local copies were set aside: their state locations (`.sluice/set-aside/…`). */
  readonly setAsideTo: readonly string[];
  /** The same, as the message shows them (where they are on disk: see `shownStatePath`). */
  readonly setAsideShown: readonly string[];
  /**
   * True when the datastore's copies were uploaded from this cache (they
   * carry its writer id) and changed here since; false when another
   * writer's; undefined when some of each.
   */
  readonly ownEarlier: boolean | undefined;
  /** The datastore's objects are another client's, named by no index yet. */
  readonly unindexed: boolean;
  /**
   * Version directories of the same data above the lost one that the
   * datastore holds and no index names (another client's uploads, not
   * committed), each kept here as an empty directory so that the next
   * version written here is numbered above them.
   */
  readonly keptAhead: readonly string[];
  constructor(
    keys: readonly string[],
    setAsideTo: readonly string[] = [],
    ownEarlier: boolean | "mixed" = false,
    setAsideShown: readonly string[] = setAsideTo,
    /**
     * True when the datastore's object is named by no index and carries no
     * Sluice writer id: another client's (an older client's push not
     * committed yet, or stopped before its commit; another tool's object).
     */
    unindexed = false,
    keptAhead: readonly string[] = [],
  ) {
    const aside = setAsideShown.length
      ? `; it was set aside in ${setAsideShown.join(", ")} (see \`sluice status\`)`
      : "";
    const what = ownEarlier === true
      ? "was uploaded from this cache before and its local copy changed since: a data version on the datastore is never rewritten. The datastore's copy was kept and the changed copy was not pushed"
      : ownEarlier === false && unindexed
      ? "already exists on the datastore, written by another client and named by no index yet (an older client's push not committed yet, or stopped before its commit; or another tool's object): it is taken as that writer's version. The remote copy was kept and the local copy was not pushed"
      : ownEarlier === false
      ? "already exists on the datastore: another writer published that version first. The remote copy was kept and the local copy was not pushed"
      : "already exists on the datastore with other bytes (some uploaded earlier from this cache, some by another writer). The datastore's copies were kept and the local copies were not pushed";
    super(
      "version_exists",
      `Data version ${keys.join(", ")} ${what}${aside}. ${
        ownEarlier === true
          ? "Pull to take the datastore's copy back (a pull brings it once its push is committed)"
          : unindexed
          ? "A pull brings it once an index names it (its writer's next push)"
          : "Pull to get the datastore's version"
      }, then run the method or workflow again to write a new version.${
        keptAhead.length
          ? ` The datastore also holds ${
            keptAhead.join(", ")
          }, named by no index (another client's uploads, not committed): this cache keeps an empty directory for each, so that the next version written here is numbered above them.`
          : ""
      }`,
    );
    this.keys = keys;
    this.setAsideTo = setAsideTo;
    this.setAsideShown = setAsideShown;
    this.ownEarlier = ownEarlier === "mixed" ? undefined : ownEarlier;
    this.unindexed = unindexed;
    this.keptAhead = keptAhead;
  }
}

/** The configuration demands conditional writes and the endpoint does not honour them. */
export class ConditionalWritesUnsupportedError extends SluiceError {
  /** The endpoint. */
  readonly endpoint: string;
  constructor(endpoint: string, how: "refused" | "ignored") {
    super(
      "conditional_writes_unsupported",
      `The endpoint ${endpoint} ${
        how === "refused" ? "refuses" : "silently ignores"
      } conditional writes, and conditionalWrites is "required". Nothing was pushed; local changes stay dirty. Use an endpoint that supports If-None-Match/If-Match (or generation preconditions), or set conditionalWrites to "auto" (on the command line, \`--conditional-writes auto\`) to accept a check-then-write fallback.`,
    );
    this.endpoint = endpoint;
  }
}
