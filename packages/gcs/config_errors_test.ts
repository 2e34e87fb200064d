/**
 * Configuration problems of a GCS store are reported as such: no
 * Application Default Credentials (found out before any request), a missing
 * bucket (never taken for an empty one), a refused object name, and a prefix
 * with `.`/`..` segments.
 */
import assert from "node:assert/strict";
import type { Storage } from "@google-cloud/storage";
import { ConfigError, NotFoundError, SluiceError, UnreachableError } from "../../sync/errors.ts";
import { type AdcLookup, findAdcSource } from "./credentials.ts";
import { classifyGcsError, type GcsRequestContext, toSluiceError } from "./errors.ts";
import { GcsStore } from "./store.ts";

function apiError(status: number, reason: string, message: string): Error {
  return Object.assign(new Error(message), {
    name: "ApiError",
    code: status,
    errors: [{ domain: "global", reason, message }],
    response: { statusCode: status, headers: {} },
  });
}

const NONE: AdcLookup = {
  env: () => undefined,
  exists: () => false,
  platform: () => "linux",
  onGoogleCompute: () => false,
};

const withEnv = (vars: Record<string, string>): AdcLookup => ({ ...NONE, env: (n) => vars[n] });

Deno.test("findAdcSource: each source the auth library tries, and none", () => {
  assert.equal(findAdcSource(NONE), "unknown"); // no home directory: the gcloud file cannot be ruled out
  assert.equal(
    findAdcSource(withEnv({ GOOGLE_APPLICATION_CREDENTIALS: "/k.json" })),
    "GOOGLE_APPLICATION_CREDENTIALS",
  );
  const home = withEnv({ HOME: "/home/me" });
  assert.equal(findAdcSource(home), null);
  assert.equal(
    findAdcSource({
      ...home,
      exists: (p) => p === "/home/me/.config/gcloud/application_default_credentials.json",
    }),
    "well-known file",
  );
  assert.equal(
    findAdcSource({
      ...withEnv({ HOME: "/h", CLOUDSDK_CONFIG: "/cfg" }),
      exists: (p) => p.startsWith("/cfg/"),
    }),
    "well-known file",
  );
  assert.equal(findAdcSource(withEnv({ HOME: "/h", K_SERVICE: "svc" })), "metadata server");
  assert.equal(
    findAdcSource(withEnv({ HOME: "/h", GCE_METADATA_HOST: "m:80" })),
    "metadata server",
  );
  assert.equal(
    findAdcSource({ ...withEnv({ HOME: "/h" }), onGoogleCompute: () => true }),
    "metadata server",
  );
  assert.equal(
    findAdcSource({
      ...withEnv({ HOME: "/h", METADATA_SERVER_DETECTION: "none" }),
      onGoogleCompute: () => true,
    }),
    null,
  );
  assert.equal(
    findAdcSource({
      ...NONE,
      env: () => {
        throw new Error("no permission");
      },
    }),
    "unknown",
  );
});

Deno.test("GcsStore: without any Application Default Credentials every call fails at once with a credentials error", async () => {
  const store = new GcsStore({
    bucket: "b-1",
    prefix: "p",
    adcLookup: withEnv({ HOME: "/nowhere" }),
  });
  for (
    const call of [() => store.get("_index/_meta.json"), () => store.head(".datastore-index.json")]
  ) {
    const err = await call().then(() => null, (e) => e);
    assert.ok(err instanceof ConfigError, String(err));
    assert.equal(err.field, "credentials");
    assert.equal(err.exitCode, 78);
    assert.match(err.message, /no Application Default Credentials/);
    assert.match(err.message, /gcloud auth application-default login/);
  }
});

Deno.test("GCS: the auth library's no-ADC error is a credentials error; an unreachable token endpoint is an outage", () => {
  const ctx: GcsRequestContext = { op: "get", key: "k", bucket: "b" };
  const noAdc = new Error(
    "Could not load the default credentials. Browse to https://cloud.google.com/docs/authentication/getting-started for more information.",
  );
  const f = classifyGcsError(noAdc, ctx);
  assert.equal(f.kind, "credentials_missing");
  const e = toSluiceError(f, ctx, "gs://b", noAdc);
  assert.ok(e instanceof ConfigError && e.field === "credentials");
  // An emulator needs none: its endpoint, by the name each way of configuring the store gives it.
  assert.match(
    e.message,
    /for an emulator, give its endpoint \(the store URL's endpoint=, or the datastore configuration's "apiEndpoint"\): the store then sends no credentials/,
  );
  const token = Object.assign(
    new Error(
      "request to https://oauth2.googleapis.com/token failed, reason: getaddrinfo ENOTFOUND oauth2.googleapis.com",
    ),
    { code: "ENOTFOUND", type: "system" },
  );
  const t = classifyGcsError(token, ctx);
  assert.equal(t.kind, "transient");
  assert.ok(toSluiceError(t, ctx, "gs://b", token, 4) instanceof UnreachableError);
});

