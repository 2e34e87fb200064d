/**
 * An {@link ObjectStore} over Amazon S3 and S3-compatible endpoints (MinIO,
 * Ceph, R2, …), built on `@aws-sdk/client-s3`.
 *
 * Conditional writes use `If-None-Match: *` (create) and `If-Match: <etag>`
 * (update); the endpoint's answers are mapped by `./errors.ts`. The SDK's own
 * retries are off (`maxAttempts: 1`); the store retries transient failures
 * itself, with jittered exponential backoff, and bounds every attempt with a
 * timeout combined with the caller's signal.
 *
 * Endpoint behaviour this store relies on or works around (checked against
 * the MinIO build of `.ci/install_minio.sh` and s3rver 3.7.1):
 *
 * - MinIO answers 412 to a second `If-None-Match: *` and to a stale
 *   `If-Match`, and 404 `NoSuchKey` to `If-Match` on a missing key (older
 *   builds created the object). It ignores `If-Match` on `DeleteObject`
 *   (deletes anyway), hence the default {@link ConditionalDeleteStrategy}
 *   `verify`.
 * - s3rver ignores both headers on puts and `If-Match` on deletes: every
 *   conditional put succeeds. Only an active probe detects that.
 * - An HTTP stack may resend a request on its own when a reused keep-alive
 *   connection closes before the answer (Deno's `node:http` does), so a
 *   conditional put can meet its own first copy and get 412. Each
 *   conditional put therefore carries a random write id in user metadata
 *   ({@link WRITE_ID}); on a failed condition the store reads the object
 *   back and counts the put as done when the id is its own.
 *
 * A {@link BodySource} body is streamed: each attempt opens `source.stream()`
 * afresh and hands the SDK a Node `Readable` over it with `Content-Length:
 * source.size`. The last chunk is held back until the source has ended with
 * exactly `size` bytes, so a source that fails, runs short or runs long never
 * delivers a complete body: the request is aborted and the endpoint keeps
 * what it had. `getStream` hands back the response body as a web stream.
 *
 * @module
 */
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { bodyBytes, isBodySource } from "../../sync/transfer/body.ts";
import {
  type AttemptFn,
  AttemptRunner,
  checkedPrefix,
  describeEndpoint,
  joinKey,
  SourceFailure,
} from "../store_kit/mod.ts";
import { randomId } from "../../sync/hash.ts";
import { UnsafePathError } from "../../sync/errors.ts";
import type {
  CallOptions,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
} from "../../sync/ports.ts";
import {
  classifyS3Error,
  normaliseEtag,
  S3AttemptTimeout,
  type S3Failure,
  type S3RequestContext,
  toSluiceError,
} from "./errors.ts";
import { type ConditionalDeleteStrategy, createS3Client, type S3StoreOptions } from "./client.ts";
import { openUpload, settleOnAbort } from "./upload.ts";
import { guardBody, webBody } from "./download.ts";
import { captureDate } from "./server_clock.ts";
import { checkMetadata, quoteEtag, splitMetadata, WRITE_ID } from "./metadata.ts";
import { deleteObject } from "./delete.ts";

export { WRITE_ID } from "./metadata.ts";

/**
 * An {@link ObjectStore} on S3 or an S3-compatible endpoint.
 *
 * - keys are relative to `prefix`; versions are ETags without quotes;
 * - `put` with `create` sends `If-None-Match: *`, with `update` `If-Match`;
 * - user metadata travels as `x-amz-meta-*`;
 * - transient failures (transport, timeout, 5xx, 429, 409
 *   `ConditionalRequestConflict`) are retried `retries` times, then surface
 *   as `UnreachableError`;
 * - a conditional put that fails its condition is checked against the
 *   object's write id, so our own earlier attempt that landed is not
 *   reported as a conflict (one extra HeadObject per failed condition);
 * - a conditional delete whose earlier attempt lost its answer and that then
 *   finds the object gone counts as done;
 * - messages carry request ids and a short redacted body preview, never
 *   credentials or signed URLs.
 *
 * @example
 * ```ts
 * import { S3Store } from "./store.ts";
 * import { PutModes } from "../../sync/ports.ts";
 * const store = new S3Store({
 *   bucket: "my-bucket",
 *   prefix: "datastore",
 *   endpoint: "http://127.0.0.1:9000",
 *   forcePathStyle: true,
 *   credentials: { accessKeyId: "minioadmin", secretAccessKey: "minioadmin" },
 * });
 * const info = await store.put("a.txt", new TextEncoder().encode("hi"), PutModes.create);
 * await store.put("a.txt", new TextEncoder().encode("ho"), PutModes.update(info.version));
 * store.close();
 * ```
 */
