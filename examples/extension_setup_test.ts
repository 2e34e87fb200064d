/**
 * The extension-setup example: a valid config builds the full gate pipeline;
 * bad config fails with a clear error naming the field. (The same setup runs
 * against MinIO in integration/incidents_minio_test.ts.)
 */
import assert from "node:assert/strict";
import { configureDatastore } from "./extension_setup.ts";
import { ConfigError } from "../sync/errors.ts";

Deno.test("a datastore setup JSON builds the default gate pipeline", async () => {
  const repo = await Deno.makeTempDir({ prefix: "sluice-ext-" });
  const ds = await configureDatastore(repo, {
    bucket: "team-bucket",
    prefix: "swamp",
    region: "us-east-1",
    endpoint: "http://127.0.0.1:1",
    conditionalWrites: "required",
  });
  assert.equal(ds.datastorePath, "s3://team-bucket/swamp");
  assert.ok(ds.cachePath.startsWith(repo));
  const names = ds.service.capabilities().gates;
  for (
    const gate of [
      "path-classifier",
      "lockfile-guard",
      "refused-run-eraser",
      "lock-fence",
      "create-only-writer",
      "endpoint-fallback-warner",
    ]
  ) {
    assert.ok(names.includes(gate), gate);
  }
  assert.equal(ds.service.config.conditionalWrites, "required");
});

Deno.test("bad datastore config names the field and what is expected", async () => {
  const repo = await Deno.makeTempDir({ prefix: "sluice-ext-" });
  await assert.rejects(
    configureDatastore(repo, { bucket: "team-bucket", concurrency: "eight" }),
    (e: unknown) =>
      e instanceof ConfigError && e.field === "concurrency" && /number/.test(e.message),
  );
  await assert.rejects(
    configureDatastore(repo, { bucket: "team-bucket", conditionalWrites: "sometimes" }),
    (e: unknown) => e instanceof ConfigError && e.field === "conditionalWrites",
  );
  await assert.rejects(
    configureDatastore(repo, { prefix: "p" }),
    (e: unknown) => e instanceof ConfigError && e.field === "bucket",
  );
});

Deno.test("the configs the example's own documentation shows are accepted as written", async () => {
  const source = await Deno.readTextFile(new URL("./extension_setup.ts", import.meta.url));
  // The command line its header gives, and the object its @example passes.
  const usage = /deno run -A examples\/extension_setup\.ts '([^']+)'/.exec(source);
  assert.ok(usage, "the header shows how to run it");
  const example = /configureDatastore\(await Deno\.makeTempDir\(\), (\{[^}]*\})\)/.exec(source);
  assert.ok(example, "the @example calls configureDatastore");
  const shown = [
    JSON.parse(usage[1]),
    JSON.parse(example[1].replace(/(\w+):/g, '"$1":')),
  ];
  for (const config of shown) {
    const repo = await Deno.makeTempDir({ prefix: "sluice-ext-" });
    const ds = await configureDatastore(repo, config).catch((e) => e);
    assert.ok(!(ds instanceof Error), `${JSON.stringify(config)}: ${ds}`);
  }
});
