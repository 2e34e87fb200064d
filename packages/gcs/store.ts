/**
 * An {@link ObjectStore} on Google Cloud Storage through
 * `@google-cloud/storage`, also usable against GCS emulators
 * (fake-gcs-server) through `apiEndpoint`.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { CRC32C, type FileMetadata, Storage } from "@google-cloud/storage";
import {
  AbortedError,
  NotFoundError,
  PreconditionFailedError,
  SluiceError,
  UnsafePathError,
} from "../../sync/errors.ts";
import { isBodySource, sourceSizeError } from "../../sync/body.ts";
import {
  type AttemptFn,
  AttemptRunner,
  checkedPrefix,
  describeEndpoint,
  joinKey,
  type Recovery,
  SourceFailure,
  STORE_DEFAULTS,
  type StoreRetryEvent,
} from "../store_kit/mod.ts";
import { randomId } from "../../sync/hash.ts";
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
} from "../../sync/ports.ts";
import {
  classifyGcsError,
  type GcsFailure,
  type GcsRequestContext,
  GcsRequestTimeout,
  toSluiceError,
} from "./errors.ts";
import { type AdcLookup, findAdcSource, SYSTEM_ADC_LOOKUP } from "./credentials.ts";

/**
 * The custom-metadata key under which every put records a random write id.
 * After an attempt whose answer was lost, a retry that fails its
 * precondition reads the object back: if it carries our write id, the lost
 * attempt succeeded and the put reports success instead of a conflict.
 * Reads never return this key.
 */
export const GCS_WRITE_ID_KEY = "sluice-write-id";

/** How the SDK client is made when the store makes it. */
export interface GcsClientOptions {
  /** Google Cloud project id; optional for object operations (ADC may supply it). */
  readonly projectId?: string;
  /**
   * A custom API endpoint, e.g. `http://127.0.0.1:4443` for fake-gcs-server.
   * Unset: the public GCS endpoint.
   */
  readonly apiEndpoint?: string;
  /**
   * Send requests without credentials. Default: true when `apiEndpoint` is
   * set (emulators), false otherwise (Application Default Credentials).
   */
  readonly anonymous?: boolean;
  /** A service account key file instead of Application Default Credentials. */
  readonly keyFilename?: string;
  /** Per-request timeout handed to the SDK as well; default 30 000 ms. */
  readonly requestTimeoutMs?: number;
}

/**
 * Makes a `Storage` client the way {@link GcsStore} does: the SDK's own
 * retries off (the store retries transient failures itself), credentials
 * from Application Default Credentials, or none for an emulator endpoint.
 *
 * @example
 * ```ts
 * import { createGcsStorage } from "./store.ts";
 * const storage = createGcsStorage({ apiEndpoint: "http://127.0.0.1:4443", projectId: "test" });
 * ```
 */
export function createGcsStorage(options: GcsClientOptions = {}): Storage {
  const anonymous = options.anonymous ?? options.apiEndpoint !== undefined;
  return new Storage({
    ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
    ...(options.apiEndpoint !== undefined ? { apiEndpoint: options.apiEndpoint } : {}),
    ...(options.keyFilename !== undefined ? { keyFilename: options.keyFilename } : {}),
    // With a custom endpoint the SDK sends no credentials unless asked to.
    useAuthWithCustomEndpoint: !anonymous,
    timeout: options.requestTimeoutMs ?? STORE_DEFAULTS.requestTimeoutMs,
    retryOptions: { autoRetry: false, maxRetries: 0 },
  });
}

/** What the store reports before sleeping for a retry. */
export type GcsRetryEvent = StoreRetryEvent;

/** Options of {@link GcsStore}. */
export interface GcsStoreOptions extends GcsClientOptions {
  /** The bucket. */
  readonly bucket: string;
  /** Object-name prefix inside the bucket (store keys are relative to it); a trailing `/` is added. */
  readonly prefix?: string;
  /**
   * Per-attempt deadline in ms, combined with the caller's signal; default
   * 30 000. A streamed upload counts it from the last bytes sent, and a
   * streamed download's body from when its reader asked for more.
   */
  readonly requestTimeoutMs?: number;
  /** Extra attempts after a transient failure; default 3. */
  readonly retries?: number;
  /** First backoff in ms (doubled each retry, jittered ±50%); default 200. */
  readonly retryBaseDelayMs?: number;
  /** Largest backoff in ms; default 5 000. */
  readonly retryMaxDelayMs?: number;
  /**
   * Also name the generation (`generation=<v>`) in a conditional delete,
   * besides `ifGenerationMatch=<v>`. Default true. GCS decides by the
   * precondition either way (and removes the live generation permanently,
   * also in a versioned bucket); emulators that ignore `ifGenerationMatch` on
   * deletes, such as fake-gcs-server, still refuse to delete another
   * generation (404, reported as `PreconditionFailedError`).
   */
  readonly pinDeleteGeneration?: boolean;
  /** Time for backoff sleeps and attempt deadlines; default the system clock. */
  readonly clock?: Clock;
  /** Random source in [0, 1) for jitter; default `Math.random`. */
  readonly random?: () => number;
  /**
   * An existing client (its own configuration wins; it should have
   * `retryOptions.autoRetry` false, see {@link createGcsStorage}).
   */
  readonly storage?: Storage;
  /** Called before each retry sleep (the library never logs). */
  readonly onRetry?: (event: GcsRetryEvent) => void;
  /**
   * How to look for Application Default Credentials before the first
   * request, when the store makes an authenticated client (no `storage`,
   * `keyFilename` or `anonymous`); default the process's environment and
   * machine. Without any source, every call fails at once with
   * `invalid_config` at `credentials`, and no request is sent.
   */
  readonly adcLookup?: AdcLookup;
  /**
   * The `fetch` used for media downloads (`get`, `getStream`) and streamed
   * uploads; default the global `fetch`. Tests pass a fake.
   */
  readonly fetch?: typeof fetch;
}

