/**
 * Incident scenarios end to end against MinIO: two clones of one repository,
 * each with its own cache directory, identity and S3 client (made by the S3
 * provider from the datastore config), sharing one bucket.
 *
 * - breakglass (incident 001): A holds a model lock and writes version 1; the
 *   lock is force-released; B takes it, writes version 1 with other bytes and
 *   pushes; A's push is refused with `model_lock_lost` and B's bytes stay.
 * - double write (incident 000): two clones write the same version without
 *   locks; the second push fails with `version_exists`, the first bytes stay.
 */
import assert from "node:assert/strict";
import { ConditionalWrites } from "../sync/conditional.ts";
import { SluiceError } from "../sync/errors.ts";
import { acquireModelLocks, releaseLock } from "../sync/model_locks.ts";
import type { Identity } from "../sync/ports.ts";
import type { SyncService } from "../sync/service.ts";
import { createS3Provider } from "../packages/s3/provider.ts";
import type { StoreProvider } from "../sync/provider.ts";
import { ignoreMinio, type MinioServer, startMinio } from "./servers/minio.ts";

const dec = (b: Uint8Array) => new TextDecoder().decode(b);

let minio: Promise<MinioServer> | undefined;
const sharedMinio = () => (minio ??= startMinio());

const realClient = { sanitizeResources: false, sanitizeOps: false } as const;

const MODEL = "t/m";
const VERSION_DIR = "data/t/m/d/1";
const VERSION_FILE = `${VERSION_DIR}/raw`;
const LOCK = { ttlMs: 3_000, maxWaitMs: 10_000, retryDelayMs: 50 } as const;

/** One clone: its own repository directory, identity, provider (S3 client) and sync service. */
interface Clone {
  readonly name: string;
  readonly repoDir: string;
  readonly provider: StoreProvider;
  readonly service: SyncService;
  write(path: string, text: string): Promise<void>;
}

async function clone(server: MinioServer, bucket: string, name: string): Promise<Clone> {
  const identity: Identity = {
    holder: `${name}@host-${name}`,
    hostname: `host-${name}`,
    pid: name === "a" ? 1001 : 2002,
  };
  const provider = createS3Provider({
    bucket,
    prefix: "datastore",
    region: server.region,
    endpoint: server.endpoint,
    forcePathStyle: true,
    conditionalWrites: "required",
    concurrency: 4,
    requestTimeoutMs: 5_000,
    retry: { retries: 1, minTimeoutMs: 20, maxTimeoutMs: 50 },
    lock: { backend: "store", ...LOCK },
  }, {
    credentials: { accessKeyId: server.accessKey, secretAccessKey: server.secretKey },
    identity,
    conditional: new ConditionalWrites(),
  });
  const repoDir = await Deno.makeTempDir({ prefix: `sluice-clone-${name}-` });
  const service = await provider.createSyncService(repoDir, provider.resolveCachePath(repoDir));
  return {
    name,
    repoDir,
    provider,
    service,
    async write(path, text) {
      const full = `${service.cacheDir}/${path}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(full, text);
      await service.markDirty({ relPath: path });
    },
  };
}

async function dispose(...clones: Clone[]): Promise<void> {
  for (const c of clones) {
    c.provider.close();
    await Deno.remove(c.repoDir, { recursive: true }).catch(() => {});
  }
}

async function rejection(p: Promise<unknown>): Promise<SluiceError> {
  const e = await p.then(() => null, (err) => err);
  assert.ok(e instanceof SluiceError, `expected a SluiceError, got ${String(e)}`);
  return e;
}

Deno.test({
  name: "MinIO incident: breakglass, then A's push is refused with model_lock_lost; B's bytes stay",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const server = await sharedMinio();
    const bucket = await server.createBucket();
    const a = await clone(server, bucket, "a");
    const b = await clone(server, bucket, "b");
    try {
      assert.notEqual(a.service.cacheDir, b.service.cacheDir);
      const setA = await acquireModelLocks(a.service, [MODEL], { lock: LOCK, globalPollMs: 50 });
      try {
        await a.write(VERSION_FILE, "bytes of A");

        // The operator breaks A's lock from the other clone.
        const broken = await releaseLock(b.service, { model: MODEL, force: true });
        assert.equal(broken.released, true);
        assert.equal(broken.broken?.holder, "a@host-a");

        const setB = await acquireModelLocks(b.service, [MODEL], {
          lock: LOCK,
          globalPollMs: 50,
        });
        try {
          await b.write(VERSION_FILE, "bytes of B");
          const pushedB = await setB.push([VERSION_DIR]);
          assert.deepEqual(pushedB.uploaded, [VERSION_FILE]);
        } finally {
          await setB.release();
        }

        const e = await rejection(setA.push([VERSION_DIR]));
        assert.equal(e.code, "model_lock_lost", e.message);
        // The refused run's own version left A's cache (at most B's copy came back by the refresh).
        const left = await Deno.readTextFile(`${a.service.cacheDir}/${VERSION_FILE}`).catch(
          () => null,
        );
        assert.notEqual(left, "bytes of A", "the refused run's data stayed in A's cache");
      } finally {
        await setA.release();
      }

      const remote = await a.provider.store.get(VERSION_FILE);
      assert.equal(dec(remote.body), "bytes of B", "A's refused run overwrote B's version");
    } finally {
      await dispose(a, b);
    }
  },
});

Deno.test({
  name:
    "MinIO incident: two clones write the same version without locks; the second gets version_exists",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const server = await sharedMinio();
    const bucket = await server.createBucket();
    const a = await clone(server, bucket, "a");
    const b = await clone(server, bucket, "b");
    try {
      await a.write(VERSION_FILE, "first, from A");
      await b.write(VERSION_FILE, "second, from B");
      const pushedA = await a.service.pushChanged();
      assert.deepEqual(pushedA.uploaded, [VERSION_FILE]);

      const e = await rejection(b.service.pushChanged());
      assert.equal(e.code, "version_exists", e.message);

      const remote = await b.provider.store.get(VERSION_FILE);
      assert.equal(dec(remote.body), "first, from A");

      // Re-publishing A's own bytes is not a conflict.
      await a.write(VERSION_FILE, "first, from A");
      await a.service.pushChanged();
      assert.equal(dec((await a.provider.store.get(VERSION_FILE)).body), "first, from A");
    } finally {
      await dispose(a, b);
    }
  },
});

Deno.test({
  name: "MinIO: the provider's verifier reports latency and honoured conditional writes",
  ignore: ignoreMinio,
  ...realClient,
  fn: async () => {
    const server = await sharedMinio();
    const bucket = await server.createBucket();
    const a = await clone(server, bucket, "a");
    try {
      const r = await a.provider.createVerifier().verify();
      assert.equal(r.ok, true, r.message);
      assert.ok(r.latencyMs >= 0);
      assert.equal(r.conditionalWrites?.create, "honoured");
      assert.equal(r.conditionalWrites?.update, "honoured");
    } finally {
      await dispose(a);
    }
  },
});

Deno.test({
  name: "stop the shared MinIO server (incidents)",
  ...realClient,
  fn: async () => {
    if (minio) await (await minio).stop();
  },
});
