import assert from "node:assert/strict";
import {
  LockfileRemoteMalformedError,
  LockReadError,
  LockTimeoutError,
  ModelLockLostError,
} from "./lock_errors.ts";
import { isRetryable, SluiceError } from "./errors.ts";

Deno.test("a lock timeout names the key and the holder, and is worth trying again later", () => {
  const e = new LockTimeoutError("data/t/m/.lock", 60_000, "bob@host");
  assert.ok(e instanceof SluiceError);
  assert.equal(e.code, "lock_timeout");
  assert.equal(e.exitCode, 75);
  assert.equal(e.key, "data/t/m/.lock");
  assert.match(e.message, /60000 ms waiting for lock data\/t\/m\/\.lock, held by bob@host/);
  assert.ok(isRetryable(e));
});

Deno.test("a failed lock read says the state is unknown, never released", () => {
  const e = new LockReadError("k.lock", "connection reset");
  assert.equal(e.code, "lock_read_failed");
  assert.match(e.message, /treated as neither held nor released/);
  assert.ok(isRetryable(e));
});

Deno.test("a lost model lock names each lock and its new holder, and what was discarded", () => {
  const e = new ModelLockLostError([
    { key: "data/t/a/.lock", newHolder: "bob@host" },
    { key: "data/t/b/.lock", newHolder: null },
  ]);
  assert.equal(e.code, "model_lock_lost");
  assert.equal(e.exitCode, 1);
  assert.match(
    e.message,
    /data\/t\/a\/\.lock \(now held by bob@host\), data\/t\/b\/\.lock \(now released\)/,
  );
  assert.match(e.message, /Nothing was pushed/);
  assert.deepEqual(e.discarded, []);
});

Deno.test("a malformed remote lockfile is previewed, kept, and sent to repair", () => {
  const body = new TextEncoder().encode("[1,\n 2]");
  const e = new LockfileRemoteMalformedError("config/x.json", "v7", "an array", body, "set @a/b");
  assert.equal(e.code, "lockfile_remote_malformed");
  assert.equal(e.exitCode, 65);
  assert.equal(e.preview, "[1, 2]");
  assert.match(e.message, /sluice lockfile repair --dry-run/);
  assert.ok(!isRetryable(e));
});

Deno.test("a lock timeout names the command that breaks that very lock (--model for a model lock)", () => {
  assert.match(
    new LockTimeoutError("data/t/m1/.lock", 10).message,
    /`sluice lock release --force --model t\/m1`/,
  );
  assert.match(
    new LockTimeoutError(".datastore.lock", 10).message,
    /`sluice lock release --force`\./,
  );
});