/**
 * How many times `get` re-reads when the object is replaced between its two
 * requests. A key under a compare-and-swap race (a lock, the remote index)
 * can be replaced several times in a row: 5 rounds were seen to run out in
 * the contract's 5-writer race.
 */
const GET_ROUNDS = 25;

/** A generation is a decimal int64; anything else cannot match an object. */
const GENERATION = /^[0-9]{1,19}$/;

/**
 * An {@link ObjectStore} on Google Cloud Storage.
 *
 * - keys are relative to `prefix`; versions are generations, as decimal strings;
 * - `put` uploads in one multipart request (`resumable: false`), with
 *   `ifGenerationMatch=0` for `create` and `ifGenerationMatch=<generation>`
 *   for `update`; the body's MD5 travels with it, so the server rejects a
 *   corrupted upload;
 * - a {@link BodySource} body is streamed in the same multipart request
 *   (sent with `fetch`, the client's endpoint and credentials, and the same
 *   preconditions and metadata), never held whole; each attempt calls
 *   `stream()` afresh. The closing multipart boundary is sent only after the
 *   source ended with exactly `size` bytes: a source that errors or yields
 *   another length aborts the request, so no object is written, and the put
 *   rejects with the source's own error (a length mismatch: `file_changed`),
 *   never retried. Its MD5 is not known before the bytes are sent, so the
 *   server cannot check it; the per-attempt deadline counts time without
 *   progress, so a large upload is not cut off while bytes still move;
 * - `delete` with `ifVersion` sends `ifGenerationMatch` (and, by default, the
 *   generation itself, see {@link GcsStoreOptions.pinDeleteGeneration}); when
 *   the condition fails and the object turns out to be absent, the delete
 *   succeeds: the HTTP client may have replayed our own DELETE after losing
 *   its answer, so an absent object cannot be told from our own success;
 * - `get` reads the object's metadata with the SDK, then downloads exactly
 *   that generation (`alt=media&generation=<g>`, with the client's endpoint
 *   and credentials, checked against the object's MD5 or CRC32C), so body,
 *   version and metadata always belong together;
 * - `getStream` does the same, but hands the body over as a stream as it
 *   arrives: the size and hash are checked as it flows, and a mismatch, a
 *   transport failure, the caller's signal or `requestTimeoutMs` without a
 *   byte while the reader waits errors the stream (`corrupt_download`,
 *   `UnreachableError`, `AbortedError`) instead of ending it;
 * - user metadata travels as custom metadata;
 * - 412 is `AlreadyExistsError` (create) or `PreconditionFailedError`
 *   (update, conditional delete); 404 is `NotFoundError` on `get` and `null`
 *   on `head`; any other failed read throws; 501, or a 400 naming the
 *   precondition, is `NotImplementedError`;
 * - transient failures (transport, the per-attempt deadline, 408, 429, 5xx)
 *   are retried `retries` times, then surface as `UnreachableError`; a
 *   conditional put or delete that fails its condition after an attempt with
 *   a lost answer is checked against the object, so our own earlier success
 *   is not reported as a conflict;
 * - messages carry request ids and a short redacted body preview, never
 *   credentials or signed URLs.
 *
 * @example
 * ```ts
 * import { GcsStore } from "./store.ts";
 * import { PutModes } from "../../sync/ports.ts";
 * const store = new GcsStore({
 *   bucket: "my-bucket",
 *   prefix: "datastore",
 *   apiEndpoint: "http://127.0.0.1:4443",
 *   projectId: "test",
 * });
 * const info = await store.put("a.txt", new TextEncoder().encode("hi"), PutModes.create);
 * await store.put("a.txt", new TextEncoder().encode("ho"), PutModes.update(info.version));
 * ```
 */
export class GcsStore implements ObjectStore {
  readonly endpoint: string;
  /** This store retries transient failures itself; the sync service does not retry it again. */
  readonly retriesInternally = true;
  /** The bucket. */
  readonly bucket: string;
  /** The normalised object-name prefix (`""` or ending in `/`). */
  readonly prefix: string;
  /** The SDK client (shared with the caller when injected). */
  readonly storage: Storage;

