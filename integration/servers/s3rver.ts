/**
 * Starts s3rver (installed by `.ci/install_s3rver.sh`) on 127.0.0.1 with a
 * temporary directory. s3rver 3.7.1 silently ignores `If-None-Match` and
 * `If-Match` on PutObject (and `If-Match` on DeleteObject): every
 * conditional write succeeds. The integration tests use it as the endpoint
 * that only an active probe can catch.
 *
 * @module
 */
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { createS3Client, type S3ClientOptions } from "../../packages/s3/store.ts";
import {
  freePort,
  ignoreWithout,
  locateBinary,
  makeTempDir,
  missingBinaryError,
  randomName,
  removeTempDir,
  type ServerBinary,
  spawnServer,
  waitForHttp,
} from "./common.ts";

/** Where the s3rver launcher is: `SLUICE_S3RVER_BIN`, else `<cache>/bin/s3rver`. */
export const s3rverBinary: ServerBinary = locateBinary(
  "s3rver",
  "SLUICE_S3RVER_BIN",
  "s3rver",
  "bash .ci/install_s3rver.sh",
);

/** True when s3rver tests should be ignored (launcher missing and servers not required). */
export const ignoreS3rver: boolean = ignoreWithout(s3rverBinary);

/** A running s3rver. */
export interface S3rverServer {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Access key s3rver accepts (`S3RVER`). */
  readonly accessKey: string;
  /** Secret key s3rver accepts (`S3RVER`). */
  readonly secretKey: string;
  /** Region to sign for. */
  readonly region: string;
  /** Client options for {@link createS3Client} / `S3Store`. */
  readonly clientOptions: S3ClientOptions;
  /** Creates a fresh bucket (random name unless given) and returns its name. */
  createBucket(name?: string): Promise<string>;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts s3rver on a free loopback port and waits until it answers HTTP.
 *
 * @example
 * ```ts
 * import { startS3rver } from "./s3rver.ts";
 * const s3rver = await startS3rver();
 * const bucket = await s3rver.createBucket();
 * console.log(s3rver.endpoint, bucket);
 * await s3rver.stop();
 * ```
 */
export async function startS3rver(): Promise<S3rverServer> {
  const bin = s3rverBinary.path;
  if (!bin) throw missingBinaryError(s3rverBinary);
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const dir = await makeTempDir("s3rver");
    const port = freePort();
    const proc = spawnServer(bin, [
      "--directory",
      dir,
      "--address",
      "127.0.0.1",
      "--port",
      String(port),
      "--silent",
      "--no-vhost-buckets",
    ]);
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      // Any answer (s3rver refuses the anonymous request) means it listens.
      await waitForHttp(`${endpoint}/`, {
        process: proc,
        ready: (s) => s < 500,
        timeoutMs: 30_000,
      });
    } catch (e) {
      lastError = e;
      await proc.stop(1_000);
      await removeTempDir(dir);
      continue;
    }
    const clientOptions: S3ClientOptions = {
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    };
    return {
      endpoint,
      accessKey: "S3RVER",
      secretKey: "S3RVER",
      region: "us-east-1",
      clientOptions,
      async createBucket(name?: string): Promise<string> {
        const bucket = name ?? randomName("sluice");
        const client = createS3Client(clientOptions);
        try {
          await client.send(new CreateBucketCommand({ Bucket: bucket }));
        } finally {
          client.destroy();
        }
        return bucket;
      },
      async stop(): Promise<void> {
        await proc.stop();
        await removeTempDir(dir);
      },
    };
  }
  throw new Error(`s3rver did not start after 3 attempts: ${String(lastError)}`);
}