/** A stand-in for the few `Storage` calls a read makes; `bucketExists` decides the bucket's answer. */
function fakeStorage(bucketExists: boolean, calls: string[]): Storage {
  return {
    bucket: () => ({
      getMetadata: () => {
        calls.push("bucket");
        return bucketExists
          ? Promise.resolve([{}])
          : Promise.reject(apiError(404, "notFound", "Not Found"));
      },
      file: () => ({
        getMetadata: () => {
          calls.push("object");
          return Promise.reject(apiError(404, "notFound", "Not Found"));
        },
      }),
    }),
  } as unknown as Storage;
}

Deno.test("GcsStore: a read in a missing bucket is a bucket error naming it, not a missing object", async () => {
  const calls: string[] = [];
  const store = new GcsStore({ bucket: "no-such-bucket", storage: fakeStorage(false, calls) });
  const err = await store.get("_index/_meta.json").then(() => null, (e) => e);
  assert.ok(err instanceof ConfigError, String(err));
  assert.equal(err.field, "bucket");
  assert.match(err.message, /the bucket no-such-bucket does not exist/);
  assert.deepEqual(calls, ["object", "bucket"]);
});

Deno.test("GcsStore: a missing bucket stays a bucket error on every later read, never a missing object", async () => {
  const calls: string[] = [];
  const store = new GcsStore({ bucket: "no-such-bucket", storage: fakeStorage(false, calls) });
  for (const key of ["_index/_meta.json", ".datastore.lock"]) {
    const err = await store.get(key).then(() => null, (e) => e);
    assert.ok(err instanceof ConfigError, `${key}: ${err}`);
    assert.equal(err.field, "bucket");
  }
});

Deno.test("GcsStore: in an existing bucket a missing object stays NotFound, and the bucket is read once", async () => {
  const calls: string[] = [];
  const store = new GcsStore({ bucket: "b-1", storage: fakeStorage(true, calls) });
  for (let i = 0; i < 2; i++) {
    const err = await store.get("k").then(() => null, (e) => e);
    assert.ok(err instanceof NotFoundError, String(err));
  }
  assert.deepEqual(calls, ["object", "bucket", "object"]);
});

Deno.test("GCS: a 404 on an upload or a listing is the missing bucket; a 400 refusing the name is invalid_object_name", () => {
  const e404 = apiError(404, "notFound", "Not Found");
  for (const op of ["put", "list"] as const) {
    const ctx: GcsRequestContext = { op, key: "k", bucket: "bk" };
    const e = toSluiceError(classifyGcsError(e404, ctx), ctx, "gs://bk/p");
    assert.ok(e instanceof ConfigError && e.field === "bucket", op);
    assert.match(e.message, /bucket bk does not exist/);
  }
  const ctx: GcsRequestContext = { op: "put", key: "..", bucket: "bk" };
  const bad = apiError(400, "invalid", "The specified object name is not valid.");
  const f = classifyGcsError(bad, ctx);
  assert.equal(f.kind, "invalid_name");
  const e = toSluiceError(f, ctx, "gs://bk/p", bad, 1, "p/");
  assert.ok(e instanceof SluiceError);
  assert.equal(e.code, "invalid_object_name");
  assert.equal(e.exitCode, 65);
});

Deno.test("GcsStore: a prefix with '.', '..' or empty segments is refused before any request", () => {
  for (const prefix of ["safe/../escape", "..", ".", "a//b"]) {
    assert.throws(
      () => new GcsStore({ bucket: "b-1", prefix, apiEndpoint: "http://127.0.0.1:9" }),
      (e: unknown) => e instanceof ConfigError && e.field === "prefix",
      prefix,
    );
  }
});

