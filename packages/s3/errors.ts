/**
 * How answers of S3 and S3-compatible endpoints map to Sluice's typed errors.
 *
 * The functions here are pure: they look at an error thrown by
 * `@aws-sdk/client-s3` (or by the transport below it) and decide what it
 * means, so that they can be tested without a server. {@link S3Store} uses
 * {@link classifyS3Error} after every attempt and {@link toSluiceError} once
 * it stops retrying.
 *
 * This module holds the typed errors and the final mapping, and re-exports
 * the rest: the classification (`classify.ts`), the safe description of an
 * SDK error (`error_detail.ts`), the failure types (`failure.ts`), the hints
 * of configuration errors (`config_hints.ts`) and the bucket's region read
 * from a refusal (`bucket_region.ts`).
 *
 * @module
 */
import { ConfigError, type SluiceError } from "../../sync/errors.ts";
import { storeFailureToError, StoreRequestError } from "../store_kit/failure.ts";
import { bucketRegionOf } from "./bucket_region.ts";
import { S3_CREDENTIALS_HINT } from "./config_hints.ts";
import type { S3Failure, S3RequestContext } from "./failure.ts";

export { classifyS3Error, isWebPageRefusal } from "./classify.ts";
export { S3_CREDENTIALS_HINT } from "./config_hints.ts";
export { describeS3Error, redact } from "./error_detail.ts";
export {
  S3AttemptTimeout,
  type S3Failure,
  type S3FailureKind,
  type S3RequestContext,
} from "./failure.ts";

/**
 * An S3 request failed in a way that is neither a failed condition, a missing
 * object, a refusal of conditional writes nor an outage (for example a 400
 * the store did not expect). Never retried.
 */
export class S3RequestError extends StoreRequestError {
  constructor(ctx: S3RequestContext, failure: S3Failure, options: { cause?: unknown } = {}) {
    super(ctx, failure, { ...options, service: "the S3 endpoint" });
  }
}

/**
 * Strips the quotes (and a weak `W/` prefix) from an ETag.
 *
 * @example
 * ```ts
 * import { normaliseEtag } from "./errors.ts";
 * normaliseEtag('"9b2cf535f27731c974343645a3985328"'); // "9b2cf535f27731c974343645a3985328"
 * ```
 */
export function normaliseEtag(etag: string | undefined): string {
  if (!etag) return "";
  let e = etag.trim();
  if (e.startsWith("W/")) e = e.slice(2);
  if (e.length >= 2 && e.startsWith('"') && e.endsWith('"')) e = e.slice(1, -1);
  return e;
}

/**
 * Turns a classified failure into the typed error the store throws: a
 * refusal S3 gave no other meaning is an {@link S3RequestError}; every other
 * kind maps as on every backend, see {@link storeFailureToError}.
 *
 * @param attempts how many attempts were made (shown for outages)
 * @param where the store's endpoint description and prefix, named in messages
 *
 * @example
 * ```ts
 * import { classifyS3Error, toSluiceError } from "./errors.ts";
 * const err = Object.assign(new Error("x"), { name: "PreconditionFailed", $metadata: { httpStatusCode: 412 } });
 * const ctx = { op: "put", key: "k", condition: "update" } as const;
 * toSluiceError(classifyS3Error(err, ctx), ctx, err, 1); // PreconditionFailedError
 * ```
 */
export function toSluiceError(
  failure: S3Failure,
  ctx: S3RequestContext,
  cause: unknown,
  attempts: number,
  where: { readonly endpoint?: string; readonly prefix?: string } = {},
): SluiceError {
  if (failure.kind === "failed") {
    // Signed for another region than the bucket's: the same refusal at every
    // attempt, whose way out is the configured region.
    const region = bucketRegionOf(failure, cause);
    if (region !== undefined) {
      return new ConfigError(
        "region",
        `the bucket ${
          ctx.bucket ?? "(unknown)"
        } is in region ${region}, not the one this store signs its requests for: ${
          where.endpoint ?? "the S3 endpoint"
        } refused the ${ctx.op} of ${ctx.key} (${failure.detail}), so nothing was read or written; set the region to "${region}" (the datastore configuration's "region", or the store URL's region=)`,
        { cause },
      );
    }
    return new S3RequestError(ctx, failure, { cause });
  }
  // A missing bucket of another name than this store's: the endpoint's path
  // (a proxy's, or a typo) put it where the bucket goes in the request.
  const named = (cause as { BucketName?: unknown } | null)?.BucketName;
  if (
    failure.kind === "bucket_missing" && typeof named === "string" && ctx.bucket !== undefined &&
    named !== ctx.bucket
  ) {
    return new ConfigError(
      "endpoint",
      `${
        where.endpoint ?? "the S3 endpoint"
      } answered that the bucket ${named} does not exist, not ${ctx.bucket}: the endpoint's path most likely put "${named}" where the bucket goes in every request (${failure.detail}). Nothing was read or written; write the endpoint without that path (the store URL's endpoint=, or the datastore configuration's "endpoint"), unless a proxy serves the store there`,
      { cause },
    );
  }
  return storeFailureToError(failure, ctx, {
    cause,
    attempts,
    service: "the S3 endpoint",
    credentialsHint: S3_CREDENTIALS_HINT,
    ...where,
  });
}
