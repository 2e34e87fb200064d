import assert from "node:assert/strict";
import { ConfigError } from "../sync/errors.ts";
import { parseStoreUrl, storeIdentity, storeUrl } from "./store_url.ts";

function refused(url: string, field: string, mentions?: RegExp) {
  assert.throws(() => parseStoreUrl(url, { cwd: "/work" }), (e: unknown) => {
    assert.ok(e instanceof ConfigError, `expected ConfigError for ${url}, got ${e}`);
    assert.equal(e.field, field, `field of the error for ${url}`);
    assert.equal(e.exitCode, 78);
    if (mentions) assert.match(e.message, mentions);
    return true;
  });
}

Deno.test("file:// URLs: absolute, localhost, relative to the given cwd, percent-decoded", () => {
  assert.deepEqual(parseStoreUrl("file:///srv/ds"), { kind: "file", root: "/srv/ds" });
  assert.deepEqual(parseStoreUrl("file://localhost/srv/ds/"), { kind: "file", root: "/srv/ds" });
  assert.deepEqual(parseStoreUrl("file://./store", { cwd: "/work" }), {
    kind: "file",
    root: "/work/store",
  });
  assert.deepEqual(parseStoreUrl("file://../up", { cwd: "/work/a" }), {
    kind: "file",
    root: "/work/up",
  });
  assert.deepEqual(parseStoreUrl("FILE:///a%20b"), { kind: "file", root: "/a b" });
});

Deno.test("bad file:// URLs are refused with a ConfigError naming the store", () => {
  refused("file://server/share", "store", /file:\/\/\/abs\/dir/);
  refused("file:///srv/ds?x=1", "store", /query/);
  refused("file:relative", "store");
  refused("file://", "store");
});

Deno.test("a file: URL with one slash or none is refused with the file:// URL it likely means", () => {
  refused("file:/srv/ds", "store", /got "file:\/srv\/ds".*file:\/\/\/srv\/ds/);
  refused("file:store", "store", /got "file:store".*file:\/\/\.\/store/);
});

Deno.test("s3:// URLs carry bucket, prefix, endpoint, region and options", () => {
  assert.deepEqual(
    parseStoreUrl("s3://my-bucket/team/ds/?endpoint=http://127.0.0.1:9000&region=eu-west-1"),
    {
      kind: "s3",
      bucket: "my-bucket",
      prefix: "team/ds",
      endpoint: "http://127.0.0.1:9000",
      region: "eu-west-1",
      forcePathStyle: true,
    },
  );
  assert.deepEqual(parseStoreUrl("s3://bucket.with.dots"), {
    kind: "s3",
    bucket: "bucket.with.dots",
    prefix: "",
  });
  assert.deepEqual(
    parseStoreUrl(
      "s3://b-1/p?endpoint=https://s3.example.com&path-style=false&checksums=when_required&conditional-delete=emulate",
    ),
    {
      kind: "s3",
      bucket: "b-1",
      prefix: "p",
      endpoint: "https://s3.example.com",
      forcePathStyle: false,
      checksums: "when_required",
      conditionalDelete: "emulate",
    },
  );
});

Deno.test("gs:// URLs carry bucket, prefix, endpoint, project and anonymity", () => {
  assert.deepEqual(
    parseStoreUrl("gs://my-bucket/ds?endpoint=http://127.0.0.1:4443&project=test&anonymous=true"),
    {
      kind: "gcs",
      bucket: "my-bucket",
      prefix: "ds",
      endpoint: "http://127.0.0.1:4443",
      projectId: "test",
      anonymous: true,
    },
  );
  assert.deepEqual(parseStoreUrl("gcs://bkt"), { kind: "gcs", bucket: "bkt", prefix: "" });
});

Deno.test("bad bucket URLs are refused, naming the offending part", () => {
  refused("s3://Upper/p", "store.bucket", /lower-case/);
  refused("s3://ab", "store.bucket");
  refused("s3://bucket:9000/p", "store.bucket", /endpoint/);
  refused("s3://bucket/a/../b", "store.prefix");
  refused("s3://bucket/p?endpont=http://x", "store.endpont", /endpoint, region/);
  refused("s3://bucket/p?endpoint=ftp://x", "store.endpoint", /http/);
  refused("s3://bucket/p?endpoint=not a url", "store.endpoint");
  refused("s3://bucket/p?path-style=maybe", "store.path-style", /true or false/);
  refused("s3://bucket/p?checksums=always", "store.checksums");
  refused("s3://bucket/p?conditional-delete=yolo", "store.conditional-delete");
  refused("s3://bucket/p?region=EU%20WEST", "store.region");
  refused("s3://bucket/p?region=a&region=b", "store.region", /once/);
  refused("gs://bucket/p?region=x", "store.region", /endpoint, project, anonymous/);
  refused("gs://bucket/p?anonymous=sure", "store.anonymous");
  refused("s3://bucket/p?endpoint=http://127.0.0.1:9000/bucket", "store.endpoint", /bucket in its/);
  refused("gs://bucket/p?endpoint=http://127.0.0.1:4443/storage/v1", "store.endpoint", /v1 path/);
  for (const url of ["s3:/first-sync/team", "s3:bucket", "gs:/bucket/p", "gcs:bucket"]) {
    refused(url, "store", /two slashes after (s3|gs|gcs):/);
  }
});

