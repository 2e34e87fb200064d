/**
 * The key-value lock proves itself with Sluice's lock conformance suite, then
 * serves two caches through `createSluice`: their runs of one model take
 * turns, and a holder paused past its TTL has its late push refused by the
 * lock fence while the new holder's write stands.
 */
import assert from "node:assert/strict";
import { kvHandler, kvLockBackend } from "./kv_lock.ts";
import {
  acquireModelLocks,
  createSluice,
  type LockBackend,
  LockBackendRegistry,
  ModelLockLostError,
  type SyncService,
} from "../mod.ts";
import { FakeClock, InMemoryStore, lockConformance, waitFor } from "../packages/testing/mod.ts";

lockConformance("key-value lock (third-party example)", () => {
  const clock = new FakeClock();
  const kv = kvHandler();
  return Promise.resolve({
    backend: kvLockBackend({ url: "http://kv", clock, fetch: kv.handle }),
    clock,
    fake: true,
    // A crashed holder stops renewing and never releases.
    crash: (lock) => (lock as unknown as { abandon(): void }).abandon(),
    breakReads: () => void (kv.failReads = true),
    healReads: () => void (kv.failReads = false),
  });
});

/** The backend as a datastore config chooses it: by name, its own keys in the `lock` section. */
function registry(kv: ReturnType<typeof kvHandler>): LockBackendRegistry {
  return new LockBackendRegistry().register("kv", ({ clock, config }) => {
    if (typeof config.url !== "string") throw new Error("lock.url: the service's URL");
    return kvLockBackend({ url: config.url, clock, fetch: kv.handle });
  });
}

async function open(
  store: InMemoryStore,
  clock: FakeClock,
  lockBackend: LockBackend,
  name: string,
): Promise<SyncService> {
  return await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-kv-${name}-` }),
    store,
    clock,
    lockBackend,
    identity: { holder: `${name}@host`, hostname: "host", pid: name.length },
  });
}

/** Settles `p` while moving fake time along. */
async function settle<T>(clock: FakeClock, p: Promise<T>): Promise<T> {
  let done = false;
  p.then(() => (done = true), () => (done = true));
  await waitFor(() => done, { clock, stepMs: 100, timeoutMs: 60_000 });
  return await p;
}

const MODEL = "shell/cmd/m1";

/** Writes version `n` of the model's output in `svc`'s cache and marks it dirty. */
async function write(svc: SyncService, n: number, text: string): Promise<string> {
  const dir = `data/${MODEL}/out/${n}`;
  await Deno.mkdir(`${svc.cacheDir}/${dir}`, { recursive: true });
  await Deno.writeTextFile(`${svc.cacheDir}/${dir}/raw`, text);
  await svc.markDirty({ relPath: `${dir}/raw` });
  return dir;
}

Deno.test("key-value lock: two caches' runs of one model take turns and see each other's versions", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const kv = kvHandler();
  const ctx = { store, clock, config: { backend: "kv", url: "http://kv" } };
  const a = await open(store, clock, registry(kv).create("kv", ctx), "alice");
  const b = await open(store, clock, registry(kv).create("kv", ctx), "bob");
  const first = await acquireModelLocks(a, [MODEL]);
  // Bob's run waits while Alice's holds the model's lock.
  let bobHas = false;
  const second = acquireModelLocks(b, [MODEL]).then((s) => ((bobHas = true), s));
  await clock.advance(2_000);
  assert.equal(bobHas, false, "two runs held one model's lock");
  await first.push([await write(a, 1, "alice")]);
  await first.release();
  const bobs = await settle(clock, second);
  // Taking the lock pulled the model: Bob's cache has Alice's version.
  assert.equal(await Deno.readTextFile(`${b.cacheDir}/data/${MODEL}/out/1/raw`), "alice");
  await bobs.push([await write(b, 2, "bob")]);
  await bobs.release();
  await a.pullChanged();
  assert.equal(await Deno.readTextFile(`${a.cacheDir}/data/${MODEL}/out/2/raw`), "bob");
});

Deno.test("key-value lock: a holder paused past its TTL has its late push refused, and the new holder's write stands", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const kv = kvHandler();
  const backend = kvLockBackend({ url: "http://kv", clock, fetch: kv.handle });
  const a = await open(store, clock, backend, "alice");
  const b = await open(store, clock, backend, "bob");
  const paused = await acquireModelLocks(a, [MODEL], { lock: { ttlMs: 3_000 } });
  // Alice's process stops: no heartbeat, no release.
  (paused.locks[0] as unknown as { abandon(): void }).abandon();
  const late = await write(a, 1, "alice, late");
  const bobs = await settle(clock, acquireModelLocks(b, [MODEL], { lock: { ttlMs: 3_000 } }));
  await bobs.push([await write(b, 1, "bob")]);
  await bobs.release();
  await assert.rejects(paused.push([late]), (e: unknown) => {
    assert.ok(e instanceof ModelLockLostError, `expected model_lock_lost, got ${e}`);
    assert.match(e.message, /now held by bob@host|now released/);
    return true;
  });
  await paused.release();
  assert.equal(store.peekText(`data/${MODEL}/out/1/raw`), "bob");
});
