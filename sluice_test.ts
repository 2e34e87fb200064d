import assert from "node:assert/strict";
import { createSluice, DEFAULT_GATES, defaultPipelines, type SluiceOptions } from "./sluice.ts";
import { FakeClock, InMemoryStore } from "./packages/testing/mod.ts";
import { ConfigError, SluiceError } from "./sync/errors.ts";
import { createEmitter } from "./sync/events.ts";
import { DEFAULT_CONFIG } from "./sync/service/service_options.ts";
import { ConditionalWrites } from "./sync/transfer/conditional.ts";

Deno.test("the default pipeline order is pinned", () => {
  const { push, write } = defaultPipelines();
  assert.deepEqual(push.names(), [
    "required-conditional-check",
    "path-classifier",
    "lockfile-guard",
    "unsynced-walk-guard",
    "unfinished-version-holder",
    "version-under-marker",
    "overwrite-cas",
    "refused-run-eraser",
    "lock-fence",
  ]);
  assert.deepEqual(write.names(), [
    "marker-after-version",
    "create-only-writer",
    "config-cas-writer",
    "endpoint-fallback-warner",
  ]);
  assert.deepEqual(push.names(), [...DEFAULT_GATES.push]);
  assert.deepEqual(write.names(), [...DEFAULT_GATES.write]);
  assert.ok(push.describe().every((line) => / — /.test(line)), "every gate describes itself");
});

Deno.test("disable leaves a gate out (replays only)", () => {
  const { push, write } = defaultPipelines({ disable: ["lock-fence", "create-only-writer"] });
  assert.ok(!push.has("lock-fence"));
  assert.ok(!write.has("create-only-writer"));
});

Deno.test("disable naming no gate (a misspelt name) is refused, not taken as a replay with every gate on", async () => {
  assert.throws(
    () => defaultPipelines({ disable: ["create-only-writter"] }),
    (e: unknown) =>
      e instanceof SluiceError && e.code === "invalid_config" &&
      e.message.includes('"create-only-writter"') && e.message.includes("create-only-writer"),
  );
  const clock = new FakeClock();
  await assert.rejects(
    createSluice({
      cacheDir: await Deno.makeTempDir(),
      store: new InMemoryStore({ clock }),
      clock,
      disable: ["lock-fense"],
    }),
    (e: unknown) => e instanceof SluiceError && e.code === "invalid_config",
  );
});

Deno.test("an unknown key, of the options or of config (a typo, from JavaScript or a file), is refused naming it and the key it most resembles", async () => {
  const clock = new FakeClock();
  const base = { cacheDir: await Deno.makeTempDir(), store: new InMemoryStore({ clock }), clock };
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ concurrancy: 8 }, "concurrancy", /did you mean "config\.concurrency"\?/],
    [{ identiy: { holder: "a@h", hostname: "h", pid: 1 } }, "identiy", /did you mean "identity"\?/],
    [{ config: { concurrancy: 8 } }, "config.concurrancy", /did you mean "concurrency"\?/],
    [{ config: { retry: { retriez: 1 } } }, "config.retry.retriez", /did you mean "retries"\?/],
    [{ zzz: 1 }, "zzz", /no such option \(unknown key "zzz"\); check the spelling/],
  ];
  for (const [extra, field, message] of cases) {
    await assert.rejects(
      createSluice({ ...base, ...extra } as unknown as SluiceOptions),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError, String(e));
        assert.equal(e.code, "invalid_config");
        assert.equal(e.field, field, JSON.stringify(extra));
        assert.match(e.message, message, field);
        return true;
      },
    );
  }
  // Every known key is taken.
  const svc = await createSluice({
    ...base,
    stateDir: `${base.cacheDir}/.state`,
    ownersInProcess: false,
    identity: { holder: "a@h", hostname: "h", pid: 1 },
    events: createEmitter(),
    config: { ...DEFAULT_CONFIG },
    plugins: [],
    disable: [],
    conditional: new ConditionalWrites(),
  });
  assert.equal(svc.cacheDir, base.cacheDir);
});

Deno.test("status lists each dirty path with its class and every gate that will handle it, writing nothing", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const svc = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-status-" }),
    store,
    clock,
    identity: { holder: "a@h", hostname: "h", pid: 1 },
  });
  const files: Record<string, string> = {
    "data/t/m/d/1/raw": "v1",
    "config/vault.yaml": "x: 1",
    "config/upstream_extensions.json": "{}",
    "logs/a.log": "ok",
  };
  for (const [p, text] of Object.entries(files)) {
    await Deno.mkdir(`${svc.cacheDir}/${p.slice(0, p.lastIndexOf("/"))}`, { recursive: true });
    await Deno.writeTextFile(`${svc.cacheDir}/${p}`, text);
  }
  await svc.markDirty({ relPath: "data/t/m/d/1/raw" });
  const marked = await svc.status();
  assert.deepEqual(marked.map((e) => e.path), ["data/t/m/d/1/raw"]);
  assert.deepEqual(marked[0].handledBy, [
    "path-classifier",
    "create-only-writer",
    "endpoint-fallback-warner",
  ]);
  const walked = await svc.status({ walk: true });
  const by = new Map(walked.map((e) => [e.path, e]));
  assert.equal(by.get("config/vault.yaml")?.class, "config");
  assert.ok(by.get("config/vault.yaml")?.handledBy.includes("config-cas-writer"));
  assert.equal(by.get("config/upstream_extensions.json")?.action, "skip");
  assert.ok(by.get("config/upstream_extensions.json")?.handledBy.includes("lockfile-guard"));
  assert.equal(by.get("logs/a.log")?.class, "other");
  // It reads (the walk-found files never synced are looked up in the index,
  // as a push would), and writes nothing.
  assert.equal(store.count("put") + store.count("delete"), 0, "status writes nothing");
  assert.equal(svc.state.bulkPending(), false, "the walk is not recorded");
  assert.deepEqual(svc.state.dirtyPaths(), ["data/t/m/d/1/raw"]);
});
