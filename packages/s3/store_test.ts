import assert from "node:assert/strict";
import { netError } from "./sdk_error_fakes.ts";
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { S3Client } from "@aws-sdk/client-s3";
import {
  AbortedError,
  AlreadyExistsError,
  NotFoundError,
  PreconditionFailedError,
  SluiceError,
  UnreachableError,
} from "../../sync/errors.ts";
import { type BodySource, PutModes } from "../../sync/ports.ts";
import { FakeClock, generatedBytes, generatedSource, waitFor } from "../testing/mod.ts";
import { normaliseEtag } from "./errors.ts";
import { S3Store } from "./store.ts";
import type { S3RetryEvent } from "./client.ts";

Deno.test("errors: ETags are normalised", () => {
  assert.equal(normaliseEtag('"abc"'), "abc");
  assert.equal(normaliseEtag('W/"abc"'), "abc");
  assert.equal(normaliseEtag("abc-2"), "abc-2");
  assert.equal(normaliseEtag(undefined), "");
});

// ---------------------------------------------------------------------------
// The store over an in-process fake HTTP handler (no sockets, no server).

interface FakeRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string | string[] | null>;
  readonly headers: Record<string, string>;
  readonly body?: unknown;
}

interface FakeAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string | Uint8Array | Readable;
}

/** What to do with the next request: answer, throw, hang until aborted, or apply then throw. */
type Script = (
  req: FakeRequest,
) => ScriptResult | Promise<ScriptResult>;
type ScriptResult = FakeAnswer | Error | "hang" | "deaf" | "apply-then-reset" | undefined;

interface FakeObject {
  body: Uint8Array;
  etag: string;
  meta: Record<string, string>;
}

const DATE = "Thu, 01 Jan 2026 00:00:10 GMT";

/** A tiny S3 endpoint living in the request handler, honouring conditional headers. */
class FakeS3 {
  readonly objects = new Map<string, FakeObject>();
  readonly requests: FakeRequest[] = [];
  readonly scripts: Script[] = [];
  /** Sizes of the chunks of every streamed request body received in full. */
  readonly streamedChunks: number[][] = [];

  readonly handler = {
    metadata: { handlerProtocol: "http/1.1" },
    handle: (req: FakeRequest, opts: { abortSignal?: AbortSignal } = {}) =>
      this.#handle(req, opts.abortSignal),
    updateHttpClientConfig: () => {},
    httpHandlerConfigs: () => ({}),
    destroy: () => {},
  };

