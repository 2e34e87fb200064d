/**
 * Bad input, downloads: truncated, padded and corrupted downloads and a
 * corrupted remote index are `corrupt_download`; nothing is lost. See
 * `sandbox.ts` for the sandbox every test runs in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { bodyBytes } from "../../sync/transfer/body.ts";
import type {
  CallOptions,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
} from "../../sync/ports.ts";
import { INDEX_KEY } from "../../sync/transfer/remote_index.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { clone, enc, pushPaths, put, read, refused, sandbox } from "./sandbox.ts";

/** A store whose downloads (not the index) pass through `tamper` while it is set. */
class TamperingStore implements ObjectStore {
  readonly endpoint: string;
  tamper: ((body: Uint8Array) => Uint8Array) | null = null;
  constructor(readonly inner: InMemoryStore) {
    this.endpoint = inner.endpoint;
  }
  async get(key: string, options?: CallOptions): Promise<GetResult> {
    const r = await this.inner.get(key, options);
    return this.tamper && key !== INDEX_KEY ? { ...r, body: this.tamper(r.body) } : r;
  }
  /** The inner store's stream, tampered with while `tamper` is set, re-sent in chunks of 4 bytes. */
  async getStream(key: string, options?: CallOptions): Promise<GetStreamResult> {
    const { body: stream, ...info } = await this.inner.getStream(key, options);
    if (!this.tamper || key === INDEX_KEY) return { ...info, body: stream };
    const body = this.tamper(await bodyBytes({ size: info.size, stream: () => stream }));
    let off = 0;
    return {
      ...info,
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (off >= body.length) return controller.close();
          controller.enqueue(body.slice(off, off + 4));
          off += 4;
        },
      }),
    };
  }
  head(key: string, options?: CallOptions): Promise<ObjectInfo | null> {
    return this.inner.head(key, options);
  }
  put(key: string, body: PutBody, mode: PutMode, options?: PutOptions): Promise<ObjectInfo> {
    return this.inner.put(key, body, mode, options);
  }
  delete(key: string, options?: DeleteOptions): Promise<void> {
    return this.inner.delete(key, options);
  }
  list(prefix: string, options?: ListOptions): AsyncIterable<readonly ObjectInfo[]> {
    return this.inner.list(prefix, options);
  }
}

for (const mode of ["whole", "streamed"] as const) {
  Deno.test(`downloads (${mode}): truncated, padded or corrupted bodies are corrupt_download; the cached copy and its manifest entry are kept`, async () => {
    // "streamed": every object is above the threshold, so the pull reads it through getStream.
    const streamThresholdBytes = mode === "streamed" ? 1 : undefined;
    const sb = await sandbox();
    const inner = new InMemoryStore();
    const wire = new TamperingStore(inner);
    const a = await clone(inner, `${sb.root}/peer`);
    const b = await clone(wire, sb.cacheDir, { name: "b", streamThresholdBytes });
    await put(a.cacheDir, "outputs/o.txt", "version one of the file");
    await pushPaths(a, "outputs/o.txt");
    await b.pullChanged();
    const v1 = b.state.synced("outputs/o.txt");
    await put(a.cacheDir, "outputs/o.txt", "version two of the file");
    await pushPaths(a, "outputs/o.txt");

    const tampers: [string, (b: Uint8Array) => Uint8Array, RegExp][] = [
      ["truncated", (x) => x.subarray(0, x.length - 5), /size 18, expected 23/],
      ["padded", (x) => Uint8Array.from([...x, 0, 0]), /size (25|more than 23), expected 23/],
      ["empty", () => new Uint8Array(0), /size 0, expected 23/],
      ["one byte flipped", (x) => x.map((c, i) => (i === 3 ? c ^ 1 : c)), /SHA-256 [0-9a-f]+…/],
    ];
    for (const [what, tamper, detail] of tampers) {
      wire.tamper = tamper;
      const err = await refused(
        b.pullChanged(),
        "corrupt_download",
        /The download of outputs\/o\.txt does not match the remote index/,
        /the cached copy was kept\. Run the pull again/,
      );
      assert.match(err.message, detail, what);
      assert.equal(err.retryable, true);
      assert.equal(await read(sb.cacheDir, "outputs/o.txt"), "version one of the file", what);
      assert.deepEqual(b.state.synced("outputs/o.txt"), v1, `${what}: manifest unchanged`);
      assert.deepEqual(b.state.dirtyPaths(), []);
    }
    wire.tamper = null;
    assert.deepEqual((await b.pullChanged()).fetched, ["outputs/o.txt"]);
    assert.equal(await read(sb.cacheDir, "outputs/o.txt"), "version two of the file");
    assert.equal(
      inner.streamedGets > 0,
      mode === "streamed",
      "the read path was not the one meant",
    );
    await sb.unchanged();
  });
}

Deno.test("downloads: a corrupted remote index is corrupt_download for pull and push; nothing is lost and the index is not overwritten", async () => {
  const badIndexes: [string, Uint8Array][] = [
    ["garbage", new Uint8Array([0xff, 0x00, 0x7b, 0x22])],
    ["unknown version", enc(JSON.stringify({ version: 7, entries: {} }))],
    ["entries not an object", enc(JSON.stringify({ version: 1, entries: [1, 2] }))],
    ["an entry not an object", enc(JSON.stringify({ version: 1, entries: { "a.txt": "junk" } }))],
    [
      "an entry with a size as a string",
      enc(JSON.stringify({ version: 1, entries: { "a.txt": { key: "a.txt", size: "9" } } })),
    ],
  ];
  for (const [what, body] of badIndexes) {
    const sb = await sandbox();
    const store = new InMemoryStore();
    const a = await clone(store, sb.cacheDir);
    await put(sb.cacheDir, "synced.txt", "synced");
    await pushPaths(a, "synced.txt");
    store.seed(INDEX_KEY, body);
    await put(sb.cacheDir, "synced.txt", "edited locally");
    await put(sb.cacheDir, "new.txt", "new locally");
    await a.markDirty({ relPaths: ["synced.txt", "new.txt"] });
    const pattern =
      /The remote index object \.datastore-index\.json is unreadable \(.+\)\. Nothing was changed locally/;
    const todo = /restore \.datastore-index\.json from a backup or an earlier object version/;
    await refused(a.pullChanged(), "corrupt_download", pattern, todo);
    await refused(a.pushChanged(), "corrupt_download", pattern, todo);
    assert.deepEqual(store.peek(INDEX_KEY), body, `${what}: the index is not overwritten`);
    assert.equal(await read(sb.cacheDir, "synced.txt"), "edited locally", what);
    assert.equal(await read(sb.cacheDir, "new.txt"), "new locally", what);
    assert.deepEqual(a.state.dirtyPaths(), ["new.txt", "synced.txt"], `${what}: still dirty`);
    await sb.unchanged();
  }
});
