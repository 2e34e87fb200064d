/**
 * A store URL whose endpoint names a web server that is not S3 (a wrong
 * port, another service): every command fails with `invalid_config` on
 * `endpoint` (exit 78), and none passes it for an empty datastore
 * ("Already up to date", "Nothing to push"). The server here answers every
 * request as a plain web server does, with an HTML page.
 */
import assert from "node:assert/strict";
import { sluice } from "../cli/cli_test_kit.ts";

function webServer() {
  let seen = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen++;
    const page = "<html><body><h1>404 Not Found</h1></body></html>";
    return new Response(req.method === "HEAD" ? null : page, {
      status: req.method === "PUT" ? 501 : 404,
      headers: { "content-type": "text/html;charset=utf-8" },
    });
  });
  return {
    url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`,
    seen: () => seen,
    close: () => server.shutdown(),
  };
}

const ENV = { AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s", AWS_REGION: "us-east-1" };

Deno.test("an endpoint that is a plain web server: pull, push and probe fail on the endpoint (78), never report an empty datastore", async () => {
  const web = webServer();
  const base = await Deno.makeTempDir({ prefix: "sluice-wrong-endpoint-" });
  try {
    const store = `s3://bkt/team?endpoint=${web.url}`;
    const pulled = await sluice(["pull", "--init", "--cache", `${base}/c`, "--store", store], {
      env: ENV,
    });
    assert.equal(pulled.code, 78, pulled.out + pulled.err);
    assert.match(pulled.err, /^error\[invalid_config\]: .*endpoint/m);
    assert.match(pulled.err, /a web page rather than an answer of the S3 endpoint/);
    assert.doesNotMatch(pulled.out, /up to date/i);

    await Deno.mkdir(`${base}/d/notes`, { recursive: true });
    await Deno.writeTextFile(`${base}/d/notes/a.txt`, "a\n");
    const pushed = await sluice(["push", "--init", "--cache", `${base}/d`, "--store", store], {
      env: ENV,
    });
    assert.equal(pushed.code, 78, pushed.out + pushed.err);
    assert.match(pushed.err, /a web page rather than an answer/);

    await Deno.mkdir(`${base}/e`);
    const empty = await sluice(["push", "--cache", `${base}/e`, "--store", store], { env: ENV });
    assert.equal(empty.code, 78, empty.out + empty.err);
    assert.doesNotMatch(empty.out, /Nothing to push/);
    assert.ok(web.seen() > 0);
  } finally {
    await web.close();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("gs://: an endpoint that is a plain web server fails on the endpoint (78), never as a missing bucket to create", async () => {
  const web = webServer();
  const base = await Deno.makeTempDir({ prefix: "sluice-wrong-endpoint-gs-" });
  try {
    const store = `gs://bkt/team?endpoint=${web.url}&project=test`;
    const pulled = await sluice(["pull", "--init", "--cache", `${base}/c`, "--store", store]);
    assert.equal(pulled.code, 78, pulled.out + pulled.err);
    assert.match(pulled.err, /^error\[invalid_config\]: .*"endpoint"/m);
    assert.match(pulled.err, /a web page rather than an answer of/);
    assert.doesNotMatch(pulled.err, /create the bucket/);

    const created = await sluice(["bucket", "create", store]);
    assert.notEqual(created.code, 0);
    assert.notEqual(created.code, 70, `not an internal error: ${created.err}`);
  } finally {
    await web.close();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("gs://: bucket create without a project is a configuration error naming the project, not an internal one", async () => {
  const web = webServer();
  try {
    const r = await sluice(["bucket", "create", `gs://bkt-noproj?endpoint=${web.url}`]);
    assert.equal(r.code, 78, r.out + r.err);
    assert.match(r.err, /^error\[invalid_config\]: .*"store\.project": a Google Cloud project/m);
    assert.equal(web.seen(), 0, "nothing was sent");
  } finally {
    await web.close();
  }
});
