/**
 * Starts a MinIO server (built from source by `.ci/install_minio.sh`) on
 * 127.0.0.1 with a temporary data directory, for the integration tests.
 *
 * @module
 */
import {
  freePort,
  ignoreWithout,
  locateBinary,
  randomName,
  type S3TestServer,
  s3TestServer,
  type ServerBinary,
  startServer,
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

/** A running MinIO server; its access and secret keys are the root user and password. */
export type MinioServer = S3TestServer;

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
  const accessKey = "sluiceadmin";
  const secretKey = `sluice-${randomName("secret")}`;
  const region = "us-east-1";
  const started = await startServer({
    binary: minioBinary,
    command: ({ port, dir }) => ({
      args: [
        "server",
        dir,
        "--address",
        `127.0.0.1:${port}`,
        "--console-address",
        `127.0.0.1:${freePort()}`,
        "--quiet",
      ],
      env: {
        MINIO_ROOT_USER: accessKey,
        MINIO_ROOT_PASSWORD: secretKey,
        MINIO_REGION: region,
        MINIO_BROWSER: "off",
        MINIO_UPDATE: "off",
        MINIO_CI_CD: "1",
      },
    }),
    waitUntilReady: async (endpoint, process) => {
      await waitForHttp(`${endpoint}/minio/health/live`, {
        process,
        timeoutMs: options.readyTimeoutMs ?? 60_000,
      });
      // Ready for S3 requests, not only alive.
      await waitForHttp(`${endpoint}/minio/health/ready`, { process, timeoutMs: 30_000 });
      // And its object layer up: on a loaded machine an S3 request can still
      // meet XMinioServerNotInitialized (503) after that; an unsigned one is
      // refused (403) once it is up.
      await waitForHttp(`${endpoint}/`, {
        process,
        timeoutMs: 30_000,
        ready: (status) => status < 500,
      });
    },
  });
  return s3TestServer(started, { accessKey, secretKey, region });
}
