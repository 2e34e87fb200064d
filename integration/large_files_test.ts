/**
 * Large files end to end against MinIO and fake-gcs-server: clones built from
 * the real providers with the default gates and the default streaming
 * threshold (8 MiB), pushing and pulling files of 12 and 24 MiB.
 *
 * Each clone's sync service runs over a thin counting wrapper of its
 * provider's store (passed to `createSluice` the way the provider's own
 * `createSyncService` passes the bare store), so a test can tell a streamed
 * put (a `BodySource` body) or a streamed read (`getStream`) from a whole
 * one. Contents are generated from a seed and compared by SHA-256.
 *
 * - a 12 MiB data version is streamed up by one clone, read back by a direct
 *   observer and streamed down by another clone, with the same hash;
 * - a second writer of that version with other bytes is refused with
 *   `version_exists`; the remote keeps the first bytes and the second copy is
 *   set aside in its cache, not lost;
 * - a connection cut in the middle of a streamed 24 MiB upload (through the
 *   fault proxy) fails the push, leaves no object, keeps the file dirty, and
 *   the next push after healing uploads it whole.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { isBodySource } from "../sync/transfer/body.ts";
import { ConditionalWrites } from "../sync/transfer/conditional.ts";
import { SluiceError, VersionConflictError } from "../sync/errors.ts";
import type {
  BodySource,
  CallOptions,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  Identity,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
} from "../sync/ports.ts";
import type { StoreProvider } from "../packages/provider/mod.ts";
import type { SyncService } from "../sync/service/service.ts";
import { SCENARIO_SETTINGS, type ScenarioBackend, serviceFromParts } from "./scenario_world.ts";
import { type FaultProxy, startFaultProxy } from "./proxy.ts";
import { realClient } from "./contract_helpers.ts";
import { sharedServer, stopSharedServers } from "./servers/common.ts";
import { startMinio } from "./servers/minio.ts";
import { startFakeGcs } from "./servers/fake_gcs.ts";
import { fakeGcsScenarioBackend, minioScenarioBackend } from "./scenario_backends.ts";

const MiB = 1 << 20;
/** Above the default streaming threshold (8 MiB). */
const LARGE = 12 * MiB;
/** The file whose upload is cut. */
const HUGE = 24 * MiB;
/** The upload is held, and the connection cut, once this much of the file went out. */
const CUT_AFTER = 6 * MiB;
/** Data version files: the create-only writer applies. */
const versionFile = (n: number) => `data/t/m/d/${n}/raw`;

// ---------------------------------------------------------------------------
// Generated contents and hashes
// ---------------------------------------------------------------------------

/** Writes `size` bytes generated from `seed` (xorshift32) to `file`; returns their hex SHA-256. */
async function writeGenerated(file: string, size: number, seed: number): Promise<string> {
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  const hash = createHash("sha256");
  const words = new Uint32Array(MiB / 4);
  const bytes = new Uint8Array(words.buffer);
  let x = (seed * 2654435761) | 0 || 1;
  using out = await Deno.open(file, { write: true, create: true, truncate: true });
  for (let off = 0; off < size; off += MiB) {
    for (let i = 0; i < words.length; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      words[i] = x;
    }
    const chunk = bytes.subarray(0, Math.min(MiB, size - off));
    hash.update(chunk);
    for (let n = 0; n < chunk.length;) n += await out.write(chunk.subarray(n));
  }
  return hash.digest("hex");
}

/** Hex SHA-256 and length of a stream, read to its end. */
async function hashStream(
  body: ReadableStream<Uint8Array>,
): Promise<{ hash: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of body) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { hash: hash.digest("hex"), size };
}