  readonly #runner: AttemptRunner;
  readonly #pinDeleteGeneration: boolean;
  readonly #fetch: typeof fetch;
  /** True once a request on the bucket succeeded (so a 404 on a read is the object's). */
  #bucketSeen = false;
  /** Where to look for credentials before the first request; unset once looked (or not needed). */
  #adcLookup: AdcLookup | undefined;
  /** True when no source of Application Default Credentials can apply. */
  #noCredentials = false;

  constructor(options: GcsStoreOptions) {
    if (!options.bucket) throw new UnsafePathError("", "a GCS store needs a bucket name");
    this.bucket = options.bucket;
    this.prefix = checkedPrefix(options.prefix ?? "");
    this.storage = options.storage ?? createGcsStorage(options);
    this.#runner = new AttemptRunner(options, (ms) => new GcsRequestTimeout(ms));
    this.#pinDeleteGeneration = options.pinDeleteGeneration ?? true;
    const authenticated = options.storage === undefined && options.keyFilename === undefined &&
      !(options.anonymous ?? options.apiEndpoint !== undefined);
    if (authenticated) this.#adcLookup = options.adcLookup ?? SYSTEM_ADC_LOOKUP;
    const fetchFn = options.fetch ?? globalThis.fetch;
    this.#fetch = (input, init) => fetchFn(input, init);
    this.endpoint = describeEndpoint("gs", this.bucket, this.prefix, options.apiEndpoint);
  }

  async get(key: string, options: CallOptions = {}): Promise<GetResult> {
    const { info, value } = await this.#readPinned(
      key,
      options.signal,
      (full, info, signal) =>
        downloadMedia(this.#fetch, this.storage, this.bucket, full, info, signal),
    );
    return { ...info, body: value };
  }

