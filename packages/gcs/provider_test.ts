import assert from "node:assert/strict";
import { ConfigError } from "../../sync/errors.ts";
import { createSyncService } from "../../sync/service/service.ts";
import { createGcsProvider } from "./provider.ts";
import { GcsStore } from "./store.ts";

const identity = { holder: "a@h", hostname: "h", pid: 1 };
// No test here needs the default gates: services without them.
const createService = createSyncService;

function configError(config: unknown): ConfigError {
  try {
    createGcsProvider(config, { createService }).close();
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e;
  }
  return assert.fail(`accepted ${JSON.stringify(config)}`);
}

Deno.test("createGcsProvider: defaults, paths and the GCS store", async () => {
  const p = createGcsProvider({
    bucket: "my_bucket",
    prefix: "team/ds",
    projectId: "test",
    apiEndpoint: "http://127.0.0.1:4443",
    lock: { ttlMs: 10_000 },
  }, { identity, createService });
  assert.ok(p.store instanceof GcsStore);
  assert.equal(p.resolveDatastorePath("/repo"), "gs://my_bucket/team/ds");
  assert.equal(p.resolveCachePath("/repo"), "/repo/.sluice-cache/gs/my_bucket/team/ds");
  assert.equal(p.config.lock.backend, "store");
  assert.equal(p.config.lock.ttlMs, 10_000);
  assert.equal(
    p.createLock("gs://my_bucket/team/ds", { key: "data/t/m/.lock" }).key,
    "data/t/m/.lock",
  );
  assert.throws(() => p.createLock("s3://my_bucket/team/ds"), ConfigError);
  const svc = await p.createSyncService("/repo", await Deno.makeTempDir());
  assert.equal(svc.identity, identity);
  assert.ok(svc.capabilities().locks);
  p.close();
});

Deno.test("createGcsProvider: bad config names the field and what is expected", () => {
  const cases: [unknown, string, RegExp][] = [
    [{ prefix: "x" }, "bucket", /a GCS bucket name/],
    [{ bucket: "-bad" }, "bucket", /3 to 222 characters/],
    [{ bucket: "b-1", projectId: "" }, "projectId", /non-empty Google Cloud project id/],
    [{ bucket: "b-1", apiEndpoint: "localhost:4443" }, "apiEndpoint", /http\(s\) URL/],
    [
      { bucket: "b-1", apiEndpoint: "http://127.0.0.1:4443/storage/v1" },
      "apiEndpoint",
      /without the JSON API's \/storage\/v1 path/,
    ],
    [{ bucket: "b-1", region: "eu" }, "region", /no such setting/],
    [{ bucket: "b-1", conditionalWrites: true }, "conditionalWrites", /"off", got true/],
    [{ bucket: "b-1", lock: { backend: "" } }, "lock.backend", /non-empty/],
    [
      { bucket: "b-1", classifierRules: [{ class: "config" }] },
      "classifierRules[0].pattern",
      /pattern/,
    ],
  ];
  for (const [config, field, expected] of cases) {
    const e = configError(config);
    assert.equal(e.field, field, `${JSON.stringify(config)}: ${e.message}`);
    assert.match(e.message, expected);
  }
});
