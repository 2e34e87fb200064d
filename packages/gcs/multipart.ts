/**
 * The multipart upload of the GCS store (`uploadType=multipart`): one request
 * carrying the object's JSON metadata and its bytes, whole or streamed from a
 * `BodySource` ({@link MultipartBody}), sent with `fetch`.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { FileMetadata, Storage } from "@google-cloud/storage";
import { SluiceError } from "../../sync/errors.ts";
import { isBodySource, sourceSizeError } from "../../sync/transfer/body.ts";
import { randomId } from "../../sync/hash.ts";
import type { BodySource, PutBody } from "../../sync/ports.ts";
import { SourceFailure } from "../store_kit/mod.ts";
import { requestHeaders } from "./client.ts";
import { MediaHttpError, transportError } from "./media.ts";

/** One multipart upload: where it goes and what it carries. */
export interface MultipartUpload {
  /** The `fetch` the request is sent with. */
  readonly fetch: typeof fetch;
  /** The client whose endpoint and credentials the request uses. */
  readonly storage: Storage;
  /** The bucket. */
  readonly bucket: string;
  /** The store's endpoint description, for messages. */
  readonly endpoint: string;
  /** The store key, for messages and a source's length error. */
  readonly key: string;
  /** The full object name (prefix included). */
  readonly name: string;
  /** The object's bytes, or a source to stream them from. */
  readonly data: PutBody;
  /** The object's custom metadata. */
  readonly custom: Record<string, string>;
  /** The generation precondition (`0`: create only), if any. */
  readonly ifGenerationMatch: number | string | undefined;
  /** The attempt's signal. */
  readonly signal: AbortSignal;
  /** Called whenever bytes move, so the attempt's deadline counts from there. */
  readonly progress: () => void;
}

/**
 * One attempt of a put of the GCS store: a multipart upload (`uploadType=multipart`, the
 * request `file.save` makes with `resumable: false`) sent with the store's
 * `fetch`. Bytes go whole, with their MD5 in the metadata, so the server
 * rejects a corrupted upload; a `BodySource` streams (see
 * {@link MultipartBody}). The SDK's request stack is not used for uploads:
 * under Deno, a reset on a reused keep-alive connection leaves its POST
 * waiting for an answer that never comes, until the per-attempt deadline,
 * where `fetch` fails at once (and, retried, the lost-answer check finds
 * our own write). Its write stream, besides, leaves its HTTP request open
 * when its input fails, and cannot be cancelled.
 */
export async function uploadMultipart(upload: MultipartUpload): Promise<FileMetadata> {
  const { key, name: full, data, custom, ifGenerationMatch, signal, progress } = upload;
  const base = upload.storage.apiEndpoint.replace(/\/+$/, "");
  const query = new URLSearchParams({ uploadType: "multipart", name: full });
  if (ifGenerationMatch !== undefined) query.set("ifGenerationMatch", String(ifGenerationMatch));
  const url = `${base}/upload/storage/v1/b/${encodeURIComponent(upload.bucket)}/o?${query}`;
  const boundary = `sluice-${randomId(16)}`;
  const headers = await requestHeaders(upload.storage, url);
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
    res = await upload.fetch(url, { method: "POST", headers, body: body.stream, signal });
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
      `GCS answered the upload of ${key} at ${upload.endpoint} with HTTP ${res.status} but no object resource; the endpoint does not behave like GCS. Run \`head\` on the key to see what was stored.`,
    );
  }
  return meta;
}

/**
 * The body of a streamed multipart upload: the JSON metadata part, then the
 * source's bytes as they are read, then the closing boundary, which is sent
 * only once the source ended with exactly its announced size. A source that
 * errors, or yields another length, errors this stream instead (recorded in
 * `failure`), so the request is aborted and never completes an object.
 */
export class MultipartBody implements UploadBody {
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