  /**
   * Reads an object as a stream: its metadata first, then exactly that
   * generation's bytes, so that the info returned belongs to the bytes
   * streamed. Failures before the body starts are retried and mapped as in
   * {@link GcsStore.get} (`NotFoundError` when absent); later ones error the
   * stream.
   */
  async getStream(key: string, options: CallOptions = {}): Promise<GetStreamResult> {
    const ctx: GcsRequestContext = { op: "get", key, bucket: this.bucket };
    const { info, value } = await this.#readPinned(
      key,
      options.signal,
      (full, info, signal) =>
        openMedia(this.#fetch, this.storage, this.bucket, full, info.version, signal),
    );
    return { ...info, body: this.#mediaStream(ctx, info, value, options.signal) };
  }

  /**
   * Reads the object's metadata, then opens exactly that generation's media
   * with `open`; when the generation was replaced in between (a 404 on the
   * media), starts again, up to {@link GET_ROUNDS} times.
   */
  async #readPinned<T>(
    key: string,
    callerSignal: AbortSignal | undefined,
    open: (full: string, info: ObjectInfo, signal: AbortSignal) => Promise<T>,
  ): Promise<{ info: ObjectInfo; value: T }> {
    const full = this.#full(key);
    const ctx: GcsRequestContext = { op: "get", key, bucket: this.bucket };
    const bucket = this.storage.bucket(this.bucket);
    for (let round = 1;; round++) {
      const [meta] = await this.#run(ctx, callerSignal, () => bucket.file(full).getMetadata())
        .catch(async (e) => {
          // GCS (and fake-gcs-server) answer a missing bucket with the same 404.
          if (e instanceof NotFoundError) await this.#confirmBucket(ctx, callerSignal);
          throw e;
        });
      const info = this.#info(key, meta);
      const opened = await this.#run<{ value: T } | null>(
        ctx,
        callerSignal,
        async (signal) => ({ value: await open(full, info, signal) }),
        // 404 here: the generation was replaced or deleted since the metadata read.
        (failure) => Promise.resolve(failure.kind === "not_found" ? { value: null } : undefined),
      );
      if (opened !== null) return { info, value: opened.value };
      if (round >= GET_ROUNDS) {
        throw new SluiceError(
          "unreachable",
          `${key} at ${this.endpoint} was replaced ${round} times while being read. Nothing was read or written; run the sync again.`,
          { retryable: true },
        );
      }
    }
  }

  async head(key: string, options: CallOptions = {}): Promise<ObjectInfo | null> {
    const found = await this.#headRaw(key, options.signal);
    return found?.info ?? null;
  }

  async put(
    key: string,
    body: PutBody,
    mode: PutMode,
    options: PutOptions = {},
  ): Promise<ObjectInfo> {
    const full = this.#full(key);
    const condition = mode.kind === "overwrite" ? undefined : mode.kind;
    const ctx: GcsRequestContext = { op: "put", key, condition, bucket: this.bucket };
    let ifGenerationMatch: number | string | undefined;
    if (mode.kind === "create") ifGenerationMatch = 0;
    if (mode.kind === "update") {
      if (!GENERATION.test(mode.version)) {
        throw toSluiceError(
          {
            kind: "precondition_failed",
            ambiguous: false,
            detail: `version ${JSON.stringify(mode.version)} is not a GCS generation`,
          },
          ctx,
          this.endpoint,
        );
      }
      ifGenerationMatch = mode.version;
    }
    const writeId = randomId(8);
    const custom: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.metadata ?? {})) {
      if (k.toLowerCase() !== GCS_WRITE_ID_KEY) custom[k] = v;
    }
    custom[GCS_WRITE_ID_KEY] = writeId;
    const recover = async (
      failure: GcsFailure,
      ambiguousBefore: boolean,
    ): Promise<Recovery<ObjectInfo>> => {
      if (failure.kind !== "already_exists" && failure.kind !== "precondition_failed") {
        return undefined;
      }
      // Was it ours that landed? An earlier attempt's answer may have been
      // lost, or the HTTP stack may have sent this attempt twice (`fetch`
      // replays a request on a fresh connection when a pooled one closes
      // before the answer), so the object is read back on every failed
      // condition.
      const current = await this.#headRaw(key, options.signal);
      if (current && current.writeId === writeId) return { value: current.info };
      if (ambiguousBefore && current && failure.kind === "precondition_failed") {
        throw new PreconditionFailedError(
          key,
          `an earlier attempt's answer was lost and the object now holds another writer's generation ${current.info.version}; the lost attempt may have landed before it`,
        );
      }
      return undefined;
    };
    return await this.#run(
      ctx,
      options.signal,
      (signal, progress) =>
        this.#upload(key, full, body, custom, ifGenerationMatch, signal, progress),
      recover,
    );
  }

  /**
   * One attempt of a put: a multipart upload (`uploadType=multipart`, the
   * request `file.save` makes with `resumable: false`) sent with the store's
   * `fetch`. Bytes go whole, with their MD5 in the metadata, so the server
   * rejects a corrupted upload; a {@link BodySource} streams (see
   * {@link MultipartBody}). The SDK's request stack is not used for uploads:
   * under Deno, a reset on a reused keep-alive connection leaves its POST
   * waiting for an answer that never comes, until the per-attempt deadline,
   * where `fetch` fails at once (and, retried, the lost-answer check finds
   * our own write). Its write stream, besides, leaves its HTTP request open
   * when its input fails, and cannot be cancelled.
   */
  async #upload(
    key: string,
    full: string,
    data: PutBody,
    custom: Record<string, string>,
    ifGenerationMatch: number | string | undefined,
    signal: AbortSignal,
    progress: () => void,
  ): Promise<ObjectInfo> {
    const base = this.storage.apiEndpoint.replace(/\/+$/, "");
    const query = new URLSearchParams({ uploadType: "multipart", name: full });
    if (ifGenerationMatch !== undefined) query.set("ifGenerationMatch", String(ifGenerationMatch));
    const url = `${base}/upload/storage/v1/b/${encodeURIComponent(this.bucket)}/o?${query}`;
    const boundary = `sluice-${randomId(16)}`;
    const headers = await requestHeaders(this.storage, url);
    headers.set("content-type", `multipart/related; boundary=${boundary}`);
    const metadata = {
      name: full,
      contentType: "application/octet-stream",
      ...(isBodySource(data) ? {} : { md5Hash: createHash("md5").update(data).digest("base64") }),
      metadata: custom,
    };
    const body: UploadBody = isBodySource(data)
      ? new MultipartBody(key, data, boundary, JSON.stringify(metadata), progress)
      : multipartBytes(data, boundary, JSON.stringify(metadata));
    let res: Response;
    let text: string;
    try {
      res = await this.#fetch(url, { method: "POST", headers, body: body.stream, signal });
      text = await res.text();
    } catch (e) {
      if (body.failure) throw new SourceFailure(body.failure.error);
      if (signal.aborted) throw signal.reason;
      throw transportError(e);
    } finally {
      body.close();
    }
    // Unreachable with a sane transport: a body that failed was never completed.
    if (body.failure) throw new SourceFailure(body.failure.error);
    if (!res.ok) throw new MediaHttpError(res.status, res.headers, text);
    let meta: FileMetadata;
    try {
      meta = JSON.parse(text) as FileMetadata;
    } catch {
      throw new SluiceError(
        "internal",
        `GCS answered the upload of ${key} at ${this.endpoint} with HTTP ${res.status} but no object resource; the endpoint does not behave like GCS. Run \`head\` on the key to see what was stored.`,
      );
    }
    return this.#info(key, meta);
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<void> {
    const full = this.#full(key);
    const bucket = this.storage.bucket(this.bucket);
    const ifVersion = options.ifVersion;
    if (ifVersion === undefined) {
      const ctx: GcsRequestContext = {
        op: "delete",
        key,
        bucket: this.bucket,
        noRetry: options.noRetry,
      };
      await this.#run(
        ctx,
        options.signal,
        async () => {
          await bucket.file(full).delete();
        },
        // Deleting an absent key succeeds.
        (failure) =>
          Promise.resolve(failure.kind === "not_found" ? { value: undefined } : undefined),
      );
      return;
    }
    const ctx: GcsRequestContext = { op: "delete", key, condition: "delete", bucket: this.bucket };
    if (!GENERATION.test(ifVersion)) {
      throw toSluiceError(
        {
          kind: "precondition_failed",
          ambiguous: false,
          detail: `version ${JSON.stringify(ifVersion)} is not a GCS generation`,
        },
        ctx,
        this.endpoint,
      );
    }
    const file = this.#pinDeleteGeneration
      ? bucket.file(full, { generation: generationParam(ifVersion) })
      : bucket.file(full);
    await this.#run(
      ctx,
      options.signal,
      async () => {
        await file.delete({ ifGenerationMatch: ifVersion });
      },
      async (failure) => {
        if (failure.kind !== "precondition_failed") return undefined;
        // The object may be gone because of our own request: an answer lost
        // in our retries, or one the HTTP client replayed by itself (it
        // replays an idempotent DELETE on a fresh connection when a pooled
        // one closes first). An absent object cannot be told from that, and
        // it is what the caller wanted: success.
        const current = await this.#headRaw(key, options.signal);
        return current === null ? { value: undefined } : undefined;
      },
    );
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<readonly ObjectInfo[]> {
    const ctx: GcsRequestContext = { op: "list", key: prefix, bucket: this.bucket };
    const bucket = this.storage.bucket(this.bucket);
    const maxResults = Math.max(1, Math.min(1000, options.pageSize ?? 1000));
    let pageToken: string | undefined;
    do {
      const token = pageToken;
      const [files, next] = await this.#run(ctx, options.signal, () =>
        bucket.getFiles({
          prefix: this.prefix + prefix,
          maxResults,
          autoPaginate: false,
          ...(token !== undefined ? { pageToken: token } : {}),
        }));
      const page: ObjectInfo[] = [];
      for (const f of files) {
        if (!f.name.startsWith(this.prefix + prefix)) continue;
        page.push(this.#info(f.name.slice(this.prefix.length), f.metadata));
      }
      page.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      if (page.length > 0) yield page;
      const nextToken = (next as { pageToken?: unknown } | null | undefined)?.pageToken;
      pageToken = typeof nextToken === "string" && nextToken.length > 0 ? nextToken : undefined;
    } while (pageToken !== undefined);
  }

  /** Reads an object's metadata with its write id; `null` on 404. */
  async #headRaw(
    key: string,
    signal: AbortSignal | undefined,
  ): Promise<{ info: ObjectInfo; writeId?: string } | null> {
    const full = this.#full(key);
    const ctx: GcsRequestContext = { op: "head", key, bucket: this.bucket };
    const file = this.storage.bucket(this.bucket).file(full);
    return await this.#run<{ info: ObjectInfo; writeId?: string } | null>(
      ctx,
      signal,
      async () => {
        const [meta] = await file.getMetadata();
        const writeId = meta.metadata?.[GCS_WRITE_ID_KEY];
        return {
          info: this.#info(key, meta),
          writeId: typeof writeId === "string" ? writeId : undefined,
        };
      },
      (failure) => Promise.resolve(failure.kind === "not_found" ? { value: null } : undefined),
    );
  }

  /**
   * After a read found no object: unless a request already succeeded on the
   * bucket, reads the bucket's metadata once, and throws the missing-bucket
   * error (`invalid_config` naming the bucket) when it is absent, so that a
   * mistyped bucket is never taken for an empty datastore.
   */
  async #confirmBucket(ctx: GcsRequestContext, signal: AbortSignal | undefined): Promise<void> {
    if (this.#bucketSeen) return;
    const bucketCtx: GcsRequestContext = { op: "head", key: "(the bucket)", bucket: this.bucket };
    const missing = await this.#run<GcsFailure | null>(
      bucketCtx,
      signal,
      async () => {
        await this.storage.bucket(this.bucket).getMetadata();
        return null;
      },
      // A 403 (no storage.buckets.get, as with object-only roles) cannot tell: the 404 stands.
      (failure) =>
        Promise.resolve(
          failure.kind === "not_found"
            ? { value: failure }
            : failure.kind === "access_denied"
            ? { value: null }
            : undefined,
        ),
    );
    this.#bucketSeen = true;
    if (missing) {
      throw toSluiceError(
        { ...missing, kind: "bucket_missing" },
        ctx,
        this.endpoint,
        undefined,
        1,
        this.prefix,
      );
    }
  }

  /**
   * Runs `fn` with the per-attempt deadline and the caller's signal, retrying
   * transient failures with backoff (see {@link AttemptRunner}). A
   * non-transient failure is offered to `recover` (told whether an earlier
   * attempt may have taken effect) before it is mapped to a typed error.
   */
  #run<T>(
    ctx: GcsRequestContext,
    signal: AbortSignal | undefined,
    fn: AttemptFn<T>,
    recover?: (failure: GcsFailure, ambiguousBefore: boolean) => Promise<Recovery<T>>,
  ): Promise<T> {
    if (this.#adcLookup !== undefined) {
      // Checked once, before the first request: without any source of
      // Application Default Credentials, no request could be authorised.
      const lookup = this.#adcLookup;
      this.#adcLookup = undefined;
      if (findAdcSource(lookup) === null) this.#noCredentials = true;
    }
    if (this.#noCredentials) {
      return Promise.reject(toSluiceError(
        {
          kind: "credentials_missing",
          ambiguous: false,
          detail:
            "no Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS is unset, there is no gcloud application_default_credentials.json, and this is not a Google Cloud machine",
        },
        ctx,
        this.endpoint,
        undefined,
        1,
        this.prefix,
      ));
    }
    return this.#runner.run(ctx, signal, fn, {
      classify: (e) => classifyGcsError(e, ctx),
      toError: (failure, cause, attempts) =>
        toSluiceError(failure, ctx, this.endpoint, cause, attempts, this.prefix),
      recover,
    }).then((value) => {
      this.#bucketSeen = true;
      return value;
    });
  }

  /**
   * The body of an opened media download as a stream that checks size and
   * hash as bytes flow, ends only when they match, and errors (mapped like
   * `get`) on a transport failure, the caller's signal, or `requestTimeoutMs`
   * spent waiting for a byte the reader asked for.
   */
  #mediaStream(
    ctx: GcsRequestContext,
    info: ObjectInfo,
    res: Response,
    signal: AbortSignal | undefined,
  ): ReadableStream<Uint8Array> {
    const reader = (res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() }))
      .getReader();
    const check = new MediaCheck(res.headers, info);
    let stopped: unknown;
    let closed = false;
    let timer: unknown;
    const close = () => {
      closed = true;
      this.#runner.clock.clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    // Stops the download; a pending read then ends and reports `stopped`.
    const stop = (reason: unknown) => {
      if (closed || stopped !== undefined) return;
      stopped = reason;
      reader.cancel().catch(() => {});
    };
    const onAbort = () => stop(new AbortedError(`The get of ${ctx.key}`));
    signal?.addEventListener("abort", onAbort, { once: true });
    const fail = (controller: ReadableStreamDefaultController<Uint8Array>, e: unknown) => {
      close();
      reader.cancel().catch(() => {});
      controller.error(this.#bodyError(ctx, e));
    };
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (signal?.aborted) stop(new AbortedError(`The get of ${ctx.key}`));
        for (;;) {
          if (stopped !== undefined) return fail(controller, stopped);
          timer = this.#runner.clock.setTimeout(
            () => stop(this.#runner.timeoutError()),
            this.#runner.timeoutMs,
          );
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (e) {
            return fail(controller, stopped ?? e);
          } finally {
            this.#runner.clock.clearTimeout(timer);
          }
          if (stopped !== undefined) return fail(controller, stopped);
          if (chunk.done) {
            try {
              check.finish();
            } catch (e) {
              return fail(controller, e);
            }
            close();
            controller.close();
            return;
          }
          if (chunk.value.byteLength === 0) continue;
          check.update(chunk.value);
          controller.enqueue(chunk.value);
          return;
        }
      },
      cancel: async (reason) => {
        close();
        await reader.cancel(reason).catch(() => {});
      },
    }, { highWaterMark: 0 });
  }

  /** Maps a failure of a body already handed over, as `get` maps it. */
  #bodyError(ctx: GcsRequestContext, e: unknown): unknown {
    if (e instanceof AbortedError) return e;
    const known = e instanceof MediaMismatchError || e instanceof GcsRequestTimeout ||
      e instanceof MediaTransportError;
    const err = known ? e : transportError(e);
    return toSluiceError(classifyGcsError(err, ctx), ctx, this.endpoint, err);
  }

  #info(key: string, meta: FileMetadata): ObjectInfo {
    const generation = meta.generation;
    if (generation === undefined || generation === null || `${generation}` === "") {
      throw new SluiceError(
        "internal",
        `GCS returned no generation for ${key} at ${this.endpoint}; the endpoint does not behave like GCS. Nothing was changed.`,
      );
    }
    const stamp = meta.updated ?? meta.timeCreated;
    const lastModified = stamp ? Date.parse(stamp) : Number.NaN;
    const metadata: Record<string, string> = {};
    for (const [k, v] of Object.entries(meta.metadata ?? {})) {
      const name = k.toLowerCase();
      if (name === GCS_WRITE_ID_KEY || v === null || v === undefined) continue;
      metadata[name] = String(v);
    }
    return {
      key,
      version: String(generation),
      size: Number(meta.size ?? 0),
      lastModified: Number.isFinite(lastModified) ? lastModified : 0,
      metadata,
    };
  }

  #full(key: string): string {
    return joinKey(this.prefix, key);
  }
}

