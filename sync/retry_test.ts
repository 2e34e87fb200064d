import assert from "node:assert/strict";
import { withRetry } from "./retry.ts";
import { NotFoundError, UnreachableError } from "./errors.ts";

const quick = { retries: 2, minTimeoutMs: 0, maxTimeoutMs: 0 };

Deno.test("a first success makes one call", async () => {
  let calls = 0;
  assert.equal(await withRetry(() => Promise.resolve(++calls), quick), 1);
  assert.equal(calls, 1);
});

Deno.test("transient errors are retried up to the policy, reporting each retry", async () => {
  const attempts: number[] = [];
  const retried: number[] = [];
  const v = await withRetry(
    (attempt) => {
      attempts.push(attempt);
      return attempt < 3 ? Promise.reject(new UnreachableError("flaky")) : Promise.resolve("ok");
    },
    quick,
    undefined,
    (_e, n) => retried.push(n),
  );
  assert.equal(v, "ok");
  assert.deepEqual(attempts, [1, 2, 3]);
  assert.deepEqual(retried, [1, 2]);
});

Deno.test("retries run out and the last transient error is thrown", async () => {
  let calls = 0;
  await assert.rejects(
    withRetry(() => {
      calls++;
      return Promise.reject(new UnreachableError("down"));
    }, quick),
    UnreachableError,
  );
  assert.equal(calls, 3);
});

Deno.test("decisions are never retried", async () => {
  let calls = 0;
  await assert.rejects(
    withRetry(() => {
      calls++;
      return Promise.reject(new NotFoundError("k"));
    }, quick),
    NotFoundError,
  );
  assert.equal(calls, 1);
});

Deno.test("a transport TypeError becomes UnreachableError", async () => {
  await assert.rejects(
    withRetry(() => Promise.reject(new TypeError("fetch failed")), { ...quick, retries: 0 }),
    UnreachableError,
  );
});
