import assert from "node:assert/strict";
import {
  AbortedError,
  AlreadyExistsError,
  ConfigError,
  type ErrorCode,
  EXIT_CODES,
  hasCode,
  isRetryable,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  preview,
  SluiceError,
  UnreachableError,
  UnsafePathError,
} from "./errors.ts";

Deno.test("a SluiceError takes its exit code from its code unless given one, and names its class", () => {
  const e = new SluiceError("push_failed", "m");
  assert.equal(e.code, "push_failed");
  assert.equal(e.exitCode, EXIT_CODES.push_failed);
  assert.equal(e.retryable, false);
  assert.equal(e.name, "SluiceError");
  assert.equal(new SluiceError("internal", "m", { exitCode: 9 }).exitCode, 9);
  const cause = new Error("root");
  assert.equal(new SluiceError("internal", "m", { cause }).cause, cause);
  assert.equal("cause" in new SluiceError("internal", "m"), false);
});

Deno.test("every error code has an exit code, in the ranges the README documents", () => {
  for (const [code, exit] of Object.entries(EXIT_CODES) as [ErrorCode, number][]) {
    assert.ok(Number.isInteger(exit) && exit >= 1 && exit <= 130, code);
  }
  assert.equal(EXIT_CODES.model_lock_lost, 1);
  assert.equal(EXIT_CODES.sync_incomplete, 2);
  assert.equal(EXIT_CODES.conflicts_left, 3);
  assert.equal(EXIT_CODES.invalid_config, 78);
});

Deno.test("the typed store errors carry their code, key and retryability, and say what was kept", () => {
  const cases: [SluiceError, ErrorCode, boolean, RegExp][] = [
    [new AlreadyExistsError("k", "v1"), "already_exists", false, /existing object was kept/],
    [new PreconditionFailedError("k", "etag 2"), "precondition_failed", false, /\(etag 2\)/],
    [new NotFoundError("k"), "not_found", false, /k does not exist/],
    [new NotImplementedError("k"), "not_implemented", false, /Nothing was written/],
    [new UnreachableError("timeout"), "unreachable", true, /timeout.*stay in the cache/],
    [new AbortedError("The push"), "aborted", true, /The push was cancelled/],
    [new ConfigError("lock.ttlMs", "a number"), "invalid_config", false, /"lock\.ttlMs": a number/],
    [new UnsafePathError("../x", "it escapes"), "unsafe_path", false, /"\.\.\/x": it escapes/],
  ];
  for (const [e, code, retryable, message] of cases) {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, code);
    assert.equal(e.exitCode, EXIT_CODES[code]);
    assert.equal(e.retryable, retryable, code);
    assert.equal(isRetryable(e), retryable, code);
    assert.equal(hasCode(e, code), true);
    assert.match(e.message, message);
    assert.equal(e.name, e.constructor.name);
  }
  assert.equal(new AlreadyExistsError("k", "v1").existingVersion, "v1");
  assert.equal(new ConfigError("bucket", "x").field, "bucket");
});

Deno.test("a config error whose expectation ends in a question mark adds no full stop after it", () => {
  const e = new ConfigError("endpiont", 'no such setting; did you mean "endpoint"?');
  assert.match(e.message, /did you mean "endpoint"\? Nothing was changed/);
  const o = new ConfigError("--model", "a model, or did you mean --global?");
  assert.match(o.message, /--global\? Nothing was changed/);
});

Deno.test("a credentials error says to fix the credentials where they are read, the environment, never the datastore configuration", () => {
  const e = new ConfigError("credentials", "credentials the endpoint accepts");
  assert.match(
    e.message,
    /Nothing was changed; fix the credentials in the environment the command runs in and run the command again\.$/,
  );
  assert.doesNotMatch(e.message, /datastore configuration/);
  // Any other field is the configuration's.
  assert.match(new ConfigError("bucket", "a bucket").message, /fix the datastore configuration/);
});

Deno.test("hasCode and isRetryable are false for anything but a SluiceError", () => {
  const plain = Object.assign(new Error("x"), { code: "unreachable", retryable: true });
  assert.equal(hasCode(plain, "unreachable"), false);
  assert.equal(isRetryable(plain), false);
  assert.equal(hasCode(undefined, "internal"), false);
});

Deno.test("preview flattens whitespace and cuts long text with an ellipsis", () => {
  assert.equal(preview("a\n\tb"), "a b");
  assert.equal(preview("abcdef", 3), "abc…");
  assert.equal(preview("abc", 3), "abc");
});