/**
 * An HTTP error answer of a request the store sends itself (a media download
 * or a streamed upload), shaped like the SDK's `ApiError`.
 */
class MediaHttpError extends Error {
  readonly code: number;
  readonly errors: readonly { reason?: string; message?: string }[];
  readonly response: { statusCode: number; headers: Record<string, string>; body: string };
  constructor(status: number, headers: Headers, body: string) {
    let message = body;
    let errors: { reason?: string; message?: string }[] = [];
    try {
      const parsed = JSON.parse(body) as {
        error?: { message?: string; errors?: { reason?: string; message?: string }[] };
      };
      message = parsed.error?.message ?? body;
      errors = parsed.error?.errors ?? [];
    } catch {
      // not JSON: keep the text
    }
    super(message);
    this.name = "MediaHttpError";
    this.code = status;
    this.errors = errors;
    this.response = { statusCode: status, headers: Object.fromEntries(headers), body };
  }
}

/** A transport failure of a request the store sends itself, with a Node-style code for the classifier. */
class MediaTransportError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = "MediaTransportError";
    this.code = code;
  }
}

/** A download whose bytes do not match the object's hash. */
class MediaMismatchError extends Error {
  readonly code = "CONTENT_DOWNLOAD_MISMATCH";
  constructor(message: string) {
    super(message);
    this.name = "MediaMismatchError";
  }
}