export class S3Store implements ObjectStore {
  readonly endpoint: string;
  /** This store retries transient failures itself; the sync service does not retry it again. */
  readonly retriesInternally = true;
  /**
   * True unless deletes are `native`: a conditional delete is then a check
   * and a delete, which an endpoint ignoring `If-Match` (MinIO) makes a race.
   */
  readonly deletesChecked: boolean;
  /** The bucket. */
  readonly bucket: string;
  /** The normalised key prefix (`""` or ending in `/`). */
  readonly prefix: string;
  /** The SDK client (shared with the caller when injected). */
  readonly client: S3Client;

  readonly #ownsClient: boolean;
  readonly #runner: AttemptRunner;
  readonly #deleteStrategy: ConditionalDeleteStrategy;
  readonly #secrets: readonly string[];
  readonly #checkOwnWrites: boolean;
  readonly #wholeBelow: number;

  constructor(options: S3StoreOptions) {
    if (!options.bucket) throw new UnsafePathError("", "an S3 store needs a bucket name");
    this.bucket = options.bucket;
    this.prefix = checkedPrefix(options.prefix ?? "");
    this.client = options.client ?? createS3Client(options);
    this.#ownsClient = options.client === undefined;
    this.#runner = new AttemptRunner(options, (ms) => new S3AttemptTimeout(ms));
    this.#deleteStrategy = options.conditionalDelete ?? "verify";
    this.deletesChecked = this.#deleteStrategy !== "native";
    this.#checkOwnWrites = options.checkOwnWrites ?? true;
    this.#wholeBelow = options.wholeBodyBelowBytes ?? 1024 * 1024;
    const c = options.credentials;
    // The secret and the session token are never shown. The key id is no
    // secret: it is hidden only when long enough (AWS's are 20 characters)
    // not to be a word that messages carry (an id "sluice" hid `.sluice/`).
    this.#secrets = c
      ? [c.secretAccessKey, c.sessionToken ?? "", c.accessKeyId.length >= 16 ? c.accessKeyId : ""]
      : [];
    this.endpoint = describeEndpoint("s3", this.bucket, this.prefix, options.endpoint);
  }

