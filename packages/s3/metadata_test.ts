import assert from "node:assert/strict";
import { UnsafePathError } from "../../sync/errors.ts";
import { checkMetadata, quoteEtag, splitMetadata, WRITE_ID } from "./metadata.ts";

Deno.test("s3 metadata: the write id is split from the caller's metadata", () => {
  assert.deepEqual(splitMetadata({ a: "1", [WRITE_ID]: "w" }), {
    metadata: { a: "1" },
    writeId: "w",
  });
  assert.deepEqual(splitMetadata(undefined), { metadata: {}, writeId: undefined });
});

Deno.test("s3 metadata: the caller may not set the write id, upper-case names or non-ASCII values", () => {
  assert.equal(checkMetadata("k", undefined), undefined);
  assert.deepEqual(checkMetadata("k", { "sluice-sha256": "ab" }), { "sluice-sha256": "ab" });
  assert.throws(() => checkMetadata("k", { [WRITE_ID]: "x" }), UnsafePathError);
  assert.throws(() => checkMetadata("k", { Upper: "x" }), UnsafePathError);
  assert.throws(() => checkMetadata("k", { a: "é" }), UnsafePathError);
});

Deno.test("s3 metadata: an ETag is quoted once for If-Match", () => {
  assert.equal(quoteEtag("abc"), '"abc"');
  assert.equal(quoteEtag('"abc"'), '"abc"');
});
