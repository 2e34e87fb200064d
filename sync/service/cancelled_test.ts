import assert from "node:assert/strict";
import { AbortedError, SluiceError } from "../errors.ts";
import { cancelled, pushError } from "./cancelled.ts";

Deno.test("a failure once the signal was aborted becomes aborted, saying what was kept; a Sluice error of its own stands", () => {
  const ac = new AbortController();
  const e = new SluiceError("push_failed", "summary");
  assert.equal(cancelled(e, ac.signal, "The pull", "kept"), e, "not aborted: as it was");
  ac.abort();
  assert.ok(cancelled(e, ac.signal, "The pull", "kept") instanceof AbortedError);
  const refusal = new SluiceError("version_exists", "theirs");
  assert.equal(cancelled(refusal, ac.signal, "The pull", "kept"), refusal);
});

Deno.test("a push failure that is no Sluice error becomes push_failed, saying the files stay dirty", () => {
  const e = pushError(new Error("boom"), undefined);
  assert.equal(e.code, "push_failed");
  assert.match(e.message, /boom.*stay dirty/);
});
