import assert from "node:assert/strict";
import { FsStore } from "../packages/fs/mod.ts";
import { S3Store } from "../packages/s3/store.ts";
import { GcsStore } from "../packages/gcs/store.ts";
import { openStore } from "./open_store.ts";
import { parseStoreUrl } from "./store_url.ts";

Deno.test("openStore makes the store a spec describes, without a request", async () => {
  const root = await Deno.makeTempDir();
  const file = openStore(parseStoreUrl(`file://${root}`));
  assert.ok(file.store instanceof FsStore);
  assert.equal(file.store.endpoint, `file://${root}`);
  file.close();

  const s3 = openStore(parseStoreUrl("s3://bkt/pre?endpoint=http://127.0.0.1:9"), {
    env: { AWS_ACCESS_KEY_ID: "id", AWS_SECRET_ACCESS_KEY: "secret" },
  });
  assert.ok(s3.store instanceof S3Store);
  assert.equal(s3.store.bucket, "bkt");
  assert.equal(s3.store.prefix, "pre/");
  assert.match(s3.store.endpoint, /^s3:\/\/bkt\/pre at http:\/\/127\.0\.0\.1:9/);
  s3.close();
  s3.close();

  const gcs = openStore(parseStoreUrl("gs://bkt/pre?endpoint=http://127.0.0.1:9&project=p"));
  assert.ok(gcs.store instanceof GcsStore);
  assert.match(gcs.store.endpoint, /^gs:\/\/bkt\/pre/);
  gcs.close();
  await Deno.remove(root, { recursive: true });
});
