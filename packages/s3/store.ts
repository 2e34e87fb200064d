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
import { systemClock } from "../../sync/clock.ts";
import { randomId } from "../../sync/hash.ts";
import {
  AbortedError,
  NotImplementedError,
  PreconditionFailedError,
  UnsafePathError,
} from "../../sync/errors.ts";
import type {
  CallOptions,
  Clock,
  DeleteOptions,
  GetResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
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
   * `when_supported`.
   */
  readonly checksums?: "when_supported" | "when_required";
}

/**
 * Creates an `S3Client` configured the way Sluice needs it: SDK retries off
 * (`maxAttempts: 1`, the store retries), custom endpoint and path-style
 * addressing when given, credentials from the default chain unless given.
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
export interface S3RetryEvent {
  /** The operation. */
  readonly op: S3RequestContext["op"];
  /** Store-relative key or list prefix. */
  readonly key: string;
  /** The attempt that failed (1-based). */
  readonly attempt: number;
  /** The backoff before the next attempt. */
  readonly delayMs: number;
  /** Why it failed (redacted). */
  readonly detail: string;
}

/** Options of {@link S3Store}. */
export interface S3StoreOptions extends S3ClientOptions {
  /** The bucket. */
  readonly bucket: string;
  /** Key prefix inside the bucket (store keys are relative to it); a trailing `/` is added. */
  readonly prefix?: string;
  /** Per-attempt timeout in ms, combined with the caller's signal; default 30 000. */
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
  /** An existing client (its own config wins; it should have `maxAttempts: 1`). */
  readonly client?: S3Client;
  /**
   * When a conditional put fails its condition, read the object back and
   * count the put as done if it carries this put's write id (our own earlier
   * attempt landed). Costs one HeadObject per failed condition; default true.
   */
  readonly checkOwnWrites?: boolean;
  /** Called before each retry sleep (the library never logs). */
  readonly onRetry?: (event: S3RetryEvent) => void;
}

