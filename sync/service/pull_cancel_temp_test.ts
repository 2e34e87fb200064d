/**
 * A pull cancelled while it streams a large file into its temporary file
 * beside the target: the cancellation ends the download (also from a store
 * whose stream does not stop by itself), removes the temporary file, and
 * only then does the pull fail with `aborted`, so that a process exiting on
 * that answer leaves no partial download in the cache; the cached copy is
 * kept as it was.
 */
import assert from "node:assert/strict";
import { InMemoryStore, waitFor, writeAndMark } from "../../packages/testing/mod.ts";
import type { GetStreamResult } from "../ports.ts";
import { clone } from "./clone_kit.ts";

/** The names of the temporary files under `dir`. */
async function tempsUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) found.push(...await tempsUnder(`${dir}/${e.name}`));
    else if (e.name.endsWith(".tmp")) found.push(e.name);
  }
  return found;
}

Deno.test("a pull cancelled part way through a streamed download leaves no temporary file behind, and keeps the cached copy", async () => {
  const store = new InMemoryStore();
  const config = { streamThresholdBytes: 16 };
  const a = await clone(store, "a", undefined, config);
  await writeAndMark(a, "notes/big.bin", "v1".repeat(40));
  await a.pushChanged();
  // Once `stall` is set, the reader's store sends the first bytes of a
  // download, then nothing more, whatever the signal: the stream stops only
  // when cancelled.
  let stall = false;
  const stalling = new Proxy(store, {
    get(target, prop) {
      if (prop !== "getStream" || !stall) {
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (key: string): Promise<GetStreamResult> => {
        const got = await target.getStream(key);
        await got.body.cancel();
        let sent = false;
        return {
          ...got,
          body: new ReadableStream<Uint8Array>({
            pull(controller) {
              if (sent) return new Promise<void>(() => {});
              sent = true;
              controller.enqueue(new TextEncoder().encode("v2v2v2v2v2"));
            },
          }),
        };
      };
    },
  });
  const b = await clone(stalling, "b", undefined, config);
  await b.pullChanged();
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/notes/big.bin`), "v1".repeat(40));

  await writeAndMark(a, "notes/big.bin", "v2".repeat(40));
  await a.pushChanged();
  stall = true;
  const ctl = new AbortController();
  const pulling = b.pullChanged({ signal: ctl.signal }).then(() => null, (e) => e);
  await waitFor(async () => (await tempsUnder(b.cacheDir)).length > 0);
  ctl.abort();
  const err = await pulling;
  assert.equal(err?.code, "aborted", String(err));
  assert.deepEqual(await tempsUnder(b.cacheDir), []);
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/notes/big.bin`), "v1".repeat(40));
});

Deno.test("a pull cancelled while its store opens a streamed download, which then sends nothing, still answers aborted and leaves no temporary file", async () => {
  const store = new InMemoryStore();
  const config = { streamThresholdBytes: 16 };
  const a = await clone(store, "a", undefined, config);
  await writeAndMark(a, "notes/big.bin", "v1".repeat(40));
  await a.pushChanged();
  // The reader's store opens a download whatever the signal, and answers
  // only once `release` is called; its stream then sends nothing, and stops
  // only when cancelled.
  let opening = false;
  let release = () => {};
  const released = new Promise<void>((r) => release = r);
  const stalling = new Proxy(store, {
    get(target, prop) {
      if (prop !== "getStream") {
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (key: string): Promise<GetStreamResult> => {
        const got = await target.getStream(key);
        await got.body.cancel();
        opening = true;
        await released;
        return {
          ...got,
          body: new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => {}) }),
        };
      };
    },
  });
  const b = await clone(stalling, "b", undefined, config);
  const ctl = new AbortController();
  let answer: { code?: string } | null | undefined;
  const pulling = b.pullChanged({ signal: ctl.signal }).then(
    () => answer = null,
    (e) => answer = e,
  );
  await waitFor(() => opening);
  ctl.abort();
  release();
  await waitFor(() => answer !== undefined, { message: "the cancelled pull never answered" });
  await pulling;
  assert.equal(answer?.code, "aborted", String(answer));
  assert.deepEqual(await tempsUnder(b.cacheDir), []);
});