function transportCode(message: string): string {
  if (/refused/i.test(message)) return "ECONNREFUSED";
  if (/timed? ?out/i.test(message)) return "ETIMEDOUT";
  if (/dns|lookup|resolve|name or service/i.test(message)) return "EAI_AGAIN";
  return "ECONNRESET";
}

/** A transport failure of `fetch` as a {@link MediaTransportError} the classifier reads. */
function transportError(e: unknown): MediaTransportError {
  const message = e instanceof Error
    ? [e.message, e.cause instanceof Error ? e.cause.message : undefined].filter((m) => m)
      .join(": ")
    : String(e);
  return new MediaTransportError(message, transportCode(message));
}

/** Headers for a direct request: the client's credentials, unless it is anonymous. */
async function requestHeaders(storage: Storage, url: string): Promise<Headers> {
  const headers = new Headers();
  if (!(storage.customEndpoint && !storage.useAuthWithCustomEndpoint)) {
    const auth = await storage.authClient.getRequestHeaders(url);
    auth.forEach((value, key) => headers.set(key, value));
  }
  return headers;
}

/**
 * Opens a download of exactly one generation of an object (`alt=media`) with
 * `fetch`, using the client's endpoint and, unless it is anonymous, its
 * credentials; resolves once a 2xx answer's headers arrived. The SDK's own
 * download stream is not used: under Deno it prints
 * MaxListenersExceededWarning on every download, and it cannot be cancelled.
 */
