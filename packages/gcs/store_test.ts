import assert from "node:assert/strict";
import type { Storage } from "@google-cloud/storage";
import {
  AbortedError,
  AlreadyExistsError,
  hasCode,
  NotFoundError,
  NotImplementedError,
  PreconditionFailedError,
  SluiceError,
  UnreachableError,
} from "../../sync/errors.ts";
import { type BodySource, PutModes } from "../../sync/ports.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { generatedBytes, generatedSource } from "../testing/store_contract.ts";
import { waitFor } from "../testing/wait_for.ts";
import { createHash } from "node:crypto";
import {
  classifyGcsError,
  type GcsRequestContext,
  GcsRequestTimeout,
  redactSecrets,
  toSluiceError,
} from "./errors.ts";
import { GcsStore } from "./store.ts";
import { GCS_WRITE_ID_KEY, type GcsStoreOptions } from "./client.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** An error shaped like the SDK's ApiError. */
function apiError(
  status: number,
  reason = "",
  message = "",
  headers: Record<string, string> = {},
): Error & Record<string, unknown> {
  const e = new Error(message || reason || `HTTP ${status}`) as Error & Record<string, unknown>;
  e.name = "ApiError";
  e.code = status;
  e.errors = reason ? [{ domain: "global", reason, message: message || reason }] : [];
  e.response = {
    statusCode: status,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ error: { code: status, message } }),
    request: { headers: { Authorization: "Bearer ya29.SECRET-TOKEN" } },
  };
  return e;
}

/** An error shaped like node-fetch's FetchError. */
function fetchError(code: string, message: string): Error & Record<string, unknown> {
  const e = new Error(message) as Error & Record<string, unknown>;
  e.name = "FetchError";
  e.code = code;
  e.errno = code;
  e.type = "system";
  return e;
}

const put = (condition?: GcsRequestContext["condition"]): GcsRequestContext => ({
  op: "put",
  key: "data/m/1/raw",
  condition,
  bucket: "b",
});

// ---------------------------------------------------------------- mapping

Deno.test("412 maps to AlreadyExists on create and PreconditionFailed on update and delete", () => {
  const e412 = apiError(412, "conditionNotMet", "Precondition failed");
  const create = toSluiceError(classifyGcsError(e412, put("create")), put("create"), "gs://b");
  assert.ok(create instanceof AlreadyExistsError);
  const update = toSluiceError(classifyGcsError(e412, put("update")), put("update"), "gs://b");
  assert.ok(update instanceof PreconditionFailedError);
  assert.match(update.message, /HTTP 412, conditionNotMet/);
  const delCtx: GcsRequestContext = { op: "delete", key: "k", condition: "delete" };
  assert.ok(
    toSluiceError(classifyGcsError(e412, delCtx), delCtx, "gs://b") instanceof
      PreconditionFailedError,
  );
  // A 412 on a request without a precondition is not a conflict.
  assert.equal(classifyGcsError(e412, put()).kind, "failed");
});

Deno.test("404 is NotFound on reads, PreconditionFailed on a conditional delete, a bucket problem on writes", () => {
  const e404 = apiError(404, "notFound", "No such object: b/k");
  const get: GcsRequestContext = { op: "get", key: "k" };
  assert.ok(toSluiceError(classifyGcsError(e404, get), get, "gs://b") instanceof NotFoundError);
  const del: GcsRequestContext = { op: "delete", key: "k", condition: "delete" };
  assert.equal(classifyGcsError(e404, del).kind, "precondition_failed");
  const write = toSluiceError(classifyGcsError(e404, put("create")), put("create"), "gs://b");
  assert.ok(!(write instanceof NotFoundError));
  assert.equal(write.code, "invalid_config");
  assert.match(write.message, /the bucket b does not exist at gs:\/\/b/);
});

Deno.test("501, or a 400 naming the precondition, is NotImplemented on conditional requests only", () => {
  const e501 = apiError(501, "notImplemented", "Not implemented");
  const f = classifyGcsError(e501, put("create"));
  assert.equal(f.kind, "not_implemented");
  assert.ok(toSluiceError(f, put("create"), "gs://b") instanceof NotImplementedError);
  const e400 = apiError(400, "invalid", "Invalid argument: ifGenerationMatch is not supported");
  assert.equal(classifyGcsError(e400, put("update")).kind, "not_implemented");
  assert.equal(classifyGcsError(e400, put()).kind, "failed");
  const other400 = apiError(400, "invalid", "Invalid argument");
  assert.equal(classifyGcsError(other400, put("create")).kind, "failed");
});

Deno.test("408, 429 and 5xx are transient and ambiguous; after retries they are Unreachable", () => {
  for (const status of [408, 429, 500, 502, 503, 504]) {
    const f = classifyGcsError(apiError(status, "backendError"), put("update"));
    assert.equal(f.kind, "transient", `status ${status}`);
    assert.equal(f.ambiguous, true);
  }
  const f = classifyGcsError(apiError(503, "backendError", "Service unavailable"), put("update"));
  const e = toSluiceError(f, put("update"), "gs://b/p", undefined, 4);
  assert.ok(e instanceof UnreachableError);
  assert.equal(e.retryable, true);
  assert.match(e.message, /put of data\/m\/1\/raw at gs:\/\/b\/p failed after 4 attempts/);
  assert.match(e.message, /HTTP 503, backendError/);
});

