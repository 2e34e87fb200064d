/**
 * The config pieces every store provider shares: the zod schemas of the keys
 * all backends accept ({@link commonProviderShape}), the parser whose errors
 * name the field path ({@link parseProviderConfig}), and the sync
 * configuration a parsed config implies ({@link toSyncConfig}).
 *
 * @module
 */
import { z } from "zod";
import { ConfigError } from "../../sync/errors.ts";
import { isSafeRelPath } from "../../sync/paths.ts";
import { closest } from "../../sync/closest.ts";
import { endpointPathProblem } from "../store_kit/endpoint_path.ts";
import type { ClassifierRule, SyncConfig } from "../../sync/context.ts";
import {
  classifierRuleSchema,
  concurrencySchema,
  conditionalWritesSchema,
  DEFAULT_CONCURRENCY,
  firstIndexAtUploadsSchema,
  PATH_CLASSES,
  probeTtlSchema,
  retryConfigSchema,
  streamThresholdSchema,
  wholeMs,
} from "../../sync/config_schema.ts";
import { DEFAULT_RETRY } from "../../sync/retry.ts";
import { LOCK_DEFAULTS } from "../../sync/locks/lock_timings.ts";

/**
 * The `lock` section: a backend by name, the engine's timings, backend-specific
 * keys kept. A heartbeat as slow as the TTL would let a live lock go stale,
 * which every lock refuses: refused here, with the config, not at the first lock.
 */
export const lockConfigSchema = z.looseObject({
  backend: z.string({ error: 'a lock backend name, e.g. "store"' })
    .min(1, { error: "a non-empty lock backend name" })
    .default("store"),
  ttlMs: wholeMs("the lock time to live").min(1_000, { error: "a TTL of at least 1000 ms" })
    .optional(),
  heartbeatMs: wholeMs("the heartbeat interval").min(1, { error: "a positive interval" })
    .optional(),
  maxWaitMs: wholeMs("the acquire wait").min(0, { error: "a wait of 0 ms or more" }).optional(),
  retryDelayMs: wholeMs("the acquire retry delay").min(1, { error: "a positive delay" }).optional(),
}, { error: "an object {backend, ttlMs, heartbeatMs, maxWaitMs, retryDelayMs}" }).superRefine(
  (lock, ctx) => {
    if (lock.heartbeatMs === undefined) return;
    const ttl = lock.ttlMs ?? LOCK_DEFAULTS.ttlMs;
    if (lock.heartbeatMs < ttl) return;
    ctx.addIssue({
      code: "custom",
      path: ["heartbeatMs"],
      input: lock.heartbeatMs,
      message: `a heartbeat interval less than the lock's ttlMs (${ttl}${
        lock.ttlMs === undefined ? ", its default" : ""
      })`,
    });
  },
);

/**
 * `schema` (an object with `bucket` and an endpoint at `key`) refusing, at
 * `key`, an endpoint whose path sends every request elsewhere than meant
 * (see `endpointPathProblem`): the bucket in an S3 endpoint, `/storage/v1`
 * in a GCS one.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { withEndpointPathCheck } from "./config.ts";
 * const schema = withEndpointPathCheck(
 *   z.object({ bucket: z.string(), endpoint: z.string().optional() }),
 *   "s3",
 *   "endpoint",
 * );
 * console.log(schema.safeParse({ bucket: "b-1", endpoint: "http://127.0.0.1:9000/b-1" }).success); // false
 * ```
 */
export function withEndpointPathCheck<S extends z.ZodType>(
  schema: S,
  kind: "s3" | "gcs",
  key: "endpoint" | "apiEndpoint",
): S {
  return schema.superRefine((value, ctx) => {
    const v = value as Record<string, unknown> | null;
    const endpoint = v?.[key];
    const bucket = v?.bucket;
    if (typeof endpoint !== "string" || typeof bucket !== "string") return;
    const problem = endpointPathProblem(kind, endpoint, bucket);
    if (problem) ctx.addIssue({ code: "custom", path: [key], input: endpoint, message: problem });
  });
}

/** The key prefix inside the bucket: relative, `/`-separated, no `..`; a trailing `/` is dropped. */
export const prefixSchema = z.string({ error: 'a key prefix string, e.g. "team/datastore"' })
  .default("")
  .transform((p) => p.replace(/\/+$/, ""))
  .refine((p) => p === "" || isSafeRelPath(p), {
    error: 'a relative key prefix without "..", ".", empty segments or a leading "/"',
  });

/** Config keys every store provider accepts (spread into each backend's strict object). */
export const commonProviderShape = {
  prefix: prefixSchema,
  conditionalWrites: conditionalWritesSchema.default("auto"),
  concurrency: concurrencySchema.default(DEFAULT_CONCURRENCY),
  requestTimeoutMs: wholeMs("the per-request timeout").min(1, { error: "a positive timeout" })
    .default(30_000),
  probeTtlMs: probeTtlSchema.optional(),
  streamThresholdBytes: streamThresholdSchema.optional(),
  firstIndexAtUploads: firstIndexAtUploadsSchema.optional(),
  retry: retryConfigSchema.default({}),
  lock: lockConfigSchema.default({ backend: "store" }),
  classifierRules: z.array(classifierRuleSchema, { error: "a list of {pattern, class} rules" })
    .default([]),
  /**
   * Old swamp clients (the existing S3/GCS extensions) push to this bucket
   * too: a push the tool makes without holding the global lock commits
   * under it (`pushUnderGlobalLock`), since their index rewrites rely on it.
   */
  oldClients: z.boolean({ error: "true or false" }).default(false),
};

