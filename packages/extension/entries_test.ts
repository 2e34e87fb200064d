/**
 * The two extension entries: export conformance with the configs the existing
 * extensions' tests use, the path rules, and the config mapping (every key of
 * the existing extensions, Sluice's own keys, the timeout environment variable).
 */
import assert from "node:assert/strict";
import { assertSwampExportConformance } from "../testing/swamp_conformance.ts";
import {
  createSluiceS3Datastore,
  datastore as s3,
} from "../../extensions/s3/extensions/datastores/sluice_s3.ts";
import {
  createSluiceGcsDatastore,
  datastore as gcs,
} from "../../extensions/gcs/extensions/datastores/sluice_gcs.ts";
import { envFrom } from "./env.ts";
import { SluiceError } from "../../sync/errors.ts";
import {
  defaultLockRegistry,
  LockBackendRegistry,
  registerLockBackend,
  storeLockFactory,
} from "../../sync/locks/lock_registry.ts";
import { gcsExtensionConfigSchema, s3ExtensionConfigSchema } from "./config.ts";

const s3Valid = [
  { bucket: "my-bucket", region: "us-east-1" },
  { bucket: "my-bucket" },
  {
    bucket: "my-bucket",
    prefix: "swamp",
    region: "eu-west-1",
    endpoint: "http://127.0.0.1:9000",
    forcePathStyle: true,
  },
  { bucket: "my-bucket", pullConcurrency: 50, pushConcurrency: 25, requestTimeoutMs: 30000 },
  { bucket: "my-bucket", conditionalWrites: "required", lock: { backend: "store", ttlMs: 30000 } },
  { bucket: "my-bucket", somethingUnknown: 1 },
];
const s3Invalid = [
  {},
  { region: "us-east-1" },
  { bucket: "ab" },
  { bucket: "MyBucket" },
  { bucket: "my-bucket", endpoint: "not a url" },
  { bucket: "my-bucket", requestTimeoutMs: 999 },
  { bucket: "my-bucket", pushConcurrency: 0 },
  { bucket: "my-bucket", conditionalWrites: "sometimes" },
  { bucket: "my-bucket", prefix: "/abs" },
  { bucket: "my-bucket", endpoint: "http://127.0.0.1:9000/my-bucket" },
  { bucket: "my-bucket", lock: { ttlMs: 5_000, heartbeatMs: 10_000 } },
];
const gcsValid = [
  { bucket: "my-bucket" },
  { bucket: "my_bucket" },
  { bucket: "my.bucket.name" },
  {
    bucket: "my-bucket",
    prefix: "swamp",
    projectId: "my-project",
    apiEndpoint: "http://127.0.0.1:4443",
  },
];
const gcsInvalid = [
  {},
  { bucket: "ab" },
  { bucket: "goog-bucket" },
  { bucket: "my-google-bucket" },
  { bucket: "my-bucket", apiEndpoint: "nope" },
  { bucket: "my-bucket", apiEndpoint: "http://127.0.0.1:4443/storage/v1" },
];

Deno.test("s3 entry: export conformance", () => {
  assertSwampExportConformance(s3, { validConfigs: s3Valid, invalidConfigs: s3Invalid });
});

Deno.test("gcs entry: export conformance", () => {
  assertSwampExportConformance(gcs, { validConfigs: gcsValid, invalidConfigs: gcsInvalid });
});

Deno.test("entries: the type is a string literal in the object literal of `export const datastore = {`", async () => {
  for (
    const [file, type] of [
      ["../../extensions/s3/extensions/datastores/sluice_s3.ts", "@sluice/s3-datastore"],
      ["../../extensions/gcs/extensions/datastores/sluice_gcs.ts", "@sluice/gcs-datastore"],
    ]
  ) {
    const src = await Deno.readTextFile(new URL(file, import.meta.url));
    const m = /export const datastore\s*=\s*\{[^}]*?type:\s*"([^"]+)"/s.exec(src);
    assert.equal(m?.[1], type);
  }
});

Deno.test("entries: createProvider({}) throws invalid_config naming the field", () => {
  for (const ds of [s3, gcs]) {
    assert.throws(() => ds.createProvider({}), (e: unknown) => {
      assert.ok(e instanceof SluiceError);
      assert.equal(e.code, "invalid_config");
      assert.match(e.message, /bucket/);
      return true;
    });
  }
});