  async #handle(req: FakeRequest, signal?: AbortSignal) {
    this.requests.push(req);
    const script = this.scripts.shift();
    const scripted = await script?.(req);
    // A request the HTTP stack lost track of: it never settles, abort or not.
    if (scripted === "deaf") await new Promise(() => {});
    if (scripted === "hang") {
      await new Promise((_, reject) => {
        const fail = () =>
          reject(Object.assign(new Error("Request aborted"), { name: "AbortError" }));
        if (signal?.aborted) fail();
        signal?.addEventListener("abort", fail, { once: true });
      });
    }
    if (scripted instanceof Error) throw scripted;
    // A scripted answer comes before the body is read, as a server's early answer does.
    const answer = typeof scripted === "object"
      ? scripted
      : this.serve({ ...req, body: await this.#receive(req, signal) });
    if (scripted === "apply-then-reset") throw netError("ECONNRESET");
    const body = answer.body instanceof Readable ? answer.body : Readable.from([
      typeof answer.body === "string"
        ? new TextEncoder().encode(answer.body)
        : answer.body ?? new Uint8Array(),
    ]);
    return {
      response: {
        statusCode: answer.status,
        headers: { date: DATE, "x-amz-request-id": "FAKE-REQ", ...answer.headers },
        body,
      },
    };
  }

  /**
   * Reads a streamed request body as a server would: complete once
   * `content-length` bytes (or the end) arrived; an abort before fails it.
   */
  #receive(req: FakeRequest, signal?: AbortSignal): Promise<unknown> {
    const body = req.body;
    if (!(body instanceof Readable)) return Promise.resolve(body);
    const length = Number(req.headers["content-length"] ?? Infinity);
    return new Promise((resolve, reject) => {
      const chunks: Uint8Array[] = [];
      let received = 0;
      let done = false;
      const abort = () => {
        if (!done) reject(Object.assign(new Error("Request aborted"), { name: "AbortError" }));
        done = true;
      };
      const complete = () => {
        if (done) return;
        done = true;
        signal?.removeEventListener("abort", abort);
        this.streamedChunks.push(chunks.map((c) => c.length));
        const out = new Uint8Array(received);
        let off = 0;
        for (const c of chunks) {
          out.set(c, off);
          off += c.length;
        }
        resolve(out);
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener("abort", abort, { once: true });
      body.on("data", (c: Uint8Array) => {
        if (done) return;
        chunks.push(c);
        received += c.length;
        if (received >= length) complete();
      });
      body.on("error", reject);
      body.on("end", complete);
    });
  }

  serve(req: FakeRequest): FakeAnswer {
    const path = decodeURIComponent(req.path.replace(/^\/bkt\/?/, ""));
    const h = req.headers;
    const cur = this.objects.get(path);
    const err = (status: number, code: string) => ({
      status,
      body:
        `<Error><Code>${code}</Code><Message>${code}</Message><RequestId>BODY-REQ</RequestId></Error>`,
    });
    const meta = (o: FakeObject) =>
      Object.fromEntries(Object.entries(o.meta).map(([k, v]) => [`x-amz-meta-${k}`, v]));
    switch (req.method) {
      case "PUT": {
        if (h["if-none-match"] === "*" && cur) return err(412, "PreconditionFailed");
        if (h["if-match"] !== undefined) {
          if (!cur) return err(404, "NoSuchKey");
          if (`"${cur.etag}"` !== h["if-match"]) return err(412, "PreconditionFailed");
        }
        const body = req.body as Uint8Array;
        const etag = createHash("md5").update(body).digest("hex");
        const m: Record<string, string> = {};
        for (const [k, v] of Object.entries(h)) if (k.startsWith("x-amz-meta-")) m[k.slice(11)] = v;
        this.objects.set(path, { body, etag, meta: m });
        return { status: 200, headers: { etag: `"${etag}"` } };
      }
      case "GET":
      case "HEAD": {
        if (req.query["list-type"] !== undefined) return this.#list(req);
        if (!cur) return req.method === "HEAD" ? { status: 404 } : err(404, "NoSuchKey");
        return {
          status: 200,
          headers: {
            etag: `"${cur.etag}"`,
            "content-length": String(cur.body.length),
            "last-modified": DATE,
            ...meta(cur),
          },
          body: req.method === "GET" ? cur.body : undefined,
        };
      }
      case "DELETE": {
        if (h["if-match"] !== undefined) {
          if (!cur) return err(404, "NoSuchKey");
          if (`"${cur.etag}"` !== h["if-match"]) return err(412, "PreconditionFailed");
        }
        this.objects.delete(path);
        return { status: 204 };
      }
    }
    return err(400, "BadRequest");
  }

  #list(req: FakeRequest): FakeAnswer {
    const prefix = String(req.query.prefix ?? "");
    const max = Number(req.query["max-keys"] ?? 1000);
    const after = String(req.query["continuation-token"] ?? "");
    const keys = [...this.objects.keys()].filter((k) => k.startsWith(prefix) && k > after).sort();
    const page = keys.slice(0, max);
    const truncated = keys.length > page.length;
    const contents = page.map((k) =>
      `<Contents><Key>${k}</Key><ETag>"${this.objects.get(k)!.etag}"</ETag><Size>${
        this.objects.get(k)!.body.length
      }</Size><LastModified>2026-01-01T00:00:10.000Z</LastModified></Contents>`
    ).join("");
    return {
      status: 200,
      body: `<ListBucketResult><IsTruncated>${truncated}</IsTruncated>${contents}${
        truncated ? `<NextContinuationToken>${page[page.length - 1]}</NextContinuationToken>` : ""
      }</ListBucketResult>`,
    };
  }
}