Deno.test("a mistyped query parameter is refused with the one it likely means, as a mistyped flag is", () => {
  refused(
    "s3://bucket/p?endpiont=http://x",
    "store.endpiont",
    /"endpiont" is not one \(did you mean `endpoint`\?\)/,
  );
  refused("s3://bucket/p?pathstyle=true", "store.pathstyle", /\(did you mean `path-style`\?\)/);
  refused("gs://bucket/p?projcet=x", "store.projcet", /\(did you mean `project`\?\)/);
  // Nothing near: no guess.
  refused("s3://bucket/p?color=blue", "store.color");
  assert.throws(() => parseStoreUrl("s3://bucket/p?color=blue"), (e: unknown) => {
    assert.doesNotMatch(String(e), /did you mean/);
    return true;
  });
});

Deno.test("credentials in a URL are refused without being echoed", () => {
  for (const url of ["s3://AKIAXYZ:topsecret@bucket/p", "gs://user:pw@bucket"]) {
    assert.throws(() => parseStoreUrl(url), (e: unknown) => {
      assert.ok(e instanceof ConfigError);
      assert.doesNotMatch(e.message, /topsecret|AKIAXYZ|:pw/);
      assert.match(e.message, /environment/);
      return true;
    });
  }
  refused("s3://bucket/p?endpoint=http://u:secret@127.0.0.1:9000", "store.endpoint");
});

Deno.test("unknown schemes and bare paths are refused with the accepted forms", () => {
  refused("http://bucket/p", "store", /file:\/\/, s3:\/\/ or gs:\/\//);
  refused("/srv/ds", "store", /file:\/\/\/srv\/ds/);
  refused("store", "store", /file:\/\/\.\/store/);
  refused("", "store");
});

Deno.test("storeIdentity names the datastore whatever endpoint reaches it", () => {
  assert.equal(
    storeIdentity(parseStoreUrl("s3://b-1/p/?endpoint=http://127.0.0.1:9000")),
    storeIdentity(parseStoreUrl("s3://b-1/p?endpoint=http://localhost:9001&region=x")),
  );
  assert.equal(storeIdentity(parseStoreUrl("gs://b-1/p")), "gs://b-1/p");
  assert.equal(storeIdentity(parseStoreUrl("file:///srv/ds/")), "file:///srv/ds");
  assert.notEqual(
    storeIdentity(parseStoreUrl("s3://b-1/p")),
    storeIdentity(parseStoreUrl("gs://b-1/p")),
  );
});

Deno.test("storeUrl gives a URL that parses back to the same place", () => {
  for (
    const url of [
      "s3://b-1/p/q?endpoint=http://127.0.0.1:9000&region=us-east-1",
      "s3://b-1/",
      // Virtual-hosted addressing is part of how the endpoint is reached.
      "s3://b-1/p?endpoint=http://h.example:9000&path-style=false",
      "gs://b-1/p?endpoint=http://127.0.0.1:4443&project=demo",
      "file:///srv/data%20store",
    ]
  ) {
    const spec = parseStoreUrl(url);
    const back = parseStoreUrl(storeUrl(spec));
    assert.deepEqual(back, spec, url);
  }
  assert.equal(storeUrl(parseStoreUrl("file:///srv/data%20store")), "file:///srv/data%20store");
});

Deno.test("?timeout= and ?retries= set a bucket store's attempts; out of range or not a number, refused", () => {
  assert.deepEqual(
    parseStoreUrl("s3://b-1/p?endpoint=http://127.0.0.1:9000&timeout=1500&retries=1"),
    {
      kind: "s3",
      bucket: "b-1",
      prefix: "p",
      endpoint: "http://127.0.0.1:9000",
      forcePathStyle: true,
      requestTimeoutMs: 1500,
      retries: 1,
    },
  );
  assert.deepEqual(parseStoreUrl("gs://bkt/p?retries=0"), {
    kind: "gcs",
    bucket: "bkt",
    prefix: "p",
    retries: 0,
  });
  for (const bad of ["timeout=50", "timeout=1.5s", "retries=11", "retries=-1"]) {
    assert.throws(() => parseStoreUrl(`s3://bkt/p?${bad}`), (e) => {
      assert.ok(e instanceof ConfigError);
      assert.match(e.message, new RegExp(bad.split("=")[0]));
      return true;
    });
  }
  // Not part of the datastore's identity: the same store, reached with other timings.
  assert.equal(
    storeIdentity(parseStoreUrl("s3://bkt/p?timeout=1500")),
    storeIdentity(parseStoreUrl("s3://bkt/p")),
  );
});

Deno.test("a prefix refused for a backslash or a control character says so, and a second '?' in the URL says to write a '?' of the prefix as %3F", () => {
  refused("s3://bucket/a%5Cb", "store.prefix", /backslash/);
  refused("s3://bucket/a%00b", "store.prefix", /control character/);
  refused("gs://bucket/a%5Cb", "store.prefix", /backslash/);
  // `s3://bucket/a?b?endpoint=…`: the query starts at the first '?', so the
  // parameter read is `b?endpoint`; the message says how to keep it in the prefix.
  refused("s3://bucket/a?b?endpoint=http://x", "store.b?endpoint", /%3F/);
});
