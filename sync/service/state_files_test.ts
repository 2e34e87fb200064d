import assert from "node:assert/strict";
import { SluiceError } from "../errors.ts";
import { writingState } from "./state_files.ts";

async function failure(e: unknown): Promise<unknown> {
  try {
    await writingState("/c/.sluice", "dirty.log", () => Promise.reject(e));
  } catch (thrown) {
    return thrown;
  }
  throw new Error("writingState passed a failed write");
}

Deno.test("writingState: a state file write that finds the disk full is cache_unwritable, telling to free space, not internal", async () => {
  const thrown = await failure(
    Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" }),
  );
  assert.ok(thrown instanceof SluiceError);
  assert.equal(thrown.code, "cache_unwritable");
  assert.equal(thrown.exitCode, 73);
  assert.match(thrown.message, /Could not write the sync state file \/c\/\.sluice\/dirty\.log/);
  assert.match(thrown.message, /no space is left/);
  assert.match(thrown.message, /[Ff]ree space on the disk/);
  assert.match(thrown.message, /No file in the cache was lost/);
  assert.doesNotMatch(thrown.message, /writable regular file/);
});

Deno.test("writingState: a refused write is cache_unwritable and says what to make writable; another failure stays internal", async () => {
  const refused = await failure(new Deno.errors.PermissionDenied("EACCES"));
  assert.ok(refused instanceof SluiceError);
  assert.equal(refused.code, "cache_unwritable");
  assert.match(refused.message, /writable regular file/);
  const other = await failure(new Error("something else"));
  assert.ok(other instanceof SluiceError);
  assert.equal(other.code, "internal");
});
