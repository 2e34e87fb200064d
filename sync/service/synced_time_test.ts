import assert from "node:assert/strict";
import { checkedToken, racyWindowMs, settledAt, settledMtime, UNCHECKED } from "./synced_time.ts";

Deno.test("an mtime is kept once older than its filesystem's tick (2 s where timestamps are even seconds)", () => {
  assert.equal(racyWindowMs(1_001), 1_000);
  assert.equal(racyWindowMs(4_000), 2_000);
  assert.equal(settledAt(10_000, 11_999), undefined);
  assert.equal(settledAt(10_000, 12_000), 10_000);
  assert.equal(settledAt(10_500, 10_000), undefined, "an mtime in the future");
  assert.equal(settledAt(undefined, 10_000), undefined);
  const fresh = { hash: "h", version: "v", size: 1, mtimeMs: Date.now() };
  assert.equal(settledMtime(fresh).mtimeMs, undefined);
  const old = { ...fresh, mtimeMs: Date.now() - 60_000 };
  assert.equal(settledMtime(old).mtimeMs, old.mtimeMs);
});

Deno.test("a token taken from this cache's own commit is marked, and read without its mark", () => {
  assert.equal(checkedToken(`t1${UNCHECKED}`), "t1");
  assert.equal(checkedToken("t1"), "t1");
  assert.equal(checkedToken(undefined), undefined);
});
