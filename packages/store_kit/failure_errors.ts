/**
 * The typed errors a store throws for a classified failure, and their
 * messages: the request as messages name it, {@link StoreRequestError} for
 * failures of no other kind, and {@link storeFailureToError}, which gives
 * the same error class for the same kind on every backend, with hints on
 * the endpoint, the bucket and the credentials to check.
 *
 * @module
 */
import {
  AbortedError,
  AlreadyExistsError,
  ConfigError,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  SluiceError,
  UnreachableError,
} from "../../sync/errors.ts";
import type { StoreFailure, StoreRequestContext } from "./failure.ts";

/**
 * The request as messages name it: `put of data/m/1/raw`, followed by
 * ` at <endpoint>` when the endpoint is given.
 *
 * @example
 * ```ts
 * import { describeRequest } from "./failure_errors.ts";
 * describeRequest({ op: "get", key: "a" }, "gs://b/p"); // "get of a at gs://b/p"
 * ```
 */
export function describeRequest(ctx: StoreRequestContext, endpoint?: string): string {
  return `${ctx.op} of ${ctx.key}${endpoint ? ` at ${endpoint}` : ""}`;
}

/** Options of {@link StoreRequestError} and {@link storeFailureToError}. */
export interface StoreErrorOptions {
  /** Where the request went (`gs://bucket/prefix`), named in messages when given. */
  readonly endpoint?: string;
  /** Who refused, as messages name it; default `the endpoint`. */
  readonly service?: string;
  /** Kept as the error's `cause` (pass a redacted copy when the original carries secrets). */
  readonly cause?: unknown;
  /** How many attempts were made, shown for outages; default 1. */
  readonly attempts?: number;
  /**
   * Where credentials come from and how to provide them, for a
   * `credentials_missing` failure (e.g. the AWS variables and profile files).
   */
  readonly credentialsHint?: string;
  /** The store's key prefix, named when the endpoint refuses an object name. */
  readonly prefix?: string;
  /**
   * The datastore configuration's key of the endpoint, named where the
   * endpoint is the thing to check; default `endpoint` (GCS: `apiEndpoint`).
   */
  readonly endpointKey?: string;
  /**
   * How to create the bucket, for a `bucket_missing` failure; default
   * `` `sluice bucket create <store-url>` ``.
   */
  readonly createBucketHint?: string;
}

/**
 * A request failed in a way that is neither a failed condition, a missing
 * object, a refusal of conditional writes nor an outage (for example a 400
 * the store did not expect). Never retried.
 *
 * @example
 * ```ts
 * import { StoreRequestError } from "./failure_errors.ts";
 * const e = new StoreRequestError(
 *   { op: "put", key: "k" },
 *   { kind: "failed", status: 400, ambiguous: false, detail: "HTTP 400 InvalidArgument" },
 * );
 * console.log(e.code); // "internal"
 * ```
 */
export class StoreRequestError extends SluiceError {
  /** The classified failure. */
  readonly failure: StoreFailure;
  constructor(ctx: StoreRequestContext, failure: StoreFailure, options: StoreErrorOptions = {}) {
    super(
      "internal",
      `The ${describeRequest(ctx, options.endpoint)} was refused by ${
        options.service ?? "the endpoint"
      } (${failure.detail}). Nothing was changed by this request; check the endpoint's documentation for the error code, then run the command again.`,
      options.cause === undefined ? {} : { cause: options.cause },
    );
    this.failure = failure;
  }
}

/**
 * Turns a classified failure into the typed error a store throws: the same
 * kind gives the same error class on every backend, with the request, the
 * endpoint (when given) and the failure's redacted detail in its message.
 *
 * @example
 * ```ts
 * import { storeFailureToError } from "./failure_errors.ts";
 * const e = storeFailureToError(
 *   { kind: "transient", status: 503, ambiguous: true, detail: "HTTP 503" },
 *   { op: "get", key: "a" },
 *   { endpoint: "s3://b", attempts: 3 },
 * );
 * console.log(e.code); // "unreachable"
 * ```
 */
