import assert from "node:assert/strict";
import { namedDir } from "./marker_listed.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const MARKER = "data/aws/ec2/m1/state/latest";

Deno.test("namedDir: a marker's bytes naming a version number give that version's directory beside it", () => {
  assert.equal(namedDir(MARKER, enc("3")), "data/aws/ec2/m1/state/3");
  assert.equal(namedDir(MARKER, enc("12\n")), "data/aws/ec2/m1/state/12", "a newline is trimmed");
});

Deno.test("namedDir: bytes that name no version number, a streamed body or a long one give none", () => {
  assert.equal(namedDir(MARKER, enc("v3")), undefined);
  assert.equal(namedDir(MARKER, enc("")), undefined);
  assert.equal(namedDir(MARKER, enc("1".repeat(65))), undefined, "longer than 64 bytes");
  assert.equal(namedDir(MARKER, undefined as never), undefined, "not bytes");
});