/** Hex SHA-256 of a local file, or null when it is absent. */
async function hashFile(file: string): Promise<string | null> {
  let f: Deno.FsFile;
  try {
    f = await Deno.open(file, { read: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  return (await hashStream(f.readable)).hash;
}

// ---------------------------------------------------------------------------
// A counting store wrapper
// ---------------------------------------------------------------------------

/** One call the wrapper saw: its key, and whether the body moved as a stream. */
interface Call {
  readonly key: string;
  readonly streamed: boolean;
}

/**
 * Forwards every call to `inner` (including `getStream`), recording puts
 * (streamed when the body is a `BodySource`), whole reads and streamed reads,
 * and how often each streamed put's `stream()` was opened (once per attempt).
 */
/** A paused upload: see {@link CountingStore.holdAfter}. */
interface Hold {
  readonly after: number;
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly gate: PromiseWithResolvers<void>;
}

/** `stream`, paused at the first chunk boundary past `hold.after` bytes until the hold is released. */
function held(stream: ReadableStream<Uint8Array>, hold: Hold): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= hold.after) {
        hold.resolve();
        await hold.gate.promise;
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      sent += value.length;
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

class CountingStore implements ObjectStore {
  readonly puts: Call[] = [];
  readonly reads: Call[] = [];
  readonly opened = new Map<string, number>();
  readonly #inner: ObjectStore;

  constructor(inner: ObjectStore) {
    assert.ok(inner.getStream, `${inner.endpoint} has no getStream`);
    this.#inner = inner;
  }

  get endpoint(): string {
    return this.#inner.endpoint;
  }

  get(key: string, options?: CallOptions): Promise<GetResult> {
    this.reads.push({ key, streamed: false });
    return this.#inner.get(key, options);
  }

  getStream(key: string, options?: CallOptions): Promise<GetStreamResult> {
    this.reads.push({ key, streamed: true });
    return this.#inner.getStream!(key, options);
  }

  head(key: string, options?: CallOptions): Promise<ObjectInfo | null> {
    return this.#inner.head(key, options);
  }

  put(key: string, body: PutBody, mode: PutMode, options?: PutOptions): Promise<ObjectInfo> {
    if (!isBodySource(body)) {
      this.puts.push({ key, streamed: false });
      return this.#inner.put(key, body, mode, options);
    }
    this.puts.push({ key, streamed: true });
    const counted: BodySource = {
      size: body.size,
      stream: () => {
        this.opened.set(key, (this.opened.get(key) ?? 0) + 1);
        const hold = this.#holds.get(key);
        this.#holds.delete(key);
        return hold ? held(body.stream(), hold) : body.stream();
      },
    };
    return this.#inner.put(key, counted, mode, options);
  }

  readonly #holds = new Map<string, Hold>();

  /**
   * Makes the next upload of `key` stop once `after` bytes went out:
   * `reached` resolves then, and the rest follows on `release()`.
   */
  holdAfter(key: string, after: number): { reached: Promise<void>; release: () => void } {
    const hold: Hold = { after, ...Promise.withResolvers<void>(), gate: Promise.withResolvers() };
    this.#holds.set(key, hold);
    return { reached: hold.promise, release: () => hold.gate.resolve() };
  }

  delete(key: string, options?: DeleteOptions): Promise<void> {
    return this.#inner.delete(key, options);
  }

  list(prefix: string, options?: ListOptions): AsyncIterable<readonly ObjectInfo[]> {
    return this.#inner.list(prefix, options);
  }

  /** The puts of `key`, asserting each was streamed; their number. */
  streamedPuts(key: string): number {
    const of = this.puts.filter((c) => c.key === key);
    assert.ok(of.length > 0, `no put of ${key}`);
    assert.ok(of.every((c) => c.streamed), `a put of ${key} sent whole bytes, not a stream`);
    return of.length;
  }

  /** The reads of `key`, asserting each was streamed; their number. */
  streamedReads(key: string): number {
    const of = this.reads.filter((c) => c.key === key);
    assert.ok(of.length > 0, `no read of ${key}`);
    assert.ok(of.every((c) => c.streamed), `a read of ${key} fetched whole bytes, not a stream`);
    return of.length;
  }
}

// ---------------------------------------------------------------------------
// The world: one bucket, a fault proxy, an observer, clones
// ---------------------------------------------------------------------------

interface LargeClone {
  readonly name: string;
  readonly provider: StoreProvider;
  /** The counting wrapper the clone's service talks through. */
  readonly store: CountingStore;
  /** Default gates, default streaming threshold. */
  readonly service: SyncService;
  /** Writes `size` generated bytes at cache path `path`, marks it dirty; returns the hash. */
  writeLarge(path: string, size: number, seed: number): Promise<string>;
  /** Hex SHA-256 of the cache file at `path` (relative to the cache), or null. */
  localHash(path: string): Promise<string | null>;
}

interface LargeWorld {
  readonly proxy: FaultProxy;
  clone(name: string, options?: { throughProxy?: boolean }): Promise<LargeClone>;
  /** Info of the remote object, read by a direct observer; null when absent. */
  remoteHead(key: string): Promise<ObjectInfo | null>;
  /** SHA-256 and size of the remote object, streamed by the observer; null when absent. */
  remoteHash(key: string): Promise<{ hash: string; size: number } | null>;
  /** Every remote key under `prefix`, listed by the observer. */
  remoteKeys(prefix: string): Promise<string[]>;
  dispose(): Promise<void>;
}

function identityOf(name: string): Identity {
  return { holder: `${name}@host-${name}`, hostname: `host-${name}`, pid: 2000 + name.length };
}

async function openLargeWorld(backend: ScenarioBackend): Promise<LargeWorld> {
  const bucket = await backend.bucket();
  const target = new URL(bucket.endpoint);
  const proxy = await startFaultProxy(target.hostname, Number(target.port));
  const observer = bucket.provider(bucket.endpoint, SCENARIO_SETTINGS, {
    identity: identityOf("observer"),
    conditional: new ConditionalWrites(),
  });
  const providers: StoreProvider[] = [observer];
  const dirs: string[] = [];
  return {
    proxy,
    async clone(name, options = {}) {
      const identity = identityOf(name);
      // Each clone is its own process in real life: its own probe memo.
      const conditional = new ConditionalWrites();
      const endpoint = options.throughProxy ? proxy.url : bucket.endpoint;
      const provider = bucket.provider(endpoint, SCENARIO_SETTINGS, { identity, conditional });
      providers.push(provider);
      const repoDir = await Deno.makeTempDir({ prefix: `sluice-large-${name}-` });
      dirs.push(repoDir);
      const store = new CountingStore(provider.store);
      // What provider.createSyncService does, over the counting wrapper.
      const service = await serviceFromParts(provider, provider.resolveCachePath(repoDir), {
        identity,
        conditional,
        store,
      });
      assert.equal(provider.config.streamThresholdBytes, undefined, "not the default threshold");
      assert.equal(service.config.streamThresholdBytes, 8 * MiB);
      return {
        name,
        provider,
        store,
        service,
        async writeLarge(path, size, seed) {
          const hash = await writeGenerated(`${service.cacheDir}/${path}`, size, seed);
          await service.markDirty({ relPath: path });
          return hash;
        },
        localHash: (path) => hashFile(`${service.cacheDir}/${path}`),
      };
    },
    remoteHead: (key) => observer.store.head(key),
    async remoteHash(key) {
      if (!(await observer.store.head(key))) return null;
      const got = await observer.store.getStream!(key);
      const read = await hashStream(got.body);
      assert.equal(read.size, got.size, `the streamed body of ${key} is not the size announced`);
      return read;
    },
    async remoteKeys(prefix) {
      const keys: string[] = [];
      for await (const page of observer.store.list(prefix)) keys.push(...page.map((o) => o.key));
      return keys;
    },
    async dispose() {
      await proxy.heal().catch(() => {});
      for (const p of providers) p.close();
      for (const d of dirs) await Deno.remove(d, { recursive: true }).catch(() => {});
      await proxy.close();
    },
  };
}

/** Settles `p`; the error it rejected with, or null when it resolved. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  return await p.then(() => null, (e) => e);
}

// ---------------------------------------------------------------------------
// The scenarios
// ---------------------------------------------------------------------------

type Scenario = (w: LargeWorld) => Promise<void>;

/** 1: A streams a 12 MiB version up; the observer and C read it back with the same hash. */
const streamedUpAndDown: Scenario = async (w) => {
  const key = versionFile(1);
  const a = await w.clone("a");
  const c = await w.clone("c");
  const hashA = await a.writeLarge(key, LARGE, 1);

  const pushed = await a.service.pushChanged();
  assert.deepEqual(pushed.uploaded, [key]);
  assert.ok(a.store.streamedPuts(key) >= 1);
  assert.ok((a.store.opened.get(key) ?? 0) >= 1, "the source was never opened");

  const head = await w.remoteHead(key);
  assert.equal(head?.size, LARGE);
  assert.equal(head?.metadata?.["sluice-sha256"], hashA, "the version is not tagged with its hash");
  assert.deepEqual(await w.remoteHash(key), { hash: hashA, size: LARGE });

  const pulled = await c.service.pullChanged();
  assert.deepEqual(pulled.fetched, [key]);
  assert.ok(c.store.streamedReads(key) >= 1);
  assert.equal(await c.localHash(key), hashA, "C's copy differs from A's file");
  // The temp file the download went through was renamed, not left beside it.
  const names = [];
  for await (const e of Deno.readDir(`${c.service.cacheDir}/data/t/m/d/1`)) names.push(e.name);
  assert.deepEqual(names, ["raw"]);
};

/** 2: B writes other 12 MiB at A's version: refused, nothing overwritten, B's copy set aside. */
const secondWriterRefused: Scenario = async (w) => {
  const key = versionFile(1);
  const a = await w.clone("a");
  const b = await w.clone("b");
  const hashA = await a.writeLarge(key, LARGE, 1);
  assert.deepEqual((await a.service.pushChanged()).uploaded, [key]);
  const before = await w.remoteHead(key);

  const hashB = await b.writeLarge(key, LARGE, 2);
  assert.notEqual(hashB, hashA);
  const refused = await outcome(b.service.pushChanged());
  assert.ok(refused instanceof VersionConflictError, `expected version_exists, got ${refused}`);
  assert.equal(refused.code, "version_exists");
  assert.deepEqual(refused.keys, [key]);
  assert.ok(b.store.streamedPuts(key) >= 1);

  // Nothing was overwritten.
  const after = await w.remoteHead(key);
  assert.equal(after?.version, before?.version, "the remote object was replaced");
  assert.deepEqual(await w.remoteHash(key), { hash: hashA, size: LARGE });

  // B's bytes were set aside in its cache, whole, and left the dirty set.
  assert.equal(refused.setAsideTo.length, 1, refused.message);
  const aside = refused.setAsideTo[0];
  assert.ok(aside.endsWith(`/${key}`), aside);
  assert.equal(await b.localHash(aside), hashB, "B's set-aside copy is not B's bytes");
  assert.equal(await b.localHash(key), null, "B's copy stayed at the version path");
  assert.ok(!b.service.state.dirtyPaths().includes(key), "B's refused version stayed dirty");
};

/** 3: the connection of D's streamed 24 MiB upload is cut mid-way. */
const cutMidUpload: Scenario = async (w) => {
  const key = versionFile(2);
  const d = await w.clone("d", { throughProxy: true });
  const hashD = await d.writeLarge(key, HUGE, 3);

  // The upload stops once CUT_AFTER bytes went out; the cut lands there.
  const hold = d.store.holdAfter(key, CUT_AFTER);
  const startUp = w.proxy.stats.bytesUp;
  const push = outcome(d.service.pushChanged());
  await hold.reached;
  await w.proxy.cut();
  hold.release();
  const sentBeforeCut = w.proxy.stats.bytesUp - startUp;
  assert.ok(sentBeforeCut < HUGE, `the whole file (${sentBeforeCut} bytes) went up before the cut`);

  // An outage, retryable: never blamed on the local file.
  const failed = await push;
  assert.ok(failed instanceof SluiceError, `expected a SluiceError, got ${failed}`);
  assert.equal(failed.code, "unreachable", failed.message);
  assert.ok(failed.retryable);
  assert.ok(d.store.streamedPuts(key) >= 1);

  // No torn object, nothing lost.
  assert.equal(await w.remoteHead(key), null, "a torn object was left at the key");
  assert.deepEqual(await w.remoteKeys("data/"), []);
  assert.ok(d.service.state.dirtyPaths().includes(key), "the file left the dirty set");
  assert.equal(await d.localHash(key), hashD);

  await w.proxy.heal();
  const opensBefore = d.store.opened.get(key) ?? 0;
  const retried = await d.service.pushChanged();
  assert.deepEqual(retried.uploaded, [key]);
  assert.ok((d.store.opened.get(key) ?? 0) > opensBefore, "the retry did not open a fresh stream");
  assert.deepEqual(await w.remoteHash(key), { hash: hashD, size: HUGE });
  assert.ok(!d.service.state.dirtyPaths().includes(key));
};

const SCENARIOS: readonly { title: string; run: Scenario }[] = [
  {
    title: "a large data version is streamed up and down through the gates",
    run: streamedUpAndDown,
  },
  {
    title: "a second writer of the same large version is refused and nothing is overwritten",
    run: secondWriterRefused,
  },
  {
    title: "a connection cut in the middle of a streamed upload leaves no object and loses nothing",
    run: cutMidUpload,
  },
];

function largeFileScenarios(backend: ScenarioBackend): void {
  for (const s of SCENARIOS) {
    Deno.test({
      ...realClient,
      ignore: backend.ignore,
      name: `${backend.label} large files: ${s.title}`,
      fn: async () => {
        const w = await openLargeWorld(backend);
        try {
          await s.run(w);
        } finally {
          await w.dispose();
        }
      },
    });
  }
}

// ---------------------------------------------------------------------------
// The backends
// ---------------------------------------------------------------------------

const minio = sharedServer(startMinio);
const fakeGcs = sharedServer(startFakeGcs);

largeFileScenarios(minioScenarioBackend(minio.get));
largeFileScenarios(fakeGcsScenarioBackend(fakeGcs.get));

stopSharedServers("stop the shared MinIO and fake-gcs-server (large files)", minio, fakeGcs);
