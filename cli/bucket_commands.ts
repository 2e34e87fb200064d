/**
 * `sluice bucket create <store-url>`: creates the bucket a store URL names
 * (or a `file://` store's directory), so that a first push has somewhere to
 * go. Sluice never creates a bucket on its own: a mistyped bucket name must
 * fail, not start a new datastore.
 *
 * @module
 */
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { Command } from "commander";
import { ConfigError, SluiceError, UnreachableError } from "../sync/errors.ts";
import { S3Store } from "../packages/s3/store.ts";
import { classifyS3Error, toSluiceError as s3Error } from "../packages/s3/errors.ts";
import { GcsStore } from "../packages/gcs/store.ts";
import { classifyGcsError, toSluiceError as gcsError } from "../packages/gcs/errors.ts";
import { action, type RunState, VERBOSE_WARNINGS, withOutputOptions } from "./command_kit.ts";
import { type CliIo, type Output, shellWord, UsageError } from "./output.ts";
import { STORE_ENV } from "./session.ts";
import { endpointFields, openStore, parseStoreUrl, type StoreSpec } from "./store_url.ts";

/** What {@link createBucket} did. */
export type BucketOutcome = "created" | "existed";

/** The error code S3 and S3-compatibles answer when the caller already owns the bucket. */
const S3_OWNED = new Set(["BucketAlreadyOwnedByYou"]);

/**
 * Creates the bucket of `spec` through `store` (an {@link S3Store} or
 * {@link GcsStore} opened from it), or a `file://` store's directory.
 * A bucket the caller already owns is `existed`; any other refusal throws
 * the store's typed error (missing credentials, access denied, …).
 */
export async function createBucket(
  spec: StoreSpec,
  store: unknown,
  signal?: AbortSignal,
): Promise<BucketOutcome> {
  if (spec.kind === "file") {
    const existed = await Deno.stat(spec.root).then((s) => s.isDirectory, () => false);
    await Deno.mkdir(spec.root, { recursive: true });
    return existed ? "existed" : "created";
  }
  const ctx = { op: "put" as const, key: "(the bucket)", bucket: spec.bucket };
  if (spec.kind === "s3" && store instanceof S3Store) {
    const region = spec.region ?? (await store.client.config.region());
    try {
      await store.client.send(
        new CreateBucketCommand({
          Bucket: spec.bucket,
          ...(region && region !== "us-east-1"
            ? { CreateBucketConfiguration: { LocationConstraint: region as never } }
            : {}),
        }),
        { abortSignal: signal },
      );
      return "created";
    } catch (e) {
      const code = (e as { name?: string; Code?: string }).Code ?? (e as Error).name;
      if (S3_OWNED.has(code)) return "existed";
      if (code === "BucketAlreadyExists") throw taken(spec.bucket, e);
      throw s3Error(classifyS3Error(e, ctx, signal), ctx, e, 1, { endpoint: store.endpoint });
    }
  }
  if (spec.kind === "gcs" && store instanceof GcsStore) {
    try {
      await store.storage.createBucket(spec.bucket);
      return "created";
    } catch (e) {
      // A bucket belongs to a project: without one the client fails before
      // any request (reads and writes need none, so only creation asks).
      if (/Unable to detect a Project Id/i.test(String((e as Error)?.message ?? e))) {
        throw new ConfigError(
          "store.project",
          `a Google Cloud project to create the bucket ${spec.bucket} in: add ?project=<id> to the store URL (or set GOOGLE_CLOUD_PROJECT); nothing was sent and nothing was created`,
          { cause: e },
        );
      }
      const status = (e as { code?: unknown }).code;
      if (status === 409) {
        // GCS answers 409 both when the caller owns it and when someone else does.
        const exists = await store.storage.bucket(spec.bucket).exists().then(
          ([x]) => x,
          () => false,
        );
        if (exists) return "existed";
        throw taken(spec.bucket, e);
      }
      throw gcsError(classifyGcsError(e, ctx), ctx, store.endpoint, e);
    }
  }
  throw new ConfigError("store", "an s3://, gs:// or file:// store URL");
}

function taken(bucket: string, cause: unknown): SluiceError {
  return new ConfigError(
    "bucket",
    `the bucket name ${bucket} is taken by another account; nothing was created. Choose another bucket name`,
    { cause },
  );
}

/** Registers `bucket` and its subcommand `create`. */
export function bucketCommand(io: CliIo, state: RunState): Command {
  const bucket = new Command("bucket").description("create the bucket a store URL names");
  bucket.addCommand(
    withOutputOptions(
      new Command("create")
        .description(
          "create the bucket of an s3:// or gs:// store URL (or a file:// store's directory); a bucket you already own is left as it is",
        )
        .argument("[store-url]", `the store (default: $${STORE_ENV})`)
        .addHelpText(
          "after",
          "\nCredentials come from the environment, as for every command (AWS_* variables, or Application Default Credentials).\n\nExamples:\n  sluice bucket create 's3://my-bucket?endpoint=http://127.0.0.1:9000'\n  sluice bucket create 'gs://my-bucket?endpoint=http://127.0.0.1:4443&project=test'",
        ),
      VERBOSE_WARNINGS,
    ).action(action(io, state, "bucket create", async (out: Output, _cmd, url?: string) => {
      const given = url ?? (io.env?.[STORE_ENV] || undefined);
      if (!given) {
        throw new UsageError(
          `sluice bucket create needs a store URL: pass it as the argument (e.g. sluice bucket create 's3://my-bucket?endpoint=http://127.0.0.1:9000') or set $${STORE_ENV}. Nothing was created.`,
        );
      }
      const spec = parseStoreUrl(given, { cwd: io.cwd });
      const opened = openStore(spec, { env: io.env });
      try {
        const outcome = await createBucket(spec, opened.store, io.signal).catch((e) => {
          // The sync's advice (local changes stay dirty) does not fit here.
          if (!(e instanceof UnreachableError)) throw e;
          throw new SluiceError(
            "unreachable",
            `The endpoint could not be reached: ${e.detail}. No bucket was created. Check the endpoint in the store URL, then run \`sluice bucket create ${
              shellWord(given)
            }\` again.`,
            { cause: e },
          );
        });
        out.result("bucket create", { ...endpointFields(spec, opened.store), outcome });
        const name = spec.kind === "file" ? spec.root : spec.bucket;
        out.say(
          outcome === "created"
            ? `Created ${name}. Push a cache to it with \`sluice push --cache <dir> --store ${
              shellWord(given)
            }\` (add --init for a new cache directory).`
            : `${name} already exists and is yours; nothing was changed.`,
        );
      } finally {
        opened.close();
      }
    })),
  );
  return bucket;
}