Deno.test("transport errors are transient; a refused connection is not ambiguous", () => {
  const refused = classifyGcsError(
    fetchError(
      "ECONNREFUSED",
      "request to http://127.0.0.1:1/x failed, reason: connect ECONNREFUSED",
    ),
    put("create"),
  );
  assert.equal(refused.kind, "transient");
  assert.equal(refused.ambiguous, false);
  const reset = classifyGcsError(fetchError("ECONNRESET", "socket hang up"), put("create"));
  assert.equal(reset.kind, "transient");
  assert.equal(reset.ambiguous, true);
  const hangUp = classifyGcsError(new Error("socket hang up"), put("create"));
  assert.equal(hangUp.kind, "transient");
  const timeout = Object.assign(new Error("network timeout at: http://h/o"), {
    name: "AbortError",
    type: "request-timeout",
  });
  assert.equal(classifyGcsError(timeout, put()).kind, "transient");
  const own = classifyGcsError(new GcsRequestTimeout(800), put());
  assert.equal(own.kind, "transient");
  assert.equal(own.ambiguous, true);
  assert.match(own.detail, /no answer within 800 ms/);
  const nested = Object.assign(new Error("fetch failed"), {
    cause: { code: "UND_ERR_SOCKET" },
  });
  assert.equal(classifyGcsError(nested, put()).kind, "transient");
});

Deno.test("401 and 403 are access problems, never retried, with a hint about credentials", () => {
  const f = classifyGcsError(apiError(403, "forbidden", "Permission denied"), put("create"));
  assert.equal(f.kind, "access_denied");
  const e = toSluiceError(f, put("create"), "gs://b");
  assert.equal(e.retryable, false);
  assert.match(e.message, /Application Default Credentials/);
  assert.equal(classifyGcsError(apiError(401), { op: "head", key: "k" }).kind, "access_denied");
});

Deno.test("a checksum mismatch is retried, then reported as a corrupt download", () => {
  const mismatch = Object.assign(new Error("The downloaded data did not match"), {
    code: "CONTENT_DOWNLOAD_MISMATCH",
  });
  const ctx: GcsRequestContext = { op: "get", key: "k" };
  const f = classifyGcsError(mismatch, ctx);
  assert.equal(f.kind, "transient");
  assert.equal(f.ambiguous, false);
  assert.equal(toSluiceError(f, ctx, "gs://b", mismatch, 3).code, "corrupt_download");
});

Deno.test("unknown errors are failures, not retried and not reported as absent", () => {
  const f = classifyGcsError(new TypeError("x is not a function"), { op: "head", key: "k" });
  assert.equal(f.kind, "failed");
  const e = toSluiceError(f, { op: "head", key: "k" }, "gs://b");
  assert.equal(e.code, "internal");
  assert.match(e.message, /TypeError: x is not a function/);
  assert.equal(
    classifyGcsError(new AbortedError("The get"), { op: "get", key: "k" }).kind,
    "aborted",
  );
});

Deno.test("messages carry the request id and a short body preview, never credentials", () => {
  const err = apiError(
    503,
    "backendError",
    `Backend failed for https://storage.googleapis.com/b/o?X-Goog-Signature=abcdef&X-Goog-Credential=svc "access_token": "ya29.zzz" Authorization: Bearer ya29.SECRET ${
      "x".repeat(500)
    }`,
    { "x-guploader-uploadid": "ADPycdt-UPLOAD-ID" },
  );
  const f = classifyGcsError(err, put("update"));
  assert.equal(f.requestId, "ADPycdt-UPLOAD-ID");
  const e = toSluiceError(f, put("update"), "gs://b", err, 4);
  for (const text of [e.message, String(e.cause), JSON.stringify(e)]) {
    assert.doesNotMatch(text, /SECRET|ya29|abcdef|X-Goog-Credential/);
  }
  assert.match(e.message, /request id ADPycdt-UPLOAD-ID/);
  assert.ok(e.message.length < 800, `message is ${e.message.length} characters`);
  // The raw SDK error (with its request and headers) is not kept as the cause.
  assert.ok(e.cause instanceof Error);
  assert.equal((e.cause as unknown as Record<string, unknown>).response, undefined);
});

Deno.test("redactSecrets removes tokens, keys, URL passwords and query strings", () => {
  assert.equal(redactSecrets("GET https://h/o?sig=1 failed"), "GET https://h/o?… failed");
  assert.equal(redactSecrets("Authorization: Bearer abc.def"), "Authorization: …");
  assert.equal(redactSecrets("token Bearer abc.def here"), "token Bearer … here");
  assert.equal(redactSecrets('{"access_token":"ya29.x","n":1}'), '{"access_token":…,"n":1}');
  assert.equal(redactSecrets("http://user:pw@host/p"), "http://…@host/p");
  assert.equal(
    redactSecrets("key -----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY----- end"),
    "key … end",
  );
});

// ---------------------------------------------------------------- store logic over a fake SDK

interface FakeObject {
  data: Uint8Array;
  generation: number;
  metadata: Record<string, string>;
  updated: string;
}

/** SDK calls, and the two requests the store sends with `fetch`: an upload and a media download. */
type FakeOp = "getMetadata" | "delete" | "getFiles" | "upload" | "media";

interface Fault {
  readonly op: FakeOp;
  /**
   * Error to throw; or "hang" for a request that never answers. On `upload`
   * and `media`, an error with an HTTP status (see `apiError`) is answered
   * as that status, any other error is a transport failure.
   */
  readonly error: Error | "hang";
  /** Apply the request first, then fail (a lost answer). */
  readonly afterEffect?: boolean;
}

const latin = (bytes: Uint8Array) => String.fromCharCode(...bytes);

