import assert from "node:assert/strict";
import { InMemoryStore, mockPushContext, planEntry } from "../packages/testing/mod.ts";
import { PutModes } from "../sync/ports.ts";
import { WRITER_METADATA } from "../sync/transfer/writer_id.ts";
import { VERSION_WAITS } from "../sync/service/push_result.ts";
import { versionWaits, waitVersion } from "./waiting_version.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const DIR = "data/t/m/out/2";

Deno.test("a waiting version is held back once per push: its files and the marker naming it skipped and kept dirty, this cache's own sibling upload taken back, said once", async () => {
  const store = new InMemoryStore();
  const plan = [
    planEntry(`${DIR}/raw`),
    planEntry(`${DIR}/metadata.yaml`),
    planEntry("data/t/m/out/latest"),
    planEntry("notes/other.md"),
  ];
  const m = await mockPushContext({ store, plan });
  await m.cache.write(`${DIR}/raw`, bytes("raw"));
  await m.cache.write(`${DIR}/metadata.yaml`, bytes("meta"));
  await m.cache.write("data/t/m/out/latest", bytes("2"));
  // This cache's own upload of the sibling, named by no index.
  await store.put(`${DIR}/metadata.yaml`, bytes("meta"), PutModes.overwrite, {
    metadata: { [WRITER_METADATA]: "me" },
  });
  assert.equal(versionWaits(m.ctx, DIR), undefined);
  const first = waitVersion(m.ctx, DIR, `${DIR}/raw`, "v9", "me");
  assert.equal(waitVersion(m.ctx, DIR, `${DIR}/metadata.yaml`, "v9", "me"), first, "once");
  assert.equal(versionWaits(m.ctx, DIR), first);
  await first;
  assert.equal(store.peekText(`${DIR}/metadata.yaml`), undefined, "own upload taken back");
  for (const e of plan.slice(0, 3)) {
    assert.deepEqual([e.action, e.keepDirty], ["skip", true], e.path);
    assert.ok(e.reason?.startsWith(VERSION_WAITS), e.path);
  }
  assert.equal(plan[3].action, "put", "another path is left alone");
  assert.ok(m.ctx.withdrawn.has(`${DIR}/raw`) && m.ctx.withdrawn.has(`${DIR}/metadata.yaml`));
  assert.deepEqual(m.warnings.map((w) => w.code), ["push_waiting_uncommitted"]);
});