function setup(
  options: {
    retries?: number;
    conditionalDelete?: "native" | "verify" | "emulate";
    wholeBodyBelowBytes?: number;
    credentials?: { accessKeyId: string; secretAccessKey: string };
  } = {},
) {
  const fake = new FakeS3();
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const client = new S3Client({
    region: "us-east-1",
    endpoint: "http://fake.invalid",
    forcePathStyle: true,
    credentials: { accessKeyId: "AKIAFAKE", secretAccessKey: "fake-secret-key" },
    maxAttempts: 1,
    requestHandler: fake.handler,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
  const retries: S3RetryEvent[] = [];
  const store = new S3Store({
    bucket: "bkt",
    prefix: "/pre/",
    endpoint: "http://fake.invalid",
    client,
    clock,
    random: () => 0.5,
    requestTimeoutMs: 1_000,
    retries: options.retries ?? 3,
    conditionalDelete: options.conditionalDelete,
    // The streaming tests use small sources: stream them all unless a test says otherwise.
    wholeBodyBelowBytes: options.wholeBodyBelowBytes ?? 0,
    credentials: options.credentials ??
      { accessKeyId: "AKIAFAKE", secretAccessKey: "fake-secret-key" },
    onRetry: (e) => retries.push(e),
  });
  return { fake, clock, store, retries, client };
}

/** Runs `p` while advancing the fake clock until it settles. */
async function settle<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let done = false;
  const tracked = p.finally(() => (done = true));
  tracked.catch(() => {});
  await waitFor(() => done, { clock, stepMs: 100, timeoutMs: 120_000 });
  return await tracked;
}

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("store: put modes send the conditional headers under the prefix; versions are bare ETags", async () => {
  const { fake, store } = setup();
  const a = await store.put("m/1/raw", bytes("one"), PutModes.create, { metadata: { sha: "x1" } });
  const put1 = fake.requests.at(-1)!;
  assert.equal(put1.path, "/bkt/pre/m/1/raw");
  assert.equal(put1.headers["if-none-match"], "*");
  assert.equal(put1.headers["x-amz-meta-sha"], "x1");
  assert.equal(a.version, createHash("md5").update("one").digest("hex"));
  assert.equal(a.lastModified, Date.parse(DATE));
  assert.deepEqual(a.metadata, { sha: "x1" });

  await assert.rejects(store.put("m/1/raw", bytes("two"), PutModes.create), AlreadyExistsError);
  const b = await store.put("m/1/raw", bytes("two"), PutModes.update(a.version));
  assert.equal(fake.requests.at(-1)!.headers["if-match"], `"${a.version}"`);
  await assert.rejects(
    store.put("m/1/raw", bytes("3"), PutModes.update(a.version)),
    PreconditionFailedError,
  );
  await assert.rejects(
    store.put("missing", bytes("3"), PutModes.update(b.version)),
    PreconditionFailedError,
  );
  await store.put("m/1/raw", bytes("three"), PutModes.overwrite);
  const last = fake.requests.at(-1)!;
  assert.equal(last.headers["if-match"], undefined);
  assert.equal(last.headers["if-none-match"], undefined);

  const got = await store.get("m/1/raw");
  assert.equal(new TextDecoder().decode(got.body), "three");
  assert.equal(got.key, "m/1/raw");
  assert.deepEqual(got.metadata, {});
  assert.equal(await store.head("nope"), null);
  await assert.rejects(store.get("nope"), NotFoundError);
  assert.equal(store.endpoint, "s3://bkt/pre at http://fake.invalid");
});

Deno.test("store: list strips the prefix and follows continuation tokens", async () => {
  const { fake, store } = setup();
  for (const k of ["a/1", "a/2", "a/3", "b/1"]) await store.put(k, bytes(k), PutModes.overwrite);
  fake.objects.set("other/a/9", { body: bytes("x"), etag: "e", meta: {} });
  const pages: string[][] = [];
  for await (const page of store.list("a/", { pageSize: 2 })) pages.push(page.map((o) => o.key));
  assert.deepEqual(pages, [["a/1", "a/2"], ["a/3"]]);
});

Deno.test("store: transient failures are retried with backoff, then succeed", async () => {
  const { fake, store, clock, retries } = setup();
  fake.scripts.push(
    () => ({ status: 503, body: "<Error><Code>SlowDown</Code><Message>slow</Message></Error>" }),
    () => netError("ECONNREFUSED"),
  );
  const info = await settle(clock, store.put("k", bytes("v"), PutModes.create));
  assert.equal(info.key, "k");
  assert.deepEqual(retries.map((r) => [r.attempt, r.delayMs]), [[1, 200], [2, 400]]);
  assert.match(retries[0].detail, /HTTP 503 SlowDown/);
});

Deno.test("store: 409 ConditionalRequestConflict is retried and the condition then decides", async () => {
  const { fake, store, clock, retries } = setup();
  await store.put("k", bytes("v"), PutModes.create);
  fake.scripts.push(() => ({
    status: 409,
    body: "<Error><Code>ConditionalRequestConflict</Code><Message>try again</Message></Error>",
  }));
  await assert.rejects(
    settle(clock, store.put("k", bytes("w"), PutModes.create)),
    AlreadyExistsError,
  );
  assert.equal(retries.length, 1);
});

Deno.test("store: outages surface as Unreachable after the retries, with a safe message", async () => {
  const { fake, store, clock } = setup({ retries: 2 });
  for (let i = 0; i < 3; i++) {
    fake.scripts.push(() => ({ status: 500, body: "<html>down fake-secret-key</html>" }));
  }
  const err = await settle(clock, store.put("k", bytes("v"), PutModes.overwrite)).catch((e) => e);
  assert.ok(err instanceof UnreachableError, String(err));
  assert.match(err.message, /after 3 attempts/);
  assert.match(err.message, /request id FAKE-REQ/);
  assert.ok(!err.message.includes("fake-secret-key"), err.message);
  assert.ok(!err.message.includes("Signature="), err.message);
});

Deno.test("store: a short key id is not hidden in messages (it is no secret, and may be a word in them); the secret is", async () => {
  const credentials = { accessKeyId: "sluice", secretAccessKey: "the-secret-key" };
  const { fake, store, clock } = setup({ retries: 0, credentials });
  fake.scripts.push(() => ({
    status: 400,
    body:
      "<Error><Code>InvalidArgument</Code><Message>bad pre/.sluice/probe/k the-secret-key</Message></Error>",
  }));
  const err = await settle(clock, store.get("k")).catch((e) => e);
  assert.match(String(err.message), /pre\/\.sluice\/probe\/k/);
  assert.ok(!String(err.message).includes("the-secret-key"), err.message);
  // An id as long as AWS's is hidden, as before.
  const long = setup({
    retries: 0,
    credentials: { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "x-secret" },
  });
  long.fake.scripts.push(() => ({
    status: 400,
    body: "<Error><Code>InvalidArgument</Code><Message>id AKIAIOSFODNN7EXAMPLE</Message></Error>",
  }));
  const e2 = await settle(long.clock, long.store.get("k")).catch((e) => e);
  assert.ok(!String(e2.message).includes("AKIAIOSFODNN7EXAMPLE"), e2.message);
});

Deno.test("store: an attempt with no answer times out and is retried", async () => {
  const { fake, store, clock, retries } = setup({ retries: 1 });
  fake.scripts.push(() => "hang");
  const info = await settle(clock, store.put("k", bytes("v"), PutModes.overwrite));
  assert.equal(info.key, "k");
  assert.match(retries[0].detail, /timed out: no answer within 1000 ms/);

  fake.scripts.push(() => "hang", () => "hang");
  const err = await settle(clock, store.get("k")).catch((e) => e);
  assert.ok(err instanceof UnreachableError);
  assert.match(err.message, /timed out/);
});

Deno.test("store: the caller's signal cancels without retrying", async () => {
  const { fake, store, retries } = setup();
  fake.scripts.push(() => "hang");
  const c = new AbortController();
  const p = store.put("k", bytes("v"), PutModes.overwrite, { signal: c.signal });
  await waitFor(() => fake.requests.length === 1);
  c.abort();
  await assert.rejects(p, AbortedError);
  assert.equal(retries.length, 0);
  await assert.rejects(store.head("k", { signal: c.signal }), AbortedError);
});

Deno.test("store: a conditional put whose answer was lost is recognised as ours", async () => {
  const { fake, store, clock } = setup();
  fake.scripts.push(() => "apply-then-reset");
  const info = await settle(clock, store.put("v/1/raw", bytes("mine"), PutModes.create));
  assert.equal(info.version, createHash("md5").update("mine").digest("hex"));
  assert.deepEqual(fake.requests.map((r) => r.method), ["PUT", "PUT", "HEAD"]);
  assert.deepEqual(info.metadata, {}, "the write id is not user metadata");
  assert.deepEqual((await store.get("v/1/raw")).metadata, {});

  // Someone else's bytes still fail the condition.
  fake.objects.set("pre/v/2/raw", { body: bytes("theirs"), etag: "other", meta: {} });
  fake.scripts.push(() => netError("ECONNRESET"));
  await assert.rejects(
    settle(clock, store.put("v/2/raw", bytes("mine"), PutModes.create)),
    AlreadyExistsError,
  );
});

Deno.test("store: a request resent below the SDK that meets its own write counts as done", async () => {
  const { fake, store } = setup();
  const a = await store.put("lock", bytes("a"), PutModes.create);
  // The HTTP stack resent the update on its own: the first copy landed, the second got 412.
  fake.scripts.push((req) => {
    fake.serve(req);
    return {
      status: 412,
      body: "<Error><Code>PreconditionFailed</Code><Message>x</Message></Error>",
    };
  });
  const b = await store.put("lock", bytes("b"), PutModes.update(a.version));
  assert.equal(b.version, createHash("md5").update("b").digest("hex"));
  const put = fake.requests.at(-2)!;
  assert.match(put.headers["x-amz-meta-sluice-write-id"], /^[0-9a-f]{24}$/);
  // A genuine conflict still fails, after one HEAD.
  fake.requests.length = 0;
  await assert.rejects(
    store.put("lock", bytes("c"), PutModes.update(a.version)),
    PreconditionFailedError,
  );
  assert.deepEqual(fake.requests.map((r) => r.method), ["PUT", "HEAD"]);
  // Overwrites carry no write id.
  await store.put("plain", bytes("p"), PutModes.overwrite);
  assert.equal(fake.requests.at(-1)!.headers["x-amz-meta-sluice-write-id"], undefined);
});

Deno.test("store: conditional delete checks the version (verify) and sends If-Match", async () => {
  const { fake, store } = setup();
  const a = await store.put("lock", bytes("a"), PutModes.overwrite);
  await assert.rejects(store.delete("lock", { ifVersion: "wrong" }), PreconditionFailedError);
  assert.ok(fake.objects.has("pre/lock"));
  assert.ok(!fake.requests.some((r) => r.method === "DELETE"));
  await store.delete("lock", { ifVersion: a.version });
  const del = fake.requests.at(-1)!;
  assert.equal(del.method, "DELETE");
  assert.equal(del.headers["if-match"], `"${a.version}"`);
  assert.ok(!fake.objects.has("pre/lock"));
  await assert.rejects(store.delete("lock", { ifVersion: a.version }), PreconditionFailedError);
  await store.delete("lock"); // absent without ifVersion: fine
});

Deno.test("store: conditional delete falls back to check-then-delete when If-Match is refused", async () => {
  const { fake, store } = setup();
  const a = await store.put("lock", bytes("a"), PutModes.overwrite);
  fake.scripts.push(
    () => undefined, // the head
    () => ({
      status: 501,
      body:
        "<Error><Code>NotImplemented</Code><Message>no</Message><Header>If-Match</Header></Error>",
    }),
  );
  await store.delete("lock", { ifVersion: a.version });
  assert.ok(!fake.objects.has("pre/lock"));
  assert.deepEqual(fake.requests.slice(-3).map((r) => [r.method, r.headers["if-match"] ?? ""]), [
    ["HEAD", ""],
    ["DELETE", `"${a.version}"`],
    ["DELETE", ""],
  ]);
});

Deno.test("store: native conditional delete sends one request; emulate sends no If-Match", async () => {
  const native = setup({ conditionalDelete: "native" });
  const a = await native.store.put("lock", bytes("a"), PutModes.overwrite);
  native.fake.requests.length = 0;
  await assert.rejects(
    native.store.delete("lock", { ifVersion: "wrong" }),
    PreconditionFailedError,
  );
  await native.store.delete("lock", { ifVersion: a.version });
  assert.deepEqual(native.fake.requests.map((r) => r.method), ["DELETE", "DELETE"]);

  const emu = setup({ conditionalDelete: "emulate" });
  const b = await emu.store.put("lock", bytes("b"), PutModes.overwrite);
  await emu.store.delete("lock", { ifVersion: b.version });
  assert.equal(emu.fake.requests.at(-1)!.headers["if-match"], undefined);
});

Deno.test("store: unsafe keys and metadata are refused before any request", async () => {
  const { fake, store } = setup();
  await assert.rejects(store.put("/abs", bytes("x"), PutModes.overwrite), /Refused the path/);
  await assert.rejects(store.get(""), /Refused the path/);
  await assert.rejects(
    store.put("k", bytes("x"), PutModes.overwrite, { metadata: { "Bad Name": "v" } }),
    /metadata/,
  );
  assert.equal(fake.requests.length, 0);
});

// ---------------------------------------------------------------------------
// Streamed bodies.

/** Reads a web stream to its end. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const c of stream) chunks.push(c);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.length;
  }
  return out;
}

/** A response body that yields `first` and then nothing until destroyed. */
function stalledBody(first: Uint8Array): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) this.push(first);
      sent = true;
    },
  });
}

