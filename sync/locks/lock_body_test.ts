import assert from "node:assert/strict";
import { LockReadError } from "../lock_errors.ts";
import {
  decodeLockInfo,
  describeHolder,
  encodeLockInfo,
  parseLockBody,
  unreadableProblem,
} from "./lock_body.ts";
import { describeLockObject } from "./lock_object.ts";
import type { LockInfo } from "../ports.ts";

const INFO: LockInfo = {
  holder: "alice@host-a",
  hostname: "host-a",
  pid: 7,
  acquiredAt: "2026-01-01T00:00:00.000Z",
  ttlMs: 30_000,
  nonce: "abc",
};

Deno.test("a lock body round-trips and keeps only the six lock fields", () => {
  const bytes = encodeLockInfo({ ...INFO, extra: 1 } as LockInfo);
  assert.deepEqual(Object.keys(JSON.parse(new TextDecoder().decode(bytes))).sort(), [
    "acquiredAt",
    "holder",
    "hostname",
    "nonce",
    "pid",
    "ttlMs",
  ]);
  assert.deepEqual(decodeLockInfo("k", bytes), INFO);
  assert.equal(describeHolder(INFO), "alice@host-a (pid 7)");
});

Deno.test("malformed bodies are described with a short preview", () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  assert.equal(parseLockBody(enc("nope")), 'malformed lock body "nope" (not JSON)');
  assert.match(
    parseLockBody(enc(JSON.stringify({ ...INFO, ttlMs: 0, nonce: "" }))) as string,
    /missing or invalid nonce, ttlMs\)$/,
  );
  assert.match(parseLockBody(enc("x".repeat(500))) as string, /"x{60}…"/);
  assert.match(parseLockBody(enc("null")) as string, /missing or invalid holder/);
  assert.throws(
    () => decodeLockInfo(".datastore.lock", enc("[]")),
    (e) => e instanceof LockReadError && /lock \.datastore\.lock: malformed/.test(e.message),
  );
});

Deno.test("a lock object whose body is no lock is described by what is wrong with it, with no made-up pid", () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  const current = { key: "k", version: "v1", size: 7, lastModified: 0, body: enc("garbage") };
  const info = describeLockObject(current, 30_000);
  assert.equal(info.pid, 0);
  assert.equal(unreadableProblem(info), 'malformed lock body "garbage": not JSON');
  assert.equal(describeHolder(info), 'an unknown holder (malformed lock body "garbage": not JSON)');
  const partial = describeLockObject({ ...current, body: enc("{}") }, 30_000);
  assert.match(
    describeHolder(partial),
    /^an unknown holder \(malformed lock body "\{\}": missing or invalid holder, [a-zA-Z, ]+\)$/,
  );
  // A lock's holder, even one that reads like that, keeps its pid.
  assert.equal(unreadableProblem(INFO), undefined);
  const odd = { ...INFO, holder: "an unreadable lock: x" };
  assert.equal(describeHolder(odd), "an unreadable lock: x (pid 7)");
});
