/**
 * A test kit: the extension over an in-memory store and a fake clock, with
 * or without `oldClients`, a sync service in a new cache, and an old
 * client's hold of the global lock, for tests of the tool beside old
 * clients.
 *
 * @module
 */
import {
  FakeClock,
  hookedStore,
  InMemoryStore,
  peerPush,
  type PutHook,
  waitFor,
} from "../testing/mod.ts";
import { storeLockBackend } from "../../sync/locks/lock_engine.ts";
import { defineStoreDatastore, type StoreDatastoreOptions } from "./store_datastore.ts";
import { envFrom } from "./env.ts";

/** The key of the global lock old clients take. */
export const GLOBAL = ".datastore.lock";

/**
 * Over `createService` (the composition root's, passed in), the extension's provider (`provider()`, a new one each call) over a new
 * in-memory store, with `oldClients` as given; its sync service `svc` in a
 * new cache directory named with `prefix`, made by `svcProvider`; `oldClientLock`, the global lock
 * as an old client takes it; and `lines`, what the extension warned. With
 * `before`, every put to the store calls it first.
 */
export async function oldClientsTool(
  createService: StoreDatastoreOptions["createService"],
  oldClients: boolean,
  prefix: string,
  before?: PutHook,
) {
  const lines: string[] = [];
  const clock = new FakeClock();
  const plain = new InMemoryStore({ clock });
  const store = before ? hookedStore(plain, { before }) : plain;
  const ds = defineStoreDatastore({
    store,
    createService,
    env: envFrom({}),
    clock,
    identity: { holder: "core@host", hostname: "host", pid: 1 },
    warn: (l) => lines.push(l),
  });
  const config = {
    bucket: "mem",
    oldClients,
    lock: { backend: "store", ttlMs: 30_000, retryDelayMs: 50, maxWaitMs: 10_000 },
  };
  const provider = () => ds.createProvider(config);
  const cache = await Deno.makeTempDir({ prefix });
  const svcProvider = provider();
  const svc = svcProvider.createSyncService("/repo", cache);
  const oldClientLock = storeLockBackend(store, { clock }).createLock(
    GLOBAL,
    { holder: "old-client@other", hostname: "other", pid: 2 },
    { retryDelayMs: 50, maxWaitMs: 10_000 },
  );
  return { store, clock, svc, svcProvider, provider, oldClientLock, cache, lines };
}

type OldClientsTool = Awaited<ReturnType<typeof oldClientsTool>>;

/**
 * Another step of the workflow holds the global lock (taken through
 * `provider`); `step`, run from a put hook, releases it and has an old
 * client take the lock and rewrite the index with `files`, returning once
 * the old client has read the index. The old client then waits, before its
 * write, until `race.done` is set or a put of the global lock fails.
 * `race.oldClient` is its run.
 */
export async function otherStepThenOldClient(
  s: Pick<OldClientsTool, "store" | "clock" | "oldClientLock">,
  provider: Pick<OldClientsTool["svcProvider"], "createLock">,
  files: Record<string, string>,
) {
  const other = provider.createLock("/repo/.swamp", { maxWaitMs: 1000 });
  await other.acquire();
  const race = { done: false, oldClient: Promise.resolve() };
  const step = async () => {
    await other.release();
    let read = false;
    race.oldClient = s.oldClientLock.withLock(() =>
      peerPush(s.store, files, {
        now: () => s.clock.now(),
        afterRead: async () => {
          read = true;
          await waitFor(
            () =>
              race.done ||
              s.store.log.some((l) => l.op === "put" && l.key === GLOBAL && l.outcome === "error"),
            { clock: s.clock, stepMs: 50 },
          );
        },
      })
    );
    await waitFor(() => read, { clock: s.clock, stepMs: 50 });
  };
  return { step, race };
}
