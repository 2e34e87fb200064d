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
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { Readable } from "node:stream";
import { bodyBytes, isBodySource, sourceSizeError } from "../../sync/body.ts";
import {
  type AttemptFn,
  AttemptRunner,
  checkedPrefix,
  describeEndpoint,
  joinKey,
  SourceFailure,
  type StoreRetryEvent,
} from "../store_kit/mod.ts";
import { randomId } from "../../sync/hash.ts";
import {
  NotImplementedError,
  PreconditionFailedError,
  UnsafePathError,
} from "../../sync/errors.ts";
import type {
  BodySource,
  CallOptions,
  Clock,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
  TimerHandle,
} from "../../sync/ports.ts";
import {
  classifyS3Error,
  normaliseEtag,
  S3AttemptTimeout,
  type S3Failure,
  type S3RequestContext,
  toSluiceError,
} from "./errors.ts";

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
 * import { createS3Client } from "./store.ts";
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

/**
 * User-metadata key of the random id a conditional put carries; hidden from
 * the metadata that `get` and `head` return.
 */
export const WRITE_ID = "sluice-write-id";

/** Names of the per-command middleware that records the response's `Date` header. */
const DATE_MIDDLEWARE = "sluiceResponseDate";

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
    this.#checkOwnWrites = options.checkOwnWrites ?? true;
    this.#wholeBelow = options.wholeBodyBelowBytes ?? 1024 * 1024;
    const c = options.credentials;
    this.#secrets = c ? [c.secretAccessKey, c.sessionToken ?? "", c.accessKeyId] : [];
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
      body: this.#guardBody(body, ctx, options.signal),
    };
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<void> {
    const full = this.#full(key);
    const ifVersion = options.ifVersion;
    const plainDelete = (ctx: S3RequestContext) =>
      this.#run(ctx, options.signal, async (signal) => {
        try {
          await this.client.send(
            new DeleteObjectCommand({ Bucket: this.bucket, Key: full }),
            { abortSignal: signal },
          );
        } catch (e) {
          // Deleting an absent key succeeds (some endpoints answer 404).
          if (classifyS3Error(e, ctx).kind !== "not_found") throw e;
        }
        return true;
      });
    if (ifVersion === undefined) {
      await plainDelete({ op: "delete", key, bucket: this.bucket, noRetry: options.noRetry });
      return;
    }

    if (this.#deleteStrategy !== "native") {
      const cur = await this.head(key, options);
      if (!cur) throw new PreconditionFailedError(key, "it does not exist");
      if (cur.version !== normaliseEtag(ifVersion)) {
        throw new PreconditionFailedError(key, `version ${cur.version}, expected ${ifVersion}`);
      }
      if (this.#deleteStrategy === "emulate") {
        await plainDelete({ op: "delete", key, bucket: this.bucket });
        return;
      }
    }
    const ctx: S3RequestContext = { op: "delete", key, condition: "delete", bucket: this.bucket };
    try {
      await this.#run(
        ctx,
        options.signal,
        async (signal) => {
          await this.client.send(
            new DeleteObjectCommand({
              Bucket: this.bucket,
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
      if (e instanceof NotImplementedError && this.#deleteStrategy === "verify") {
        // The endpoint refuses If-Match on deletes; the head check above stands in for it.
        await plainDelete({ op: "delete", key, bucket: this.bucket });
        return;
      }
      throw e;
    }
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

  /**
   * Wraps a response body: the caller's signal cancels it, a read that makes
   * no progress for the attempt timeout fails it, and transport errors are
   * mapped as for a failed request.
   */
  #guardBody(
    body: ReadableStream<Uint8Array>,
    ctx: S3RequestContext,
    callerSignal: AbortSignal | undefined,
  ): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    const clock = this.#runner.clock;
    const timeoutMs = this.#runner.timeoutMs;
    const secrets = this.#secrets;
    const { endpoint, prefix } = this;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let timer: TimerHandle | undefined;
    let done = false;
    const finish = () => {
      done = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      callerSignal?.removeEventListener("abort", onAbort);
    };
    const fail = (cause: unknown) => {
      if (done) return;
      finish();
      const failure = classifyS3Error(cause, ctx, callerSignal, secrets);
      const error = toSluiceError(failure, ctx, cause, 1, { endpoint, prefix });
      controller.error(error);
      reader.cancel(error).catch(() => {});
    };
    const onAbort = () => fail(callerSignal?.reason);
    return new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        if (callerSignal?.aborted) onAbort();
        else callerSignal?.addEventListener("abort", onAbort, { once: true });
      },
      async pull(c) {
        if (done) return;
        timer = clock.setTimeout(() => fail(new S3AttemptTimeout(timeoutMs)), timeoutMs);
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (e) {
          fail(e);
          return;
        } finally {
          if (timer !== undefined) clock.clearTimeout(timer);
          timer = undefined;
        }
        if (done) return;
        if (next.done) {
          finish();
          c.close();
        } else {
          c.enqueue(next.value);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    });
  }

  #full(key: string): string {
    return joinKey(this.prefix, key);
  }
}

