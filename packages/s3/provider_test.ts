import assert from "node:assert/strict";
import { ConfigError } from "../../sync/errors.ts";
import { createSluice } from "../../sluice.ts";
import { createS3Provider } from "./provider.ts";
import { S3Store } from "./store.ts";

const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "not-a-real-secret" };
const createService = createSluice;
const identity = { holder: "a@h", hostname: "h", pid: 1 };

function configError(config: unknown): ConfigError {
  try {
    createS3Provider(config, { credentials, createService }).close();
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e;
  }
  return assert.fail(`accepted ${JSON.stringify(config)}`);
}

Deno.test("createS3Provider: defaults, paths and the S3 store", async () => {
  const p = createS3Provider({ bucket: "my-bucket", prefix: "team/ds/" }, {
    credentials,
    identity,
    createService,
  });
  try {
    assert.ok(p.store instanceof S3Store);
    assert.equal(p.store.endpoint, "s3://my-bucket/team/ds");
    assert.equal(p.resolveDatastorePath("/repo"), "s3://my-bucket/team/ds");
    assert.equal(p.resolveCachePath("/repo"), "/repo/.sluice-cache/s3/my-bucket/team/ds");
    assert.equal(p.config.conditionalWrites, "auto");
    assert.equal(p.config.concurrency, 32);
    assert.equal(p.config.requestTimeoutMs, 30_000);
    assert.equal(p.config.lock.backend, "store");
    assert.deepEqual(p.config.classifierRules, []);
    assert.equal(p.createLock("s3://my-bucket/team/ds").key, ".datastore.lock");
    const svc = await p.createSyncService("/repo", await Deno.makeTempDir());
    assert.equal(svc.capabilities().endpoint, "s3://my-bucket/team/ds");
    assert.ok(svc.describe().push.length > 0, "the default gates are in place");
  } finally {
    p.close();
  }
});

Deno.test("createS3Provider: a full config is taken as given", () => {
  const p = createS3Provider({
    bucket: "b-1.x",
    prefix: "",
    region: "eu-west-1",
    endpoint: "http://127.0.0.1:9000",
    forcePathStyle: true,
    conditionalWrites: "required",
    concurrency: 4,
    requestTimeoutMs: 2_000,
    retry: { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 20 },
    probeTtlMs: 60_000,
    lock: { backend: "store", ttlMs: 5_000, heartbeatMs: 1_000, custom: "kept" },
    classifierRules: [{ pattern: "extra/**", class: "config" }],
  }, { credentials, createService });
  try {
    assert.equal(p.resolveDatastorePath("/r"), "s3://b-1.x");
    assert.equal(p.resolveCachePath("/r"), "/r/.sluice-cache/s3/b-1.x");
    assert.equal(p.config.lock.custom, "kept");
    assert.equal(p.config.conditionalWrites, "required");
    assert.deepEqual(p.config.classifierRules, [{ pattern: "extra/**", class: "config" }]);
  } finally {
    p.close();
  }
});

Deno.test("createS3Provider: bad config names the field and what is expected", () => {
  const cases: [unknown, string, RegExp][] = [
    [{}, "bucket", /an S3 bucket name/],
    [{ bucket: "Bad_Bucket" }, "bucket", /3 to 63 characters/],
    [{ bucket: "b-1", prefix: "../up" }, "prefix", /without ".."/],
    [{ bucket: "b-1", endpoint: "ftp://x" }, "endpoint", /http\(s\) URL/],
    [{ bucket: "b-1", endpoint: "http://127.0.0.1:9000/b-1" }, "endpoint", /bucket in its path/],
    [{ bucket: "b-1", forcePathStyle: "yes" }, "forcePathStyle", /true or false, got "yes"/],
    [{ bucket: "b-1", conditionalWrites: "maybe" }, "conditionalWrites", /"auto", "required"/],
    [{ bucket: "b-1", concurrency: 0 }, "concurrency", /at least 1/],
    [{ bucket: "b-1", requestTimeoutMs: "5s" }, "requestTimeoutMs", /milliseconds, got "5s"/],
    [{ bucket: "b-1", retry: { retries: -1 } }, "retry.retries", /0 or more/],
    [{ bucket: "b-1", lock: { ttlMs: "30s" } }, "lock.ttlMs", /milliseconds/],
    [{ bucket: "b-1", lock: { backend: "nope" } }, "lock.backend", /registered lock backends/],
    [
      { bucket: "b-1", lock: { ttlMs: 5_000, heartbeatMs: 10_000 } },
      "lock.heartbeatMs",
      /less than the lock's ttlMs \(5000\), got 10000/,
    ],
    [
      { bucket: "b-1", lock: { heartbeatMs: 30_000 } },
      "lock.heartbeatMs",
      /less than the lock's ttlMs \(30000, its default\), got 30000/,
    ],
    [{ bucket: "b-1", lock: "store" }, "lock", /an object \{backend, ttlMs, heartbeatMs/],
    [
      { bucket: "b-1", classifierRules: [{ pattern: "a/*", class: "weird" }] },
      "classifierRules[0].class",
      /one of "data-version"/,
    ],
    [{ bucket: "b-1", classifierRules: "a" }, "classifierRules", /list of \{pattern, class\}/],
    [{ bucket: "b-1", buckt: "x" }, "buckt", /no such setting .*did you mean "bucket"\?/],
    [{ bucket: "b-1", concurency: 8 }, "concurency", /did you mean "concurrency"\?/],
    [{ bucket: "b-1", retry: { retires: 1 } }, "retry.retires", /did you mean "retries"\?/],
    [{ bucket: "b-1", zzz: 1 }, "zzz", /no such setting .*check the spelling/],
    [null, "(root)", /JSON object/],
  ];
  for (const [config, field, expected] of cases) {
    const e = configError(config);
    assert.equal(e.field, field, `${JSON.stringify(config)}: ${e.message}`);
    assert.match(e.message, expected);
    assert.equal(e.code, "invalid_config");
    assert.equal(e.exitCode, 78);
  }
});

Deno.test("createS3Provider: each unknown setting is named with the one it most likely means, in one sentence", () => {
  const e = configError({ bucket: "b-1", regoin: "x" });
  assert.match(e.message, /\(unknown key "regoin"; did you mean "region"\?\)/);
  assert.doesNotMatch(e.message, /\?\./, "no stray period after the question");
  // Two unknown keys: each its own likely meaning, a suggestion for the second too.
  const two = configError({ bucket: "b-1", zzz: 1, regon: "x" });
  assert.match(two.message, /\(unknown keys "zzz", "regon"; did you mean "region" for "regon"\?\)/);
  assert.doesNotMatch(two.message, /\?\./);
});

Deno.test("createS3Provider: config never carries credentials, and errors do not echo them", () => {
  const e = configError({ bucket: "b-1", secretAccessKey: "hunter2" });
  assert.equal(e.field, "secretAccessKey");
  assert.ok(!e.message.includes("hunter2"));
});
