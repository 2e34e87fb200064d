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

Deno.test("a cancelled push says that its uploads of edits leave those files unreadable to peers until it runs again", () => {
  const ac = new AbortController();
  ac.abort();
  const e = pushError(new SluiceError("push_failed", "summary"), ac.signal);
  assert.equal(e.code, "aborted");
  assert.match(
    e.message,
    /leaves that file unreadable to their pulls, skipped as not committed, until this push runs again/,
  );
  assert.match(e.message, /Run `sluice push` again to finish\./);
});
