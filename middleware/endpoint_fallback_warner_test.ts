import assert from "node:assert/strict";
import {
  type ConditionalMode,
  FakeClock,
  InMemoryStore,
  mockPushContext,
  mockWriteContext,
  planEntry,
  spyNext,
  writeAndMark,
} from "../packages/testing/mod.ts";
import { ConditionalWrites, FALLBACK_WARNING, PROBE_PREFIX } from "../sync/transfer/conditional.ts";
import {
  type ConditionalWritesSetting,
  PUSH_PHASES,
  type PushContext,
  WRITE_PHASES,
  type WriteContext,
} from "../sync/context.ts";
import {
  AlreadyExistsError,
  ConditionalWritesUnsupportedError,
  PreconditionFailedError,
  VersionConflictError,
} from "../sync/errors.ts";
import type { WarningEvent } from "../sync/events.ts";
import { Pipeline } from "../sync/pipeline.ts";
import { PutModes } from "../sync/ports.ts";
import { terminalWrite } from "../sync/service/push.ts";
import { createSyncService } from "../sync/service/service.ts";
import { createOnlyWriterEntry } from "./create_only_writer.ts";
import {
  ENDPOINT_FALLBACK_WARNER,
  endpointFallbackWarner,
  endpointFallbackWarnerEntry,
} from "./endpoint_fallback_warner.ts";
import { PATH_CLASSIFIER, pathClassifier } from "./path_classifier.ts";

const RAW = "data/t/m/d/1/raw";
const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };
const probeRequests = (s: InMemoryStore) =>
  s.log.filter((r) => r.key.startsWith(PROBE_PREFIX)).length;

// ---- the gate alone -------------------------------------------------------

async function unit(mode: ConditionalMode, setting: ConditionalWritesSetting = "auto") {
  const m = await mockPushContext({ config: { conditionalWrites: setting } });
  const store = m.store as InMemoryStore;
  store.conditionalMode = mode;
  const registry = new ConditionalWrites();
  const gate = endpointFallbackWarner({ registry });
  const write = async (key: string, body: string, putMode = PutModes.create) => {
    const ctx = mockWriteContext(m.ctx, key, body, { entry: planEntry(key), mode: putMode });
    const next = spyNext(() => terminalWrite(ctx));
    await gate(ctx, next);
    return { ctx, next };
  };
  return { m, store, registry, write };
}

Deno.test("overwrites pass through without a probe", async () => {
  const t = await unit("ignore");
  const { next } = await t.write("outputs/o.txt", "x", PutModes.overwrite);
  assert.equal(next.calls, 1);
  assert.equal(t.store.count(), 1);
  assert.equal(t.registry.stats.probeRuns, 0);
});

Deno.test("honoured: a create costs exactly one request once probed, and no warning", async () => {
  const t = await unit("honour");
  await t.write("data/t/m/d/1/raw", "a");
  t.store.resetLog();
  const { ctx } = await t.write("data/t/m/d/2/raw", "b");
  assert.deepEqual(t.store.log.map((r) => [r.op, r.mode]), [["put", "create"]]);
  assert.equal(ctx.outcome, "written");
  assert.deepEqual(t.m.warnings, []);
  assert.equal(t.registry.stats.probeRuns, 1);
});

for (const mode of ["ignore", "refuse"] as const) {
  Deno.test(`${mode}: check-then-write keeps create and update semantics, with one warning`, async () => {
    const t = await unit(mode);
    const { ctx } = await t.write(RAW, "a");
    assert.deepEqual(ctx.mode, PutModes.create, "the mode is restored after the overwrite put");
    await assert.rejects(t.write(RAW, "b"), AlreadyExistsError);
    await assert.rejects(t.write(RAW, "b", PutModes.update("stale")), PreconditionFailedError);
    assert.equal(t.store.peekText(RAW), "a");
    await t.write(RAW, "c", PutModes.update(ctx.result!.version));
    assert.equal(t.store.peekText(RAW), "c");
    const warnings = t.m.warnings.filter((w) => w.code === FALLBACK_WARNING);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, new RegExp(t.store.endpoint));
    assert.ok(t.m.gates.some((g) => g.gate === ENDPOINT_FALLBACK_WARNER && g.path === RAW));
  });

  Deno.test(`${mode}: required refuses before writing`, async () => {
    const t = await unit(mode, "required");
    const err = await t.write(RAW, "a").catch((e) => e);
    assert.ok(err instanceof ConditionalWritesUnsupportedError);
    assert.equal(err.code, "conditional_writes_unsupported");
    assert.equal(t.store.peek(RAW), undefined);
  });
}