Deno.test("store: a small streamed body is read whole and sent as bytes; the source's own error still wins", async () => {
  const { fake, store } = setup({ wholeBodyBelowBytes: 1024 });
  const small = generatedSource(1000, { seed: 5, chunkBytes: 100 });
  await store.put("small", small, PutModes.create);
  assert.equal(small.stats.streams, 1);
  assert.deepEqual(fake.objects.get("pre/small")!.body, generatedBytes(1000, 5));
  assert.equal(fake.streamedChunks.length, 0, "sent as a stream");
  const error = new Error("broken source");
  await assert.rejects(
    store.put("bad", generatedSource(1000, { failAfter: 500, error }), PutModes.create),
    (e) => e === error,
  );
  assert.equal(fake.objects.has("pre/bad"), false);
});

Deno.test("store: a streamed put sends the source with its length, in every mode", async () => {
  const { fake, store } = setup();
  const size = 200_000;
  // Small chunks are joined up to 64 KiB before they reach the SDK.
  const source = generatedSource(size, { seed: 2, chunkBytes: 1000 });
  const a = await store.put("big", source, PutModes.create, { metadata: { kind: "big" } });
  const put = fake.requests.at(-1)!;
  assert.equal(put.headers["content-length"], String(size));
  assert.equal(put.headers["if-none-match"], "*");
  assert.equal(source.stats.streams, 1);
  assert.deepEqual(fake.objects.get("pre/big")!.body, generatedBytes(size, 2));
  assert.deepEqual(fake.streamedChunks.at(-1), [66_000, 66_000, 66_000, 2_000]);
  assert.equal(a.size, size);
  assert.equal(a.version, createHash("md5").update(generatedBytes(size, 2)).digest("hex"));
  assert.deepEqual(a.metadata, { kind: "big" });

  await assert.rejects(store.put("big", generatedSource(10), PutModes.create), AlreadyExistsError);
  const b = await store.put(
    "big",
    generatedSource(70_000, { seed: 3 }),
    PutModes.update(a.version),
  );
  assert.deepEqual(fake.objects.get("pre/big")!.body, generatedBytes(70_000, 3));
  await assert.rejects(
    store.put("big", generatedSource(10), PutModes.update(a.version)),
    PreconditionFailedError,
  );
  assert.equal(fake.objects.get("pre/big")!.etag, b.version);
  const empty = await store.put("empty", generatedSource(0), PutModes.overwrite);
  assert.equal(empty.size, 0);
  assert.equal(fake.objects.get("pre/empty")!.body.length, 0);
});

