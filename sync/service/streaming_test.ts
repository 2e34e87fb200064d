import assert from "node:assert/strict";
import { createSyncService, type SyncServiceOptions } from "./service.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { CHUNK_BYTES, isBodySource } from "../transfer/body.ts";
import { hasCode } from "../errors.ts";
import { sha256HexSync } from "../hash.ts";
import type {
  CallOptions,
  GetStreamResult,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
} from "../ports.ts";

// Files above 64 KiB are streamed here, so that the tests stay small.
const THRESHOLD = 64 * 1024;
const config = {
  retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 },
  streamThresholdBytes: THRESHOLD,
};

async function clone(store: ObjectStore, name: string, extra: Partial<SyncServiceOptions> = {}) {
  const cacheDir = await Deno.makeTempDir({ prefix: `sluice-stream-${name}-` });
  return await createSyncService({
    cacheDir,
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config,
    ...extra,
  });
}

function pattern(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 13 + seed) & 255;
  return out;
}

async function leftovers(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) if (e.name.endsWith(".tmp")) out.push(e.name);
  return out;
}

/** `mem`, with the body of every streamed read passed through `wrap`. */
function withStreamedReads(
  mem: InMemoryStore,
  wrap: (body: ReadableStream<Uint8Array>) => ReadableStream<Uint8Array>,
): ObjectStore {
  return {
    endpoint: mem.endpoint,
    get: (k, o) => mem.get(k, o),
    head: (k, o) => mem.head(k, o),
    put: (k, body, m, o) => mem.put(k, body, m, o),
    delete: (k, o) => mem.delete(k, o),
    list: (p, o) => mem.list(p, o),
    getStream: async (k, o) => {
      const got = await mem.getStream(k, o);
      return { ...got, body: wrap(got.body) };
    },
  };
}

/** Passes everything to `inner`, recording what each put received and the largest chunk read. */
class Recording implements ObjectStore {
  readonly endpoint: string;
  readonly bodies: { key: string; streamed: boolean }[] = [];
  largestChunk = 0;
  constructor(
    readonly inner: InMemoryStore,
    readonly onChunk?: (key: string, index: number) => Promise<void>,
  ) {
    this.endpoint = inner.endpoint;
  }
  get(key: string, o?: CallOptions) {
    return this.inner.get(key, o);
  }
  getStream(key: string, o?: CallOptions): Promise<GetStreamResult> {
    return this.inner.getStream(key, o);
  }
  head(key: string, o?: CallOptions) {
    return this.inner.head(key, o);
  }
  delete(key: string, o?: CallOptions) {
    return this.inner.delete(key, o);
  }
  list(prefix: string, o?: CallOptions) {
    return this.inner.list(prefix, o);
  }
  put(key: string, body: PutBody, mode: PutMode, o?: PutOptions): Promise<ObjectInfo> {
    this.bodies.push({ key, streamed: isBodySource(body) });
    if (!isBodySource(body)) return this.inner.put(key, body, mode, o);
    const onChunk = this.onChunk;
    const watched = {
      size: body.size,
      stream: () => {
        const reader = body.stream().getReader();
        let index = 0;
        return new ReadableStream<Uint8Array>({
          pull: async (controller) => {
            const { done, value } = await reader.read();
            if (done) return controller.close();
            this.largestChunk = Math.max(this.largestChunk, value.length);
            await onChunk?.(key, index++);
            controller.enqueue(value);
          },
          cancel: (reason) => reader.cancel(reason),
        });
      },
    };
    return this.inner.put(key, watched, mode, o);
  }
}

