/**
 * An endpoint whose path sends every request elsewhere than its user meant
 * (the bucket in an S3 endpoint, the JSON API's own path in a GCS one) is
 * told as such, with the endpoint to write instead; any other path is left
 * to the endpoint (a proxy may serve a store under one).
 */
import assert from "node:assert/strict";
import { endpointPathProblem } from "./endpoint_path.ts";

Deno.test("endpointPathProblem: the bucket as an S3 endpoint's path, the fix written out", () => {
  const problem = endpointPathProblem("s3", "http://127.0.0.1:9000/my-bucket", "my-bucket");
  assert.match(
    problem ?? "",
    /without the bucket in its path \("http:\/\/127\.0\.0\.1:9000"\): the bucket is named apart/,
  );
  assert.ok(endpointPathProblem("s3", "http://127.0.0.1:9000/my-bucket/", "my-bucket"));
});

Deno.test("endpointPathProblem: /storage/v1 in a GCS endpoint, the fix written out", () => {
  for (const e of ["http://127.0.0.1:4443/storage/v1", "http://127.0.0.1:4443/storage/v1/"]) {
    assert.match(
      endpointPathProblem("gcs", e, "b-1") ?? "",
      /without the JSON API's \/storage\/v1 path \("http:\/\/127\.0\.0\.1:4443"\): the client adds it/,
    );
  }
});

Deno.test("endpointPathProblem: other endpoints, with or without a path, are no problem", () => {
  for (
    const [kind, e] of [
      ["s3", "http://127.0.0.1:9000"],
      ["s3", "http://127.0.0.1:9000/"],
      ["s3", "https://proxy.example.com/s3"],
      ["s3", "https://my-bucket.example.com"],
      ["gcs", "http://127.0.0.1:4443"],
      ["gcs", "https://proxy.example.com/gcs"],
    ] as const
  ) {
    assert.equal(endpointPathProblem(kind, e, "my-bucket"), undefined, `${kind} ${e}`);
  }
  assert.equal(endpointPathProblem("s3", "not a url", "my-bucket"), undefined);
});
