/**
 * Bodies that are not held whole: a {@link BodySource} over a cache file for
 * uploads, and {@link openObject} for downloads. A file above the streaming
 * threshold moves through Sluice in chunks of {@link CHUNK_BYTES}.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { SluiceError } from "../errors.ts";
import type { BodySource, CallOptions, GetStreamResult, ObjectStore, PutBody } from "../ports.ts";

/** Bytes read from a file per chunk when streaming. */
export const CHUNK_BYTES = 1 << 20;

/** Files larger than this are streamed, not read whole (the default of `streamThresholdBytes`). */
export const DEFAULT_STREAM_THRESHOLD = 8 << 20;

/** True when `body` is a {@link BodySource} rather than bytes. */
export function isBodySource(body: PutBody): body is BodySource {
  return !(body instanceof Uint8Array);
}

/** The length of a body in bytes. */
export function bodySize(body: PutBody): number {
  return isBodySource(body) ? body.size : body.length;
}

/** A stream of `bytes` (one chunk). */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/**
 * Reads a body whole. For stores that cannot stream (an in-memory store);
 * checks that a source yields exactly the size it announced.
 */
export async function bodyBytes(body: PutBody, key = "the body"): Promise<Uint8Array> {
  if (!isBodySource(body)) return body;
  const out = new Uint8Array(body.size);
  let n = 0;
  for await (const chunk of body.stream()) {
    if (n + chunk.length > out.length) throw sourceSizeError(key, body.size, n + chunk.length);
    out.set(chunk, n);
    n += chunk.length;
  }
  if (n !== body.size) throw sourceSizeError(key, body.size, n);
  return out;
}

/**
 * The error of a body source that yielded another length than it announced
 * (`got` above `announced` reads "more than"): the one every store throws.
 */
export function sourceSizeError(key: string, announced: number, got: number): SluiceError {
  return new SluiceError(
    "file_changed",
    `The body of ${key} yielded ${
      got > announced ? `more than ${announced}` : got
    } bytes where ${announced} were announced, so the write was abandoned before its end: nothing was written, and the store kept its previous copy, if any. The local file stays dirty; run the push again once it is no longer being written.`,
  );
}

/**
 * A file read by a {@link fileSource} was gone when the upload opened it (it
 * was deleted after the push hashed it). The push leaves it out and keeps it
 * dirty, as for any file that vanishes during a push.
 */
export class SourceVanishedError extends SluiceError {
  /** The cache path. */
  readonly path: string;
  constructor(path: string, cause?: unknown) {
    super(
      "file_changed",
      `${path} vanished while it was being uploaded. Nothing was written for it; it stays dirty, and the next push treats it as deleted if it is still gone.`,
      { cause },
    );
    this.path = path;
  }
}

/**
 * A {@link BodySource} over a local file, read in chunks. When `sha256` is
 * given, the stream checks the bytes against it; when they differ from the
 * announced size or hash (the file changed since it was hashed), it errors
 * instead of delivering its last chunk, so no store completes the write.
 */
export function fileSource(
  file: string,
  size: number,
  options: {
    sha256?: string;
    label?: string;
    chunkBytes?: number;
    /** Told the bytes this stream has delivered so far, after each chunk (restarts at 0 per stream). */
    onBytes?: (delivered: number) => void;
  } = {},
): BodySource {
  const label = options.label ?? file;
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  return {
    size,
    stream(): ReadableStream<Uint8Array> {
      let handle: Deno.FsFile | undefined;
      let held: Uint8Array | null = null;
      let read = 0;
      let delivered = 0;
      const deliver = (
        controller: ReadableStreamDefaultController<Uint8Array>,
        chunk: Uint8Array,
      ) => {
        controller.enqueue(chunk);
        delivered += chunk.length;
        options.onBytes?.(delivered);
      };
      const hash = createHash("sha256");
      const close = () => {
        try {
          handle?.close();
        } catch { /* already closed */ }
        handle = undefined;
      };
      // Opened on the first pull; a cancel that comes while the open is
      // pending closes the handle as soon as it arrives.
      let cancelled = false;
      let opening: Promise<Deno.FsFile> | undefined;
      const open = () =>
        opening ??= Deno.open(file, { read: true }).then(
          (h) => {
            if (cancelled) {
              h.close();
              throw new SluiceError("aborted", `The upload of ${label} was cancelled`);
            }
            return (handle = h);
          },
          (e) => {
            throw e instanceof Deno.errors.NotFound ? new SourceVanishedError(label, e) : e;
          },
        );
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const h = handle ?? await open();
            for (;;) {
              const buf = new Uint8Array(chunkBytes);
              const n = await h.read(buf);
              if (n === null) {
                close();
                const changed = read !== size
                  ? `it now has ${read} bytes, not ${size}`
                  : options.sha256 && hash.digest("hex") !== options.sha256
                  ? "its bytes differ from those hashed before the upload"
                  : null;
                if (changed) {
                  controller.error(
                    new SluiceError(
                      "file_changed",
                      `${label} changed while it was being uploaded (${changed}). The upload was abandoned before its last bytes, so the store kept its previous copy; the local file stays dirty. Run the push again once the file is no longer being written.`,
                    ),
                  );
                  return;
                }
                if (held) deliver(controller, held);
                controller.close();
                return;
              }
              const chunk = buf.subarray(0, n);
              read += n;
              hash.update(chunk);
              // The last chunk is held back until the end is checked.
              const out = held;
              held = chunk;
              if (out) {
                deliver(controller, out);
                return;
              }
            }
          } catch (e) {
            close();
            if (!cancelled) controller.error(e);
          }
        },
        async cancel() {
          cancelled = true;
          close();
          // An open still on its way closes its handle as it lands.
          await opening?.catch(() => {});
        },
      });
    },
  };
}

/**
 * Opens an object for reading as a stream: `store.getStream` when the store
 * has it, else a whole `get` presented as a one-chunk stream.
 */
export async function openObject(
  store: ObjectStore,
  key: string,
  options: CallOptions = {},
): Promise<GetStreamResult> {
  if (store.getStream) return await store.getStream(key, options);
  const { body, ...info } = await store.get(key, options);
  return { ...info, body: bytesStream(body) };
}
