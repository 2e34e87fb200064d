import assert from "node:assert/strict";
import { processIdentity, systemClock } from "./clock.ts";
import { AbortedError } from "./errors.ts";

Deno.test("systemClock.now is the wall clock in ms", () => {
  const before = Date.now();
  const now = systemClock.now();
  assert.ok(now >= before && now <= Date.now());
});

Deno.test("systemClock.sleep with an aborted signal rejects at once with AbortedError", async () => {
  const c = new AbortController();
  c.abort();
  await assert.rejects(systemClock.sleep(60_000, c.signal), AbortedError);
});

Deno.test("systemClock.sleep rejects with AbortedError when its signal aborts, and leaves no timer", async () => {
  const c = new AbortController();
  const slept = systemClock.sleep(60_000, c.signal);
  c.abort();
  // The test sanitizer fails the test if the 60 s timer were left behind.
  await assert.rejects(slept, AbortedError);
});

Deno.test("systemClock.sleep(0) resolves; a cleared timer never fires", async () => {
  await systemClock.sleep(0);
  let fired = false;
  const h = systemClock.setTimeout(() => fired = true, 0);
  systemClock.clearTimeout(h);
  await systemClock.sleep(0);
  assert.equal(fired, false);
});

Deno.test("processIdentity names user@host, the host and this process", () => {
  const id = processIdentity();
  assert.equal(id.pid, Deno.pid);
  assert.ok(id.hostname.length > 0);
  assert.equal(id.holder, `${id.holder.split("@")[0]}@${id.hostname}`);
});