Deno.test("entries: an unknown lock backend is refused by createProvider, not at the first lock", () => {
  for (const make of [createSluiceS3Datastore, createSluiceGcsDatastore]) {
    const ds = make({ env: envFrom({}) });
    assert.throws(
      () => ds.createProvider({ bucket: "my-bucket", lock: { backend: "nope" } }),
      (e: unknown) => {
        assert.ok(e instanceof SluiceError);
        assert.equal(e.code, "invalid_config");
        assert.match(e.message, /"lock\.backend": one of the registered lock backends \("store"/);
        return true;
      },
    );
    // A backend registered in the registry the extension was given is taken.
    const registry = new LockBackendRegistry().register("mine", storeLockFactory);
    const mine = make({ env: envFrom({}), lockRegistry: registry });
    mine.createProvider({ bucket: "my-bucket", lock: { backend: "mine" } });
  }
});

Deno.test("entries: an unknown lock backend fails the config schema's safeParse, which the tool runs before createProvider", () => {
  // The tool checks a datastore config with `configSchema.safeParse` and
  // reports a failure as an invalid config; a config it passes goes to
  // `createProvider`, whose throw it does not expect there.
  for (const ds of [s3, gcs]) {
    const r = ds.configSchema.safeParse({ bucket: "my-bucket", lock: { backend: "nope" } });
    assert.equal(r.success, false);
    assert.deepEqual(r.error?.issues.map((i) => i.path.join(".")), ["lock.backend"]);
    assert.match(
      r.error?.issues[0]?.message ?? "",
      /one of the registered lock backends \("store"/,
    );
    assert.equal(ds.configSchema.safeParse({ bucket: "my-bucket", lock: {} }).success, true);
    assert.equal(
      ds.configSchema.safeParse({ bucket: "my-bucket", lock: { backend: "store" } }).success,
      true,
    );
  }
  // A backend registered after the entry was loaded, before the config is checked, is taken.
  registerLockBackend("entries-late", storeLockFactory);
  try {
    for (const ds of [s3, gcs]) {
      const config = { bucket: "my-bucket", lock: { backend: "entries-late" } };
      assert.equal(ds.configSchema.safeParse(config).success, true);
      ds.createProvider(config);
    }
  } finally {
    defaultLockRegistry.unregister("entries-late");
  }
  // The registry the extension was given decides.
  for (const make of [createSluiceS3Datastore, createSluiceGcsDatastore]) {
    const registry = new LockBackendRegistry().register("mine", storeLockFactory);
    const mine = make({ env: envFrom({}), lockRegistry: registry });
    const ok = { bucket: "my-bucket", lock: { backend: "mine" } };
    assert.equal(mine.configSchema.safeParse(ok).success, true);
    assert.equal(
      mine.configSchema.safeParse({ bucket: "my-bucket", lock: { backend: "nope" } }).success,
      false,
    );
  }
});

Deno.test("entries: datastore path is <repo>/.swamp; the cache path is left to the tool", () => {
  for (const ds of [s3, gcs]) {
    const p = ds.createProvider({ bucket: "my-bucket" });
    assert.equal(p.resolveDatastorePath("/tmp/my-repo"), "/tmp/my-repo/.swamp");
    assert.equal(typeof p.resolveCachePath, "function");
    assert.equal(p.resolveCachePath("/tmp/my-repo"), undefined);
  }
});

Deno.test("entries: config maps onto Sluice's provider config; the timeout variable wins when valid", () => {
  const s3ds = createSluiceS3Datastore({ env: envFrom({ SWAMP_S3_REQUEST_TIMEOUT_MS: "90000" }) });
  const p = s3ds.createProvider({
    bucket: "my-bucket",
    prefix: "team/ds",
    pullConcurrency: 50,
    pushConcurrency: 25,
    requestTimeoutMs: 2000,
    endpoint: "http://127.0.0.1:9000",
  });
  assert.equal(p.runtime.config.requestTimeoutMs, 90000);
  assert.equal(p.runtime.config.concurrency, 50);
  assert.equal(p.runtime.config.prefix, "team/ds");
  assert.equal(p.runtime.provider.config.requestTimeoutMs, 90000);
  assert.equal(p.runtime.provider.store.endpoint.includes("my-bucket"), true);
  for (const bad of ["999", "600001", "abc", ""]) {
    const ds = createSluiceGcsDatastore({ env: envFrom({ SWAMP_GCS_REQUEST_TIMEOUT_MS: bad }) });
    assert.equal(
      ds.createProvider({ bucket: "b-1", requestTimeoutMs: 5000 }).runtime.config.requestTimeoutMs,
      5000,
    );
  }
  const g = createSluiceGcsDatastore({ env: envFrom({ SWAMP_GCS_REQUEST_TIMEOUT_MS: "1000" }) });
  assert.equal(g.createProvider({ bucket: "b-1" }).runtime.config.requestTimeoutMs, 1000);
});

Deno.test("entries: a timeout variable set to a value it cannot take is said, not ignored in silence", () => {
  for (
    const [make, name] of [
      [createSluiceS3Datastore, "SWAMP_S3_REQUEST_TIMEOUT_MS"],
      [createSluiceGcsDatastore, "SWAMP_GCS_REQUEST_TIMEOUT_MS"],
    ] as const
  ) {
    for (const bad of ["999", "600001", "5s"]) {
      const lines: string[] = [];
      make({ env: envFrom({ [name]: bad }), warn: (l) => lines.push(l) }).createProvider({
        bucket: "b-1",
        requestTimeoutMs: 5000,
      });
      const said = lines.filter((l) => l.includes("warning[config_env_ignored]"));
      assert.equal(said.length, 1, `${name}=${bad}: ${lines.join("\n")}`);
      assert.match(said[0], new RegExp(`${name} is "${bad}", not a whole number of milliseconds`));
      assert.match(said[0], /the request timeout is 5000 ms/);
    }
    for (const fine of ["", "5000"]) {
      const lines: string[] = [];
      make({ env: envFrom({ [name]: fine }), warn: (l) => lines.push(l) }).createProvider({
        bucket: "b-1",
      });
      assert.deepEqual(lines, [], `${name}=${JSON.stringify(fine)}`);
    }
  }
});

Deno.test("entries: createProvider is cheap and shares one runtime per config", () => {
  const ds = createSluiceS3Datastore({ env: envFrom({}) });
  const a = ds.createProvider({ bucket: "my-bucket", region: "eu-west-1" });
  const b = ds.createProvider({ region: "eu-west-1", bucket: "my-bucket" });
  const c = ds.createProvider({ bucket: "other-bucket" });
  assert.equal(a.runtime, b.runtime);
  assert.notEqual(a.runtime, c.runtime);
});

Deno.test("entries: configs the existing extensions accept: any GCS projectId, an empty S3 region", () => {
  for (const projectId of ["example.com:my-project", "My Project", "my-project"]) {
    const c = { bucket: "my-bucket", projectId };
    assert.equal(gcsExtensionConfigSchema.safeParse(c).success, true, projectId);
    const p = createSluiceGcsDatastore({ env: envFrom({}) }).createProvider(c);
    assert.equal((p.runtime.provider.config as { projectId?: string }).projectId, projectId);
  }
  assert.equal(
    gcsExtensionConfigSchema.safeParse({ bucket: "my-bucket", projectId: "" }).success,
    false,
  );
  assert.equal(
    gcsExtensionConfigSchema.safeParse({ bucket: "my-bucket", projectId: 7 }).success,
    false,
  );
  // An empty region is "not set", as when absent: Sluice's provider never sees it.
  const c = { bucket: "my-bucket", region: "" };
  assert.equal(s3ExtensionConfigSchema.safeParse(c).success, true);
  const p = createSluiceS3Datastore({ env: envFrom({}) }).createProvider(c);
  assert.equal("region" in p.runtime.config, false);
  assert.equal((p.runtime.provider.config as { region?: string }).region, undefined);
  assert.equal(
    s3ExtensionConfigSchema.safeParse({ bucket: "my-bucket", region: "EU West" }).success,
    false,
  );
  // Without one in the config, the environment's region is used, as the AWS
  // SDK reads it for the existing extension (never us-east-1 by default).
  for (
    const [env, want] of [
      [{ AWS_REGION: "eu-west-1" }, "eu-west-1"],
      [{ AWS_DEFAULT_REGION: "ap-south-1" }, "ap-south-1"],
      [{ AWS_REGION: "eu-west-1", AWS_DEFAULT_REGION: "ap-south-1" }, "eu-west-1"],
    ] as const
  ) {
    const q = createSluiceS3Datastore({ env: envFrom(env) }).createProvider(c);
    assert.equal((q.runtime.provider.config as { region?: string }).region, want);
    const given = createSluiceS3Datastore({ env: envFrom(env) })
      .createProvider({ bucket: "my-bucket", region: "us-west-2" });
    assert.equal((given.runtime.provider.config as { region?: string }).region, "us-west-2");
  }
  // Unchanged: the prefix and endpoint rules.
  assert.equal(
    s3ExtensionConfigSchema.safeParse({ bucket: "my-bucket", prefix: "/abs" }).success,
    false,
  );
  assert.equal(
    s3ExtensionConfigSchema.safeParse({ bucket: "my-bucket", endpoint: "ftp://x" }).success,
    false,
  );
});

Deno.test("entries: the README's swamp setup example configs are ones the entries take", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const examples = [
    ...readme.matchAll(
      /swamp datastore setup extension (@sluice\/[a-z0-9-]+) \\\n\s*--config '([^']*)'/g,
    ),
  ];
  assert.ok(examples.length > 0, "the README shows a swamp setup example");
  for (const [, type, json] of examples) {
    const ds = type === s3.type ? s3 : type === gcs.type ? gcs : undefined;
    assert.ok(ds, `${type} is one of the entries`);
    const config = JSON.parse(json);
    assert.doesNotThrow(() => ds.createProvider(config), `${type} --config '${json}'`);
  }
});

