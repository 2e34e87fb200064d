/**
 * The command line against real servers, with what users get wrong first:
 * no credentials at all (MinIO, with no AWS variables and an empty home), a
 * bucket that does not exist (MinIO and fake-gcs-server: pull, push and
 * status), and an object name the endpoint refuses (MinIO). Each must be a
 * clear, coded, non-zero error, never "Already up to date" or `internal`.
 * The CLI runs as a process so that the SDKs see only the environment given.
 */
import assert from "node:assert/strict";
import { runCliEnv as cli } from "./cli_process.ts";
import { S3Store } from "../packages/s3/store.ts";
import { makeTempDir, missingBinaryError, removeTempDir } from "./servers/common.ts";
import { fakeGcsBinary, ignoreFakeGcs, startFakeGcs } from "./servers/fake_gcs.ts";
import { ignoreMinio, minioBinary, startMinio } from "./servers/minio.ts";

/** The environment of a CLI process that signs for `minio`, with `home` as HOME. */
function minioEnv(
  minio: { accessKey: string; secretKey: string; region: string },
  home: string,
): Record<string, string> {
  return {
    HOME: home,
    AWS_ACCESS_KEY_ID: minio.accessKey,
    AWS_SECRET_ACCESS_KEY: minio.secretKey,
    AWS_REGION: minio.region,
  };
}

/**
 * Pull, push and status of the new cache `c1` (which holds a file), and a push
 * of the new, empty cache `c3` (nothing to push: no write, but the store is
 * still asked), against `missing`: each a clear error naming the bucket.
 */
async function missingBucketFails(
  missing: string,
  env: Record<string, string>,
  dir: string,
): Promise<string> {
  let create = "";
  const runs = [["pull", "--init"], ["push", "--init"], ["status"], ["push", "--init"]];
  for (const [i, args] of runs.entries()) {
    const cache = i === 3 ? "c3" : "c1";
    const r = await cli([...args, "--cache", cache, "--store", missing], env, dir);
    const what = `${args.join(" ")} --cache ${cache}`;
    assert.equal(r.code, 78, `${what}: ${r.out}${r.err}`);
    assert.match(r.err, /"bucket": the bucket no-such-bucket-16 does not exist/, what);
    assert.doesNotMatch(r.out, /Already up to date|Nothing to push/, what);
    // The way out is named with this store's URL, ready to run.
    const named = r.err.match(/`sluice bucket create ('[^']*'|\S+)`/);
    assert.ok(named, `${what}: ${r.err}`);
    create = named[1].replace(/^'(.*)'$/, "$1");
    assert.equal(create, missing, what);
    // "Nothing was changed" holds in the cache too: no state directory is
    // left in c1, and the new cache c3 is not left behind.
    const left: string[] = [];
    for await (const e of Deno.readDir(`${dir}/c1`)) left.push(e.name);
    assert.deepEqual(left, ["notes"], what);
    await assert.rejects(Deno.stat(`${dir}/c3`), Deno.errors.NotFound, what);
  }
  return create;
}

Deno.test({
  name: "CLI on MinIO: no credentials, a missing bucket and a refused object name are clear errors",
  ignore: ignoreMinio,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    if (!minioBinary.path) throw missingBinaryError(minioBinary);
    const minio = await startMinio();
    const dir = await makeTempDir("cli-config");
    try {
      const home = `${dir}/home`;
      await Deno.mkdir(home);
      const keys = minioEnv(minio, home);
      const bucket = await minio.createBucket();
      const url = (b: string) => `s3://${b}/team?endpoint=${minio.endpoint}`;

      const noKeys = await cli(["pull", "--init", "--cache", "c0", "--store", url(bucket)], {
        HOME: home,
      }, dir);
      assert.equal(noKeys.code, 78, noKeys.err);
      assert.match(
        noKeys.err,
        /^error\[invalid_config\]: .*"credentials": no credentials were found/,
      );
      assert.match(noKeys.err, /AWS_ACCESS_KEY_ID/);

      await Deno.mkdir(`${dir}/c1/notes`, { recursive: true });
      await Deno.writeTextFile(`${dir}/c1/notes/a.txt`, "a");
      const create = await missingBucketFails(url("no-such-bucket-16"), keys, dir);
      // A first pull of a datastore that holds nothing is refused, and makes no cache.
      const empty = await cli(
        ["pull", "--init", "--cache", "c2", "--store", url(bucket)],
        keys,
        dir,
      );
      assert.equal(empty.code, 66, empty.err);
      assert.match(empty.err, /^error\[store_not_found\]: Nothing was pulled: .* holds no index/);
      const nothing = await cli(
        ["push", "--init", "--cache", "c2", "--store", url(bucket)],
        keys,
        dir,
      );
      assert.equal(nothing.code, 0, nothing.err);
      assert.match(nothing.out, /^Nothing to push: the cache holds no file to publish yet/);
      // The failed commands did not tie c1 to the mistyped bucket: the right one is taken.
      const fixed = await cli(
        ["push", "--init", "--cache", "c1", "--store", url(bucket)],
        keys,
        dir,
      );
      assert.equal(fixed.code, 0, `${fixed.out}${fixed.err}`);
      assert.match(fixed.out, /^Pushed 1 file/m);
      const later = await cli(["push", "--cache", "c1"], keys, dir);
      assert.equal(later.code, 0, "now the cache records the store that answered");
      // A command that succeeds without asking the store does not tie the cache to it either.
      await Deno.mkdir(`${dir}/c4`);
      const local = await cli(
        ["lockfile", "retry", "--cache", "c4", "--store", url("no-such-bucket-16")],
        keys,
        dir,
      );
      assert.equal(local.code, 0, local.err);
      await Deno.writeTextFile(`${dir}/c4/c.txt`, "c");
      const right = await cli(
        ["push", "--init", "--cache", "c4", "--store", url(bucket)],
        keys,
        dir,
      );
      assert.equal(right.code, 0, `${right.out}${right.err}`);
      // The command the missing-bucket error named, run as printed, creates it.
      const created = await cli(["bucket", "create", create], keys, dir);
      assert.equal(created.code, 0, `${created.out}${created.err}`);
      await Deno.mkdir(`${dir}/c5`);
      await Deno.writeTextFile(`${dir}/c5/e.txt`, "e");
      const into = await cli(["push", "--init", "--cache", "c5", "--store", create], keys, dir);
      assert.equal(into.code, 0, `${into.out}${into.err}`);
      assert.match(into.out, /^Pushed 1 file/m);

      const store = new S3Store({ ...minio.clientOptions, bucket, prefix: "team" });
      try {
        const refused = await store.get("a/../../b").then(() => null, (e) => e);
        assert.equal(refused?.code, "invalid_object_name", String(refused));
      } finally {
        store.close();
      }
    } finally {
      await removeTempDir(dir);
      await minio.stop();
    }
  },
});

