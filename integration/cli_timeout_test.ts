/**
 * The CLI against an endpoint that accepts connections and never answers:
 * a warning before each retry (never a silent wait), `?timeout=` and
 * `?retries=` on the store URL bound the attempts, and the command fails
 * with `unreachable` (exit 69). No test here asserts a time.
 */
import assert from "node:assert/strict";
import { sluice } from "../cli/cli_test_kit.ts";
import { HeldRequests } from "./held_requests.ts";
import { SyncState } from "../sync/service/state.ts";
import { LocalCache } from "../sync/transfer/cache.ts";
import { CLI_STORE_STATE } from "../cli/session.ts";

/** A loopback endpoint that holds every request open; counts them. */
function silentEndpoint() {
  const seen: string[] = [];
  const held = new HeldRequests();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push(`${req.method} ${new URL(req.url).pathname}`);
    return held.hold(req);
  });
  return {
    url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`,
    seen,
    async close() {
      held.releaseAll();
      await server.shutdown();
    },
  };
}

Deno.test("a silent endpoint: a warning before each retry, ?retries= attempts, then unreachable (69)", async () => {
  const endpoint = silentEndpoint();
  const base = await Deno.makeTempDir({ prefix: "sluice-cli-timeout-" });
  try {
    const store = `s3://bkt/p?endpoint=${endpoint.url}&timeout=300&retries=1`;
    const r = await sluice(["pull", "--init", "--cache", `${base}/c`, "--store", store], {
      env: { AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s", AWS_REGION: "us-east-1" },
    });
    assert.equal(r.code, 69, r.err);
    assert.match(r.err, /^error\[unreachable\]: /m);
    const notices = r.err.split("\n").filter((l) => l.startsWith("warning[store_retry]: "));
    assert.equal(notices.length, 1, r.err);
    assert.match(
      notices[0],
      /attempt 1 of 2 failed .*; trying again in \d+ ms\. Each attempt waits at most 0\.3 s; Ctrl-C stops/,
    );
    assert.match(
      notices[0],
      /The store URL sets timeout=300 and retries=1: lower them to fail sooner/,
    );
    // The first operation made its two attempts, and the command stopped there.
    assert.equal(endpoint.seen.length, 2, endpoint.seen.join(", "));
  } finally {
    await endpoint.close();
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a push that only leaves a local deletion behind still asks the store first: a silent endpoint is unreachable (69), not 'Pushed 0 files to' it", async () => {
  const endpoint = silentEndpoint();
  const base = await Deno.makeTempDir({ prefix: "sluice-cli-timeout-" });
  try {
    const cache = `${base}/c`;
    const store = `s3://bkt/p?endpoint=${endpoint.url}&timeout=300&retries=0`;
    // A cache that synced notes/a.txt with that store, then deleted it by hand.
    const state = await SyncState.open(cache);
    state.setSynced("notes/a.txt", { hash: "a".repeat(64), version: "v1", size: 1 });
    await state.saveManifest();
    await new LocalCache(cache).writeState(CLI_STORE_STATE, {
      format: 1,
      url: store,
      identity: "s3://bkt/p",
    });
    const r = await sluice(["push", "--cache", cache], {
      env: { AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s", AWS_REGION: "us-east-1" },
    });
    assert.equal(r.code, 69, r.out + r.err);
    assert.match(r.err, /^error\[unreachable\]: /m);
    assert.doesNotMatch(r.out, /Pushed 0 files/);
  } finally {
    await endpoint.close();
    await Deno.remove(base, { recursive: true });
  }
});