Deno.test("off: no probe, check-then-write, no warning", async () => {
  const t = await unit("honour", "off");
  await t.write(RAW, "a");
  await assert.rejects(t.write(RAW, "b"), AlreadyExistsError);
  assert.equal(probeRequests(t.store), 0);
  assert.deepEqual(t.m.warnings, []);
  assert.deepEqual(t.store.log.map((r) => [r.op, r.mode]), [["head", undefined], [
    "put",
    "overwrite",
  ], [
    "head",
    undefined,
  ]]);
});

Deno.test("a refused write on an endpoint the probe trusted switches it to the fallback", async () => {
  const t = await unit("honour");
  await t.write("data/t/m/d/0/raw", "warm-up");
  t.store.conditionalMode = "refuse";
  const { ctx } = await t.write(RAW, "a");
  assert.equal(ctx.outcome, "written");
  assert.equal(t.store.peekText(RAW), "a");
  await assert.rejects(t.write(RAW, "b"), AlreadyExistsError);
  assert.equal(t.m.warnings.filter((w) => w.code === FALLBACK_WARNING).length, 1);
  assert.equal(t.registry.stats.probeRuns, 1);
});

// ---- whole pushes over the in-memory store ------------------------------

async function clone(
  store: InMemoryStore,
  name: string,
  o: {
    warner?: boolean;
    registry?: ConditionalWrites;
    setting?: ConditionalWritesSetting;
    cacheDir?: string;
    clock?: FakeClock;
    retry?: { retries: number; minTimeoutMs: number; maxTimeoutMs: number };
  } = {},
) {
  const push = new Pipeline<PushContext>(PUSH_PHASES);
  push.add({ name: PATH_CLASSIFIER, phase: "classify", middleware: pathClassifier() });
  const write = new Pipeline<WriteContext>(WRITE_PHASES);
  write.add(createOnlyWriterEntry());
  if (o.warner ?? true) {
    write.add(endpointFallbackWarnerEntry({ registry: o.registry ?? new ConditionalWrites() }));
  }
  const svc = await createSyncService({
    cacheDir: o.cacheDir ?? await Deno.makeTempDir({ prefix: `sluice-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: o.clock ?? new FakeClock(),
    config: {
      ...quick,
      ...(o.retry ? { retry: o.retry } : {}),
      conditionalWrites: o.setting ?? "auto",
    },
    push,
    write,
  });
  const warnings: WarningEvent[] = [];
  svc.events.on("warning", (w) => warnings.push(w));
  const put = (path: string, text: string) => writeAndMark(svc, path, text);
  return { svc, warnings, put };
}

function storeIn(mode: ConditionalMode): InMemoryStore {
  const store = new InMemoryStore();
  store.conditionalMode = mode;
  return store;
}

Deno.test("ignore: without the gate the create-only write is silently ignored and a version is lost", async () => {
  const store = storeIn("ignore");
  const a = await clone(store, "a", { warner: false });
  const b = await clone(store, "b", { warner: false });
  await a.put(RAW, "from a");
  await b.put(RAW, "from b");
  await a.svc.pushChanged();
  await b.svc.pushChanged();
  assert.equal(store.peekText(RAW), "from b", "the loss");
});

Deno.test("refuse: without the gate no data version can be pushed at all", async () => {
  const store = storeIn("refuse");
  const a = await clone(store, "a", { warner: false });
  await a.put(RAW, "from a");
  const err = await a.svc.pushChanged().catch((e) => e);
  assert.equal(err?.code, "not_implemented");
  assert.equal(store.peek(RAW), undefined);
});

for (const mode of ["ignore", "refuse"] as const) {
  Deno.test(`${mode}: the probe detects it; ten files, one warning; the first writer still wins`, async () => {
    const store = storeIn(mode);
    const registry = new ConditionalWrites();
    const a = await clone(store, "a", { registry });
    for (let i = 1; i <= 10; i++) await a.put(`data/t/m/d/${i}/raw`, `a${i}`);
    const r = await a.svc.pushChanged();
    assert.equal(r.uploaded.length, 10);
    assert.equal(a.warnings.filter((w) => w.code === FALLBACK_WARNING).length, 1);
    assert.equal(registry.stats.probeRuns, 1);
    assert.equal(registry.stats.fallbackWrites, 10);

    const b = await clone(store, "b", { registry }); // same process: no new probe, no new warning
    await b.put(RAW, "from b");
    await assert.rejects(b.svc.pushChanged(), VersionConflictError);
    assert.equal(store.peekText(RAW), "a1");
    assert.deepEqual(b.warnings, []);
    assert.equal(registry.stats.probeRuns, 1);
  });

  Deno.test(`${mode}: required refuses the push and keeps the files dirty`, async () => {
    const store = storeIn(mode);
    const a = await clone(store, "a", { setting: "required" });
    await a.put(RAW, "from a");
    const err = await a.svc.pushChanged().catch((e) => e);
    assert.ok(err instanceof ConditionalWritesUnsupportedError, String(err));
    assert.equal(err.code, "conditional_writes_unsupported");
    assert.equal(store.peek(RAW), undefined);
    assert.deepEqual(a.svc.state.dirtyPaths(), [RAW]);
  });

  Deno.test(`${mode}: off runs no probe and emits no warning, and still refuses an overwrite`, async () => {
    const store = storeIn(mode);
    const registry = new ConditionalWrites();
    const a = await clone(store, "a", { setting: "off", registry });
    const b = await clone(store, "b", { setting: "off", registry });
    await a.put(RAW, "from a");
    await b.put(RAW, "from b");
    await a.svc.pushChanged();
    await assert.rejects(b.svc.pushChanged(), VersionConflictError);
    assert.equal(store.peekText(RAW), "from a");
    assert.equal(probeRequests(store), 0);
    assert.equal(registry.stats.probeRuns, 0);
    assert.deepEqual([...a.warnings, ...b.warnings], []);
  });
}

Deno.test("a fresh cached probe result is not re-run by a new process; an expired one is", async () => {
  const store = storeIn("ignore");
  const clock = new FakeClock();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-probe-cache-" });
  const first = await clone(store, "a", { cacheDir, clock, registry: new ConditionalWrites() });
  await first.put(RAW, "one");
  await first.svc.pushChanged();
  assert.ok(probeRequests(store) > 0);

  store.resetLog();
  const registry = new ConditionalWrites(); // a new process over the same cache dir
  const again = await clone(store, "a", { cacheDir, clock, registry });
  await again.put("data/t/m/d/2/raw", "two");
  await again.svc.pushChanged();
  assert.equal(probeRequests(store), 0);
  assert.equal(registry.stats.probeRuns, 0);
  assert.equal(registry.stats.probeCacheHits, 1);
  assert.equal(again.warnings.filter((w) => w.code === FALLBACK_WARNING).length, 1);

  await clock.advance(again.svc.config.probeTtlMs);
  const later = new ConditionalWrites();
  const third = await clone(store, "a", { cacheDir, clock, registry: later });
  await third.put("data/t/m/d/3/raw", "three");
  await third.svc.pushChanged();
  assert.equal(later.stats.probeRuns, 1);
});

Deno.test("budget: on an honouring endpoint a new version costs one write request and one probe per process", async () => {
  const store = storeIn("honour");
  const registry = new ConditionalWrites();
  const a = await clone(store, "a", { registry });
  const b = await clone(store, "b", { registry });
  await a.put(RAW, "one");
  await a.svc.pushChanged();
  store.resetLog();
  await b.put("data/t/m/d/2/raw", "two");
  await b.svc.pushChanged();
  const onVersion = store.log.filter((r) => r.key === "data/t/m/d/2/raw");
  assert.deepEqual(onVersion.map((r) => [r.op, r.mode]), [["put", "create"]]);
  assert.equal(probeRequests(store), 0);
  assert.equal(registry.stats.probeRuns, 1);
  assert.deepEqual([...a.warnings, ...b.warnings], []);
});

Deno.test("the probe is retried as a write is: retries + 1 attempts under an outage, then unreachable", async () => {
  for (const retries of [0, 2]) {
    const store = new InMemoryStore();
    const svc = await clone(store, `probe-retry-${retries}`, {
      retry: { retries, minTimeoutMs: 0, maxTimeoutMs: 0 },
    });
    await svc.put("data/t/m/d/1/raw", "x"); // create-only: the gate decides by the probe
    store.unreachable = true;
    await assert.rejects(svc.svc.pushChanged(), { code: "unreachable" });
    const probePuts = store.log.filter((r) => r.op === "put" && r.key.startsWith(PROBE_PREFIX));
    assert.equal(probePuts.length, retries + 1, `retries ${retries}`);
  }
});
