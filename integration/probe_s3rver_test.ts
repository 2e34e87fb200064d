/**
 * Against s3rver, which answers 2xx to conditional writes it silently
 * ignores: the active probe detects it; a push under `conditionalWrites:
 * "auto"` falls back to check-then-write with exactly one
 * `conditional_writes_fallback` warning; under `"required"` the push is
 * refused with `conditional_writes_unsupported` and nothing is written; and
 * the lock engine works over the fallback-wrapped store.
 */
import assert from "node:assert/strict";
import { createSluice } from "../sluice.ts";
import { S3Store } from "../packages/s3/store.ts";
import {
  ConditionalWrites,
  FALLBACK_WARNING,
  PROBE_PREFIX,
  probeConditionalWrites,
  withConditionalFallback,
} from "../sync/transfer/conditional.ts";
import { SluiceError } from "../sync/errors.ts";
import { createEmitter, type WarningEvent } from "../sync/events.ts";
import { storeLockBackend } from "../sync/locks/lock_engine.ts";
import type { Identity, ObjectStore } from "../sync/ports.ts";
import type { SyncService } from "../sync/service/service.ts";
import { ignoreS3rver, type S3rverServer, startS3rver } from "./servers/s3rver.ts";
import { sluice } from "../cli/cli_test_kit.ts";

const dec = (b: Uint8Array) => new TextDecoder().decode(b);

let s3rver: Promise<S3rverServer> | undefined;
const sharedS3rver = () => (s3rver ??= startS3rver());

// The SDK keeps sockets alive between calls.
const realClient = { ignore: ignoreS3rver, sanitizeOps: false, sanitizeResources: false } as const;

const ALICE: Identity = { holder: "alice@host-a", hostname: "host-a", pid: 101 };
const BOB: Identity = { holder: "bob@host-b", hostname: "host-b", pid: 202 };
const FAST = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } } as const;

/** An S3Store on a fresh s3rver bucket. */
async function freshStore(): Promise<S3Store> {
  const server = await sharedS3rver();
  return new S3Store({
    bucket: await server.createBucket(),
    prefix: "datastore",
    ...server.clientOptions,
    requestTimeoutMs: 5_000,
    retries: 1,
    retryBaseDelayMs: 20,
    retryMaxDelayMs: 50,
  });
}

async function keys(store: ObjectStore, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const page of store.list(prefix)) for (const o of page) out.push(o.key);
  return out.sort();
}

/** A clone over `store` (default gates), with its own cache, registry and warning log. */
async function clone(
  store: ObjectStore,
  identity: Identity,
  conditionalWrites: "auto" | "required",
): Promise<{ service: SyncService; warnings: WarningEvent[]; registry: ConditionalWrites }> {
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  events.on("warning", (w) => warnings.push(w));
  const registry = new ConditionalWrites();
  const service = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-s3rver-" }),
    store,
    identity,
    events,
    conditional: registry,
    config: { ...FAST, conditionalWrites },
  });
  return { service, warnings, registry };
}