/** The parsed form of {@link commonProviderShape}. */
export interface CommonProviderConfig {
  readonly prefix: string;
  readonly conditionalWrites: "auto" | "required" | "off";
  readonly concurrency: number;
  readonly requestTimeoutMs: number;
  readonly probeTtlMs?: number;
  readonly streamThresholdBytes?: number;
  readonly firstIndexAtUploads?: number;
  readonly retry: { retries?: number; minTimeoutMs?: number; maxTimeoutMs?: number };
  readonly lock: { backend: string; [key: string]: unknown };
  readonly classifierRules: readonly ClassifierRule[];
  /** Old swamp clients push to the bucket too (see `commonProviderShape`); default false. */
  readonly oldClients?: boolean;
}

function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out ? `.${String(p)}` : String(p);
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

/** The settings an object of `schema` at `path` knows (none where it is no object). */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  type Def = {
    type: string;
    shape?: Record<string, unknown>;
    innerType?: unknown;
    element?: unknown;
    in?: unknown;
  };
  const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def?: Def } })?._zod?.def;
  const unwrap = (s: unknown): unknown => {
    for (let d = defOf(s); d; d = defOf(s)) {
      if (d.innerType !== undefined) s = d.innerType; // optional, default, nullable…
      else if (d.type === "pipe") s = d.in;
      else break;
    }
    return s;
  };
  let s = unwrap(schema);
  for (const p of path) {
    const d = defOf(s);
    if (d?.type === "object" && d.shape) s = unwrap(d.shape[String(p)]);
    else if (d?.type === "array") s = unwrap(d.element);
    else return [];
  }
  const d = defOf(s);
  return d?.type === "object" && d.shape ? Object.keys(d.shape) : [];
}

function describeIssue(
  schema: z.ZodType,
  input: unknown,
  issue: z.core.$ZodIssue,
): { field: string; text: string } {
  if (issue.code === "unrecognized_keys") {
    const field = fieldPath([...issue.path, issue.keys[0]]);
    const known = knownKeysAt(schema, issue.path);
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    // The setting each key most likely means, inside the parentheses: the
    // error's own sentence goes on after them.
    const near = issue.keys.flatMap((k) => {
      const n = closest(k, known);
      return n ? [issue.keys.length > 1 ? `"${n}" for "${k}"` : `"${n}"`] : [];
    });
    return {
      field,
      text: `no such setting (unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}${
        near.length ? `; did you mean ${near.join(", ")}?)` : "); check the spelling"
      }`,
    };
  }
  const got = valueAt(input, issue.path);
  const shown = got === undefined ? "nothing" : JSON.stringify(got)?.slice(0, 80);
  return { field: fieldPath(issue.path) || "(root)", text: `${issue.message}, got ${shown}` };
}

/**
 * Parses `input` with `schema`; on failure throws a `ConfigError` at the first
 * offending field path (e.g. `lock.ttlMs`, `classifierRules[0].class`),
 * saying what is expected and what was given, and listing any further issues.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { parseProviderConfig } from "./config.ts";
 * const schema = z.strictObject({ bucket: z.string({ error: "a bucket name" }) });
 * parseProviderConfig(schema, { bucket: "b" }); // { bucket: "b" }
 * ```
 */
export function parseProviderConfig<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new ConfigError("(root)", `a JSON object of settings, got ${JSON.stringify(input)}`);
  }
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const [first, ...rest] = r.error.issues.map((i) => describeIssue(schema, input, i));
  const more = rest.length ? `; also ${rest.map((i) => `"${i.field}": ${i.text}`).join("; ")}` : "";
  throw new ConfigError(first.field, `${first.text}${more}`, { cause: r.error });
}

/**
 * The sync configuration a parsed provider config implies.
 *
 * @example
 * ```ts
 * import { toSyncConfig } from "./config.ts";
 * const c = toSyncConfig({
 *   prefix: "", conditionalWrites: "auto", concurrency: 4, requestTimeoutMs: 1000,
 *   retry: {}, lock: { backend: "store" }, classifierRules: [],
 * });
 * console.log(c.concurrency); // 4
 * ```
 */
export function toSyncConfig(config: CommonProviderConfig): Partial<SyncConfig> {
  return {
    concurrency: config.concurrency,
    conditionalWrites: config.conditionalWrites,
    classifierRules: config.classifierRules,
    retry: { ...DEFAULT_RETRY, ...config.retry },
    ...(config.probeTtlMs === undefined ? {} : { probeTtlMs: config.probeTtlMs }),
    ...(config.streamThresholdBytes === undefined
      ? {}
      : { streamThresholdBytes: config.streamThresholdBytes }),
    ...(config.firstIndexAtUploads === undefined
      ? {}
      : { firstIndexAtUploads: config.firstIndexAtUploads }),
  };
}

export { classifierRuleSchema, PATH_CLASSES, retryConfigSchema };
