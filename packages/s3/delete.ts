/**
 * Deletes on S3 and S3-compatible endpoints, conditional on a version when
 * asked. Where the endpoint ignores or refuses `If-Match` on deletes (MinIO
 * ignores it), the {@link ConditionalDeleteStrategy} decides: `verify` reads
 * the version first and sends `If-Match` too, falling back to a plain delete
 * when the header is refused; `emulate` reads first and deletes plainly;
 * `native` trusts the header. Deleting an absent key succeeds.
 *
 * @module
 */
import { DeleteObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { NotImplementedError, PreconditionFailedError } from "../../sync/errors.ts";
import type { CallOptions, DeleteOptions, ObjectInfo } from "../../sync/ports.ts";
import type { AttemptFn } from "../store_kit/mod.ts";
import type { ConditionalDeleteStrategy } from "./client.ts";
import { classifyS3Error, normaliseEtag, type S3Failure, type S3RequestContext } from "./errors.ts";
import { quoteEtag } from "./metadata.ts";

/** What a delete needs of its store: the client, the bucket, the strategy, its retrying runner and its head. */
export interface DeleteDeps {
  readonly client: S3Client;
  readonly bucket: string;
  readonly strategy: ConditionalDeleteStrategy;
  /** Runs one request with the store's timeout and retries (see `S3Store`). */
  run<T>(
    ctx: S3RequestContext,
    signal: AbortSignal | undefined,
    attemptFn: AttemptFn<T>,
    resolveFailure?: (failure: S3Failure, lostAnswerBefore: boolean) => Promise<T | null>,
  ): Promise<T>;
  head(key: string, options: CallOptions): Promise<ObjectInfo | null>;
}

/**
 * Deletes `key` (whose full object key is `full`), conditional on
 * `options.ifVersion` when given; a failed condition throws
 * `PreconditionFailedError`.
 */
export async function deleteObject(
  s: DeleteDeps,
  key: string,
  full: string,
  options: DeleteOptions,
): Promise<void> {
  const ifVersion = options.ifVersion;
  const plainDelete = (ctx: S3RequestContext) =>
    s.run(ctx, options.signal, async (signal) => {
      try {
        await s.client.send(
          new DeleteObjectCommand({ Bucket: s.bucket, Key: full }),
          { abortSignal: signal },
        );
      } catch (e) {
        // Deleting an absent key succeeds (some endpoints answer 404).
        if (classifyS3Error(e, ctx).kind !== "not_found") throw e;
      }
      return true;
    });
  if (ifVersion === undefined) {
    await plainDelete({ op: "delete", key, bucket: s.bucket, noRetry: options.noRetry });
    return;
  }

  if (s.strategy !== "native") {
    const cur = await s.head(key, options);
    if (!cur) throw new PreconditionFailedError(key, "it does not exist");
    if (cur.version !== normaliseEtag(ifVersion)) {
      throw new PreconditionFailedError(key, `version ${cur.version}, expected ${ifVersion}`);
    }
    if (s.strategy === "emulate") {
      await plainDelete({ op: "delete", key, bucket: s.bucket });
      return;
    }
  }
  const ctx: S3RequestContext = { op: "delete", key, condition: "delete", bucket: s.bucket };
  try {
    await s.run(
      ctx,
      options.signal,
      async (signal) => {
        await s.client.send(
          new DeleteObjectCommand({
            Bucket: s.bucket,
            Key: full,
            IfMatch: quoteEtag(ifVersion),
          }),
          { abortSignal: signal },
        );
        return true;
      },
      // After a lost answer, "it does not exist" means our delete landed.
      (failure, lostAnswerBefore) =>
        Promise.resolve(
          lostAnswerBefore && failure.kind === "precondition_failed" && failure.status === 404
            ? true
            : null,
        ),
    );
  } catch (e) {
    if (e instanceof NotImplementedError && s.strategy === "verify") {
      // The endpoint refuses If-Match on deletes; the head check above stands in for it.
      await plainDelete({ op: "delete", key, bucket: s.bucket });
      return;
    }
    throw e;
  }
}
