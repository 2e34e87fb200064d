import { StoreLock, storeLockBackend } from "../../sync/locks/lock_engine.ts";
import { FakeClock } from "./fake_clock.ts";
import { InMemoryStore } from "./in_memory_store.ts";
import { lockConformance } from "./lock_conformance.ts";

/** The engine lock over a fresh in-memory store, its reads broken as `breaks` says. */
function engine(breaks: (store: InMemoryStore) => () => void) {
  return () => {
    const clock = new FakeClock();
    const store = new InMemoryStore({ clock });
    return Promise.resolve({
      backend: storeLockBackend(store, { clock }),
      clock,
      fake: true,
      store,
      breakReads: breaks(store),
      healReads: () => {
        store.unreachable = false;
        store.heal();
      },
    });
  };
}

// The whole store unreachable while reads are broken.
lockConformance(
  "InMemoryStore engine lock",
  engine((store) => () => void (store.unreachable = true)),
);

lockConformance("InMemoryStore engine lock, 30 s TTL", () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  return Promise.resolve({
    backend: storeLockBackend(store, { clock, random: () => 0.999 }),
    clock,
    fake: true,
    store,
    crash: (lock) => {
      if (!(lock instanceof StoreLock)) throw new Error("expected an engine lock");
      lock.abandon();
    },
    breakReads: () => store.failNext("get", 1),
    healReads: () => store.heal(),
  });
}, { ttlMs: 30_000 });

// Reads alone fail (writes go through): a failed read must never pass for a free lock.
lockConformance(
  "InMemoryStore engine lock, only reads failing",
  engine((store) => () => store.failNext("get", 1_000_000)),
);
