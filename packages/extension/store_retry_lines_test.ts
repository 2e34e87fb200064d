/**
 * A request the S3 or GCS store retries is said on standard error through
 * the extension too (`store_retry`), as the command line says it: against
 * an endpoint that never answers a sync otherwise waits
 * `(retries + 1) × requestTimeoutMs` (about two minutes by default) with
 * nothing written for the tool's user.
 */
import assert from "node:assert/strict";
import { createSluiceS3Datastore } from "../../extensions/s3/extensions/datastores/sluice_s3.ts";
import { createSluiceGcsDatastore } from "../../extensions/gcs/extensions/datastores/sluice_gcs.ts";
import { envFrom } from "./env.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";

// Port 2 on the loopback refuses connections at once: every attempt fails fast.
const REFUSED = "http://127.0.0.1:2";
const retry = { retries: 1, minTimeoutMs: 0, maxTimeoutMs: 0 };

for (
  const [name, make, config] of [
    [
      "s3",
      (warn: (l: string) => void) =>
        createSluiceS3Datastore({
          env: envFrom({}),
          warn,
          conditional: new ConditionalWrites(),
          credentials: { accessKeyId: "k", secretAccessKey: "s" },
        }),
      { bucket: "bkt", region: "us-east-1", endpoint: REFUSED, retry },
    ],
    [
      "gcs",
      (warn: (l: string) => void) =>
        createSluiceGcsDatastore({ env: envFrom({}), warn, conditional: new ConditionalWrites() }),
      { bucket: "bkt", projectId: "p", apiEndpoint: REFUSED, retry },
    ],
  ] as const
) {
  Deno.test(`${name} entry: a retried request is told on standard error (store_retry) before the sync fails`, async () => {
    const lines: string[] = [];
    const ds = make((l) => lines.push(l));
    const cache = await Deno.makeTempDir({ prefix: "sluice-ext-retry-" });
    try {
      const svc = ds.createProvider(config).createSyncService!("/repo", cache);
      await svc.markDirty({ relPath: "notes/a.md" });
      await Deno.mkdir(`${cache}/notes`);
      await Deno.writeTextFile(`${cache}/notes/a.md`, "a");
      const err = await svc.pushChanged({}).then(() => null, (e) => e);
      assert.equal(err?.code, "unreachable");
      assert.ok(
        lines.some((l) => l.includes("warning[store_retry]")),
        `no retry was told:\n${lines.join("\n")}`,
      );
    } finally {
      await Deno.remove(cache, { recursive: true });
    }
  });
}
