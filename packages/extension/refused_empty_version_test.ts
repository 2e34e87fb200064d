/**
 * The tool's save makes a data version's directory before it writes any
 * file there. A push refused for the run's lost lock while that directory
 * stands empty (a structural command's push of the same process, naming no
 * model) erases the run's versions and refreshes its model from the
 * datastore, where another writer published the same version meanwhile.
 * The refresh must not put that writer's copy into the directory the save
 * is about to write into: the save would write over it, the refresh's copy
 * would count as not this run's, and the run's own refused flush would
 * leave its bytes in the cache at a version another writer published.
 */
import assert from "node:assert/strict";
import { SluiceError } from "../../sync/errors.ts";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { writeAsTool } from "./checkout_kit.ts";
import { outDir, toolProcess } from "./tool_process_kit.ts";

const refused = (e: unknown) => e instanceof SluiceError && e.code === "model_lock_lost";

for (const twoPhase of [true, false]) {
  Deno.test(
    `refused empty version: a structural push refused while a run's save has made its version directory and written nothing leaves the run's ${
      twoPhase ? "two-phase" : "single-phase"
    } refused flush nothing of its version in the cache`,
    async () => {
      const store = new InMemoryStore();
      const a = await toolProcess(store, createSluice, "a");
      const lock = await a.start("m1");
      // m1's save has begun: the data name's directory marked, the version's made, empty.
      await a.svc.markDirty({ relPath: outDir("m1") });
      await Deno.mkdir(`${a.cache}/${outDir("m1")}/1`, { recursive: true });
      // An operator breaks the lock; another checkout's run publishes version 1.
      await a.breakLock("m1");
      const b = await toolProcess(store, createSluice, "b");
      const lockB = await b.start("m1");
      assert.equal(await b.method("m1", "from b"), 1);
      await b.flush("m1", lockB);
      assert.equal(store.peekText(`${outDir("m1")}/1/raw`), "from b");
      // A structural command of a's process: its push finds m1's lock lost and is refused.
      await assert.rejects(a.structural("workflow-runs/w/run.yaml", "w", { pull: true }), refused);
      // m1's save goes on in the directory it made, then its flush is refused.
      await writeAsTool(a.cache, `${outDir("m1")}/1/raw`, "from a");
      await writeAsTool(a.cache, `${outDir("m1")}/latest`, "1");
      await assert.rejects(a.flush("m1", lock, { twoPhase }), refused);
      assert.notEqual(
        await a.read(`${outDir("m1")}/1/raw`),
        "from a",
        "a refused run's raw is left in no cache",
      );
      // The next sync of the cache takes the datastore's version, with nothing set aside.
      await a.structural("workflow-runs/w/run2.yaml", "w2", { pull: true });
      assert.equal(await a.read(`${outDir("m1")}/1/raw`), "from b");
      assert.equal(store.peekText(`${outDir("m1")}/1/raw`), "from b");
      assert.equal(a.warnings.filter((w) => w.code === "version_exists").length, 0);
    },
  );
}
