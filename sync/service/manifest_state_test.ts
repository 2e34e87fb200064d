import assert from "node:assert/strict";
import { newManifestState } from "./manifest_state.ts";

Deno.test("manifest state: files not read yet hold no base, no line, nothing to rewrite, nothing of their own", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-manifest-" });
  const beforeBase = () => {};
  const s = newManifestState(dir, { beforeBase });
  assert.equal(s.dir, dir);
  assert.equal(s.gen, -1);
  assert.equal(s.baseStamp, undefined);
  assert.equal(s.hasBase, false);
  assert.equal(s.logLines, 0);
  assert.equal(s.rewrite, false);
  assert.equal(s.emptyBase, false);
  assert.equal(s.readThrough, undefined);
  assert.equal(s.lateUnsaved.size, 0);
  assert.equal(s.ahead.unsynced, false);
  assert.equal(s.hooks.beforeBase, beforeBase);
});