Deno.test("store: each attempt of a streamed put streams its source afresh", async () => {
  const { fake, store, clock, retries } = setup();
  // Both failed attempts receive part of the body first (the source opens lazily).
  const reading = (answer: FakeAnswer | Error) => async (req: FakeRequest) => {
    await new Promise((resolve) => (req.body as Readable).once("data", resolve));
    return answer;
  };
  fake.scripts.push(
    reading({ status: 503, body: "<Error><Code>SlowDown</Code><Message>slow</Message></Error>" }),
    reading(netError("ECONNRESET")),
  );
  const source = generatedSource(150_000, { seed: 4 });
  const info = await settle(clock, store.put("k", source, PutModes.create));
  assert.equal(info.size, 150_000);
  assert.equal(retries.length, 2);
  assert.equal(source.stats.streams, 3);
  assert.deepEqual(fake.objects.get("pre/k")!.body, generatedBytes(150_000, 4));

  // A streamed create whose answer was lost is still recognised as ours.
  fake.scripts.push(() => "apply-then-reset");
  const again = generatedSource(100_000, { seed: 5 });
  const mine = await settle(clock, store.put("v/1/raw", again, PutModes.create));
  assert.equal(mine.version, createHash("md5").update(generatedBytes(100_000, 5)).digest("hex"));
  assert.equal(again.stats.streams, 2);
  assert.deepEqual(fake.requests.slice(-3).map((r) => r.method), ["PUT", "PUT", "HEAD"]);
});