  /** Releases the client's sockets when the store created the client. */
  close(): void {
    if (this.#ownsClient) this.client.destroy();
  }

  async get(key: string, options: CallOptions = {}): Promise<GetResult> {
    const full = this.#full(key);
    const ctx: S3RequestContext = { op: "get", key, bucket: this.bucket };
    return await this.#run(ctx, options.signal, async (signal) => {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: full }),
        { abortSignal: signal },
      );
      const body = out.Body ? await out.Body.transformToByteArray() : new Uint8Array();
      return {
        key,
        version: normaliseEtag(out.ETag),
        size: body.length,
        lastModified: out.LastModified?.getTime() ?? 0,
        metadata: splitMetadata(out.Metadata).metadata,
        body,
      };
    });
  }

  async head(key: string, options: CallOptions = {}): Promise<ObjectInfo | null> {
    return (await this.#headRaw(key, options.signal))?.info ?? null;
  }

  async put(
    key: string,
    body: PutBody,
    mode: PutMode,
    options: PutOptions = {},
  ): Promise<ObjectInfo> {
    const full = this.#full(key);
    const metadata = checkMetadata(key, options.metadata);
    const condition = mode.kind === "overwrite" ? undefined : mode.kind;
    const ctx: S3RequestContext = { op: "put", key, condition, bucket: this.bucket };
    // A small source is read whole and sent as bytes: one write, and the HTTP
    // stack notices a connection dropped before the body went out (with a
    // piped body it may wait for an answer that never comes).
    if (isBodySource(body) && body.size <= this.#wholeBelow) body = await bodyBytes(body, key);
    const source = isBodySource(body) ? body : undefined;
    const size = source ? source.size : (body as Uint8Array).length;
    // A conditional put carries a random write id, so that a failed condition
    // can be told apart from our own earlier attempt that landed (an answer
    // lost to a reset, or a request the HTTP stack resent on its own).
    const writeId = condition && this.#checkOwnWrites ? randomId(12) : undefined;
    const sentMetadata = writeId ? { ...metadata, [WRITE_ID]: writeId } : metadata;
    const info = await this.#run(
      ctx,
      options.signal,
      async (signal, progress): Promise<ObjectInfo> => {
        // Each attempt streams the source afresh.
        const upload = source ? openUpload(source, key, signal, progress) : undefined;
        try {
          const command = new PutObjectCommand({
            Bucket: this.bucket,
            Key: full,
            Body: upload ? upload.readable : body as Uint8Array,
            ContentLength: size,
            ContentType: "application/octet-stream",
            ...(sentMetadata ? { Metadata: sentMetadata } : {}),
            ...(mode.kind === "create" ? { IfNoneMatch: "*" } : {}),
            ...(mode.kind === "update" ? { IfMatch: quoteEtag(mode.version) } : {}),
          });
          const serverDate = captureDate(command);
          const sent = this.client.send(command, {
            abortSignal: upload ? upload.signal : signal,
          });
          // A streamed request whose connection dropped may ignore its abort
          // signal: the attempt ends at the signal whatever the SDK does.
          const out = upload ? await settleOnAbort(sent, upload.signal) : await sent;
          if (upload?.failed) throw new SourceFailure(upload.failure);
          return {
            key,
            version: normaliseEtag(out.ETag),
            size,
            lastModified: serverDate() ?? this.#runner.clock.now(),
            metadata: metadata ?? {},
          };
        } catch (e) {
          // Whatever the SDK made of it, a failed source is the source's own error.
          if (upload?.failed) throw new SourceFailure(upload.failure);
          throw e;
        } finally {
          upload?.close();
        }
      },
      async (failure) => {
        if (!writeId) return null;
        if (failure.kind !== "already_exists" && failure.kind !== "precondition_failed") {
          return null;
        }
        const now = await this.#headRaw(key, options.signal);
        return now && now.writeId === writeId ? now.info : null;
      },
    );
    if (info.version) return info;
    // Some S3-compatibles omit the ETag on put; read it back.
    const read = await this.head(key, options);
    return read ?? info;
  }

  /**
   * Reads an object as a stream. Failures before the body starts map as in
   * {@link S3Store.get} (and are retried the same way); once the body flows,
   * the caller's signal cancels it with `AbortedError`, a transport failure
   * errors it with the mapped error (`UnreachableError` for an outage), and
   * a body that makes no progress for `requestTimeoutMs` errors it likewise.
   */
  async getStream(key: string, options: CallOptions = {}): Promise<GetStreamResult> {
    const full = this.#full(key);
    const ctx: S3RequestContext = { op: "get", key, bucket: this.bucket };
    const { info, body } = await this.#run(ctx, options.signal, async (signal) => {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: full }),
        { abortSignal: signal },
      );
      const info: ObjectInfo = {
        key,
        version: normaliseEtag(out.ETag),
        size: out.ContentLength ?? 0,
        lastModified: out.LastModified?.getTime() ?? 0,
        metadata: splitMetadata(out.Metadata).metadata,
      };
      return { info, body: webBody(out.Body) };
    });
    return {
      ...info,
      body: guardBody(body, ctx, options.signal, {
        clock: this.#runner.clock,
        timeoutMs: this.#runner.timeoutMs,
        secrets: this.#secrets,
        endpoint: this.endpoint,
        prefix: this.prefix,
      }),
    };
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<void> {
    await deleteObject(
      {
        client: this.client,
        bucket: this.bucket,
        strategy: this.#deleteStrategy,
        run: (ctx, signal, fn, resolve) => this.#run(ctx, signal, fn, resolve),
        head: (k, o) => this.head(k, o),
      },
      key,
      this.#full(key),
      options,
    );
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<readonly ObjectInfo[]> {
    const full = this.prefix + prefix;
    const ctx: S3RequestContext = { op: "list", key: prefix, bucket: this.bucket };
    let token: string | undefined;
    for (;;) {
      const out = await this.#run(ctx, options.signal, (signal) =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: full,
            ...(token ? { ContinuationToken: token } : {}),
            ...(options.pageSize ? { MaxKeys: options.pageSize } : {}),
          }),
          { abortSignal: signal },
        ));
      const page: ObjectInfo[] = [];
      for (const o of out.Contents ?? []) {
        if (!o.Key || !o.Key.startsWith(this.prefix)) continue;
        page.push({
          key: o.Key.slice(this.prefix.length),
          version: normaliseEtag(o.ETag),
          size: o.Size ?? 0,
          lastModified: o.LastModified?.getTime() ?? 0,
        });
      }
      if (page.length > 0) yield page;
      if (!out.IsTruncated || !out.NextContinuationToken) return;
      token = out.NextContinuationToken;
    }
  }

  /** HeadObject: the info (without the write id) and the write id, or null when absent. */
  async #headRaw(
    key: string,
    callerSignal?: AbortSignal,
  ): Promise<{ info: ObjectInfo; writeId?: string } | null> {
    const full = this.#full(key);
    const ctx: S3RequestContext = { op: "head", key, bucket: this.bucket };
    return await this.#run(ctx, callerSignal, async (signal) => {
      try {
        const out = await this.client.send(
          new HeadObjectCommand({ Bucket: this.bucket, Key: full }),
          { abortSignal: signal },
        );
        const { metadata, writeId } = splitMetadata(out.Metadata);
        return {
          writeId,
          info: {
            key,
            version: normaliseEtag(out.ETag),
            size: out.ContentLength ?? 0,
            lastModified: out.LastModified?.getTime() ?? 0,
            metadata,
          },
        };
      } catch (e) {
        if (classifyS3Error(e, ctx).kind === "not_found") return null;
        throw e;
      }
    });
  }

  /**
   * Runs one request with the per-attempt timeout and Sluice's retries (see
   * {@link AttemptRunner}). `resolveFailure` may turn a final failure into a
   * success; it is told whether an earlier attempt of this call lost its
   * answer. An attempt that streams a body calls `progress` as it moves,
   * which restarts the timeout; a {@link SourceFailure} it throws ends the
   * call with the source's error, unmapped and not retried.
   */
  #run<T>(
    ctx: S3RequestContext,
    callerSignal: AbortSignal | undefined,
    attemptFn: AttemptFn<T>,
    resolveFailure?: (failure: S3Failure, lostAnswerBefore: boolean) => Promise<T | null>,
  ): Promise<T> {
    return this.#runner.run(ctx, callerSignal, attemptFn, {
      classify: (e) => classifyS3Error(e, ctx, callerSignal, this.#secrets),
      toError: (failure, cause, attempts) =>
        toSluiceError(failure, ctx, cause, attempts, {
          endpoint: this.endpoint,
          prefix: this.prefix,
        }),
      recover: resolveFailure && (async (failure, lostAnswerBefore) => {
        const value = await resolveFailure(failure, lostAnswerBefore);
        return value === null ? undefined : { value };
      }),
    });
  }

  #full(key: string): string {
    return joinKey(this.prefix, key);
  }
}