export function storeFailureToError(
  failure: StoreFailure,
  ctx: StoreRequestContext,
  options: StoreErrorOptions = {},
): SluiceError {
  const opts = options.cause === undefined ? {} : { cause: options.cause };
  const where = describeRequest(ctx, options.endpoint);
  const service = options.service ?? "the endpoint";
  const endpointKeys = `the store URL's endpoint=, or the datastore configuration's "${
    options.endpointKey ?? "endpoint"
  }"`;
  switch (failure.kind) {
    case "already_exists":
      return new AlreadyExistsError(ctx.key, undefined, opts);
    case "precondition_failed":
      return new PreconditionFailedError(
        ctx.key,
        failure.status === 404 ? `it does not exist; ${failure.detail}` : failure.detail,
        opts,
      );
    case "not_found":
      return new NotFoundError(ctx.key, opts);
    case "not_implemented":
      return new NotImplementedError(
        ctx.key,
        options.endpoint ? `${options.endpoint}: ${failure.detail}` : failure.detail,
        opts,
      );
    case "aborted":
      return new AbortedError(`The ${where}`, opts);
    case "transient": {
      const attempts = options.attempts ?? 1;
      return new UnreachableError(
        `the ${where} failed after ${attempts} attempt${
          attempts === 1 ? "" : "s"
        }, last: ${failure.detail}${noServerHint(failure.code, endpointKeys)}`,
        opts,
      );
    }
    case "bucket_missing":
      return new ConfigError(
        "bucket",
        `the bucket ${ctx.bucket ?? "(unknown)"} does not exist at ${
          options.endpoint ?? "the endpoint"
        } (${failure.detail}), so nothing was read from it or written to it (a missing bucket is never taken for an empty datastore); correct the bucket name, or create the bucket (${
          options.createBucketHint ?? "`sluice bucket create <store-url>`"
        })`,
        opts,
      );
    case "credentials_missing":
      return new ConfigError(
        "credentials",
        `no credentials were found for the ${where} (${failure.detail}), so no request was sent and nothing was read or written; ${
          options.credentialsHint ?? "provide credentials to the store"
        }`,
        opts,
      );
    case "invalid_name":
      return new SluiceError(
        "invalid_object_name",
        `${service.charAt(0).toUpperCase()}${
          service.slice(1)
        } refused the object name of the ${where}${
          options.prefix !== undefined ? ` (prefix ${JSON.stringify(options.prefix)})` : ""
        } as invalid (${failure.detail}). Nothing was read or written for it. Check the store's prefix and the path; Sluice itself never sends '.', '..' or empty segments.`,
        opts,
      );
    case "access_denied":
      return new ConfigError(
        "credentials",
        `${service} refused the ${where} (${failure.detail}); check the credentials and their permissions on the bucket`,
        opts,
      );
    case "not_the_service":
      return new ConfigError(
        "endpoint",
        `the ${where} was answered with ${failure.detail}, ${
          failure.foreign?.what ?? "a web page"
        } rather than an answer of ${service}: most likely the endpoint URL names another server (check its host, port and path${
          failure.foreign ? `; ${failure.foreign.hint}` : ""
        }), set as ${endpointKeys}. Nothing was read from it or written to it, and nothing was taken for an empty datastore`,
        opts,
      );
    case "failed":
      return new StoreRequestError(ctx, failure, options);
  }
}

/**
 * For a connection refused or a host name that does not resolve, which a
 * server that is down and a mistyped endpoint both give: the endpoint to
 * check, so that a typo in the port is not waited out as an outage.
 */
function noServerHint(code: string | undefined, endpointKeys: string): string {
  if (code === "ECONNREFUSED") {
    return ` (nothing accepts connections at that host and port: if the server is up, check the endpoint's host and port: ${endpointKeys})`;
  }
  if (code === "ENOTFOUND") {
    return ` (the host name does not resolve: check the endpoint's host: ${endpointKeys})`;
  }
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER") {
    return " (the server at that host and port does not answer TLS: if it serves plain HTTP, write the endpoint with http://, not https://)";
  }
  return "";
}
