import assert from "node:assert/strict";
import { ConfigError } from "../sync/errors.ts";
import { classifyLockKey, lockKeyFor, parseModel } from "./locks.ts";

Deno.test("classifyLockKey finds model and global lock keys", () => {
  assert.deepEqual(classifyLockKey(".datastore.lock"), { scope: "global" });
  assert.deepEqual(classifyLockKey(".locks/prod.lock"), { scope: "global", namespace: "prod" });
  assert.deepEqual(classifyLockKey("data/aws/ec2/web-1/.lock"), {
    scope: "model",
    model: "aws/ec2/web-1",
  });
  assert.deepEqual(classifyLockKey("prod/data/shell/m1/.lock", "prod"), {
    scope: "model",
    model: "shell/m1",
    namespace: "prod",
  });
  assert.equal(classifyLockKey("data/m1/.lock"), null, "a model needs a type and an id");
  assert.equal(classifyLockKey("data/aws/ec2/web-1/state/1/raw"), null);
  assert.equal(classifyLockKey(".datastore.lock", "prod"), null);
  assert.equal(classifyLockKey(".locks/dev.lock", "prod"), null);
});

Deno.test("parseModel and lockKeyFor", () => {
  assert.equal(parseModel("/aws/ec2/web-1/"), "aws/ec2/web-1");
  assert.equal(lockKeyFor("aws/ec2/web-1", ""), "data/aws/ec2/web-1/.lock");
  assert.equal(lockKeyFor("aws/ec2/web-1", "prod"), "prod/data/aws/ec2/web-1/.lock");
  assert.equal(lockKeyFor(undefined, ""), ".datastore.lock");
  assert.equal(lockKeyFor(undefined, "prod"), ".locks/prod.lock");
  for (const bad of ["web-1", "aws/../x", "aws//x", "aws/.lock"]) {
    assert.throws(() => parseModel(bad), ConfigError, bad);
  }
});
