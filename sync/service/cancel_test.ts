import assert from "node:assert/strict";
import { createSyncService } from "./service.ts";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { SluiceError } from "../errors.ts";
import type { ObjectStore } from "../ports.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 }, concurrency: 2 };

/** `store`, but the `n`th call of `op` on a `files/` key aborts `ctl` before it runs. */
function abortingOn(store: ObjectStore, op: "put" | "get", n: number, ctl: AbortController) {
  let seen = 0;
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      if (key !== op) return value.bind(target);
      return (k: string, ...rest: unknown[]) => {
        if (k.startsWith("files/") && ++seen === n) ctl.abort();
        return value.call(target, k, ...rest);
      };
    },
  });
}

async function cloneOf(store: ObjectStore, name: string) {
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-cancel-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
  });
}

async function writeFiles(dir: string, count: number): Promise<string[]> {
  await Deno.mkdir(`${dir}/files`, { recursive: true });
  const paths = Array.from({ length: count }, (_, i) => `files/f${i}.txt`);
  for (const p of paths) await Deno.writeTextFile(`${dir}/${p}`, p);
  return paths;
}

Deno.test("a push cancelled midway fails with `aborted` (exit 130), keeps every file dirty and commits no index", async () => {
  const store = new InMemoryStore();
  const ctl = new AbortController();
  const a = await cloneOf(abortingOn(store, "put", 3, ctl), "a");
  const paths = await writeFiles(a.cacheDir, 10);
  await a.markDirty({ relPaths: paths });
  const err = await a.pushChanged({ signal: ctl.signal }).then(() => null, (e) => e);
  assert.ok(err instanceof SluiceError, `not a SluiceError: ${err}`);
  assert.equal(err.code, "aborted");
  assert.equal(err.exitCode, 130);
  assert.match(err.message, /The push was cancelled/);
  assert.deepEqual(a.state.dirtyPaths().sort(), [...paths].sort());
  assert.equal(store.peekText("_index/_meta.json"), undefined);
  // The next push publishes everything.
  const done = await a.pushChanged();
  assert.equal(done.uploaded.length + done.identical.length, paths.length);
  assert.deepEqual(a.state.dirtyPaths(), []);
});

Deno.test("a pull cancelled midway fails with `aborted` (exit 130), and the next pull takes every file", async () => {
  const store = new InMemoryStore();
  const a = await cloneOf(store, "a");
  const paths = await writeFiles(a.cacheDir, 10);
  await a.markDirty({ relPaths: paths });
  await a.pushChanged();
  const ctl = new AbortController();
  const b = await cloneOf(abortingOn(store, "get", 3, ctl), "b");
  const err = await b.pullChanged({ signal: ctl.signal }).then(() => null, (e) => e);
  assert.ok(err instanceof SluiceError, `not a SluiceError: ${err}`);
  assert.equal(err.code, "aborted");
  assert.equal(err.exitCode, 130);
  assert.match(err.message, /The pull was cancelled/);
  await b.pullChanged();
  for (const p of paths) assert.equal(await Deno.readTextFile(`${b.cacheDir}/${p}`), p);
});