Deno.test("store: a source that fails rejects with its own error, unretried, and writes nothing", async () => {
  const { fake, store, retries } = setup();
  await store.put("k", bytes("old"), PutModes.overwrite);
  const error = new Error("the disk went away");
  for (const mode of [PutModes.overwrite, PutModes.create]) {
    const key = mode.kind === "create" ? "fresh" : "k";
    const source = generatedSource(500_000, { failAfter: 200_000, error });
    fake.requests.length = 0;
    const err = await store.put(key, source, mode).catch((e) => e);
    assert.equal(err, error);
    assert.equal(source.stats.streams, 1);
    assert.deepEqual(fake.requests.map((r) => r.method), ["PUT"], "no retry, no read-back");
  }
  assert.equal(retries.length, 0);
  assert.equal(new TextDecoder().decode(fake.objects.get("pre/k")!.body), "old");
  assert.ok(!fake.objects.has("pre/fresh"));

  // A source that cannot even open fails the same way.
  const broken: BodySource = {
    size: 10,
    stream() {
      throw error;
    },
  };
  assert.equal(await store.put("k", broken, PutModes.overwrite).catch((e) => e), error);
  assert.equal(retries.length, 0);
});

Deno.test("store: a source that runs short or long writes nothing", async () => {
  const { fake, store, retries } = setup();
  const short = await store.put("s", generatedSource(300_000, { shortBy: 1 }), PutModes.overwrite)
    .catch((e) => e);
  assert.ok(short instanceof SluiceError && short.code === "file_changed", String(short));
  assert.match(short.message, /299999 bytes where 300000 were announced/);
  const inner = generatedSource(300_000);
  const long: BodySource = { size: 299_999, stream: () => inner.stream() };
  const err = await store.put("l", long, PutModes.overwrite).catch((e) => e);
  assert.ok(err instanceof SluiceError && err.code === "file_changed", String(err));
  assert.match(err.message, /more than 299999 bytes/);
  // All the announced bytes, then one chunk more: the last full chunk is held
  // back until the end is seen, so the endpoint never has the whole body.
  const exact = generatedBytes(200_000);
  const extra: BodySource = {
    size: 200_000,
    stream: () =>
      new ReadableStream({
        start(c) {
          c.enqueue(exact.subarray(0, 100_000));
          c.enqueue(exact.subarray(100_000));
          c.enqueue(bytes("!"));
          c.close();
        },
      }),
  };
  const over = await store.put("x", extra, PutModes.overwrite).catch((e) => e);
  assert.ok(over instanceof SluiceError && over.code === "file_changed", String(over));
  assert.equal(fake.objects.size, 0);
  assert.equal(retries.length, 0);
});