/**
 * Smallest chunk a streamed put hands the SDK (except the last): a source's
 * smaller chunks are joined up to it. `aws-chunked` bodies (streamed puts
 * with a checksum) need at least 8 KiB; 64 KiB is what the SDK recommends.
 * (The SDK's own `requestStreamBufferSize` regrouping ignores backpressure
 * and would read the whole source into memory.)
 */
const MIN_CHUNK_BYTES = 64 * 1024;

/**
 * `promise`, or a rejection with the signal's reason as soon as `signal`
 * aborts (the abandoned promise's own outcome is then ignored).
 */
function settleOnAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** One attempt's upload of a {@link BodySource}. */
interface Upload {
  /** The body handed to the SDK. */
  readonly readable: Readable;
  /** The attempt's signal, also aborted when the source fails (which ends the request). */
  readonly signal: AbortSignal;
  /** True once the source failed (errored, or yielded the wrong number of bytes). */
  readonly failed: boolean;
  /** The source's error, when `failed`. */
  readonly failure: unknown;
  /** Stops reading the source (cancels it when it was not read to the end). */
  close(): void;
}

/**
 * Opens `source.stream()` as a Node `Readable` for the SDK. The last chunk
 * is held back until the source has ended with exactly `source.size` bytes;
 * a source that errors, runs short or runs long aborts the request instead,
 * so the endpoint never receives a complete body.
 */
