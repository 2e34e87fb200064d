/**
 * The S3 client the store sends its requests with: how it is made
 * ({@link createS3Client}, with its credentials and checksum options), and
 * the options of the store that uses it ({@link S3StoreOptions}).
 *
 * @module
 */
import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import type { StoreRetryEvent } from "../store_kit/mod.ts";
import type { Clock } from "../../sync/ports.ts";

/** Static credentials. Without them the SDK's default provider chain is used. */
export interface S3Credentials {
  /** Access key id. */
  readonly accessKeyId: string;
  /** Secret access key. */
  readonly secretAccessKey: string;
  /** Session token of temporary credentials. */
  readonly sessionToken?: string;
}

/** Options of {@link createS3Client}. */
export interface S3ClientOptions {
  /** Region; default `us-east-1`. */
  readonly region?: string;
  /** Custom endpoint URL of an S3-compatible service, e.g. `http://127.0.0.1:9000`. */
  readonly endpoint?: string;
  /** Path-style addressing (`endpoint/bucket/key`), needed by most S3-compatibles. */
  readonly forcePathStyle?: boolean;
  /** Static credentials; default: the SDK's default chain (env, profile, SSO, IMDS, …). */
  readonly credentials?: S3Credentials;
  /**
   * Flexible checksums: `when_supported` (the SDK's default, CRC32 on every
   * put) or `when_required`. Default: `when_required` when `endpoint` is set
   * (many S3-compatibles reject the newer checksum headers), else
   * `when_supported`. With `when_supported` a streamed put is sent
   * `aws-chunked` with a trailing checksum.
   */
  readonly checksums?: "when_supported" | "when_required";
}

/** A logger that drops everything (the SDK's no-op logger still warns on the console). */
const SILENT_LOGGER: NonNullable<S3ClientConfig["logger"]> = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/**
 * Creates an `S3Client` configured the way Sluice needs it: SDK retries off
 * (`maxAttempts: 1`, the store retries), custom endpoint and path-style
 * addressing when given, credentials from the default chain unless given, and
 * a silent logger (the SDK would otherwise warn on the console).
 *
 * @example
 * ```ts
 * import { createS3Client } from "./client.ts";
 * const client = createS3Client({ endpoint: "http://127.0.0.1:9000", forcePathStyle: true });
 * client.destroy();
 * ```
 */
export function createS3Client(options: S3ClientOptions = {}): S3Client {
  const checksums = options.checksums ?? (options.endpoint ? "when_required" : "when_supported");
  const mode = checksums === "when_required" ? "WHEN_REQUIRED" : "WHEN_SUPPORTED";
  const config: S3ClientConfig = {
    region: options.region ?? "us-east-1",
    maxAttempts: 1,
    requestChecksumCalculation: mode,
    responseChecksumValidation: mode,
    // The SDK writes some warnings (a failed streamed request, busy sockets)
    // to the console unless it has a logger of its own; the library never logs.
    logger: SILENT_LOGGER,
  };
  if (options.endpoint !== undefined) config.endpoint = options.endpoint;
  if (options.forcePathStyle !== undefined) config.forcePathStyle = options.forcePathStyle;
  if (options.credentials !== undefined) {
    config.credentials = {
      accessKeyId: options.credentials.accessKeyId,
      secretAccessKey: options.credentials.secretAccessKey,
      ...(options.credentials.sessionToken === undefined
        ? {}
        : { sessionToken: options.credentials.sessionToken }),
    };
  }
  return new S3Client(config);
}

/**
 * How `delete(key, { ifVersion })` is made safe:
 *
 * - `native`: one `DeleteObject` with `If-Match`. Atomic on AWS S3 (general
 *   purpose buckets since 2025-09). Endpoints that silently ignore the header
 *   (MinIO's community edition does, as of its 2025/2026 builds) delete
 *   unconditionally: use only where the endpoint is known to honour it.
 * - `verify` (default): a `HeadObject` compares the version first, then a
 *   `DeleteObject` with `If-Match` follows. Atomic where the endpoint honours
 *   the header; elsewhere a check-then-delete with a short race window. When
 *   the endpoint refuses the header (501, or a 400 naming it), the delete is
 *   sent without it.
 * - `emulate`: `HeadObject` compare, then a plain `DeleteObject`. For
 *   endpoints that refuse `If-Match` on deletes.
 */
export type ConditionalDeleteStrategy = "native" | "verify" | "emulate";

/** What the store reports before sleeping for a retry. */
export type S3RetryEvent = StoreRetryEvent;

/** Options of {@link S3Store}. */
export interface S3StoreOptions extends S3ClientOptions {
  /** The bucket. */
  readonly bucket: string;
  /** Key prefix inside the bucket (store keys are relative to it); a trailing `/` is added. */
  readonly prefix?: string;
  /**
   * Per-attempt timeout in ms, combined with the caller's signal; default
   * 30 000. While a streamed body moves (a put's source or `getStream`'s
   * body), it is the longest wait without progress instead, so that a large
   * transfer is not cut off for taking long.
   */
  readonly requestTimeoutMs?: number;
  /** Extra attempts after a transient failure; default 3. */
  readonly retries?: number;
  /** First backoff in ms (doubled each retry, jittered ±50%); default 200. */
  readonly retryBaseDelayMs?: number;
  /** Largest backoff in ms; default 5 000. */
  readonly retryMaxDelayMs?: number;
  /** See {@link ConditionalDeleteStrategy}; default `verify`. */
  readonly conditionalDelete?: ConditionalDeleteStrategy;
  /** Time for backoff sleeps, attempt timeouts and put times; default the system clock. */
  readonly clock?: Clock;
  /** Random source in [0, 1) for jitter; default `Math.random`. */
  readonly random?: () => number;
  /**
   * An existing client (its own config wins; it should have `maxAttempts: 1`,
   * and a `logger`, else the SDK warns on the console when a streamed put
   * fails).
   */
  readonly client?: S3Client;
  /**
   * When a conditional put fails its condition, read the object back and
   * count the put as done if it carries this put's write id (our own earlier
   * attempt landed). Costs one HeadObject per failed condition; default true.
   */
  readonly checkOwnWrites?: boolean;
  /**
   * A streamed body (a `BodySource`) up to this many bytes is read whole and
   * sent as bytes; default 1 MiB. Sent as bytes, a request whose connection
   * drops before its body went out fails at once; with a piped body the HTTP
   * stack may wait for an answer that never comes, until the attempt times
   * out.
   */
  readonly wholeBodyBelowBytes?: number;
  /** Called before each retry sleep (the library never logs). */
  readonly onRetry?: (event: S3RetryEvent) => void;
}