const DEFAULTS = {
  requestTimeoutMs: 30_000,
  retries: 3,
  retryBaseDelayMs: 200,
  retryMaxDelayMs: 5_000,
} as const;

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
  /** The bucket. */
  readonly bucket: string;
  /** The normalised key prefix (`""` or ending in `/`). */
  readonly prefix: string;
  /** The SDK client (shared with the caller when injected). */
  readonly client: S3Client;

  readonly #ownsClient: boolean;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #deleteStrategy: ConditionalDeleteStrategy;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #secrets: readonly string[];
  readonly #onRetry?: (event: S3RetryEvent) => void;
  readonly #checkOwnWrites: boolean;

  constructor(options: S3StoreOptions) {
    if (!options.bucket) throw new UnsafePathError("", "an S3 store needs a bucket name");
    this.bucket = options.bucket;
    this.prefix = normalisePrefix(options.prefix ?? "");
    this.client = options.client ?? createS3Client(options);
    this.#ownsClient = options.client === undefined;
    this.#timeoutMs = options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
    this.#retries = Math.max(0, options.retries ?? DEFAULTS.retries);
    this.#baseDelayMs = options.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs;
    this.#maxDelayMs = options.retryMaxDelayMs ?? DEFAULTS.retryMaxDelayMs;
    this.#deleteStrategy = options.conditionalDelete ?? "verify";
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#onRetry = options.onRetry;
    this.#checkOwnWrites = options.checkOwnWrites ?? true;
    const c = options.credentials;
    this.#secrets = c ? [c.secretAccessKey, c.sessionToken ?? "", c.accessKeyId] : [];
    this.endpoint = describeEndpoint(this.bucket, this.prefix, options.endpoint);
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
    body: Uint8Array,
    mode: PutMode,
    options: PutOptions = {},
  ): Promise<ObjectInfo> {
    const full = this.#full(key);
    const metadata = checkMetadata(key, options.metadata);
    const condition = mode.kind === "overwrite" ? undefined : mode.kind;
    const ctx: S3RequestContext = { op: "put", key, condition, bucket: this.bucket };
    // A conditional put carries a random write id, so that a failed condition
    // can be told apart from our own earlier attempt that landed (an answer
    // lost to a reset, or a request the HTTP stack resent on its own).
    const writeId = condition && this.#checkOwnWrites ? randomId(12) : undefined;
    const sentMetadata = writeId ? { ...metadata, [WRITE_ID]: writeId } : metadata;
    const info = await this.#run(
      ctx,
      options.signal,
      async (signal): Promise<ObjectInfo> => {
        const command = new PutObjectCommand({
          Bucket: this.bucket,
          Key: full,
          Body: body,
          ContentLength: body.length,
          ContentType: "application/octet-stream",
          ...(sentMetadata ? { Metadata: sentMetadata } : {}),
          ...(mode.kind === "create" ? { IfNoneMatch: "*" } : {}),
          ...(mode.kind === "update" ? { IfMatch: quoteEtag(mode.version) } : {}),
        });
        const serverDate = captureDate(command);
        const out = await this.client.send(command, { abortSignal: signal });
        return {
          key,
          version: normaliseEtag(out.ETag),
          size: body.length,
          lastModified: serverDate() ?? this.#clock.now(),
          metadata: metadata ?? {},
        };
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
      await plainDelete({ op: "delete", key, bucket: this.bucket });
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
   * Runs one request with the per-attempt timeout and Sluice's retries.
   * `resolveFailure` may turn a final failure into a success; it is told
   * whether an earlier attempt of this call lost its answer.
   */
  async #run<T>(
    ctx: S3RequestContext,
    callerSignal: AbortSignal | undefined,
    attemptFn: (signal: AbortSignal) => Promise<T>,
    resolveFailure?: (failure: S3Failure, lostAnswerBefore: boolean) => Promise<T | null>,
  ): Promise<T> {
    let ambiguousBefore = false;
    for (let attempt = 1;; attempt++) {
      if (callerSignal?.aborted) {
        throw new AbortedError(`The ${ctx.op} of ${ctx.key}`, { cause: callerSignal.reason });
      }
      const controller = new AbortController();
      const onAbort = () => controller.abort(callerSignal?.reason);
      callerSignal?.addEventListener("abort", onAbort, { once: true });
      const timeout = new S3AttemptTimeout(this.#timeoutMs);
      const timer = this.#clock.setTimeout(() => controller.abort(timeout), this.#timeoutMs);
      let failure: S3Failure;
      let cause: unknown;
      try {
        return await attemptFn(controller.signal);
      } catch (e) {
        const timedOut = controller.signal.reason === timeout && !callerSignal?.aborted;
        cause = timedOut ? timeout : e;
        failure = classifyS3Error(cause, ctx, callerSignal, this.#secrets);
      } finally {
        this.#clock.clearTimeout(timer);
        callerSignal?.removeEventListener("abort", onAbort);
      }
      if (resolveFailure && failure.kind !== "transient" && failure.kind !== "aborted") {
        const resolved = await resolveFailure(failure, ambiguousBefore);
        if (resolved !== null) return resolved;
      }
      if (failure.kind !== "transient" || attempt > this.#retries) {
        throw toSluiceError(failure, ctx, cause, attempt);
      }
      ambiguousBefore ||= failure.ambiguous;
      const delayMs = this.#backoff(attempt);
      this.#onRetry?.({ op: ctx.op, key: ctx.key, attempt, delayMs, detail: failure.detail });
      try {
        await this.#clock.sleep(delayMs, callerSignal);
      } catch (e) {
        throw new AbortedError(`The ${ctx.op} of ${ctx.key}`, { cause: e });
      }
    }
  }

  #backoff(attempt: number): number {
    const base = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** (attempt - 1));
    return Math.round(base * (0.5 + this.#random()));
  }

  #full(key: string): string {
    if (!key || key.startsWith("/") || key.includes("\0")) {
      throw new UnsafePathError(key, "store keys must be non-empty, relative, and free of NUL");
    }
    return this.prefix + key;
  }
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

function normalisePrefix(prefix: string): string {
  const p = prefix.replace(/^\/+/, "").replace(/\/+$/, "");
  return p ? `${p}/` : "";
}

function quoteEtag(version: string): string {
  const v = normaliseEtag(version);
  return `"${v}"`;
}

function describeEndpoint(bucket: string, prefix: string, endpoint?: string): string {
  const base = `s3://${bucket}/${prefix.replace(/\/$/, "")}`;
  if (!endpoint) return base;
  try {
    const u = new URL(endpoint);
    return `${base} at ${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return `${base} at a custom endpoint`;
  }
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