Deno.test("entries: the README's config keys of the swamp extension name every key its schemas take", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const start = readme.indexOf("**Config keys.**");
  const end = readme.indexOf("**What core gets.**", start);
  assert.ok(start > 0 && end > start, "the README has its Config keys paragraph");
  const paragraph = readme.slice(start, end);
  for (const schema of [s3ExtensionConfigSchema, gcsExtensionConfigSchema]) {
    for (const key of Object.keys(schema.shape)) {
      assert.ok(paragraph.includes(`\`${key}\``), `the Config keys paragraph names \`${key}\``);
    }
  }
});

Deno.test("entries: an unknown config key is ignored, as the existing extensions ignore it, and said, with the key it most resembles", () => {
  for (
    const [make, config, typo, near] of [
      [
        createSluiceS3Datastore,
        { bucket: "my-bucket", endpiont: "http://127.0.0.1:9000" },
        "endpiont",
        "endpoint",
      ],
      [createSluiceGcsDatastore, { bucket: "my-bucket", projectID: "p" }, "projectID", "projectId"],
    ] as const
  ) {
    const lines: string[] = [];
    const ds = make({ env: envFrom({}), warn: (l) => lines.push(l) });
    ds.createProvider({ ...config });
    const said = lines.filter((l) => l.includes("warning[config_key_unknown]"));
    assert.equal(said.length, 1, lines.join("\n"));
    assert.match(
      said[0],
      new RegExp(
        `key "${typo}" is not one this extension knows \\(did you mean "${near}"\\?\\): it was ignored`,
      ),
    );
  }
  // Known keys only: nothing said.
  const quiet: string[] = [];
  createSluiceS3Datastore({ env: envFrom({}), warn: (l) => quiet.push(l) }).createProvider({
    bucket: "my-bucket",
    region: "us-east-1",
  });
  assert.deepEqual(quiet, []);
});