/** The position of `needle` in `hay` at or after `from`, or -1. */
function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i <= hay.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Reads a request body whole, as a server would; rejects with the abort reason when cancelled. */
async function readRequestBody(body: ReadableStream<Uint8Array>, signal?: AbortSignal) {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  const aborted = new Promise<never>((_, reject) => {
    const onAbort = () => {
      reader.cancel(signal?.reason).catch(() => {});
      reject(signal?.reason);
    };
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => {});
  for (;;) {
    const r = await Promise.race([reader.read(), aborted]);
    if (r.done) break;
    chunks.push(r.value);
  }
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return { bytes: out, chunks: chunks.length };
}

/** A request's body as a stream: uploads of whole bytes send a buffer, streamed ones a stream. */
function requestBody(init: RequestInit): ReadableStream<Uint8Array> {
  const body = init.body;
  if (body instanceof Uint8Array) return new Blob([body.slice()]).stream();
  return body as ReadableStream<Uint8Array>;
}

/** A transport failure as `fetch` reports one. */
const fetchFailed = (cause: unknown) => new TypeError("fetch failed", { cause });

/** A JSON error answer shaped like GCS's. */
function errorResponse(status: number, reason: string, message: string): Response {
  return new Response(
    JSON.stringify({ error: { code: status, message, errors: [{ reason, message }] } }),
    { status, headers: { "content-type": "application/json" } },
  );
}

/**
 * A tiny stand-in for the parts of `Storage` the store uses, and for the
 * JSON API requests it sends with `fetch` (streamed uploads, media downloads).
 */
class FakeGcs {
  readonly objects = new Map<string, FakeObject>();
  readonly faults: Fault[] = [];
  readonly calls: string[] = [];
  /** Query strings of the streamed uploads received. */
  readonly uploads: URLSearchParams[] = [];
  /** How many chunks each streamed upload's body arrived in. */
  readonly uploadChunks: number[] = [];
  /** Media bodies are served in chunks of this size. */
  mediaChunkBytes = 64 * 1024;
  /** Flip a byte of every media body (the hash header stays right). */
  corruptMedia = false;
  /** Stop sending a media body after this many bytes, without ending it. */
  stallMediaAfter: number | undefined;
  /** End a media body after this many bytes, as a dropped connection may. */
  endMediaAfter: number | undefined;
  /** Media bodies cancelled by the reader. */
  mediaCancelled = 0;
  /** Answer uploads with 412 without reading their body. */
  answerUploadsEarly = false;
  readonly apiEndpoint = "http://fake-gcs.test";
  readonly customEndpoint = true;
  readonly useAuthWithCustomEndpoint = false;
  #gen = 1000;

  /** The `fetch` the store is given. */
  readonly fetch: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname.startsWith("/upload/storage/v1/b/")) return this.#upload(url, init ?? {});
    if (url.searchParams.get("alt") === "media") return this.#media(url, init ?? {});
    return Promise.resolve(errorResponse(400, "invalid", `unexpected request ${url.pathname}`));
  };

  asStorage(): Storage {
    return this as unknown as Storage;
  }

  bucket(_name: string) {
    // deno-lint-ignore no-this-alias
    const gcs = this;
    return {
      file(name: string, options: { generation?: number } = {}) {
        return gcs.#file(name, options.generation);
      },
      getFiles(
        q: { prefix?: string; maxResults?: number; pageToken?: string },
      ): Promise<[unknown[], { pageToken: string } | null, unknown]> {
        return gcs.#call("getFiles", () => {
          const names = [...gcs.objects.keys()]
            .filter((n) => n.startsWith(q.prefix ?? "") && (!q.pageToken || n >= q.pageToken))
            .sort();
          const max = q.maxResults ?? 1000;
          const page = names.slice(0, max).map((n) => ({ name: n, metadata: gcs.#meta(n) }));
          const next = names.length > max ? { pageToken: names[max] } : null;
          return [page, next, {}];
        });
      },
    };
  }

  #file(name: string, pinned?: number) {
    // deno-lint-ignore no-this-alias
    const gcs = this;
    return {
      name,
      getMetadata(): Promise<[Record<string, unknown>]> {
        return gcs.#call("getMetadata", () => {
          if (!gcs.objects.has(name)) throw apiError(404, "notFound", "Not Found");
          return [gcs.#meta(name)];
        });
      },
      delete(opts: { ifGenerationMatch?: number | string } = {}): Promise<void> {
        return gcs.#call("delete", () => {
          const cur = gcs.objects.get(name);
          if (!cur || (pinned !== undefined && cur.generation !== pinned)) {
            throw apiError(404, "notFound", "Not Found");
          }
          const want = opts.ifGenerationMatch;
          if (want !== undefined && Number(want) !== cur.generation) {
            throw apiError(412, "conditionNotMet", "Precondition failed");
          }
          gcs.objects.delete(name);
        });
      },
    };
  }

  /** A fault for `op`, if one is queued, removed from the queue. */
  #take(op: FakeOp): Fault | undefined {
    this.calls.push(op);
    const i = this.faults.findIndex((f) => f.op === op);
    return i >= 0 ? this.faults.splice(i, 1)[0] : undefined;
  }

  /** Answers a fault as `fetch` would: an HTTP status as a response, else a transport failure. */
  #fetchFault(error: Error): Promise<Response> {
    const status = (error as { code?: unknown }).code;
    if (typeof status === "number") {
      const reason = (error as { errors?: { reason?: string }[] }).errors?.[0]?.reason;
      return Promise.resolve(errorResponse(status, reason || "x", error.message));
    }
    return Promise.reject(fetchFailed(error));
  }

  #hang(signal?: AbortSignal | null): Promise<never> {
    return new Promise((_, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }

  async #upload(url: URL, init: RequestInit): Promise<Response> {
    const fault = this.#take("upload");
    this.uploads.push(url.searchParams);
    if (this.answerUploadsEarly) {
      // Answer after the first bytes of the body (as a server refusing a
      // precondition may), leaving the rest to the client's HTTP stack.
      const reader = requestBody(init).getReader();
      await reader.read();
      await reader.read();
      reader.releaseLock();
      return errorResponse(412, "conditionNotMet", "At least one of the pre-conditions failed");
    }
    let raw: Uint8Array;
    try {
      const read = await readRequestBody(
        requestBody(init),
        init.signal ?? undefined,
      );
      raw = read.bytes;
      this.uploadChunks.push(read.chunks);
    } catch (e) {
      if (init.signal?.aborted) throw e;
      throw fetchFailed(e);
    }
    if (fault?.error === "hang") return await this.#hang(init.signal);
    if (fault && !fault.afterEffect) return await this.#fetchFault(fault.error);
    const type = new Headers(init.headers).get("content-type") ?? "";
    const boundary = /boundary=(.+)$/.exec(type)?.[1] ?? "";
    const enc = new TextEncoder();
    const blank = enc.encode("\r\n\r\n");
    const jsonStart = indexOfBytes(raw, blank) + 4;
    const between = indexOfBytes(raw, enc.encode(`\r\n--${boundary}\r\n`), jsonStart);
    const dataStart = indexOfBytes(raw, blank, between) + 4;
    const closing = enc.encode(`\r\n--${boundary}--\r\n`);
    const dataEnd = raw.length - closing.length;
    if (
      !boundary || jsonStart < 4 || between < 0 || dataStart < 4 ||
      latin(raw.subarray(dataEnd)) !== latin(closing)
    ) {
      return errorResponse(400, "invalid", "malformed multipart body");
    }
    const resource = JSON.parse(new TextDecoder().decode(raw.subarray(jsonStart, between))) as {
      name: string;
      metadata?: Record<string, string>;
    };
    const name = url.searchParams.get("name")!;
    assert.equal(resource.name, name);
    const cur = this.objects.get(name);
    const want = url.searchParams.get("ifGenerationMatch");
    if (want !== null && Number(want) !== (cur?.generation ?? 0)) {
      return errorResponse(412, "conditionNotMet", "Precondition failed");
    }
    this.objects.set(name, {
      data: raw.slice(dataStart, dataEnd),
      generation: ++this.#gen,
      metadata: { ...(resource.metadata ?? {}) },
      updated: new Date(Date.UTC(2026, 0, 1, 0, 0, this.#gen % 60)).toISOString(),
    });
    if (fault) return await this.#fetchFault(fault.error as Error);
    return new Response(JSON.stringify(this.#meta(name)), {
      headers: { "content-type": "application/json" },
    });
  }

  async #media(url: URL, init: RequestInit): Promise<Response> {
    const fault = this.#take("media");
    if (fault?.error === "hang") return await this.#hang(init.signal);
    if (fault) return await this.#fetchFault(fault.error);
    const name = decodeURIComponent(url.pathname.split("/o/")[1]);
    const o = this.objects.get(name);
    if (!o || String(o.generation) !== url.searchParams.get("generation")) {
      return errorResponse(404, "notFound", "No such object");
    }
    const md5 = createHash("md5").update(o.data).digest("base64");
    const data = o.data.slice(0, this.endMediaAfter ?? o.data.length);
    if (this.corruptMedia && data.length > 0) data[data.length - 1] ^= 1;
    let at = 0;
    const stallAt = this.stallMediaAfter;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (stallAt !== undefined && at >= stallAt) return new Promise<void>(() => {});
        if (at >= data.length) return controller.close();
        const end = Math.min(data.length, at + this.mediaChunkBytes);
        controller.enqueue(data.slice(at, end));
        at = end;
      },
      cancel: () => {
        this.mediaCancelled++;
      },
    });
    return new Response(body, { headers: { "x-goog-hash": `md5=${md5}` } });
  }

  #meta(name: string): Record<string, unknown> {
    const o = this.objects.get(name)!;
    return {
      name,
      generation: String(o.generation),
      size: String(o.data.length),
      updated: o.updated,
      metadata: { ...o.metadata },
    };
  }

  #call<T>(op: FakeOp, effect: () => T): Promise<T> {
    this.calls.push(op);
    const i = this.faults.findIndex((f) => f.op === op);
    const fault = i >= 0 ? this.faults.splice(i, 1)[0] : undefined;
    if (fault?.error === "hang") return new Promise<T>(() => {});
    if (fault && !fault.afterEffect) return Promise.reject(fault.error);
    try {
      const value = effect();
      return fault ? Promise.reject(fault.error) : Promise.resolve(value);
    } catch (e) {
      return Promise.reject(e);
    }
  }
}

