import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { openWatched, pushThreeDamageMiddle } from "./damaged_log_kit.ts";

Deno.test("damaged log kit: three pushes, the middle record's log line garbage on disk, and a fresh open told of it", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-damaged-kit-" });
  const other = await openWatched(store, cacheDir, "other", 2);
  const at = await pushThreeDamageMiddle(other.service, cacheDir);
  const lines = (await Deno.readTextFile(`${cacheDir}/.sluice/manifest.log`)).split("\n");
  assert.equal(lines[at], "#%garbage");
  assert.deepEqual(store.keys().filter((k) => k.endsWith(".txt")).sort(), [
    "o.txt",
    "p.txt",
    "q.txt",
  ]);
  const fresh = await openWatched(store, cacheDir, "fresh", 3);
  assert.equal(fresh.service.state.synced("p.txt"), undefined);
  assert.ok(fresh.service.state.synced("q.txt"));
});
