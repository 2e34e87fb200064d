import { StoreLock, storeLockBackend } from "../../sync/locks/lock_engine.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { lockConformance } from "../testing/lock_conformance.ts";
import { FsStore } from "./store.ts";

// Reads of the lock object are broken by a wrapper: as root, file permissions cannot make them fail.
lockConformance("FsStore engine lock", async () => {
  const root = await Deno.makeTempDir({ prefix: "sluice-fs-lock-" });
  const clock = new FakeClock();
  const store = new FsStore({ root, clock });
  let broken = false;
  const reads = {
    endpoint: store.endpoint,
    get: (key: string, o?: { signal?: AbortSignal }) =>
      broken
        ? Promise.reject(new Deno.errors.PermissionDenied("injected: unreadable"))
        : store.get(key, o),
    head: store.head.bind(store),
    put: store.put.bind(store),
    delete: store.delete.bind(store),
    list: store.list.bind(store),
  };
  return {
    backend: storeLockBackend(reads, { clock }),
    clock,
    fake: true,
    store,
    crash: (lock) => {
      if (!(lock instanceof StoreLock)) throw new Error("expected an engine lock");
      lock.abandon();
    },
    breakReads: () => void (broken = true),
    healReads: () => void (broken = false),
    cleanup: () => Deno.remove(root, { recursive: true }),
  };
});
