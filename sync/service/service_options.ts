/**
 * What a sync service is created from: its options
 * ({@link SyncServiceOptions}, with {@link SluicePlugin}s), the default
 * configuration ({@link DEFAULT_CONFIG}), and the check of options before
 * anything is created ({@link validateSyncServiceOptions}).
 *
 * @module
 */
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import type { Clock, Identity, LockBackend, ObjectStore } from "../ports.ts";
import { DEFAULT_RETRY } from "../retry.ts";
import {
  classifierRuleSchema,
  concurrencySchema,
  conditionalWritesSchema,
  DEFAULT_CONCURRENCY,
  DEFAULT_FIRST_INDEX_AT_UPLOADS,
  firstIndexAtUploadsSchema,
  probeTtlSchema,
  retryConfigSchema,
  streamThresholdSchema,
  strictObjectError,
} from "../config_schema.ts";
import { DEFAULT_STREAM_THRESHOLD } from "../transfer/body.ts";
import type { SluiceEmitter } from "../events.ts";
import type { Pipeline } from "../pipeline.ts";
import type { PushContext, SyncConfig, WriteContext } from "../context.ts";

/** A plugin changes the pipelines by name (add, override, remove gates). */
export interface SluicePlugin {
  /** Plugin name, for messages. */
  readonly name: string;
  /** Called once when the service is created. */
  setup(pipelines: { push: Pipeline<PushContext>; write: Pipeline<WriteContext> }): void;
}

/** Options of `createSyncService` (`service.ts`). */
export interface SyncServiceOptions {
  /** The cache directory (created if missing). */
  readonly cacheDir: string;
  /**
   * Where the cache keeps its sync state (what is synced, dirty and in
   * conflict, and the copies set aside); default `<cacheDir>/.sluice`. A
   * cache shared with clients that upload every file but their own names
   * keeps it where they never look (the extension: `_control/` at the
   * cache's root, see `packages/extension/state_dirs.ts`).
   */
  readonly stateDir?: string;
  /**
   * Count the other services of this process over the same cache as
   * processes of their own: their journal marks are theirs while they hold
   * their owner lock (until `state.exit()`), as another process's are. For a
   * harness that runs each process of a test as a service of one process;
   * default false (the services of one process take each other's marks
   * over, as a process's next service does).
   */
  readonly ownersInProcess?: boolean;
  /** The store the cache mirrors. */
  readonly store: ObjectStore;
  /** Creates model and datastore locks; optional for services that never lock. */
  readonly lockBackend?: LockBackend;
  /** Who is writing; default this process. */
  readonly identity?: Identity;
  /** Time; default the system clock. */
  readonly clock?: Clock;
  /**
   * The filesystem's clock (ms), against which a file's mtime is judged
   * settled before a synced record keeps it (see `settledAt`); default the
   * system's, `Date.now`, whose time the filesystem stamps files with. A
   * harness whose outcomes must not hang on how much real time passes gives
   * its own.
   */
  readonly fileClock?: () => number;
  /** Shared event emitter; default a new one. */
  readonly events?: SluiceEmitter;
  /** Configuration overrides. */
  readonly config?: Partial<SyncConfig>;
  /** The push-level pipeline (default: empty, i.e. no gates). */
  readonly push?: Pipeline<PushContext>;
  /** The per-write pipeline (default: empty). */
  readonly write?: Pipeline<WriteContext>;
  /** Plugins applied after the pipelines are set. */
  readonly plugins?: readonly SluicePlugin[];
}

/** The default configuration. */
export const DEFAULT_CONFIG: SyncConfig = {
  concurrency: DEFAULT_CONCURRENCY,
  retry: DEFAULT_RETRY,
  conditionalWrites: "auto",
  classifierRules: [],
  probeTtlMs: 24 * 3600_000,
  streamThresholdBytes: DEFAULT_STREAM_THRESHOLD,
  firstIndexAtUploads: DEFAULT_FIRST_INDEX_AT_UPLOADS,
  unfinishedVersions: "push",
};