Deno.test("store: a streamed put whose request ignores its abort still ends at the attempt timeout", async () => {
  const { fake, store, clock, retries } = setup({ retries: 1 });
  fake.scripts.push(() => "deaf");
  const source = generatedSource(200_000, { seed: 8 });
  const r = await settle(clock, store.put("deaf", source, PutModes.overwrite));
  assert.ok(!(r instanceof Error), String(r));
  assert.equal(retries.length, 1);
  assert.match(retries[0].detail, /timed out/);
  // The lost request never read its body, so only the retry opened the source.
  assert.equal(source.stats.streams, 1);
  assert.deepEqual(fake.objects.get("pre/deaf")!.body, generatedBytes(200_000, 8));
});

Deno.test("store: a streamed put that stalls times out and is retried; one that moves is not cut off", async () => {
  const { fake, store, clock, retries } = setup({ retries: 1 });
  // The first stream stalls after one chunk; the second flows.
  const good = generatedSource(200_000, { seed: 6 });
  let opened = 0;
  const stalling: BodySource = {
    size: 200_000,
    stream() {
      if (++opened > 1) return good.stream();
      let sent = false;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (!sent) c.enqueue(generatedBytes(70_000, 6));
          sent = true;
          return new Promise(() => {});
        },
      });
    },
  };
  await settle(clock, store.put("stall", stalling, PutModes.overwrite));
  assert.equal(opened, 2);
  assert.match(retries[0].detail, /timed out/);
  assert.deepEqual(fake.objects.get("pre/stall")!.body, generatedBytes(200_000, 6));

  // Five chunks 400 ms apart: 2 s in all, twice the attempt timeout, but never idle for it.
  retries.length = 0;
  const slow: BodySource = {
    size: 5 * 65_536,
    stream() {
      let n = 0;
      return new ReadableStream<Uint8Array>({
        async pull(c) {
          if (n === 5) return c.close();
          await clock.sleep(400);
          c.enqueue(generatedBytes(65_536, n++));
        },
      });
    },
  };
  const started = clock.now();
  const info = await settle(clock, store.put("slow", slow, PutModes.overwrite));
  assert.equal(info.size, 5 * 65_536);
  assert.ok(clock.now() - started >= 2_000);
  assert.equal(retries.length, 0);
});