Deno.test("a file above the threshold is pushed as a stream in bounded chunks and pulled as one", async () => {
  const mem = new InMemoryStore();
  const store = new Recording(mem);
  const a = await clone(store, "a");
  const b = await clone(mem, "b");
  const big = pattern(3 * CHUNK_BYTES + 123, 7);
  await Deno.mkdir(`${a.cacheDir}/outputs`);
  await Deno.writeFile(`${a.cacheDir}/outputs/big.bin`, big);
  await Deno.writeTextFile(`${a.cacheDir}/outputs/small.txt`, "small");
  await a.markDirty();
  const pushed = await a.pushChanged();
  assert.deepEqual(pushed.uploaded.sort(), ["outputs/big.bin", "outputs/small.txt"]);
  assert.deepEqual(
    store.bodies.filter((x) => x.key.startsWith("outputs/")).sort((x, y) => x.key < y.key ? -1 : 1),
    [{ key: "outputs/big.bin", streamed: true }, { key: "outputs/small.txt", streamed: false }],
  );
  assert.ok(store.largestChunk <= CHUNK_BYTES, `a chunk of ${store.largestChunk} bytes`);
  assert.deepEqual(mem.peek("outputs/big.bin"), big);
  assert.equal(a.state.synced("outputs/big.bin")?.hash, sha256HexSync(big));

  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.fetched.sort(), ["outputs/big.bin", "outputs/small.txt"]);
  assert.equal(mem.streamedGets, 1, "only the large file is read as a stream");
  assert.deepEqual(await Deno.readFile(`${b.cacheDir}/outputs/big.bin`), big);
  assert.deepEqual(await leftovers(`${b.cacheDir}/outputs`), []);
});

Deno.test("progress events report bytes while a large file moves, not only when it is done", async () => {
  const mem = new InMemoryStore();
  const a = await clone(mem, "a");
  const b = await clone(mem, "b");
  const size = 4 * CHUNK_BYTES + 10;
  await Deno.writeFile(`${a.cacheDir}/big.bin`, pattern(size, 5));
  await a.markDirty({ relPath: "big.bin" });
  const up: number[] = [];
  a.events.on("progress", (p) => {
    assert.equal(p.bytesTotal, size);
    up.push(p.bytesDone);
  });
  await a.pushChanged();
  const down: number[] = [];
  b.events.on("progress", (p) => down.push(p.bytesDone));
  await b.pullChanged();
  for (const [what, seen] of [["push", up], ["pull", down]] as const) {
    const partial = seen.filter((n) => n > 0 && n < size);
    assert.ok(partial.length >= 3, `${what}: only ${seen.join(", ")}`);
    assert.deepEqual(seen, [...seen].sort((x, y) => x - y), `${what}: bytes went backwards`);
    assert.equal(seen.at(-1), size);
  }
});

Deno.test("a file that changes while it is streamed is not written, stays dirty, and goes up next time", async () => {
  const mem = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-stream-torn-" });
  const file = () => `${cacheDir}/outputs/big.bin`;
  let tamper = true;
  const store = new Recording(mem, async (_key, index) => {
    // As the first chunk goes out, another process appends to the file. (At the
    // second chunk the source may already have read the rest ahead, and a change
    // after the last byte was read is no torn upload.)
    if (tamper && index === 0) await Deno.writeFile(file(), pattern(10, 1), { append: true });
  });
  const a = await clone(store, "a", { cacheDir });
  await Deno.mkdir(`${a.cacheDir}/outputs`);
  const first = pattern(2 * CHUNK_BYTES + 5, 3);
  await Deno.writeFile(file(), first);
  await a.markDirty({ relPath: "outputs/big.bin" });
  await assert.rejects(a.pushChanged(), (e) => hasCode(e, "file_changed"));
  assert.equal(mem.peek("outputs/big.bin"), undefined, "no torn object on the store");
  assert.deepEqual(a.state.dirtyPaths(), ["outputs/big.bin"]);

  tamper = false;
  const pushed = await a.pushChanged();
  assert.deepEqual(pushed.uploaded, ["outputs/big.bin"]);
  assert.deepEqual(mem.peek("outputs/big.bin"), await Deno.readFile(file()));
  assert.equal(mem.peek("outputs/big.bin")?.length, first.length + 10);
});

