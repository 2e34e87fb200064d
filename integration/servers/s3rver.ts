/**
 * Starts s3rver (installed by `.ci/install_s3rver.sh`) on 127.0.0.1 with a
 * temporary directory. s3rver 3.7.1 silently ignores `If-None-Match` and
 * `If-Match` on PutObject (and `If-Match` on DeleteObject): every
 * conditional write succeeds. The integration tests use it as the endpoint
 * that only an active probe can catch.
 *
 * @module
 */
import {
  ignoreWithout,
  locateBinary,
  type S3TestServer,
  s3TestServer,
  type ServerBinary,
  startServer,
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

/** A running s3rver; it accepts the access and secret key `S3RVER`. */
export type S3rverServer = S3TestServer;

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
  const started = await startServer({
    binary: s3rverBinary,
    command: ({ port, dir }) => ({
      args: [
        "--directory",
        dir,
        "--address",
        "127.0.0.1",
        "--port",
        String(port),
        "--silent",
        "--no-vhost-buckets",
      ],
    }),
    // Any answer (s3rver refuses the anonymous request) means it listens.
    waitUntilReady: (endpoint, process) =>
      waitForHttp(`${endpoint}/`, { process, ready: (s) => s < 500, timeoutMs: 30_000 }),
  });
  return s3TestServer(started, { accessKey: "S3RVER", secretKey: "S3RVER", region: "us-east-1" });
}