async function openMedia(
  fetchFn: typeof fetch,
  storage: Storage,
  bucket: string,
  name: string,
  generation: string,
  signal: AbortSignal,
): Promise<Response> {
  const base = storage.apiEndpoint.replace(/\/+$/, "");
  const url = `${base}/storage/v1/b/${encodeURIComponent(bucket)}/o/${
    encodeURIComponent(name)
  }?alt=media&generation=${encodeURIComponent(generation)}`;
  const headers = await requestHeaders(storage, url);
  headers.set("accept-encoding", "identity");
  try {
    const res = await fetchFn(url, { headers, signal });
    if (!res.ok) throw new MediaHttpError(res.status, res.headers, await res.text());
    return res;
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    if (e instanceof MediaHttpError) throw e;
    throw transportError(e);
  }
}

/**
 * Checks downloaded bytes, chunk by chunk, against the object's size and
 * MD5 (or CRC32C, from `x-goog-hash`) when it is stored without content
 * encoding.
 */
class MediaCheck {
  readonly #expected: ObjectInfo;
  readonly #active: boolean;
  readonly #md5?: string;
  readonly #crc?: string;
  readonly #md5Hash = createHash("md5");
  readonly #crc32c = new CRC32C();
  #bytes = 0;

  constructor(headers: Headers, expected: ObjectInfo) {
    this.#expected = expected;
    const stored = headers.get("x-goog-stored-content-encoding");
    this.#active = stored === null || stored === "identity";
    const hashes = new Map<string, string>();
    for (const part of (headers.get("x-goog-hash") ?? "").split(",")) {
      const at = part.indexOf("=");
      if (at > 0) hashes.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
    }
    this.#md5 = hashes.get("md5");
    this.#crc = this.#md5 === undefined ? hashes.get("crc32c") : undefined;
  }