function openUpload(
  source: BodySource,
  key: string,
  attemptSignal: AbortSignal,
  progress: () => void,
): Upload {
  const controller = new AbortController();
  const follow = () => controller.abort(attemptSignal.reason);
  if (attemptSignal.aborted) follow();
  else attemptSignal.addEventListener("abort", follow, { once: true });
  let failed = false;
  let failure: unknown;
  let finished = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let total = 0;
  // Small chunks wait in `pending` until they make MIN_CHUNK_BYTES; the last
  // full unit waits in `held` until the end of the source is checked.
  let held: Uint8Array | undefined;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const takePending = (): Uint8Array => {
    const unit = pending.length === 1 ? pending[0] : concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return unit;
  };

  const release = () => {
    finished = true;
    attemptSignal.removeEventListener("abort", follow);
    reader?.cancel().catch(() => {});
  };
  const fail = (e: unknown) => {
    if (finished) return;
    failed = true;
    failure = e;
    release();
    controller.abort(e);
    readable.destroy();
  };
  const pump = async () => {
    try {
      reader ??= source.stream().getReader();
      for (;;) {
        const next = await reader.read();
        if (finished) return;
        progress();
        if (next.done) {
          if (total !== source.size) {
            fail(sourceSizeError(key, source.size, total));
            return;
          }
          finished = true;
          attemptSignal.removeEventListener("abort", follow);
          if (held) readable.push(held);
          if (pendingBytes > 0) readable.push(takePending());
          readable.push(null);
          return;
        }
        const chunk = next.value;
        if (!(chunk instanceof Uint8Array)) {
          fail(new TypeError(`the body source of ${key} yielded a chunk that is not a Uint8Array`));
          return;
        }
        if (chunk.length === 0) continue;
        total += chunk.length;
        if (total > source.size) {
          fail(sourceSizeError(key, source.size, total));
          return;
        }
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes < MIN_CHUNK_BYTES) continue;
        const out = held;
        held = takePending();
        if (out) {
          readable.push(out);
          return;
        }
      }
    } catch (e) {
      fail(e);
    }
  };
  const readable: Readable = new Readable({
    read() {
      void pump();
    },
  });
  // Never destroyed with an error (the source's error travels on `failure`),
  // but a listener keeps a stray one from becoming uncaught.
  readable.on("error", () => {});
  return {
    readable,
    signal: controller.signal,
    get failed() {
      return failed;
    },
    get failure() {
      return failure;
    },
    close() {
      if (finished) return;
      release();
      readable.destroy();
    },
  };
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/** The SDK's response body as a web stream (an empty one when absent). */
function webBody(body: unknown): ReadableStream<Uint8Array> {
  if (body === undefined || body === null) return new ReadableStream({ start: (c) => c.close() });
  if (body instanceof ReadableStream) return body as ReadableStream<Uint8Array>;
  const mixin = body as { transformToWebStream?: () => ReadableStream<Uint8Array> };
  if (typeof mixin.transformToWebStream === "function") return mixin.transformToWebStream();
  if (body instanceof Readable) return Readable.toWeb(body) as ReadableStream<Uint8Array>;
  throw new TypeError("the S3 client returned a response body that is not a stream");
}

/** The part of a command's middleware stack that {@link captureDate} uses. */
interface DeserializeStack {
  add(
    middleware: (
      next: (args: unknown) => Promise<{ response: unknown }>,
    ) => (args: unknown) => Promise<{ response: unknown }>,
    options: { step: "deserialize"; name: string; override: boolean },
  ): void;
}

/** Records the `Date` header of a command's response (the server's clock). */
function captureDate(command: { middlewareStack: unknown }): () => number | undefined {
  let serverDate: number | undefined;
  (command.middlewareStack as DeserializeStack).add(
    (next) => async (args) => {
      const result = await next(args);
      const headers = (result.response as { headers?: Record<string, string> } | undefined)
        ?.headers;
      const date = headers?.date ? Date.parse(headers.date) : NaN;
      if (!Number.isNaN(date)) serverDate = date;
      return result;
    },
    { step: "deserialize", name: DATE_MIDDLEWARE, override: true },
  );
  return () => serverDate;
}

function splitMetadata(
  raw: Record<string, string> | undefined,
): { metadata: Record<string, string>; writeId?: string } {
  const metadata: Record<string, string> = {};
  let writeId: string | undefined;
  for (const [k, v] of Object.entries(raw ?? {})) {
    if (k.toLowerCase() === WRITE_ID) writeId = v;
    else metadata[k] = v;
  }
  return { metadata, writeId };
}

function quoteEtag(version: string): string {
  const v = normaliseEtag(version);
  return `"${v}"`;
}

function checkMetadata(
  key: string,
  metadata: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (!metadata || Object.keys(metadata).length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(metadata)) {
    if (k === WRITE_ID) {
      throw new UnsafePathError(key, `metadata ${JSON.stringify(k)} is reserved by the S3 store`);
    }
    if (!/^[a-z0-9][a-z0-9._-]*$/.test(k) || /[^\x20-\x7e]/.test(v)) {
      throw new UnsafePathError(
        key,
        `metadata ${
          JSON.stringify(k)
        } must have a lower-case ASCII name and a printable ASCII value`,
      );
    }
    out[k] = v;
  }
  return out;
}
