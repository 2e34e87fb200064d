/**
 * The zod pieces shared by the sync service's `config` validation and the
 * store providers' setup JSON: one definition of each setting's type, range
 * and error text.
 *
 * @module
 */
import { z } from "zod";
import type { PathClass } from "./context.ts";
import { closest } from "./closest.ts";

/** Every {@link PathClass}, for validating classifier rules. */
export const PATH_CLASSES = [
  "data-version",
  "latest-marker",
  "index",
  "managed-lockfile",
  "config",
  "internal",
  "other",
] as const satisfies readonly PathClass[];

type MissingClass = Exclude<PathClass, (typeof PATH_CLASSES)[number]>;
const _allClasses: MissingClass extends never ? true : never = true;
void _allClasses;

/**
 * A whole number of milliseconds, described as `what` in errors.
 *
 * @example
 * ```ts
 * import { wholeMs } from "./config_schema.ts";
 * wholeMs("the probe cache expiry").min(0).parse(1000);
 * ```
 */
export function wholeMs(what: string): z.ZodNumber {
  return z.number({ error: `${what}: a number of milliseconds` })
    .int({ error: `${what}: a whole number of milliseconds` });
}

/**
 * The default number of parallel transfers of a push or a pull. Chosen by
 * measurement (`deno task bench --only concurrency`, cold push and pull of
 * 1 000 files on MinIO and fake-gcs-server): a push gains nothing past 8 to
 * 32, a pull keeps gaining up to 64; 32 is within a few per cent of the best
 * on both while keeping the memory held by whole reads (at most
 * concurrency × `streamThresholdBytes`) at a quarter of 64's.
 */
export const DEFAULT_CONCURRENCY = 32;

/** Parallel transfers: 1 to 256. */
export const concurrencySchema: z.ZodNumber = z.number({ error: "a number of parallel transfers" })
  .int({ error: "a whole number of parallel transfers" })
  .min(1, { error: "at least 1 parallel transfer" })
  .max(256, { error: "at most 256 parallel transfers" });

/** `auto`, `required` or `off`. */
export const conditionalWritesSchema = z.enum(["auto", "required", "off"], {
  error: 'one of "auto", "required", "off"',
});

/**
 * The error of a strict object: `expected` for a value of another type, and
 * for a key it does not know (a mistyped setting) what the provider config's
 * parser says of one, with the known key it most resembles, so that a check
 * that shows only the issue's message (swamp's, `createSluice`'s) never
 * reads "an object {…}" for an object with a typo in it.
 *
 * @example
 * ```ts
 * import { strictObjectError } from "./config_schema.ts";
 * strictObjectError("an object", ["concurrency"])({ code: "unrecognized_keys", keys: ["concurrancy"] });
 * // 'no such setting (unknown key "concurrancy"; did you mean "concurrency"?)'
 * ```
 */
export function strictObjectError(
  expected: string,
  known: readonly string[],
): (issue: { code?: string; keys?: readonly string[] }) => string {
  return (issue: { code?: string; keys?: readonly string[] }): string => {
    if (issue.code !== "unrecognized_keys" || !issue.keys?.length) return expected;
    const keys = issue.keys.map((k) => `"${k}"`).join(", ");
    const near = issue.keys.flatMap((k) => {
      const n = closest(k, known);
      return n ? [issue.keys!.length > 1 ? `"${n}" for "${k}"` : `"${n}"`] : [];
    });
    return `no such setting (unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}${
      near.length ? `; did you mean ${near.join(", ")}?)` : "); check the spelling"
    }`;
  };
}

/** One extra classifier rule. */
export const classifierRuleSchema = z.strictObject({
  pattern: z.string({ error: "a path pattern (`*` one segment, `**` any)" })
    .min(1, { error: "a non-empty path pattern" }),
  class: z.enum(PATH_CLASSES, { error: `one of ${PATH_CLASSES.map((c) => `"${c}"`).join(", ")}` }),
}, { error: strictObjectError("a {pattern, class} rule", ["pattern", "class"]) });

/** Retries of transient errors, by the store and the sync service. */
export const retryConfigSchema = z.strictObject({
  retries: z.number({ error: "a number of retries" }).int({ error: "a whole number of retries" })
    .min(0, { error: "0 or more retries" }).max(20, { error: "at most 20 retries" }).optional(),
  minTimeoutMs: wholeMs("the first backoff").min(0, { error: "a backoff of 0 ms or more" })
    .optional(),
  maxTimeoutMs: wholeMs("the largest backoff").min(0, { error: "a backoff of 0 ms or more" })
    .optional(),
}, {
  error: strictObjectError("an object {retries, minTimeoutMs, maxTimeoutMs}", [
    "retries",
    "minTimeoutMs",
    "maxTimeoutMs",
  ]),
});

/** The probe cache expiry. */
export const probeTtlSchema: z.ZodNumber = wholeMs("the probe cache expiry").min(0, {
  error: "0 ms or more",
});

/**
 * `firstIndexAtUploads`: a cache's first push of at least this many files
 * into a datastore with no index makes the index as its uploads begin (0:
 * always at the commit; see `sync/service/push_first_index.ts`).
 */
export const firstIndexAtUploadsSchema: z.ZodNumber = z.number({ error: "a number of files" })
  .int({ error: "a whole number of files" }).min(0, { error: "0 or more files" });

/**
 * The default of `firstIndexAtUploads`. Making the index first costs about
 * five requests more than making it at the commit, where a listing meets
 * every object the push uploaded; on a local MinIO that listing costs about
 * 0.25 ms per object (2.5 s at 10,000), so the early index pays from a few
 * hundred files on.
 */
export const DEFAULT_FIRST_INDEX_AT_UPLOADS = 200;

/** `streamThresholdBytes`: files larger than this are streamed, not read whole. */
export const streamThresholdSchema: z.ZodNumber = z.number({ error: "a number of bytes" }).int({
  error: "a whole number of bytes",
}).min(0, { error: "0 or more bytes" });
