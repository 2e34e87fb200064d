/**
 * The media layer of the GCS store: downloads of exactly one generation of an
 * object (`alt=media`) sent with `fetch`, checked against the object's size
 * and MD5 or CRC32C as the bytes arrive, whole ({@link downloadMedia}) or as a
 * stream ({@link checkedMediaStream}), and the errors of the requests the
 * store sends itself, shaped for its error classifier.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { CRC32C, type Storage } from "@google-cloud/storage";
import { AbortedError } from "../../sync/errors.ts";
import type { ObjectInfo } from "../../sync/ports.ts";
import type { AttemptRunner } from "../store_kit/mod.ts";
import {
  classifyGcsError,
  type GcsRequestContext,
  GcsRequestTimeout,
  toSluiceError,
} from "./errors.ts";
import { requestHeaders } from "./client.ts";

/**
 * An HTTP error answer of a request the store sends itself (a media download
 * or a streamed upload), shaped like the SDK's `ApiError`.
 */
export class MediaHttpError extends Error {
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
export function transportError(e: unknown): MediaTransportError {
  const message = e instanceof Error
    ? [e.message, e.cause instanceof Error ? e.cause.message : undefined].filter((m) => m)
      .join(": ")
    : String(e);
  return new MediaTransportError(message, transportCode(message));
}

/**
 * Opens a download of exactly one generation of an object (`alt=media`) with
 * `fetch`, using the client's endpoint and, unless it is anonymous, its
 * credentials; resolves once a 2xx answer's headers arrived. The SDK's own
 * download stream is not used: under Deno it prints
 * MaxListenersExceededWarning on every download, and it cannot be cancelled.
 */
export async function openMedia(
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
export async function downloadMedia(
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
 * The body of an opened media download as a stream that checks size and
 * hash as bytes flow, ends only when they match, and errors (mapped like
 * `get`) on a transport failure, the caller's signal, or `requestTimeoutMs`
 * spent waiting for a byte the reader asked for.
 */
export function checkedMediaStream(
  runner: AttemptRunner,
  endpoint: string,
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
    runner.clock.clearTimeout(timer);
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
    controller.error(mediaBodyError(ctx, endpoint, e));
  };
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      if (signal?.aborted) stop(new AbortedError(`The get of ${ctx.key}`));
      for (;;) {
        if (stopped !== undefined) return fail(controller, stopped);
        timer = runner.clock.setTimeout(
          () => stop(runner.timeoutError()),
          runner.timeoutMs,
        );
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          return fail(controller, stopped ?? e);
        } finally {
          runner.clock.clearTimeout(timer);
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
export function mediaBodyError(ctx: GcsRequestContext, endpoint: string, e: unknown): unknown {
  if (e instanceof AbortedError) return e;
  const known = e instanceof MediaMismatchError || e instanceof GcsRequestTimeout ||
    e instanceof MediaTransportError;
  const err = known ? e : transportError(e);
  return toSluiceError(classifyGcsError(err, ctx), ctx, endpoint, err);
}
