/**
 * The rest of a push under the global lock is committed
 * beside a data version lost to another writer's: the same scenario pushed
 * plainly and under the global lock ends the same way.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import {
  FakeClock,
  InMemoryStore,
  peerPush,
  peerReadIndex,
  waitFor,
} from "../../packages/testing/mod.ts";
import type { SyncService } from "./service.ts";
import { pushUnderGlobalLock } from "./global_lock_push.ts";

const GLOBAL = ".datastore.lock";
const OUT = "data/shell/cmd/m1/out";
const MINE = "config/mine.yaml";

type W = (p: string, t: string) => Promise<void>;

/** A cache over a fresh store on a fake clock, and `w`, which writes a file there and marks it. */
async function cache() {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const identity = { holder: "sluice@host", hostname: "host", pid: 1 };
  const svc: SyncService = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: "sluice-glr-" }),
    store,
    identity,
    clock,
    config: { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } },
  });
  const w: W = async (p, t) => {
    await svc.cache.write(p, new TextEncoder().encode(t));
    await svc.markDirty({ relPath: p });
  };
  return { clock, store, identity, svc, w };
}

/** A cache whose next push loses its data version 2 to a peer's, beside a marker and a config file. */
async function setup(
  pre: (w: W) => Promise<void> = async () => {},
  extra: (w: W, svc: SyncService) => Promise<void> = async () => {},
) {
  const { clock, store, identity, svc, w } = await cache();
  await w(`${OUT}/1/raw`, "v1\n");
  await w(`${OUT}/latest`, "1");
  await pre(w);
  await svc.pushChanged();
  // Another writer publishes version 2 first.
  await peerPush(store, { [`${OUT}/2/raw`]: "theirs\n" }, { now: () => clock.now() });
  // This cache's run writes its own version 2, its marker, and a config file.
  await w(`${OUT}/2/raw`, "mine\n");
  await w(`${OUT}/2/metadata.yaml`, "version: 2\n");
  await w(`${OUT}/latest`, "2");
  await w(MINE, "mine\n");
  await extra(w, svc);
  return { clock, store, identity, svc };
}

async function scenario(
  global: boolean,
  pre: (w: W) => Promise<void> = async () => {},
  extra: (w: W, svc: SyncService) => Promise<void> = async () => {},
) {
  const { clock, store, identity, svc } = await setup(pre, extra);
  const warnings: string[] = [];
  svc.events.on("warning", (x) => warnings.push(`${x.code}: ${x.message}`));
  let error: unknown;
  if (global) {
    const lock = svc.lockBackend!.createLock(GLOBAL, identity, {
      retryDelayMs: 50,
      maxWaitMs: 10_000,
    });
    let done = false;
    const run = pushUnderGlobalLock(svc, lock).catch((e) => (error = e)).finally(
      () => (done = true),
    );
    await waitFor(() => done, { clock, stepMs: 50 });
    await run;
  } else {
    await svc.pushChanged().catch((e) => (error = e));
  }
  const index = await peerReadIndex(store);
  const first = {
    code: (error as { code?: string })?.code,
    index: Object.fromEntries(Object.entries(index).map(([k, v]) => [k, v.sha256?.slice(0, 8)])),
    dirty: svc.state.dirtyPaths().slice().sort(),
    marker: await Deno.readTextFile(`${svc.cacheDir}/${OUT}/latest`).catch(() => null),
    conflicts: svc.conflicts().map((c) => c.path),
  };
  // The next push (plain) settles what is left.
  await svc.pushChanged().catch(() => undefined);
  const index2 = await peerReadIndex(store);
  const second = {
    index: Object.fromEntries(Object.entries(index2).map(([k, v]) => [k, v.sha256?.slice(0, 8)])),
    dirty: svc.state.dirtyPaths().slice().sort(),
    remoteMarker: store.peekText(`${OUT}/latest`),
  };
  return { first, second, message: (error as Error)?.message };
}

Deno.test("preparePush: the rest beside a lost data version is returned only when asked for, with the loss", async () => {
  const thrown = (await setup()).svc;
  await assert.rejects(
    thrown.preparePush(),
    (e: unknown) => (e as { code?: string }).code === "version_exists",
  );
  const kept = (await setup()).svc;
  const prepared = await kept.preparePush({}, { keepRestOnLoss: true });
  assert.equal((prepared.lost as { code?: string } | undefined)?.code, "version_exists");
  assert.ok(MINE in (prepared.pending?.set ?? {}), "the config file is in the rest to commit");
  assert.ok(!(`${OUT}/2/raw` in (prepared.pending?.set ?? {})), "the lost version is not");
  // Committing the rest publishes the config file; the lost version stays theirs.
  await kept.commitPush(prepared);
  assert.ok(kept.store instanceof InMemoryStore);
  const index = await peerReadIndex(kept.store);
  assert.ok(index[MINE]);
  assert.equal(kept.store.peekText(`${OUT}/2/raw`), "theirs\n");
});

Deno.test("under the global lock: a lost data version beside a marker and a config file ends as a plain push does", async () => {
  const plain = await scenario(false);
  const global = await scenario(true);
  assert.deepEqual(global.first, plain.first, `plain: ${plain.message}\nglobal: ${global.message}`);
  assert.deepEqual(global.second, plain.second);
});

Deno.test("under the global lock: a lost data version, then a lock that cannot be had in time: the failure still tells of the lost version", async () => {
  const { clock, store, identity, svc, w } = await cache();
  await peerPush(store, { [`${OUT}/1/raw`]: "theirs\n" }, { now: () => clock.now() });
  await w(`${OUT}/1/raw`, "mine\n");
  await w(MINE, "mine\n");
  const other = svc.lockBackend!.createLock(GLOBAL, {
    holder: "old@other",
    hostname: "other",
    pid: 2,
  }, {
    retryDelayMs: 50,
    maxWaitMs: 10_000,
  });
  await other.acquire();
  const short = svc.lockBackend!.createLock(GLOBAL, identity, { retryDelayMs: 50, maxWaitMs: 200 });
  let error: unknown;
  const run = pushUnderGlobalLock(svc, short).catch((e) => (error = e));
  await waitFor(() => error !== undefined, { clock, stepMs: 50 });
  await run;
  await other.release();
  const code = (error as { code?: string }).code;
  const message = (error as Error).message;
  // The version is set aside and no longer dirty: no later push publishes it.
  assert.equal(store.peekText(`${OUT}/1/raw`), "theirs\n");
  assert.deepEqual(svc.state.dirtyPaths(), [MINE]);
  assert.ok(
    code === "version_exists" || message.includes(`${OUT}/1/raw`),
    `the lost data version is told of nowhere: ${code}: ${message}`,
  );
});

Deno.test("under the global lock: beside a lost data version, another model's version and marker deleted end as a plain push's do", async () => {
  const M2 = "data/shell/cmd/m2/out";
  const pre = async (w: W) => {
    await w(`${M2}/1/raw`, "m2 v1\n");
    await w(`${M2}/2/raw`, "m2 v2\n");
    await w(`${M2}/latest`, "2");
  };
  const extra = async (w: W, svc: SyncService) => {
    await Deno.remove(`${svc.cacheDir}/${M2}/2`, { recursive: true });
    await svc.markDirty({ relPath: `${M2}/2` });
    await w(`${M2}/latest`, "1");
  };
  const plain = await scenario(false, pre, extra);
  const global = await scenario(true, pre, extra);
  assert.deepEqual(global.first, plain.first, `plain: ${plain.message}\nglobal: ${global.message}`);
  assert.deepEqual(global.second, plain.second);
});