Deno.test("a streamed download that is cut short or corrupted writes nothing and keeps the cached copy", async () => {
  const mem = new InMemoryStore();
  const a = await clone(mem, "a");
  const big = pattern(2 * CHUNK_BYTES, 9);
  await Deno.mkdir(`${a.cacheDir}/d`);
  await Deno.writeFile(`${a.cacheDir}/d/big.bin`, big);
  await a.markDirty({ relPath: "d/big.bin" });
  await a.pushChanged();
  for (const damage of ["truncate", "flip"] as const) {
    const tampering = withStreamedReads(mem, (source) => {
      const reader = source.getReader();
      let n = 0;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          n++;
          if (damage === "truncate" && n === 2) return controller.close();
          if (damage === "flip" && n === 2) value[17] ^= 0xff;
          controller.enqueue(value);
        },
      });
    });
    const b = await clone(tampering, `b-${damage}`);
    await Deno.mkdir(`${b.cacheDir}/d`);
    await assert.rejects(b.pullChanged(), (e) => hasCode(e, "corrupt_download"));
    await assert.rejects(Deno.stat(`${b.cacheDir}/d/big.bin`), Deno.errors.NotFound);
    assert.deepEqual(await leftovers(`${b.cacheDir}/d`), [], "a temp file was left behind");
  }
});

Deno.test("streamThresholdBytes of the wrong type is refused by name", async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-stream-cfg-" });
  await assert.rejects(
    createSyncService({
      cacheDir,
      store: new InMemoryStore(),
      identity: { holder: "a@host", hostname: "host", pid: 1 },
      config: { streamThresholdBytes: "8M" as unknown as number },
    }),
    (e: Error & { code?: string }) =>
      e.code === "invalid_config" && e.message.includes("streamThresholdBytes"),
  );
});

Deno.test("a large file deleted after it was hashed is left out of the push and stays dirty", async () => {
  const mem = new InMemoryStore();
  let cacheDir = "";
  const store = new Recording(mem);
  const put = store.put.bind(store);
  store.put = async (key, body, mode, o) => {
    // Between the push's hashing and the upload, another process deletes the file.
    if (key === "outputs/big.bin") await Deno.remove(`${cacheDir}/outputs/big.bin`);
    return await put(key, body, mode, o);
  };
  const a = await clone(store, "a");
  cacheDir = a.cacheDir;
  await Deno.mkdir(`${a.cacheDir}/outputs`);
  await Deno.writeFile(`${a.cacheDir}/outputs/big.bin`, pattern(2 * CHUNK_BYTES, 4));
  await a.markDirty({ relPath: "outputs/big.bin" });
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(r.skipped, [
    { path: "outputs/big.bin", reason: "the file vanished during the push", keepDirty: true },
  ]);
  assert.equal(mem.peek("outputs/big.bin"), undefined);
  assert.deepEqual(a.state.dirtyPaths(), ["outputs/big.bin"]);
});

Deno.test("a streamed download that cannot be written locally still releases the store's stream", async () => {
  const mem = new InMemoryStore();
  const a = await clone(mem, "a");
  await Deno.mkdir(`${a.cacheDir}/d`);
  await Deno.writeFile(`${a.cacheDir}/d/big.bin`, pattern(2 * CHUNK_BYTES, 2));
  await a.markDirty({ relPath: "d/big.bin" });
  await a.pushChanged();
  let cancelled = 0;
  const watching = withStreamedReads(mem, (source) => {
    const reader = source.getReader();
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
      },
      cancel(reason) {
        cancelled++;
        return reader.cancel(reason);
      },
    });
  });
  const b = await clone(watching, "b");
  // A plain file where the pull needs a directory: the path is left out as blocked.
  await Deno.writeTextFile(`${b.cacheDir}/d`, "in the way");
  const r = await b.pullChanged();
  assert.deepEqual(r.blocked, ["d/big.bin"]);
  assert.equal(cancelled, 1, "the store's stream was left open");
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/d`), "in the way");
});
