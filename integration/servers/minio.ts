/**
 * Starts a MinIO server (built from source by `.ci/install_minio.sh`) on
 * 127.0.0.1 with a temporary data directory, for the integration tests.
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

/** Where the MinIO binary is: `SLUICE_MINIO_BIN`, else `<cache>/bin/minio`. */
export const minioBinary: ServerBinary = locateBinary(
  "minio",
  "SLUICE_MINIO_BIN",
  "minio",
  "bash .ci/install_minio.sh",
);

/** True when MinIO tests should be ignored (binary missing and servers not required). */
export const ignoreMinio: boolean = ignoreWithout(minioBinary);

/** A running MinIO server. */
export interface MinioServer {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Root user. */
  readonly accessKey: string;
  /** Root password. */
  readonly secretKey: string;
  /** Region to sign for. */
  readonly region: string;
  /** Client options for {@link createS3Client} / `S3Store` (path style, static credentials). */
  readonly clientOptions: S3ClientOptions;
  /** Creates a fresh bucket (random name unless given) and returns its name. */
  createBucket(name?: string): Promise<string>;
  /** Stops the server and removes its data directory. */
  stop(): Promise<void>;
}

/** Options of {@link startMinio}. */
export interface StartMinioOptions {
  /** Readiness timeout; default 60 000 ms. */
  readonly readyTimeoutMs?: number;
}

/**
 * Starts MinIO on free loopback ports with a temporary data directory and
 * waits for `/minio/health/live`.
 *
 * @example
 * ```ts
 * import { startMinio } from "./minio.ts";
 * const minio = await startMinio();
 * const bucket = await minio.createBucket();
 * console.log(minio.endpoint, bucket);
 * await minio.stop();
 * ```
 */
export async function startMinio(options: StartMinioOptions = {}): Promise<MinioServer> {
  const bin = minioBinary.path;
  if (!bin) throw missingBinaryError(minioBinary);
  const accessKey = "sluiceadmin";
  const secretKey = `sluice-${randomName("secret")}`;
  const region = "us-east-1";
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    const dataDir = await makeTempDir("minio");
    const port = freePort();
    const consolePort = freePort();
    const proc = spawnServer(bin, [
      "server",
      dataDir,
      "--address",
      `127.0.0.1:${port}`,
      "--console-address",
      `127.0.0.1:${consolePort}`,
      "--quiet",
    ], {
      MINIO_ROOT_USER: accessKey,
      MINIO_ROOT_PASSWORD: secretKey,
      MINIO_REGION: region,
      MINIO_BROWSER: "off",
      MINIO_UPDATE: "off",
      MINIO_CI_CD: "1",
    });
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await waitForHttp(`${endpoint}/minio/health/live`, {
        process: proc,
        timeoutMs: options.readyTimeoutMs ?? 60_000,
      });
      // Ready for S3 requests, not only alive.
      await waitForHttp(`${endpoint}/minio/health/ready`, { process: proc, timeoutMs: 30_000 });
    } catch (e) {
      lastError = e;
      await proc.stop(1_000);
      await removeTempDir(dataDir);
      continue;
    }
    const clientOptions: S3ClientOptions = {
      endpoint,
      region,
      forcePathStyle: true,
      credentials: { accessKeyId: accessKey, secretAccessKey: secretKey },
    };
    return {
      endpoint,
      accessKey,
      secretKey,
      region,
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
        await removeTempDir(dataDir);
      },
    };
  }
  throw new Error(`MinIO did not start after 3 attempts: ${String(lastError)}`);
}