/**
 * The shape of `config` (every key optional: defaults fill the rest). A key
 * it does not know (a mistyped `concurrancy`) is refused, naming the known
 * key it most resembles: from JavaScript or a configuration file, it would
 * otherwise leave the setting it meant at its default in silence.
 */
const syncConfigSchema = z.strictObject({
  concurrency: concurrencySchema.optional(),
  retry: retryConfigSchema.optional(),
  conditionalWrites: conditionalWritesSchema.optional(),
  classifierRules: z.array(classifierRuleSchema, { error: "a list of {pattern, class} rules" })
    .optional(),
  probeTtlMs: probeTtlSchema.optional(),
  streamThresholdBytes: streamThresholdSchema.optional(),
  firstIndexAtUploads: firstIndexAtUploadsSchema.optional(),
  unfinishedVersions: z.enum(["push", "hold"], { error: "push or hold" }).optional(),
}, { error: strictObjectError("an object of settings", Object.keys(DEFAULT_CONFIG)) });

const shown = (v: unknown) => v === undefined ? "nothing" : JSON.stringify(v)?.slice(0, 80);

/**
 * Checks the options a service is created from: `cacheDir`, `store`,
 * `identity` and the types of `config`. Throws `ConfigError` naming the first
 * offending field (e.g. `config.concurrency`, `identity.pid`) with what is
 * expected and what was given, before anything is created.
 *
 * @example
 * ```ts
 * import { validateSyncServiceOptions } from "./service_options.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * validateSyncServiceOptions({ cacheDir: "/tmp/c", store: new InMemoryStore(), config: { concurrency: 4 } });
 * ```
 */
export function validateSyncServiceOptions(options: SyncServiceOptions): void {
  const o = options as unknown as Record<string, unknown>;
  if (typeof o.cacheDir !== "string" || o.cacheDir === "") {
    throw new ConfigError("cacheDir", `a directory path, got ${shown(o.cacheDir)}`);
  }
  if (o.stateDir !== undefined && (typeof o.stateDir !== "string" || o.stateDir === "")) {
    throw new ConfigError("stateDir", `a directory path, got ${shown(o.stateDir)}`);
  }
  const store = o.store as Record<string, unknown> | undefined;
  if (
    typeof store !== "object" || store === null ||
    !["get", "head", "put", "delete", "list"].every((m) => typeof store[m] === "function")
  ) {
    throw new ConfigError("store", "an ObjectStore (get, head, put, delete, list)");
  }
  if (o.identity !== undefined) {
    const id = (o.identity ?? {}) as Record<string, unknown>;
    if (typeof id.holder !== "string" || id.holder === "") {
      throw new ConfigError("identity.holder", `a non-empty "user@host", got ${shown(id.holder)}`);
    }
    if (typeof id.hostname !== "string") {
      throw new ConfigError("identity.hostname", `a host name, got ${shown(id.hostname)}`);
    }
    if (typeof id.pid !== "number" || !Number.isSafeInteger(id.pid)) {
      throw new ConfigError("identity.pid", `a process id (a whole number), got ${shown(id.pid)}`);
    }
  }
  if (o.config === undefined) return;
  if (typeof o.config !== "object" || o.config === null || Array.isArray(o.config)) {
    throw new ConfigError("config", `an object of settings, got ${shown(o.config)}`);
  }
  const r = syncConfigSchema.safeParse(o.config);
  if (r.success) return;
  const issue = r.error.issues[0];
  let field = "config";
  let value: unknown = o.config;
  // An unknown key is named itself, with what it was given.
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
  for (const p of path) {
    field += typeof p === "number" ? `[${p}]` : `.${String(p)}`;
    value = typeof value === "object" && value !== null
      ? (value as Record<PropertyKey, unknown>)[p]
      : undefined;
  }
  throw new ConfigError(field, `${issue.message}, got ${shown(value)}`, { cause: r.error });
}
