import assert from "node:assert/strict";
import { shellWord } from "./shell_word.ts";

Deno.test("shellWord leaves a plain word as it is and single-quotes the rest", () => {
  assert.equal(shellWord("/home/u/.cache"), "/home/u/.cache");
  assert.equal(shellWord("s3://b/p?a=1&b=2"), "'s3://b/p?a=1&b=2'");
  assert.equal(shellWord("it's"), `'it'\\''s'`);
  assert.equal(shellWord("my cache"), "'my cache'");
});
