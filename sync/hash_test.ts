import assert from "node:assert/strict";
import { randomId, sha256Hex, sha256HexSync } from "./hash.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("sha256Hex and sha256HexSync give the lower-case hex digest of the bytes", async () => {
  const empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  const abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  assert.equal(await sha256Hex(new Uint8Array()), empty);
  assert.equal(sha256HexSync(new Uint8Array()), empty);
  assert.equal(await sha256Hex(enc("abc")), abc);
  assert.equal(sha256HexSync(enc("abc")), abc);
});

Deno.test("sha256Hex hashes only the view it is given, not its whole buffer", async () => {
  const buf = enc("xxabcxx");
  assert.equal(await sha256Hex(buf.subarray(2, 5)), sha256HexSync(enc("abc")));
});

Deno.test("randomId is hex of the requested number of bytes, and differs between calls", () => {
  assert.match(randomId(), /^[0-9a-f]{32}$/);
  assert.match(randomId(8), /^[0-9a-f]{16}$/);
  assert.equal(randomId(0), "");
  const seen = new Set(Array.from({ length: 50 }, () => randomId(8)));
  assert.equal(seen.size, 50);
});

Deno.test("randomId hands out each drawn byte once, across refills and sizes larger than its pool", () => {
  // 3 000 ids of 16 bytes span several refills of the 4 KiB pool.
  const ids = Array.from({ length: 3_000 }, (_, i) => randomId(i % 3 === 0 ? 16 : 8 + (i % 9)));
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^[0-9a-f]+$/);
  assert.match(randomId(5_000), /^[0-9a-f]{10000}$/);
  assert.notEqual(randomId(5_000), randomId(5_000));
});
