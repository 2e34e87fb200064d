/**
 * Two processes over one cache: a walk push of one never publishes files
 * the other marked and has not pushed while it still runs (its run may yet
 * be refused, its lock lost, and a published version could not be taken
 * back). The other's own push publishes them.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { MARKED_ELSEWHERE_REASON } from "./push_plan.ts";
import { processOver } from "./clone_kit.ts";

const V = "data/t/m/out/1";

Deno.test("a walk push leaves out what another running process over the cache marked; that process's push publishes it", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-two-" });
  const open = (pid: number) => processOver(store, cacheDir, pid);
  const main = await open(1);
  const other = await open(2);
  // The other process marks its version's directory, then writes it.
  await other.markDirty({ relPath: V });
  await Deno.mkdir(`${cacheDir}/${V}`, { recursive: true });
  await Deno.writeTextFile(`${cacheDir}/${V}/raw`, "other's run\n");
  await Deno.writeTextFile(`${cacheDir}/${V}/metadata.yaml`, "version: 1\n");
  // The main process walks the whole cache.
  await Deno.writeTextFile(`${cacheDir}/notes.txt`, "main's own\n");
  await main.markDirty();
  const walked = await main.pushChanged();
  assert.deepEqual(walked.uploaded, ["notes.txt"]);
  assert.equal(store.peekText(`${V}/raw`), undefined, "not published by the walk");
  assert.ok(
    walked.skipped.some((s) => s.path === `${V}/raw` && s.reason === MARKED_ELSEWHERE_REASON),
    JSON.stringify(walked.skipped),
  );
  // The other process's push publishes it.
  const pushed = await other.pushChanged();
  assert.deepEqual(pushed.uploaded.sort(), [`${V}/metadata.yaml`, `${V}/raw`]);
});
