/**
 * The extensions as swamp loads them: each entry file is bundled with
 * `deno bundle` from its extension root (where its `deno.json` import map
 * is), the bundle is imported as a module, and its `datastore` export passes
 * export conformance and creates a provider, a lock and a sync service
 * without any I/O. The bundler fetches npm packages into Deno's cache on
 * first use, so the first run needs the npm registry.
 */
import assert from "node:assert/strict";
import { assertSwampExportConformance } from "../packages/testing/swamp_conformance.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

async function bundle(backend: "s3" | "gcs"): Promise<Record<string, unknown>> {
  const out = `${await Deno.makeTempDir({ prefix: "sluice-bundle-" })}/${backend}.js`;
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform", "deno", `extensions/datastores/sluice_${backend}.ts`, "-o", out],
    cwd: `${ROOT}/extensions/${backend}`,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  const mod = await import(`file://${out}`);
  await Deno.remove(out.slice(0, out.lastIndexOf("/")), { recursive: true });
  return mod;
}

const cases = {
  s3: {
    valid: [{ bucket: "my-bucket", region: "us-east-1" }, {
      bucket: "my-bucket",
      prefix: "team",
      endpoint: "http://127.0.0.1:9000",
      forcePathStyle: true,
    }],
    invalid: [{}, { bucket: "ab" }, { bucket: "MyBucket" }, { bucket: "b-b", endpoint: "nope" }],
  },
  gcs: {
    valid: [{ bucket: "my_bucket.x" }, {
      bucket: "my-bucket",
      apiEndpoint: "http://127.0.0.1:4443",
    }],
    invalid: [{}, { bucket: "goog-x" }, { bucket: "x-google-y" }, {
      bucket: "b-b",
      apiEndpoint: "x",
    }],
  },
} as const;

for (const backend of ["s3", "gcs"] as const) {
  Deno.test({
    name: `${backend}: the bundled extension entry passes export conformance and builds its parts`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => {
      const mod = await bundle(backend);
      const datastore = mod.datastore as Parameters<typeof assertSwampExportConformance>[0];
      assertSwampExportConformance(datastore, {
        validConfigs: [...cases[backend].valid],
        invalidConfigs: [...cases[backend].invalid],
      });
      assert.equal(
        (datastore as { type: string }).type,
        backend === "s3" ? "@sluice/s3-datastore" : "@sluice/gcs-datastore",
      );
      const provider = (datastore as {
        createProvider(c: Record<string, unknown>): {
          resolveDatastorePath(r: string): string;
          resolveCachePath?(r: string): string | undefined;
          createSyncService?(repo: string, cache: string): { capabilities?(): unknown };
        };
      }).createProvider({ ...cases[backend].valid[1] });
      assert.equal(provider.resolveDatastorePath("/tmp/repo"), "/tmp/repo/.swamp");
      assert.equal(provider.resolveCachePath?.("/tmp/repo"), undefined);
      const caps = provider.createSyncService?.("/tmp/repo", "/tmp/never-created")
        .capabilities?.() as Record<string, boolean>;
      assert.equal(caps.twoPhaseSync, true);
      assert.equal(caps.scopedSync, true);
    },
  });
}
