import assert from "node:assert/strict";
import { LockReadError } from "../lock_errors.ts";
import { decodeLockInfo, describeHolder, encodeLockInfo, parseLockBody } from "./lock_body.ts";
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
