/**
 * Write gates' warm-ups (`WriteGateEntry.warm`): started as a push begins,
 * waited for only as it ends, their failures ignored.
 */
import assert from "node:assert/strict";
import { FakeClock, InMemoryStore, waitFor, writeAndMark } from "../../packages/testing/mod.ts";
import {
  PUSH_PHASES,
  type PushContext,
  WRITE_PHASES,
  type WriteContext,
  type WriteGateEntry,
} from "../context.ts";
import { Pipeline } from "../pipeline.ts";
import { createSyncService } from "./service.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

/** A service whose one write gate has `warm`; `log` records the order of things. */
async function withWarmGate(warm: WriteGateEntry["warm"], log: string[], clock = new FakeClock()) {
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  push.add({
    name: "planned",
    phase: "initialize",
    middleware: async (_ctx, next) => {
      log.push("planned");
      await next();
    },
  });
  const write = new Pipeline<WriteContext>(WRITE_PHASES);
  const gate: WriteGateEntry = {
    name: "warmed",
    phase: "conditional",
    middleware: (_ctx, next) => next(),
    warm,
  };
  write.add(gate);
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-warm-" }),
    store: new InMemoryStore(),
    identity: { holder: "a@host", hostname: "host", pid: 1 },
    clock,
    config: quick,
    push,
    write,
  });
}

Deno.test("a write gate's warm-up starts before the plan, and the push ends only once it has ended", async () => {
  const log: string[] = [];
  const clock = new FakeClock();
  let endpoint = "";
  const svc = await withWarmGate(
    async (env) => {
      log.push("warm");
      endpoint = env.store.endpoint;
      // Still running well after the push's own work is done.
      await env.clock.sleep(60_000);
      log.push("warmed");
    },
    log,
    clock,
  );
  await writeAndMark(svc, "notes/a.md", "a");
  let settled: { uploaded: string[]; warmed: boolean } | undefined;
  svc.pushChanged().then((
    r,
  ) => (settled = { uploaded: r.uploaded, warmed: log.includes("warmed") }));
  await waitFor(() => settled !== undefined, { clock, stepMs: 1_000, timeoutMs: 120_000 });
  assert.deepEqual(settled, { uploaded: ["notes/a.md"], warmed: true });
  assert.deepEqual(log, ["warm", "planned", "warmed"]);
  assert.equal(endpoint, svc.store.endpoint);
});

Deno.test("a failed warm-up fails nothing: the push goes on as without it", async () => {
  const log: string[] = [];
  const svc = await withWarmGate(() => Promise.reject(new Error("probe failed")), log);
  await writeAndMark(svc, "notes/a.md", "a");
  const r = await svc.pushChanged();
  assert.deepEqual(r.uploaded, ["notes/a.md"]);
});