function setup(options: Partial<GcsStoreOptions> = {}) {
  const gcs = new FakeGcs();
  const clock = new FakeClock();
  const retries: string[] = [];
  const store = new GcsStore({
    bucket: "b",
    prefix: "/root/",
    storage: gcs.asStorage(),
    fetch: gcs.fetch,
    clock,
    random: () => 0.5,
    requestTimeoutMs: 1_000,
    retries: 3,
    retryBaseDelayMs: 100,
    onRetry: (e) => retries.push(`${e.op} ${e.attempt} ${e.delayMs} ${e.detail}`),
    ...options,
  });
  return { gcs, clock, store, retries };
}

/** Runs `p` to completion while advancing the fake clock; returns its value or error. */
async function settle<T>(clock: FakeClock, p: Promise<T>): Promise<T | Error> {
  let done = false;
  let result: T | Error = new Error("unsettled");
  p.then((v) => (result = v), (e) => (result = e)).finally(() => (done = true));
  await waitFor(() => done, { clock, timeoutMs: 60_000, stepMs: 50 });
  return result;
}

Deno.test("GcsStore: endpoint, prefix and keys relative to the prefix", async () => {
  const { gcs, clock, store } = setup();
  assert.equal(store.endpoint, "gs://b/root");
  assert.equal(store.prefix, "root/");
  const info = await settle(
    clock,
    store.put("a/b", enc("x"), PutModes.create, {
      metadata: { owner: "me" },
    }),
  );
  assert.ok(!(info instanceof Error));
  assert.equal(info.key, "a/b");
  assert.equal(info.size, 1);
  assert.match(info.version, /^\d+$/);
  assert.deepEqual(info.metadata, { owner: "me" });
  assert.ok(gcs.objects.has("root/a/b"));
  // The write id is stored but never returned.
  assert.ok(gcs.objects.get("root/a/b")!.metadata[GCS_WRITE_ID_KEY]);
  const head = await settle(clock, store.head("a/b"));
  assert.ok(head && !(head instanceof Error));
  assert.deepEqual(head.metadata, { owner: "me" });
  assert.equal(head.lastModified, Date.parse(gcs.objects.get("root/a/b")!.updated));
  await assert.rejects(store.put("/abs", enc("x"), PutModes.create), /relative/);
});

