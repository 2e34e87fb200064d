import assert from "node:assert/strict";
import {
  classifierRuleSchema,
  concurrencySchema,
  conditionalWritesSchema,
  firstIndexAtUploadsSchema,
  PATH_CLASSES,
  probeTtlSchema,
  retryConfigSchema,
  streamThresholdSchema,
  wholeMs,
} from "./config_schema.ts";

/** The first issue's message when `schema` refuses `value`. */
function refusal(
  schema: { safeParse(v: unknown): { success: boolean; error?: unknown } },
  value: unknown,
): string {
  const r = schema.safeParse(value);
  assert.equal(r.success, false, `accepted ${JSON.stringify(value)}`);
  return (r.error as { issues: { message: string }[] }).issues[0].message;
}

Deno.test("wholeMs takes whole milliseconds and names the setting when refusing", () => {
  const s = wholeMs("the wait");
  assert.equal(s.parse(250), 250);
  assert.equal(refusal(s, 1.5), "the wait: a whole number of milliseconds");
  assert.equal(refusal(s, "250"), "the wait: a number of milliseconds");
});

Deno.test("concurrency is 1 to 256 whole transfers", () => {
  assert.equal(concurrencySchema.parse(1), 1);
  assert.equal(concurrencySchema.parse(256), 256);
  assert.equal(refusal(concurrencySchema, 0), "at least 1 parallel transfer");
  assert.equal(refusal(concurrencySchema, 257), "at most 256 parallel transfers");
  assert.equal(refusal(concurrencySchema, 2.5), "a whole number of parallel transfers");
});

Deno.test("conditionalWrites is auto, required or off", () => {
  for (const v of ["auto", "required", "off"]) assert.equal(conditionalWritesSchema.parse(v), v);
  assert.equal(refusal(conditionalWritesSchema, "on"), 'one of "auto", "required", "off"');
});

Deno.test("a classifier rule needs a pattern and one of the path classes, and nothing else", () => {
  assert.deepEqual(classifierRuleSchema.parse({ pattern: "x/**", class: "other" }), {
    pattern: "x/**",
    class: "other",
  });
  assert.match(
    refusal(classifierRuleSchema, { pattern: "x", class: "nope" }),
    /one of "data-version"/,
  );
  assert.equal(
    refusal(classifierRuleSchema, { pattern: "", class: "other" }),
    "a non-empty path pattern",
  );
  assert.equal(
    refusal(classifierRuleSchema, { pattern: "x", class: "other", extra: 1 }),
    'no such setting (unknown key "extra"); check the spelling',
  );
  assert.equal(refusal(classifierRuleSchema, "x/**"), "a {pattern, class} rule");
  assert.equal(new Set(PATH_CLASSES).size, 7);
});

Deno.test("retry settings are optional, bounded and strict", () => {
  assert.deepEqual(retryConfigSchema.parse({}), {});
  assert.deepEqual(retryConfigSchema.parse({ retries: 0, minTimeoutMs: 0, maxTimeoutMs: 10 }), {
    retries: 0,
    minTimeoutMs: 0,
    maxTimeoutMs: 10,
  });
  assert.equal(refusal(retryConfigSchema, { retries: 21 }), "at most 20 retries");
  assert.equal(refusal(retryConfigSchema, { minTimeoutMs: -1 }), "a backoff of 0 ms or more");
  // A mistyped key is named as such (swamp shows this message), not as a wrong type.
  assert.equal(
    refusal(retryConfigSchema, { retires: 1 }),
    'no such setting (unknown key "retires"; did you mean "retries"?)',
  );
  assert.equal(refusal(retryConfigSchema, 3), "an object {retries, minTimeoutMs, maxTimeoutMs}");
});

Deno.test("probe expiry and stream threshold are whole and not negative", () => {
  assert.equal(probeTtlSchema.parse(0), 0);
  assert.equal(refusal(probeTtlSchema, -1), "0 ms or more");
  assert.equal(streamThresholdSchema.parse(8 * 1024 * 1024), 8 * 1024 * 1024);
  assert.equal(refusal(streamThresholdSchema, 1.5), "a whole number of bytes");
  assert.equal(refusal(streamThresholdSchema, -1), "0 or more bytes");
});

Deno.test("the first push's early index threshold is a whole number of files, 0 or more", () => {
  assert.equal(firstIndexAtUploadsSchema.parse(0), 0);
  assert.equal(firstIndexAtUploadsSchema.parse(200), 200);
  assert.equal(refusal(firstIndexAtUploadsSchema, 2.5), "a whole number of files");
  assert.equal(refusal(firstIndexAtUploadsSchema, -1), "0 or more files");
  assert.equal(refusal(firstIndexAtUploadsSchema, "200"), "a number of files");
});
