/**
 * The tool's save of a data version marks the data name's directory dirty,
 * creates it (and the version directory), then writes the files. A flush of
 * another run of the same process (a workflow's parallel step) whose push
 * plans in between holds that model's directory back, for that run's own
 * flush: it must leave the directory's mark as it is. Cleaning it, as a
 * marked directory with nothing left to push under it, would leave the
 * files written next unmarked, and the run's own flush would acknowledge
 * the run with nothing of its version published.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { writeAsTool } from "./checkout_kit.ts";
import { outDir, toolModel, toolProcess } from "./tool_process_kit.ts";

for (const made of ["the data name's directory", "the version directory"]) {
  for (const twoPhase of [true, false]) {
    Deno.test(
      `held-back marked directory: ${made} made, empty, as another step's ${
        twoPhase ? "two-phase" : "single-phase"
      } flush plans; the step's flush then publishes its version`,
      async () => {
        const store = new InMemoryStore();
        const p = await toolProcess(store, createSluice, "a");
        const lock1 = await p.start("m1");
        const lock3 = await p.start("m3");
        await p.method("m3");
        // m1's save has begun: the directory marked and made, no file written yet.
        await p.svc.markDirty({ relPath: outDir("m1") });
        await Deno.mkdir(`${p.cache}/${outDir("m1")}`, { recursive: true });
        if (made === "the version directory") await Deno.mkdir(`${p.cache}/${outDir("m1")}/1`);
        // m3's flush, naming m3, plans now: m1's directory is held back from it.
        if (twoPhase) {
          const manifest = await p.svc.preparePush!({ context: { models: [toolModel("m3")] } });
          await p.underGlobal(() => p.svc.commitPush!(manifest, {}));
          await lock3.release();
        } else await p.flush("m3", lock3);
        // m1's save goes on, then its flush.
        await writeAsTool(p.cache, `${outDir("m1")}/1/raw`, "from m1");
        await writeAsTool(p.cache, `${outDir("m1")}/latest`, "1");
        await p.flush("m1", lock1, { twoPhase });
        assert.equal(store.peekText("data/shell/cmd/m3/out/1/raw"), "from m3");
        assert.equal(
          store.peekText("data/shell/cmd/m1/out/1/raw"),
          "from m1",
          "m1's version, its flush acknowledged, must be published",
        );
        const peer = await toolProcess(store, createSluice, "b");
        await peer.structural("notes/b.txt", "b", { pull: true });
        assert.equal(await peer.read("data/shell/cmd/m1/out/1/raw"), "from m1");
        assert.equal(await peer.read("data/shell/cmd/m1/out/latest"), "1");
        assert.equal(await peer.read("data/shell/cmd/m3/out/1/raw"), "from m3");
      },
    );
  }
}