Deno.test("store: getStream returns the info and streams the body; failures before it map as get", async () => {
  const { fake, store, clock, retries } = setup({ retries: 1 });
  const body = generatedBytes(300_000, 7);
  const put = await store.put("o", body, PutModes.overwrite, { metadata: { sha: "s1" } });
  const got = await store.getStream("o");
  assert.equal(got.key, "o");
  assert.equal(got.version, put.version);
  assert.equal(got.size, 300_000);
  assert.equal(got.lastModified, Date.parse(DATE));
  assert.deepEqual(got.metadata, { sha: "s1" });
  assert.deepEqual(await readAll(got.body), body);

  await assert.rejects(store.getStream("absent"), NotFoundError);
  fake.scripts.push(() => ({ status: 503 }));
  assert.deepEqual(await readAll((await settle(clock, store.getStream("o"))).body), body);
  assert.equal(retries.length, 1);
  fake.scripts.push(() => ({ status: 500 }), () => ({ status: 500 }));
  await assert.rejects(settle(clock, store.getStream("o")), UnreachableError);
  const c = new AbortController();
  c.abort();
  const before = fake.requests.length;
  await assert.rejects(store.getStream("o", { signal: c.signal }), AbortedError);
  assert.equal(fake.requests.length, before);
});

Deno.test("store: getStream's body honours the signal and fails when it stops moving", async () => {
  const { fake, store, clock } = setup();
  const stalled = () => ({
    status: 200,
    headers: { etag: '"e1"', "content-length": "10", "last-modified": DATE },
    body: stalledBody(bytes("hello")),
  });

  fake.scripts.push(stalled);
  const c = new AbortController();
  const got = await store.getStream("k", { signal: c.signal });
  assert.equal(got.version, "e1");
  const reader = got.body.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "hello");
  const next = reader.read();
  c.abort();
  await assert.rejects(next, AbortedError);

  fake.scripts.push(stalled);
  const idle = (await store.getStream("k")).body.getReader();
  await idle.read();
  const err = await settle(clock, idle.read()).catch((e) => e);
  assert.ok(err instanceof UnreachableError, String(err));
  assert.match(err.message, /timed out/);
});
