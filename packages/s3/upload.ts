/**
 * The streamed upload of the S3 store: a `BodySource` handed to the SDK as a
 * Node `Readable` ({@link openUpload}), regrouped into chunks the SDK can
 * send, with the last chunk held back until the source ended with exactly
 * its announced size, so a failing source never completes a body.
 *
 * @module
 */
import { Readable } from "node:stream";
import { sourceSizeError } from "../../sync/transfer/body.ts";
import type { BodySource } from "../../sync/ports.ts";

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
export function settleOnAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => {});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** One attempt's upload of a {@link BodySource}. */
export interface Upload {
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
export function openUpload(
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

/** The chunks joined into one array of `size` bytes. */
function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}