  update(chunk: Uint8Array): void {
    this.#bytes += chunk.byteLength;
    if (!this.#active) return;
    if (this.#md5 !== undefined) this.#md5Hash.update(chunk);
    else if (this.#crc !== undefined) {
      this.#crc32c.update(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
  }

  /**
   * Throws unless the bytes seen match: a body that ended short is a
   * transfer that broke off ({@link MediaTransportError}, retried like an
   * outage); more bytes or another hash is {@link MediaMismatchError}.
   */
  finish(): void {
    if (!this.#active) return;
    const generation = this.#expected.version;
    if (this.#bytes < this.#expected.size) {
      throw new MediaTransportError(
        `the body of generation ${generation} ended after ${this.#bytes} of ${this.#expected.size} bytes`,
        "ECONNRESET",
      );
    }
    if (this.#bytes !== this.#expected.size) {
      throw new MediaMismatchError(
        `${this.#bytes} bytes arrived where generation ${generation} has ${this.#expected.size}`,
      );
    }
    if (this.#md5 !== undefined) {
      if (this.#md5Hash.digest("base64") !== this.#md5) {
        throw new MediaMismatchError(`MD5 of ${this.#bytes} bytes differs from ${this.#md5}`);
      }
    } else if (this.#crc !== undefined && !this.#crc32c.validate(this.#crc)) {
      throw new MediaMismatchError(`CRC32C of ${this.#bytes} bytes differs from ${this.#crc}`);
    }
  }
}

/**
 * Downloads exactly one generation of an object whole (see {@link openMedia})
 * and checks it (see {@link MediaCheck}).
 */
async function downloadMedia(
  fetchFn: typeof fetch,
  storage: Storage,
  bucket: string,
  name: string,
  expected: ObjectInfo,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const res = await openMedia(fetchFn, storage, bucket, name, expected.version, signal);
  let body: Uint8Array;
  try {
    body = new Uint8Array(await res.arrayBuffer());
  } catch (e) {
    if (signal.aborted) throw signal.reason;
    throw transportError(e);
  }
  const check = new MediaCheck(res.headers, expected);
  check.update(body);
  check.finish();
  return body;
}

/**
 * The body of a streamed multipart upload: the JSON metadata part, then the
 * source's bytes as they are read, then the closing boundary, which is sent
 * only once the source ended with exactly its announced size. A source that
 * errors, or yields another length, errors this stream instead (recorded in
 * `failure`), so the request is aborted and never completes an object.
 */
class MultipartBody implements UploadBody {
  readonly stream: ReadableStream<Uint8Array>;
  /** Stops the body for good once the request settled (idempotent). */
  readonly close: () => void;
  /** Set when the source failed (its own error, or a length mismatch). */
  failure?: { readonly error: unknown };

  constructor(
    key: string,
    source: BodySource,
    boundary: string,
    metadataJson: string,
    progress: () => void,
  ) {
    const enc = new TextEncoder();
    const head = enc.encode(multipartHead(boundary, metadataJson));
    const tail = enc.encode(multipartTail(boundary));
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let sent = 0;
    let started = false;
    // Set when the transport cancels the body (a dropped connection) or the
    // put settled: a read pending then ends early, which is not the source's fault.
    let cancelled = false;
    let body: ReadableStreamDefaultController<Uint8Array> | undefined;
    this.close = () => {
      // Once the put settled: stop reading the source (an HTTP stack may go
      // on pulling a request body after the answer came back).
      if (cancelled) return;
      cancelled = true;
      reader?.cancel().catch(() => {});
      try {
        body?.error(new Error("the upload ended"));
      } catch { /* already closed */ }
    };
    const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
      if (cancelled) return;
      this.failure ??= { error };
      controller.error(error);
    };
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        body = controller;
      },
      pull: async (controller) => {
        if (cancelled) return;
        if (!started) {
          started = true;
          try {
            reader = source.stream().getReader();
          } catch (e) {
            return fail(controller, e);
          }
          progress();
          controller.enqueue(head);
          return;
        }
        for (;;) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader!.read();
          } catch (e) {
            return fail(controller, e);
          }
          if (cancelled) return;
          if (chunk.done) {
            if (sent !== source.size) {
              return fail(controller, sourceSizeError(key, source.size, sent));
            }
            progress();
            controller.enqueue(tail);
            controller.close();
            return;
          }
          const bytes = chunk.value;
          if (bytes.byteLength === 0) continue;
          sent += bytes.byteLength;
          if (sent > source.size) {
            reader!.cancel().catch(() => {});
            return fail(controller, sourceSizeError(key, source.size, sent));
          }
          progress();
          controller.enqueue(bytes);
          return;
        }
      },
      cancel: async (reason) => {
        cancelled = true;
        await reader?.cancel(reason).catch(() => {});
      },
    }, { highWaterMark: 0 });
  }
}

/** What an upload sends: a body, how to stop it, and the failure of its source. */
interface UploadBody {
  /** The request body. */
  readonly stream: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>;
  /** Stops the body for good once the request settled (idempotent). */
  readonly close: () => void;
  /** Set when the source failed (its own error, or a length mismatch). */
  readonly failure?: { readonly error: unknown };
}

/**
 * The body of a multipart upload of whole bytes: the JSON metadata part, the
 * bytes, the closing boundary, as one buffer of known length. Shaped like a
 * {@link MultipartBody} (nothing to close, never a source failure).
 */
function multipartBytes(
  data: Uint8Array,
  boundary: string,
  metadataJson: string,
): UploadBody {
  const enc = new TextEncoder();
  const head = enc.encode(multipartHead(boundary, metadataJson));
  const tail = enc.encode(multipartTail(boundary));
  const out = new Uint8Array(head.length + data.length + tail.length);
  out.set(head, 0);
  out.set(data, head.length);
  out.set(tail, head.length + data.length);
  return { stream: out, close: () => {} };
}

/** The multipart parts before the object's bytes: its JSON metadata, then the media part's header. */
function multipartHead(boundary: string, metadataJson: string): string {
  return `--${boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n${metadataJson}\r\n--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n`;
}

/** The closing boundary, after the object's bytes. */
function multipartTail(boundary: string): string {
  return `\r\n--${boundary}--\r\n`;
}

/**
 * A generation for the SDK's `generation` option (typed as a number): a
 * number while exact, else the decimal string itself, which the SDK passes
 * through to the query string unchanged.
 */
function generationParam(version: string): number {
  const n = Number(version);
  return Number.isSafeInteger(n) ? n : (version as unknown as number);
}
