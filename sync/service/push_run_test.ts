import assert from "node:assert/strict";
import { createSyncService, type SluicePlugin } from "./service.ts";
import { FakeClock, InMemoryStore, writeAndMark } from "../../packages/testing/mod.ts";

Deno.test("a push gate that returns without calling next() leaves the plan's paths out, kept dirty and named in the result, instead of a success that did nothing", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const holdAll: SluicePlugin = {
    name: "hold-all-plugin",
    setup({ push }) {
      push.add({ name: "hold-all", phase: "guard", middleware: async () => {} });
    },
  };
  const svc = await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-stop-" }),
    store,
    clock,
    plugins: [holdAll],
  });
  await writeAndMark(svc, "logs/a.log", "a");
  const r = await svc.pushChanged();
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(store.keys(), []);
  assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [["logs/a.log", true]]);
  assert.match(r.skipped[0].reason, /"hold-all"/);
  assert.deepEqual([...svc.state.snapshot().paths.keys()], ["logs/a.log"]);
});