Deno.test("GcsStore: a transient failure is retried with backoff on the injected clock", async () => {
  const { gcs, clock, store, retries } = setup();
  gcs.faults.push({ op: "upload", error: apiError(503, "backendError", "try later") });
  gcs.faults.push({ op: "upload", error: fetchError("ECONNREFUSED", "connect ECONNREFUSED") });
  const info = await settle(clock, store.put("k", enc("x"), PutModes.create));
  assert.ok(!(info instanceof Error), String(info));
  assert.equal(retries.length, 2);
  assert.match(retries[0], /^put 1 100 HTTP 503, backendError/);
  assert.match(retries[1], /^put 2 200 ECONNREFUSED/);
  assert.deepEqual(gcs.calls, ["upload", "upload", "upload"]);
});

Deno.test("GcsStore: transient failures past the retries are Unreachable", async () => {
  const { gcs, clock, store } = setup({ retries: 2 });
  for (let i = 0; i < 3; i++) gcs.faults.push({ op: "getMetadata", error: apiError(500) });
  const err = await settle(clock, store.head("k"));
  assert.ok(err instanceof UnreachableError, String(err));
  assert.match(err.message, /head of k at gs:\/\/b\/root failed after 3 attempts/);
  assert.equal(gcs.calls.length, 3);
});

Deno.test("GcsStore: head is null only on 404; other failed reads throw", async () => {
  const { gcs, clock, store } = setup({ retries: 0 });
  assert.equal(await settle(clock, store.head("missing")), null);
  gcs.faults.push({ op: "getMetadata", error: apiError(403, "forbidden", "denied") });
  const denied = await settle(clock, store.head("k"));
  assert.ok(denied instanceof SluiceError && denied.code === "invalid_config", String(denied));
  gcs.faults.push({ op: "getMetadata", error: new TypeError("boom") });
  const odd = await settle(clock, store.head("k"));
  assert.ok(hasCode(odd, "internal"), String(odd));
});

Deno.test("GcsStore: a request that never answers ends at the per-attempt deadline", async () => {
  const { gcs, clock, store, retries } = setup({ retries: 1 });
  gcs.faults.push({ op: "getMetadata", error: "hang" }, { op: "getMetadata", error: "hang" });
  const err = await settle(clock, store.head("k"));
  assert.ok(err instanceof UnreachableError, String(err));
  assert.match(err.message, /timed out: no answer within 1000 ms/);
  // Said as S3's is, never by the store's internal code.
  assert.doesNotMatch(err.message, /SLUICE_REQUEST_TIMEOUT/);
  assert.match(retries[0], /timed out/);
});

Deno.test("GcsStore: the caller's signal cancels a hung request and a backoff", async () => {
  const { gcs, clock, store } = setup();
  gcs.faults.push({ op: "upload", error: "hang" });
  const controller = new AbortController();
  const p = store.put("k", enc("x"), PutModes.create, { signal: controller.signal });
  await clock.advance(10);
  controller.abort();
  assert.ok((await settle(clock, p)) instanceof AbortedError);

  gcs.faults.push({ op: "upload", error: apiError(503) });
  const c2 = new AbortController();
  const p2 = store.put("k2", enc("x"), PutModes.create, { signal: c2.signal });
  await waitFor(() => gcs.calls.length === 2, { clock });
  c2.abort();
  assert.ok((await settle(clock, p2)) instanceof AbortedError);
  assert.equal(gcs.objects.has("root/k2"), false);
});

Deno.test("GcsStore: a create whose answer was lost is our success, not AlreadyExists", async () => {
  const { gcs, clock, store } = setup();
  gcs.faults.push({
    op: "upload",
    error: fetchError("ECONNRESET", "socket hang up"),
    afterEffect: true,
  });
  const info = await settle(clock, store.put("v/1/raw", enc("mine"), PutModes.create));
  assert.ok(!(info instanceof Error), String(info));
  assert.equal(info.version, String(gcs.objects.get("root/v/1/raw")!.generation));
  assert.deepEqual(gcs.calls, ["upload", "upload", "getMetadata"]);
});

Deno.test("GcsStore: an update whose answer was lost is our success; another writer's is a conflict", async () => {
  const { gcs, clock, store } = setup();
  const v1 = await settle(clock, store.put("latest", enc("1"), PutModes.create));
  assert.ok(!(v1 instanceof Error));
  gcs.faults.push({ op: "upload", error: apiError(503), afterEffect: true });
  const v2 = await settle(clock, store.put("latest", enc("2"), PutModes.update(v1.version)));
  assert.ok(!(v2 instanceof Error), String(v2));
  assert.notEqual(v2.version, v1.version);

  // A lost answer, then another writer got in first: the retry's 412 is real.
  const staleBase = v2.version;
  gcs.faults.push({ op: "upload", error: fetchError("ECONNRESET", "socket hang up") });
  const p = store.put("latest", enc("3"), PutModes.update(staleBase));
  await waitFor(() => gcs.calls.filter((c) => c === "upload").length >= 4, { clock });
  gcs.objects.get("root/latest")!.generation += 1;
  gcs.objects.get("root/latest")!.metadata[GCS_WRITE_ID_KEY] = "someone-else";
  const err = await settle(clock, p);
  assert.ok(err instanceof PreconditionFailedError, String(err));
  assert.match(err.message, /answer was lost .* may have landed before it/);
});

Deno.test("GcsStore: without a lost answer a 412 is reported at once, after one read-back", async () => {
  const { gcs, clock, store } = setup();
  await settle(clock, store.put("k", enc("a"), PutModes.create));
  gcs.calls.length = 0;
  const err = await settle(clock, store.put("k", enc("b"), PutModes.create));
  assert.ok(err instanceof AlreadyExistsError, String(err));
  // The read-back finds another write id: no retry, the conflict stands.
  assert.deepEqual(gcs.calls, ["upload", "getMetadata"]);
});

