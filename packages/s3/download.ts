/**
 * The streamed download of the S3 store: the SDK's response body as a web
 * stream ({@link webBody}), guarded so that the caller's signal cancels it, a
 * read without progress times out, and transport errors are mapped as for a
 * failed request ({@link guardBody}).
 *
 * @module
 */
import { Readable } from "node:stream";
import type { Clock, TimerHandle } from "../../sync/ports.ts";
import {
  classifyS3Error,
  S3AttemptTimeout,
  type S3RequestContext,
  toSluiceError,
} from "./errors.ts";

/** What {@link guardBody} needs of its store. */
export interface GuardOptions {
  /** Time for the no-progress timeout. */
  readonly clock: Clock;
  /** The longest wait for a read, in ms. */
  readonly timeoutMs: number;
  /** Secrets to redact from messages. */
  readonly secrets: readonly string[];
  /** The store's endpoint description, for messages. */
  readonly endpoint: string;
  /** The store's key prefix, for messages. */
  readonly prefix: string;
}

/**
 * Wraps a response body: the caller's signal cancels it, a read that makes
 * no progress for the attempt timeout fails it, and transport errors are
 * mapped as for a failed request.
 */
export function guardBody(
  body: ReadableStream<Uint8Array>,
  ctx: S3RequestContext,
  callerSignal: AbortSignal | undefined,
  store: GuardOptions,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const { clock, timeoutMs, secrets, endpoint, prefix } = store;
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

/** The SDK's response body as a web stream (an empty one when absent). */
export function webBody(body: unknown): ReadableStream<Uint8Array> {
  if (body === undefined || body === null) return new ReadableStream({ start: (c) => c.close() });
  if (body instanceof ReadableStream) return body as ReadableStream<Uint8Array>;
  const mixin = body as { transformToWebStream?: () => ReadableStream<Uint8Array> };
  if (typeof mixin.transformToWebStream === "function") return mixin.transformToWebStream();
  if (body instanceof Readable) return Readable.toWeb(body) as ReadableStream<Uint8Array>;
  throw new TypeError("the S3 client returned a response body that is not a stream");
}
