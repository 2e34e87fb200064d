/**
 * An {@link ObjectStore} on Google Cloud Storage through
 * `@google-cloud/storage`, also usable against GCS emulators
 * (fake-gcs-server) through `apiEndpoint`.
 *
 * @module
 */
import type { Storage } from "@google-cloud/storage";
import {
  NotFoundError,
  PreconditionFailedError,
  SluiceError,
  UnsafePathError,
} from "../../sync/errors.ts";
import {
  type AttemptFn,
  AttemptRunner,
  checkedPrefix,
  describeEndpoint,
  joinKey,
  type Recovery,
} from "../store_kit/mod.ts";
import { randomId } from "../../sync/hash.ts";
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
  classifyGcsError,
  type GcsFailure,
  type GcsRequestContext,
  GcsRequestTimeout,
  toSluiceError,
} from "./errors.ts";
import { type AdcLookup, findAdcSource, SYSTEM_ADC_LOOKUP } from "./credentials.ts";
import {
  createGcsStorage,
  fileInfo,
  GCS_WRITE_ID_KEY,
  type GcsStoreOptions,
  GENERATION,
  generationParam,
  notGeneration,
} from "./client.ts";
import { checkedMediaStream, downloadMedia, openMedia } from "./media.ts";
import { uploadMultipart } from "./multipart.ts";

/**
 * How many times `get` re-reads when the object is replaced between its two
 * requests. A key under a compare-and-swap race (a lock, the remote index)
 * can be replaced several times in a row: 5 rounds were seen to run out in
 * the contract's 5-writer race.
 */
const GET_ROUNDS = 25;

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
  /** True once a request on the bucket succeeded, or a read of the bucket was refused (403). */
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
    return {
      ...info,
      body: checkedMediaStream(this.#runner, this.endpoint, ctx, info, value, options.signal),
    };
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
      const info = fileInfo(this.endpoint, key, meta);
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
        throw toSluiceError(notGeneration(mode.version), ctx, this.endpoint);
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
      async (signal, progress) =>
        fileInfo(
          this.endpoint,
          key,
          await uploadMultipart({
            fetch: this.#fetch,
            storage: this.storage,
            bucket: this.bucket,
            endpoint: this.endpoint,
            key,
            name: full,
            data: body,
            custom,
            ifGenerationMatch,
            signal,
            progress,
          }),
        ),
      recover,
    );
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
      throw toSluiceError(notGeneration(ifVersion), ctx, this.endpoint);
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
        page.push(fileInfo(this.endpoint, f.name.slice(this.prefix.length), f.metadata));
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
          info: fileInfo(this.endpoint, key, meta),
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
    // A bucket that could not be read (403) is not asked about again; a
    // missing one is, at the next read that finds no object.
    if (!missing) this.#bucketSeen = true;
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
    // Only a request that succeeded shows the bucket exists: a failure a
    // `recover` turned into a value (a 404 read as an absent object, or as
    // the missing bucket itself) shows nothing about it.
    const seen: AttemptFn<T> = async (attemptSignal, progress) => {
      const value = await fn(attemptSignal, progress);
      this.#bucketSeen = true;
      return value;
    };
    return this.#runner.run(ctx, signal, seen, {
      classify: (e) => classifyGcsError(e, ctx),
      toError: (failure, cause, attempts) =>
        toSluiceError(failure, ctx, this.endpoint, cause, attempts, this.prefix),
      recover,
    });
  }

  #full(key: string): string {
    return joinKey(this.prefix, key);
  }
}