Deno.test("GcsStore: a create the transport sent twice is our success, not AlreadyExists", async () => {
  const { gcs, clock } = setup();
  // The first copy lands, its answer is lost, the HTTP stack resends it by
  // itself: the store sees one attempt, answered 412.
  const send = gcs.fetch;
  let replayed = false;
  const replaying: typeof fetch = async (input, init) => {
    if (replayed) return await send(input, init);
    replayed = true;
    const bytes = new Uint8Array(await new Response(init?.body).arrayBuffer());
    await send(input, { ...init, body: bytes });
    return await send(input, { ...init, body: bytes });
  };
  const s = new GcsStore({
    bucket: "b",
    storage: gcs.asStorage(),
    fetch: replaying,
    clock,
    random: () => 0.5,
  });
  const info = await settle(clock, s.put("v/1/raw", enc("mine"), PutModes.create));
  assert.ok(!(info instanceof Error), String(info));
  assert.equal(info.version, String(gcs.objects.get("v/1/raw")!.generation));
  assert.deepEqual(gcs.calls, ["upload", "upload", "getMetadata"]);
});

Deno.test("GcsStore: an update naming a non-generation version fails without a request", async () => {
  const { gcs, clock, store } = setup();
  const err = await settle(clock, store.put("k", enc("b"), PutModes.update("etag-abc")));
  assert.ok(err instanceof PreconditionFailedError, String(err));
  assert.match(err.message, /not a GCS generation/);
  const del = await settle(clock, store.delete("k", { ifVersion: "v1" }));
  assert.ok(del instanceof PreconditionFailedError, String(del));
  assert.deepEqual(gcs.calls, []);
});

Deno.test("GcsStore: deletes: absent is fine, a stale generation is refused, gone after a conflict is done", async () => {
  const { gcs, clock, store } = setup();
  assert.equal(await settle(clock, store.delete("never")), undefined);
  const v1 = await settle(clock, store.put("k", enc("a"), PutModes.create));
  assert.ok(!(v1 instanceof Error));
  const v2 = await settle(clock, store.put("k", enc("b"), PutModes.update(v1.version)));
  assert.ok(!(v2 instanceof Error));
  const stale = await settle(clock, store.delete("k", { ifVersion: v1.version }));
  assert.ok(stale instanceof PreconditionFailedError, String(stale));
  assert.ok(gcs.objects.has("root/k"));
  // The delete lands but its answer is lost; the transport's replay meets 404.
  gcs.faults.push({
    op: "delete",
    error: fetchError("ECONNRESET", "socket hang up"),
    afterEffect: true,
  });
  assert.equal(await settle(clock, store.delete("k", { ifVersion: v2.version })), undefined);
  assert.equal(gcs.objects.has("root/k"), false);
});

Deno.test("GcsStore: list pages in key order with keys relative to the prefix", async () => {
  const { gcs, clock, store } = setup();
  for (const k of ["d/3", "d/1", "d/2", "e/1"]) {
    await settle(clock, store.put(k, enc(k), PutModes.overwrite));
  }
  gcs.objects.set("elsewhere/d/9", {
    data: enc("x"),
    generation: 1,
    metadata: {},
    updated: new Date(0).toISOString(),
  });
  const pages: string[][] = [];
  const it = (async () => {
    for await (const page of store.list("d/", { pageSize: 2 })) pages.push(page.map((i) => i.key));
  })();
  await settle(clock, it);
  assert.deepEqual(pages, [["d/1", "d/2"], ["d/3"]]);
});

// ---------------------------------------------------------------- streamed bodies

/** A source that yields `chunks` chunks of `chunkBytes`, sleeping `delayMs` on `clock` before each. */
function slowSource(
  clock: FakeClock,
  chunks: number,
  chunkBytes: number,
  delayMs: (i: number) => number,
): BodySource & { cancelled: boolean } {
  const source = {
    size: chunks * chunkBytes,
    cancelled: false,
    stream(): ReadableStream<Uint8Array> {
      let i = 0;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (i >= chunks) return controller.close();
          await clock.sleep(delayMs(i));
          controller.enqueue(new Uint8Array(chunkBytes).fill(i++));
        },
        cancel() {
          source.cancelled = true;
        },
      }, { highWaterMark: 0 });
    },
  };
  return source;
}

