import assert from "node:assert/strict";
import {
  bodyBytes,
  bodySize,
  bytesStream,
  fileSource,
  isBodySource,
  openObject,
  SourceVanishedError,
} from "./body.ts";
import { hasCode } from "../errors.ts";
import { sha256HexSync } from "../hash.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";

async function tempFile(bytes: Uint8Array): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-body-" });
  await Deno.writeFile(`${dir}/f`, bytes);
  return `${dir}/f`;
}

function pattern(size: number): Uint8Array {
  return Uint8Array.from({ length: size }, (_, i) => (i * 7 + 3) & 255);
}

/** Reads a stream, returning its chunks, or the error it ended with. */
async function drain(stream: ReadableStream<Uint8Array>) {
  const chunks: Uint8Array[] = [];
  try {
    for await (const c of stream) chunks.push(c);
    return { chunks, error: null as unknown };
  } catch (error) {
    return { chunks, error };
  }
}

Deno.test("fileSource streams a file in bounded chunks, afresh on each call", async () => {
  const bytes = pattern(10_000);
  const file = await tempFile(bytes);
  const source = fileSource(file, bytes.length, { sha256: sha256HexSync(bytes), chunkBytes: 4096 });
  assert.ok(isBodySource(source));
  assert.equal(bodySize(source), 10_000);
  for (let round = 0; round < 2; round++) {
    const { chunks, error } = await drain(source.stream());
    assert.equal(error, null);
    assert.deepEqual(chunks.map((c) => c.length), [4096, 4096, 1808]);
    assert.deepEqual(await bodyBytes({ size: 10_000, stream: () => bytesStream(bytes) }), bytes);
  }
  assert.deepEqual(await bodyBytes(source), bytes);
});

Deno.test("fileSource: a file that grew, shrank or changed errors before its last chunk", async () => {
  const bytes = pattern(10_000);
  const cases: [string, Uint8Array][] = [
    ["grew", pattern(10_001)],
    ["shrank", pattern(9_999)],
    ["changed", Uint8Array.from(bytes, (b, i) => i === 9_000 ? b ^ 1 : b)],
  ];
  for (const [what, now] of cases) {
    const file = await tempFile(now);
    const source = fileSource(file, bytes.length, {
      sha256: sha256HexSync(bytes),
      chunkBytes: 4096,
      label: "outputs/f",
    });
    const { chunks, error } = await drain(source.stream());
    assert.ok(hasCode(error, "file_changed"), `${what}: ${error}`);
    assert.match((error as Error).message, /outputs\/f changed while it was being uploaded/);
    const delivered = chunks.reduce((n, c) => n + c.length, 0);
    assert.ok(delivered < Math.min(now.length, bytes.length), `${what}: the end went out`);
  }
});

Deno.test("bodyBytes refuses a source that yields another length than announced", async () => {
  const short = { size: 10, stream: () => bytesStream(pattern(9)) };
  const long = { size: 10, stream: () => bytesStream(pattern(11)) };
  await assert.rejects(bodyBytes(short, "k"), (e) => hasCode(e, "file_changed"));
  await assert.rejects(bodyBytes(long, "k"), (e) => hasCode(e, "file_changed"));
});

Deno.test("openObject uses getStream when the store has it, else a whole get", async () => {
  const mem = new InMemoryStore();
  await mem.put("k", pattern(3000), PutModes.overwrite);
  const streamed = await openObject(mem, "k");
  assert.deepEqual(await bodyBytes({ size: 3000, stream: () => streamed.body }), pattern(3000));
  assert.equal(mem.streamedGets, 1);
  const plain = {
    endpoint: mem.endpoint,
    get: mem.get.bind(mem),
    head: mem.head.bind(mem),
    put: mem.put.bind(mem),
    delete: mem.delete.bind(mem),
    list: mem.list.bind(mem),
  };
  const whole = await openObject(plain, "k");
  assert.equal(whole.size, 3000);
  assert.deepEqual(await bodyBytes({ size: 3000, stream: () => whole.body }), pattern(3000));
  assert.equal(mem.streamedGets, 1);
});

Deno.test("fileSource: a stream cancelled before or during its first read leaves no handle open", async () => {
  const file = await tempFile(pattern(100_000));
  const source = fileSource(file, 100_000, { chunkBytes: 4096 });
  // Cancelled at once (its open may still be on its way).
  await source.stream().cancel();
  // Cancelled while the first read waits.
  const reader = source.stream().getReader();
  const first = reader.read();
  await reader.cancel();
  await first.catch(() => {});
  // The test's resource sanitizer fails it if a file handle is still open.
});

Deno.test("fileSource: a file deleted before the upload opens it is SourceVanishedError", async () => {
  const file = await tempFile(pattern(10));
  const source = fileSource(file, 10, { label: "outputs/gone" });
  await Deno.remove(file);
  const { error } = await drain(source.stream());
  assert.ok(error instanceof SourceVanishedError, String(error));
  assert.equal(error.path, "outputs/gone");
});
