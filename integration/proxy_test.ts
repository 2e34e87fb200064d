import assert from "node:assert/strict";
import { waitFor } from "../packages/testing/mod.ts";

/** Latency the proxy injects (fault injection, not a wait). */
const INJECTED_LATENCY_MS = 150;
const NO_LATENCY_MS = 0;
import { startFaultProxy } from "./proxy.ts";

/** A tiny HTTP server on loopback that counts the requests it saw. */
function startBackend() {
  const seen: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    seen.push(path);
    return new Response(`hello ${path}`);
  });
  return { seen, port: server.addr.port, stop: () => server.shutdown() };
}

/** One HTTP/1.1 request over a fresh connection (`Connection: close`), read to the end. */
async function httpGet(port: number, path: string): Promise<{ status: number; body: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const req = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
    await conn.write(new TextEncoder().encode(req));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(4096);
    for (;;) {
      let n: number | null;
      try {
        n = await conn.read(buf);
      } catch (e) {
        throw new Error(`connection reset: ${e instanceof Error ? e.message : e}`);
      }
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    const text = new TextDecoder().decode(
      chunks.reduce((a, b) => new Uint8Array([...a, ...b]), new Uint8Array()),
    );
    if (!text) throw new Error("connection closed without a response");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? "0");
    return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } finally {
    try {
      conn.close();
    } catch {
      // closed by the peer
    }
  }
}

Deno.test("proxy: forwards requests and counts connections", async () => {
  const backend = startBackend();
  const proxy = await startFaultProxy("127.0.0.1", backend.port);
  try {
    const a = await httpGet(proxy.port, "/a");
    const b = await httpGet(proxy.port, "/b");
    assert.equal(a.status, 200);
    assert.equal(a.body, "hello /a");
    assert.equal(b.body, "hello /b");
    assert.deepEqual(backend.seen, ["/a", "/b"]);
    assert.equal(proxy.stats.accepted, 2);
    assert.ok(proxy.stats.bytesUp > 0 && proxy.stats.bytesDown > 0);
    assert.equal(proxy.url, `http://127.0.0.1:${proxy.port}`);
  } finally {
    await proxy.close();
    await backend.stop();
  }
});

Deno.test("proxy: cut closes connections until heal", async () => {
  const backend = startBackend();
  const proxy = await startFaultProxy("127.0.0.1", backend.port);
  try {
    await proxy.cut();
    await assert.rejects(httpGet(proxy.port, "/down"), /closed without a response|reset/);
    assert.deepEqual(backend.seen, []);
    assert.ok(proxy.stats.cut >= 1);
    await proxy.heal();
    assert.equal((await httpGet(proxy.port, "/up")).body, "hello /up");
  } finally {
    await proxy.close();
    await backend.stop();
  }
});

Deno.test("proxy: cut('refuse') refuses connections and heal listens on the same port", async () => {
  const backend = startBackend();
  const proxy = await startFaultProxy("127.0.0.1", backend.port);
  try {
    await proxy.cut("refuse");
    await assert.rejects(httpGet(proxy.port, "/down"), Deno.errors.ConnectionRefused);
    await proxy.heal();
    assert.equal((await httpGet(proxy.port, "/up")).body, "hello /up");
  } finally {
    await proxy.close();
    await backend.stop();
  }
});

Deno.test("proxy: delay slows every exchange and can be removed", async () => {
  const backend = startBackend();
  const proxy = await startFaultProxy("127.0.0.1", backend.port);
  try {
    proxy.delay(INJECTED_LATENCY_MS);
    const t0 = performance.now();
    assert.equal((await httpGet(proxy.port, "/slow")).body, "hello /slow");
    const slow = performance.now() - t0;
    assert.ok(slow >= 290, `a delayed exchange took only ${slow.toFixed(0)} ms`);
    proxy.delay(NO_LATENCY_MS);
    const t1 = performance.now();
    await httpGet(proxy.port, "/fast");
    assert.ok(performance.now() - t1 < slow, "removing the delay did not speed things up");
  } finally {
    await proxy.close();
    await backend.stop();
  }
});

Deno.test("proxy: resetMidRequest loses the answer of a request the server saw", async () => {
  const backend = startBackend();
  const proxy = await startFaultProxy("127.0.0.1", backend.port);
  try {
    proxy.resetMidRequest({ times: 1 });
    await assert.rejects(httpGet(proxy.port, "/lost"), /closed without a response|reset/);
    assert.deepEqual(backend.seen, ["/lost"]);
    assert.equal(proxy.stats.resets, 1);
    // One reset only: the next exchange goes through.
    assert.equal((await httpGet(proxy.port, "/next")).body, "hello /next");
  } finally {
    await proxy.close();
    await backend.stop();
  }
});

Deno.test("proxy: resetMidRequest without forwarding keeps the request from the server", async () => {
  const backend = startBackend();
  const proxy = await startFaultProxy("127.0.0.1", backend.port);
  try {
    proxy.resetMidRequest({ forwardRequest: false });
    await assert.rejects(httpGet(proxy.port, "/never"), /closed without a response|reset/);
    await assert.rejects(httpGet(proxy.port, "/never2"), /closed without a response|reset/);
    assert.deepEqual(backend.seen, []);
    await proxy.heal();
    assert.equal((await httpGet(proxy.port, "/healed")).body, "hello /healed");
    assert.deepEqual(backend.seen, ["/healed"]);
  } finally {
    await proxy.close();
    await backend.stop();
  }
});

Deno.test("proxy: close ends live connections", async () => {
  const backend = startBackend();
  const proxy = await startFaultProxy("127.0.0.1", backend.port);
  const idle = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
  try {
    // The proxy holds the idle connection (no request on it yet).
    await waitFor(() => proxy.stats.active === 1, { message: "the proxy never opened the pair" });
    await proxy.close();
    assert.equal(proxy.stats.active, 0);
    assert.equal(await idle.read(new Uint8Array(16)).catch(() => null), null);
  } finally {
    idle.close();
    await backend.stop();
  }
});