Deno.test({
  name:
    "CLI on fake-gcs-server: pull, push (one with nothing to push too) and status of a missing bucket fail naming it",
  ignore: ignoreFakeGcs,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    if (!fakeGcsBinary.path) throw missingBinaryError(fakeGcsBinary);
    const gcs = await startFakeGcs();
    const dir = await makeTempDir("cli-config-gcs");
    try {
      const env = { HOME: dir };
      const url = (b: string) =>
        `gs://${b}/team?endpoint=${gcs.apiEndpoint}&project=${gcs.projectId}`;
      await Deno.mkdir(`${dir}/c1/notes`, { recursive: true });
      await Deno.writeTextFile(`${dir}/c1/notes/a.txt`, "a");
      await missingBucketFails(url("no-such-bucket-16"), env, dir);
      const bucket = await gcs.createBucket();
      // The failed commands did not tie c1 to the mistyped bucket: the right one is taken.
      const fixed = await cli(
        ["push", "--init", "--cache", "c1", "--store", url(bucket)],
        env,
        dir,
      );
      assert.equal(fixed.code, 0, `${fixed.out}${fixed.err}`);
      assert.match(fixed.out, /^Pushed 1 file/m);
      const pulled = await cli(
        ["pull", "--init", "--cache", "c2", "--store", url(bucket)],
        env,
        dir,
      );
      assert.equal(pulled.code, 0, pulled.err);
      assert.match(pulled.out, /^Pulled 1 file/);
    } finally {
      await removeTempDir(dir);
      await gcs.stop();
    }
  },
});

Deno.test({
  name:
    "CLI: a gs:// URL naming MinIO and an s3:// URL naming fake-gcs-server fail on the endpoint (78), saying which scheme fits",
  ignore: ignoreMinio || ignoreFakeGcs,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    if (!minioBinary.path) throw missingBinaryError(minioBinary);
    if (!fakeGcsBinary.path) throw missingBinaryError(fakeGcsBinary);
    const minio = await startMinio();
    const gcs = await startFakeGcs();
    const dir = await makeTempDir("cli-cross-scheme");
    try {
      const env = minioEnv(minio, dir);
      const s3Bucket = await minio.createBucket();
      const gcsBucket = await gcs.createBucket();
      await Deno.mkdir(`${dir}/c1/notes`, { recursive: true });
      await Deno.writeTextFile(`${dir}/c1/notes/a.txt`, "a");
      const cases = [
        [
          `gs://${s3Bucket}/team?endpoint=${minio.endpoint}&project=${gcs.projectId}`,
          /an XML error, as S3-compatible servers answer rather than an answer of GCS/,
          /use an s3:\/\/ store URL/,
        ],
        [
          `s3://${gcsBucket}/team?endpoint=${gcs.apiEndpoint}`,
          /rather than an answer of the S3 endpoint/,
          /most likely the endpoint URL names another server/,
        ],
      ] as const;
      for (const [url, what, todo] of cases) {
        for (const args of [["push", "--init"], ["probe"]]) {
          const r = await cli(
            args[0] === "probe" ? ["probe", url] : [...args, "--cache", "c1", "--store", url],
            env,
            dir,
          );
          const name = `${args[0]} ${url}`;
          assert.equal(r.code, 78, `${name}: ${r.out}${r.err}`);
          assert.match(r.err, /^error\[invalid_config\]: .*"endpoint"/m, name);
          assert.match(r.err, what, name);
          assert.match(r.err, todo, name);
        }
      }
      // A push's first write is a probe's put: the JSON 404 names the GCS scheme.
      const probe = await cli(["probe", cases[1][0]], env, dir);
      assert.match(probe.err, /a JSON error, as the Google Cloud Storage JSON API answers/);
      assert.match(probe.err, /use a gs:\/\/ store URL/);
    } finally {
      await removeTempDir(dir);
      await gcs.stop();
      await minio.stop();
    }
  },
});