/** Reads a stream whole. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const c of stream) chunks.push(c);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

Deno.test("GcsStore: a streamed put sends the source in chunks with the same preconditions and metadata", async () => {
  const { gcs, clock, store } = setup();
  const size = 300 * 1024 + 7;
  const source = generatedSource(size, { seed: 2, chunkBytes: 32 * 1024 });
  const info = await settle(
    clock,
    store.put("v/1/raw", source, PutModes.create, { metadata: { owner: "me" } }),
  );
  assert.ok(!(info instanceof Error), String(info));
  assert.equal(info.size, size);
  assert.deepEqual(info.metadata, { owner: "me" });
  const stored = gcs.objects.get("root/v/1/raw")!;
  assert.deepEqual(stored.data, generatedBytes(size, 2));
  assert.equal(info.version, String(stored.generation));
  assert.ok(stored.metadata[GCS_WRITE_ID_KEY]);
  assert.equal(source.stats.streams, 1);
  assert.deepEqual(gcs.calls, ["upload"]);
  assert.equal(gcs.uploads[0].get("ifGenerationMatch"), "0");
  assert.equal(gcs.uploads[0].get("uploadType"), "multipart");
  // The body arrived as it was read, not as one concatenated buffer.
  assert.ok(gcs.uploadChunks[0] > 5, `${gcs.uploadChunks[0]} chunks`);

  const again = await settle(clock, store.put("v/1/raw", generatedSource(10), PutModes.create));
  assert.ok(again instanceof AlreadyExistsError, String(again));
  const stale = await settle(
    clock,
    store.put("v/1/raw", generatedSource(10), PutModes.update(String(stored.generation - 1))),
  );
  assert.ok(stale instanceof PreconditionFailedError, String(stale));
  assert.match(stale.message, /HTTP 412, conditionNotMet/);
  const updated = await settle(
    clock,
    store.put("v/1/raw", generatedSource(10, { seed: 5 }), PutModes.update(info.version)),
  );
  assert.ok(!(updated instanceof Error), String(updated));
  assert.equal(gcs.uploads[3].get("ifGenerationMatch"), info.version);
  assert.deepEqual(gcs.objects.get("root/v/1/raw")!.data, generatedBytes(10, 5));
  // Overwrite sends no precondition.
  await settle(clock, store.put("other", generatedSource(3), PutModes.overwrite));
  assert.equal(gcs.uploads[4].get("ifGenerationMatch"), null);
});

Deno.test("GcsStore: once a streamed put has its answer, its source is no longer read", async () => {
  const { gcs, clock, store } = setup();
  gcs.answerUploadsEarly = true;
  let cancelled = 0;
  const source: BodySource = {
    size: 4 * 1024 * 1024,
    stream() {
      const inner = generatedSource(4 * 1024 * 1024).stream().getReader();
      return new ReadableStream<Uint8Array>({
        async pull(c) {
          const { done, value } = await inner.read();
          if (done) c.close();
          else c.enqueue(value);
        },
        cancel(reason) {
          cancelled++;
          return inner.cancel(reason);
        },
      });
    },
  };
  const got = await settle(clock, store.put("k", source, PutModes.create));
  assert.ok(got instanceof AlreadyExistsError, String(got));
  assert.equal(cancelled, 1, "the source was left open after the answer");
});

Deno.test("GcsStore: a source that fails rejects with its own error, unretried, and writes nothing", async () => {
  const { gcs, clock, store, retries } = setup();
  await settle(clock, store.put("k", enc("old"), PutModes.overwrite));
  const error = new Error("the disk went away");
  const source = generatedSource(512 * 1024, { failAfter: 128 * 1024, error });
  const got = await settle(clock, store.put("k", source, PutModes.overwrite));
  assert.equal(got, error);
  assert.equal(source.stats.streams, 1);
  assert.deepEqual(retries, []);
  assert.equal(new TextDecoder().decode(gcs.objects.get("root/k")!.data), "old");

  // A source whose stream() itself throws, on a create.
  const thrown = new RangeError("cannot open");
  const broken: BodySource = {
    size: 10,
    stream() {
      throw thrown;
    },
  };
  assert.equal(await settle(clock, store.put("fresh", broken, PutModes.create)), thrown);
  assert.equal(gcs.objects.has("root/fresh"), false);
  assert.deepEqual(retries, []);
});

Deno.test("GcsStore: a source of another length than announced writes nothing and is not retried", async () => {
  const { gcs, clock, store } = setup();
  const short = generatedSource(200 * 1024, { shortBy: 1 });
  const e1 = await settle(clock, store.put("short", short, PutModes.overwrite));
  assert.ok(hasCode(e1, "file_changed"), String(e1));
  assert.match((e1 as Error).message, /yielded 204799 bytes where 204800 were announced/);
  assert.equal(short.stats.streams, 1);
  const inner = generatedSource(200 * 1024);
  const long: BodySource = { size: 100 * 1024, stream: () => inner.stream() };
  const e2 = await settle(clock, store.put("long", long, PutModes.create));
  assert.ok(hasCode(e2, "file_changed"), String(e2));
  assert.equal(gcs.objects.size, 0);
});

Deno.test("GcsStore: a transient failure of a streamed put is retried with a fresh stream", async () => {
  const { gcs, clock, store, retries } = setup();
  gcs.faults.push({ op: "upload", error: apiError(503, "backendError", "try later") });
  const source = generatedSource(100 * 1024, { seed: 7 });
  const info = await settle(clock, store.put("k", source, PutModes.create));
  assert.ok(!(info instanceof Error), String(info));
  assert.equal(source.stats.streams, 2);
  assert.match(retries[0], /^put 1 100 HTTP 503/);
  assert.deepEqual(gcs.objects.get("root/k")!.data, generatedBytes(100 * 1024, 7));
});

Deno.test("GcsStore: a streamed create whose answer was lost is our success", async () => {
  const { gcs, clock, store } = setup();
  gcs.faults.push({
    op: "upload",
    error: fetchError("ECONNRESET", "socket hang up"),
    afterEffect: true,
  });
  const source = generatedSource(1000);
  const info = await settle(clock, store.put("v/2/raw", source, PutModes.create));
  assert.ok(!(info instanceof Error), String(info));
  assert.equal(info.version, String(gcs.objects.get("root/v/2/raw")!.generation));
  assert.equal(source.stats.streams, 2);
  assert.deepEqual(gcs.calls, ["upload", "upload", "getMetadata"]);
});

Deno.test("GcsStore: a streamed put's deadline counts time without progress, not the whole upload", async () => {
  const { gcs, clock, store } = setup({ retries: 0 });
  // Five chunks 600 ms apart: 3 s in all, never 1 s without a byte.
  const steady = slowSource(clock, 5, 1024, () => 600);
  const info = await settle(clock, store.put("slow", steady, PutModes.overwrite));
  assert.ok(!(info instanceof Error), String(info));
  assert.equal(gcs.objects.get("root/slow")!.data.length, 5 * 1024);
  // A source that stalls for longer than the deadline ends the attempt.
  const stalled = slowSource(clock, 3, 1024, (i) => (i === 1 ? 5_000 : 10));
  const err = await settle(clock, store.put("stalled", stalled, PutModes.overwrite));
  assert.ok(err instanceof UnreachableError, String(err));
  assert.match(err.message, /no answer within 1000 ms/);
  assert.equal(gcs.objects.has("root/stalled"), false);
});

Deno.test("GcsStore: the caller's signal cancels a streamed put mid-stream", async () => {
  const { gcs, clock, store } = setup();
  const source = slowSource(clock, 10, 1024, () => 100);
  const controller = new AbortController();
  const p = store.put("k", source, PutModes.create, { signal: controller.signal });
  await waitFor(() => gcs.calls.includes("upload"), { clock });
  await clock.advance(250);
  controller.abort();
  const err = await settle(clock, p);
  assert.ok(err instanceof AbortedError, String(err));
  await waitFor(() => source.cancelled, { clock });
  assert.equal(gcs.objects.has("root/k"), false);
});

Deno.test("GcsStore: getStream streams the generation whose info it returns", async () => {
  const { gcs, clock, store } = setup();
  gcs.mediaChunkBytes = 10_000;
  const bytes = generatedBytes(123_456, 4);
  const put = await settle(
    clock,
    store.put("big", bytes, PutModes.create, { metadata: { a: "b" } }),
  );
  assert.ok(!(put instanceof Error));
  gcs.calls.length = 0;
  const got = await settle(clock, store.getStream("big"));
  assert.ok(!(got instanceof Error), String(got));
  assert.equal(got.version, put.version);
  assert.equal(got.size, bytes.length);
  assert.deepEqual(got.metadata, { a: "b" });
  const chunks: number[] = [];
  const all: Uint8Array[] = [];
  for await (const c of got.body) {
    chunks.push(c.length);
    all.push(c);
  }
  assert.equal(chunks.length, 13);
  assert.deepEqual(await drain(ReadableStream.from(all)), bytes);
  assert.deepEqual(gcs.calls, ["getMetadata", "media"]);

  const absent = await settle(clock, store.getStream("absent"));
  assert.ok(absent instanceof NotFoundError, String(absent));
  // The object was replaced between the metadata read and the download: read again.
  gcs.faults.push({ op: "media", error: apiError(404, "notFound", "No such object") });
  gcs.calls.length = 0;
  const again = await settle(clock, store.getStream("big"));
  assert.ok(!(again instanceof Error), String(again));
  assert.deepEqual(gcs.calls, ["getMetadata", "media", "getMetadata", "media"]);
  assert.deepEqual(await drain(again.body), bytes);
});

Deno.test("GcsStore: failures before a streamed body starts map like get", async () => {
  const { gcs, clock, store, retries } = setup({ retries: 1 });
  await settle(clock, store.put("k", enc("x"), PutModes.create));
  gcs.faults.push({ op: "media", error: apiError(403, "forbidden", "denied") });
  const denied = await settle(clock, store.getStream("k"));
  assert.ok(hasCode(denied, "invalid_config"), String(denied));
  gcs.faults.push(
    { op: "media", error: fetchError("ECONNRESET", "socket hang up") },
    { op: "media", error: "hang" },
  );
  const down = await settle(clock, store.getStream("k"));
  assert.ok(down instanceof UnreachableError, String(down));
  assert.match(down.message, /get of k at gs:\/\/b\/root failed after 2 attempts/);
  assert.equal(retries.length, 1);
});

Deno.test("GcsStore: a corrupt download errors the stream instead of ending it, and fails get", async () => {
  const { gcs, clock, store } = setup({ retries: 1 });
  await settle(clock, store.put("k", generatedBytes(50_000), PutModes.create));
  gcs.corruptMedia = true;
  const got = await settle(clock, store.getStream("k"));
  assert.ok(!(got instanceof Error), String(got));
  const err = await settle(clock, drain(got.body));
  assert.ok(hasCode(err, "corrupt_download"), String(err));
  assert.match((err as Error).message, /MD5 of 50000 bytes differs/);
  const whole = await settle(clock, store.get("k"));
  assert.ok(hasCode(whole, "corrupt_download"), String(whole));
});

Deno.test("GcsStore: a body that ends short is a broken transfer (retried, then Unreachable), not a corrupt one", async () => {
  const { gcs, clock, store } = setup({ retries: 1 });
  await settle(clock, store.put("k", generatedBytes(50_000), PutModes.create));
  gcs.endMediaAfter = 20_000;
  const got = await settle(clock, store.getStream("k"));
  assert.ok(!(got instanceof Error), String(got));
  const err = await settle(clock, drain(got.body));
  assert.ok(err instanceof UnreachableError, String(err));
  assert.match(err.message, /ended after 20000 of 50000 bytes/);
  const whole = await settle(clock, store.get("k"));
  assert.ok(whole instanceof UnreachableError, String(whole));
  gcs.endMediaAfter = undefined;
  const healed = await settle(clock, store.get("k"));
  assert.ok(!(healed instanceof Error), String(healed));
  assert.deepEqual(healed.body, generatedBytes(50_000));
});

Deno.test("GcsStore: a stalled streamed body ends at the deadline; the caller's signal ends it too", async () => {
  const { gcs, clock, store } = setup();
  await settle(clock, store.put("k", generatedBytes(300_000), PutModes.create));
  gcs.stallMediaAfter = 2 * 64 * 1024;
  const got = await settle(clock, store.getStream("k"));
  assert.ok(!(got instanceof Error), String(got));
  const reader = got.body.getReader();
  assert.equal((await reader.read()).value?.length, 64 * 1024);
  assert.equal((await reader.read()).value?.length, 64 * 1024);
  // A consumer that takes its time is not timed out: the clock runs only while it waits.
  await clock.advance(5_000);
  const stalled = await settle(clock, reader.read());
  assert.ok(stalled instanceof UnreachableError, String(stalled));
  assert.match(stalled.message, /no answer within 1000 ms/);
  assert.equal(gcs.mediaCancelled, 1);

  const controller = new AbortController();
  const second = await settle(clock, store.getStream("k", { signal: controller.signal }));
  assert.ok(!(second instanceof Error), String(second));
  const r2 = second.body.getReader();
  await r2.read();
  const pending = r2.read().then(() => r2.read());
  controller.abort();
  const aborted = await settle(clock, pending);
  assert.ok(aborted instanceof AbortedError, String(aborted));
  assert.equal(gcs.mediaCancelled, 2);
});