Deno.test("GCS: a web page for a 404 is the wrong endpoint; GCS's own JSON 404 naming an odd object is a missing object", () => {
  const key = "team/notes;<html>.txt";
  const json = {
    code: 404,
    message: `No such object: bkt/${key}`,
    errors: [{ message: `No such object: bkt/${key}`, reason: "notFound" }],
    response: { headers: { "content-type": "application/json; charset=UTF-8" } },
  };
  assert.equal(classifyGcsError(json, { op: "get", key }).kind, "not_found");
  const page = {
    code: 404,
    message: "<!DOCTYPE HTML><html><body>Not Found</body></html>",
    response: { headers: { "content-type": "text/html;charset=utf-8" } },
  };
  assert.equal(classifyGcsError(page, { op: "get", key }).kind, "not_the_service");
  // A proxy's rate-limit page keeps its meaning: worth another attempt.
  assert.equal(classifyGcsError({ ...page, code: 429 }, { op: "get", key }).kind, "transient");
});

Deno.test("GCS: an XML refusal is an S3 endpoint named in a gs:// URL, never a missing object or bucket", () => {
  const xml = (status: number, typed: boolean) => ({
    code: status,
    message: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>BadRequest</Code></Error>`,
    response: { headers: typed ? { "content-type": "application/xml" } : {} },
  });
  for (const typed of [true, false]) {
    for (const [status, ctx] of [[400, "put"], [404, "put"], [404, "get"], [403, "get"]] as const) {
      const c: GcsRequestContext = { op: ctx, key: "k", bucket: "bkt" };
      const f = classifyGcsError(xml(status, typed), c);
      assert.equal(f.kind, "not_the_service", `${status} ${ctx} typed ${typed}`);
      const e = toSluiceError(f, c, "gs://bkt/p at http://127.0.0.1:9000", xml(status, typed));
      assert.ok(e instanceof ConfigError);
      assert.equal(e.field, "endpoint");
      assert.match(e.message, /an XML error, as S3-compatible servers answer rather than/);
      assert.match(e.message, /use an s3:\/\/ store URL/);
    }
  }
  // GCS's own JSON 404 on an upload is still a missing bucket.
  const json = {
    code: 404,
    message: "The specified bucket does not exist.",
    errors: [{ message: "The specified bucket does not exist.", reason: "notFound" }],
    response: { headers: { "content-type": "application/json; charset=UTF-8" } },
  };
  assert.equal(classifyGcsError(json, { op: "put", key: "k" }).kind, "bucket_missing");
});

Deno.test("GCS: a missing bucket says to create it with the project it goes in, which bucket create needs", () => {
  const json = {
    code: 404,
    message: "The specified bucket does not exist.",
    errors: [{ message: "The specified bucket does not exist.", reason: "notFound" }],
    response: { headers: { "content-type": "application/json; charset=UTF-8" } },
  };
  const ctx: GcsRequestContext = { op: "list", key: "p/", bucket: "bkt" };
  const e = toSluiceError(classifyGcsError(json, ctx), ctx, "gs://bkt/p", json);
  assert.ok(e instanceof ConfigError);
  assert.equal(e.field, "bucket");
  assert.match(
    e.message,
    /create the bucket \(`sluice bucket create <store-url>`, with `project=<id>` in the URL's query \(or GOOGLE_CLOUD_PROJECT set\): the project it is created in\)/,
  );
});

Deno.test("GCS: an endpoint to check names the datastore configuration's key of a GCS datastore, apiEndpoint", () => {
  const ctx: GcsRequestContext = { op: "get", key: "_index/_meta.json", bucket: "bkt" };
  for (const code of ["ECONNREFUSED", "ENOTFOUND"]) {
    const err = Object.assign(new Error(`request to http://127.0.0.1:9661/x failed, ${code}`), {
      code,
    });
    const e = toSluiceError(classifyGcsError(err, ctx), ctx, "gs://bkt/p", err);
    assert.ok(e instanceof UnreachableError, `${code}: ${e}`);
    assert.match(
      e.message,
      /the store URL's endpoint=, or the datastore configuration's "apiEndpoint"\)/,
      code,
    );
  }
  const xml = {
    code: 403,
    message: `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code></Error>`,
    response: { headers: { "content-type": "application/xml" } },
  };
  const e = toSluiceError(classifyGcsError(xml, ctx), ctx, "gs://bkt/p", xml);
  assert.ok(e instanceof ConfigError);
  assert.match(
    e.message,
    /names another server \(check its host, port and path; .*\), set as the store URL's endpoint=, or the datastore configuration's "apiEndpoint"\. Nothing was read/,
  );
});
