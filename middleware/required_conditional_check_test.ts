import assert from "node:assert/strict";
import {
  FakeClock,
  InMemoryStore,
  mockPushContext,
  planEntry,
  spyNext,
  writeAndMark,
} from "../packages/testing/mod.ts";
import { ConditionalWrites, PROBE_PREFIX } from "../sync/transfer/conditional.ts";
import { ConditionalWritesUnsupportedError } from "../sync/errors.ts";
import { INDEX_KEY } from "../sync/transfer/remote_index.ts";
import { createSluice } from "../sluice.ts";
import { requiredConditionalCheck } from "./required_conditional_check.ts";

const RAW = "data/t/m/d/1/raw";
const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

Deno.test("the gate refuses an ignoring endpoint under required before the rest of the push runs", async () => {
  const m = await mockPushContext({
    plan: [planEntry(RAW), planEntry("notes/a.txt")],
    config: { conditionalWrites: "required" },
  });
  (m.store as InMemoryStore).conditionalMode = "ignore";
  const next = spyNext();
  const gate = requiredConditionalCheck({ registry: new ConditionalWrites() });
  await assert.rejects(gate(m.ctx, next), ConditionalWritesUnsupportedError);
  assert.equal(next.calls, 0);
});

Deno.test("the gate does nothing under auto, on an honouring endpoint, or with nothing to write", async () => {
  for (
    const [setting, mode, plan] of [
      ["auto", "ignore", [planEntry(RAW)]],
      ["required", "honour", [planEntry(RAW)]],
      ["required", "ignore", [planEntry(RAW, { action: "skip" })]],
    ] as const
  ) {
    const m = await mockPushContext({ plan: [...plan], config: { conditionalWrites: setting } });
    (m.store as InMemoryStore).conditionalMode = mode;
    const next = spyNext();
    await requiredConditionalCheck({ registry: new ConditionalWrites() })(m.ctx, next);
    assert.equal(next.calls, 1, `${setting}/${mode}`);
  }
});

for (const mode of ["ignore", "refuse"] as const) {
  Deno.test(`${mode}: a required push of a data version and an ordinary file writes nothing at all`, async () => {
    const store = new InMemoryStore();
    store.conditionalMode = mode;
    const svc = await createSluice({
      cacheDir: await Deno.makeTempDir({ prefix: "sluice-required-" }),
      store,
      clock: new FakeClock(),
      identity: { holder: "a@host", hostname: "host", pid: 1 },
      config: { ...quick, conditionalWrites: "required" },
      conditional: new ConditionalWrites(),
    });
    await writeAndMark(svc, RAW, "v1");
    await writeAndMark(svc, "notes/a.txt", "hello");
    const err = await svc.pushChanged().catch((e) => e);
    assert.ok(err instanceof ConditionalWritesUnsupportedError, String(err));
    assert.deepEqual(store.keys().filter((k) => !k.startsWith(PROBE_PREFIX)), []);
    assert.equal(store.peek(INDEX_KEY), undefined);
    assert.deepEqual(svc.state.dirtyPaths(), ["data/t/m/d/1/raw", "notes/a.txt"]);
  });
}
