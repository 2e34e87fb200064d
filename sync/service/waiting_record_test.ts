/**
 * A push left a path dirty, waiting on another writer's upload no index
 * names: `status` (a dry run, which reads no object) says so from the
 * record the push kept, and counts it as left behind, until a push handles
 * the path otherwise.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { bothSynced, put } from "./clone_kit.ts";
import { PutModes } from "../ports.ts";
import { WRITER_METADATA } from "../transfer/writer_id.ts";
import { UNCOMMITTED_HOLDS } from "./push_result.ts";
import { readWaiting } from "./waiting_record.ts";

const PATH = "notes/w.txt";

/** `b` waited on `a`'s upload of PATH, landed and not committed (a stopped before its index update). */
async function waitedOnA() {
  const store = new InMemoryStore();
  const { a, b } = await bothSynced(store, PATH, "base", "a's edit");
  const synced = (await store.head(PATH))!.version;
  await store.put(PATH, new TextEncoder().encode("a's edit"), PutModes.update(synced), {
    metadata: { [WRITER_METADATA]: "a-writer" },
  });
  await put(b, PATH, "b's edit");
  const pushed = await b.pushChanged();
  assert.deepEqual(pushed.skipped.map((s) => [s.path, s.reason]), [[PATH, UNCOMMITTED_HOLDS]]);
  return { a, b };
}

Deno.test("status says a push now waits where the last push waited on another writer's upload, and counts it as left behind", async () => {
  const { a, b } = await waitedOnA();
  const report = await b.statusReport();
  const entry = report.entries.find((e) => e.path === PATH);
  assert.match(entry?.reason ?? "", /^the last push waited here: another writer's uncommitted/);
  assert.deepEqual(report.leftBehind.left.map((l) => l.path), [PATH], "not an all-clear");
  // a comes back and commits: b's next push meets it as a conflict, and the record goes.
  await put(a, PATH, "a's edit");
  await a.pushChanged();
  assert.deepEqual((await b.pushChanged()).conflicts, [PATH]);
  assert.deepEqual(await readWaiting(b.cache), {});
  const after = await b.statusReport();
  assert.deepEqual(after.leftBehind.left, []);
});

Deno.test("a wait a pull settled (theirs taken, or a conflict) is not said again by status once the path is edited anew", async () => {
  const { a, b } = await waitedOnA();
  await put(a, PATH, "a's edit");
  await a.pushChanged();
  assert.deepEqual((await b.pullChanged()).conflicts, [PATH]);
  assert.equal((await b.resolveConflict(PATH, "theirs")).resolved, true);
  await put(b, PATH, "b's new edit on top of a's");
  const report = await b.statusReport();
  assert.deepEqual(report.leftBehind.left, [], "nothing waits");
  assert.deepEqual((await b.pushChanged()).uploaded, [PATH]);
});