async function write(service: SyncService, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const full = `${service.cacheDir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
  await service.markDirty({ relPaths: Object.keys(files) });
}

const fallbackWarnings = (ws: readonly WarningEvent[]) =>
  ws.filter((w) => w.code === FALLBACK_WARNING);

async function removeCache(service: SyncService): Promise<void> {
  await Deno.remove(service.cacheDir, { recursive: true }).catch(() => {});
}

Deno.test({
  name: "s3rver: the probe detects the silently ignored conditional writes",
  ...realClient,
  fn: async () => {
    const store = await freshStore();
    try {
      const probe = await probeConditionalWrites(store);
      assert.equal(probe.create, "ignored");
      assert.equal(probe.update, "ignored");
      assert.deepEqual(await keys(store, PROBE_PREFIX), [], "the probe left its key behind");

      const registry = new ConditionalWrites();
      const events = createEmitter();
      const warnings: WarningEvent[] = [];
      events.on("warning", (w) => warnings.push(w));
      assert.equal(await registry.decide(store, "create", "auto", { events }), "fallback");
      assert.equal(await registry.decide(store, "update", "auto", { events }), "fallback");
      assert.equal(registry.stats.probeRuns, 1, "the endpoint was probed more than once");
      assert.equal(fallbackWarnings(warnings).length, 1);
      assert.match(warnings[0].message, /silently ignores conditional writes/);
      assert.ok(registry.warned(store.endpoint));

      const refused = await registry.decide(store, "create", "required", { events }).catch((e) =>
        e
      );
      assert.ok(refused instanceof SluiceError, String(refused));
      assert.equal(refused.code, "conditional_writes_unsupported");
      assert.match(refused.message, /silently ignores/);
    } finally {
      store.close();
    }
  },
});

Deno.test({
  name:
    "s3rver: a push of several data versions under auto falls back with exactly one warning; create-only still holds",
  ...realClient,
  fn: async () => {
    const store = await freshStore();
    const a = await clone(store, ALICE, "auto");
    const b = await clone(store, BOB, "auto");
    try {
      const first = {
        "data/t/m/d/1/raw": "one",
        "data/t/m/d/1/metadata.yaml": "n: 1\n",
        "data/t/m/d/2/raw": "two",
        "data/t/m/d/2/metadata.yaml": "n: 2\n",
      };
      await write(a.service, first);
      const pushed = await a.service.pushChanged();
      assert.deepEqual([...pushed.uploaded].sort(), Object.keys(first).sort());
      const second = { "data/t/m/d/3/raw": "three", "data/t/n/d/1/raw": "other model" };
      await write(a.service, second);
      await a.service.pushChanged();

      assert.equal(
        fallbackWarnings(a.warnings).length,
        1,
        `expected one fallback warning, got ${JSON.stringify(a.warnings)}`,
      );
      assert.equal(a.registry.stats.probeRuns, 1);
      assert.ok(a.registry.stats.fallbackWrites >= 6, JSON.stringify(a.registry.stats));
      for (const [path, text] of Object.entries({ ...first, ...second })) {
        assert.equal(dec((await store.get(path)).body), text, path);
      }

      // The check-then-write still keeps a version create-only against a later writer.
      await write(b.service, { "data/t/m/d/1/raw": "bob's one" });
      const conflict = await b.service.pushChanged().catch((e) => e);
      assert.ok(conflict instanceof SluiceError, String(conflict));
      assert.equal(conflict.code, "version_exists", conflict.message);
      assert.equal(dec((await store.get("data/t/m/d/1/raw")).body), "one");
      assert.equal(fallbackWarnings(b.warnings).length, 1);
    } finally {
      await removeCache(a.service);
      await removeCache(b.service);
      store.close();
    }
  },
});

Deno.test({
  name:
    "s3rver: under required the push is refused with conditional_writes_unsupported; nothing is written",
  ...realClient,
  fn: async () => {
    const store = await freshStore();
    const a = await clone(store, ALICE, "required");
    try {
      const files = {
        "data/t/m/d/1/raw": "one",
        "data/t/m/d/1/metadata.yaml": "n: 1\n",
        "data/t/m/d/2/raw": "two",
      };
      await write(a.service, files);
      const err = await a.service.pushChanged().catch((e) => e);
      assert.ok(err instanceof SluiceError, String(err));
      assert.equal(err.code, "conditional_writes_unsupported", err.message);
      assert.deepEqual(await keys(store), [], "the refused push wrote to the store");
      assert.equal(fallbackWarnings(a.warnings).length, 0, "required must refuse, not warn");

      // Nothing was discarded: the files stay dirty for a push to a better endpoint.
      const plan = await a.service.status();
      assert.deepEqual(plan.map((e) => e.path).sort(), Object.keys(files).sort());
    } finally {
      await removeCache(a.service);
      store.close();
    }
  },
});

Deno.test({
  name: "s3rver: the lock engine over the fallback-wrapped store excludes a second holder",
  ...realClient,
  fn: async () => {
    const store = await freshStore();
    try {
      const registry = new ConditionalWrites();
      const events = createEmitter();
      const warnings: WarningEvent[] = [];
      events.on("warning", (w) => warnings.push(w));
      const wrapped = withConditionalFallback(store, { registry, setting: "auto", events });
      const backend = storeLockBackend(wrapped, {
        events,
        defaults: { ttlMs: 5_000, retryDelayMs: 50, maxWaitMs: 300 },
      });
      const key = "data/t/m/.lock";
      const a = backend.createLock(key, ALICE);
      const b = backend.createLock(key, BOB);
      await a.acquire();
      assert.equal((await b.inspect())?.holder, ALICE.holder);
      const timeout = await b.acquire().catch((e) => e);
      assert.ok(timeout instanceof SluiceError, String(timeout));
      assert.equal(timeout.code, "lock_timeout", timeout.message);
      await a.release();
      assert.equal(await b.inspect(), null);
      await b.acquire();
      assert.equal((await a.inspect())?.holder, BOB.holder);
      await b.release();
      assert.deepEqual(await keys(store, "data/"), []);
      assert.equal(fallbackWarnings(warnings).length, 1);
      assert.ok(registry.stats.fallbackWrites >= 3, JSON.stringify(registry.stats));

      // Under required the same wrapped store refuses to lock at all.
      const strict = storeLockBackend(
        withConditionalFallback(store, { registry: new ConditionalWrites(), setting: "required" }),
        { defaults: { maxWaitMs: 300 } },
      );
      const refused = await strict.createLock(key, ALICE).acquire().catch((e) => e);
      assert.ok(refused instanceof SluiceError, String(refused));
      assert.equal(refused.code, "conditional_writes_unsupported", refused.message);
      assert.deepEqual(await keys(store, "data/"), []);
    } finally {
      store.close();
    }
  },
});

Deno.test({
  name: "s3rver: sluice probe --require --json says ok: false with its outcome, and exits 69",
  ...realClient,
  fn: async () => {
    const server = await sharedS3rver();
    const bucket = await server.createBucket();
    const r = await sluice(
      ["probe", `s3://${bucket}/datastore?endpoint=${server.endpoint}`, "--require", "--json"],
      {
        env: {
          AWS_ACCESS_KEY_ID: "S3RVER",
          AWS_SECRET_ACCESS_KEY: "S3RVER",
          AWS_REGION: "us-east-1",
        },
      },
    );
    assert.equal(r.code, 69, r.err);
    const doc = r.json();
    assert.equal(doc.ok, false);
    assert.equal((doc.outcome as { code: string }).code, "conditional_writes_unsupported");
  },
});

Deno.test({
  name: "stop the shared s3rver (probe)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    if (s3rver) await (await s3rver).stop();
  },
});