Deno.test("entries: a key the other backend's datastore spells so (endpoint for apiEndpoint) is said with the name this one knows", () => {
  for (
    const [make, key, near] of [
      [createSluiceGcsDatastore, "endpoint", "apiEndpoint"],
      [createSluiceS3Datastore, "apiEndpoint", "endpoint"],
    ] as const
  ) {
    const lines: string[] = [];
    make({ env: envFrom({}), warn: (l) => lines.push(l) }).createProvider({
      bucket: "my-bucket",
      [key]: "http://127.0.0.1:4443",
    });
    const said = lines.filter((l) => l.includes("warning[config_key_unknown]"));
    assert.equal(said.length, 1, lines.join("\n"));
    assert.match(
      said[0],
      new RegExp(`key "${key}" is not one this extension knows \\(did you mean "${near}"\\?\\)`),
    );
  }
});

Deno.test("entries: a mistyped key of the store lock backend's section is said, with the timing it most resembles, not taken silently", () => {
  for (const make of [createSluiceS3Datastore, createSluiceGcsDatastore]) {
    const lines: string[] = [];
    make({ env: envFrom({}), warn: (l) => lines.push(l) }).createProvider({
      bucket: "my-bucket",
      lock: { ttl: 5_000 },
    });
    const said = lines.filter((l) => l.includes("warning[config_key_unknown]"));
    assert.equal(said.length, 1, lines.join("\n"));
    assert.match(
      said[0],
      /key "lock\.ttl" is not one this extension knows \(did you mean "lock\.ttlMs"\?\)/,
    );
  }
  // Another backend's section may hold keys of its own: nothing said.
  const quiet: string[] = [];
  createSluiceS3Datastore({
    env: envFrom({}),
    warn: (l) => quiet.push(l),
    lockRegistry: new LockBackendRegistry().register("mine", storeLockFactory),
  }).createProvider({ bucket: "my-bucket", lock: { backend: "mine", url: "http://kv" } });
  assert.deepEqual(quiet, []);
});
