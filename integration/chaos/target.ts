/**
 * Where a chaos history runs: the shared store the clones see, the faults
 * the history can inject into it, and a direct view of it for the checks.
 * The workload takes a {@link TargetFactory}, so the same histories can run
 * over the in-memory store or, through the loopback fault proxy, over a real
 * server.
 *
 * @module
 */
import { UnreachableError } from "../../sync/errors.ts";
import type { Clock, ObjectStore } from "../../sync/ports.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import type { FlakyCall } from "./history.ts";
import type { StoreInspector } from "./invariants.ts";

/** The faults a history injects. */
export interface FaultController {
  /** Makes the store unreachable (`true`) or reachable again. */
  outage(on: boolean): Promise<void>;
  /** Adds `ms` to every command's store call (0 removes it). */
  latency(ms: number): void;
  /** Makes the next `count` calls of one kind fail as unreachable (after taking effect, with `afterEffect`). */
  flaky(call: FlakyCall, count: number, afterEffect: boolean): void;
  /** Ends every fault. */
  heal(): Promise<void>;
}

/** A store ready for one history. */
export interface ChaosTarget {
  /** `memory`, `minio`, `gcs`. */
  readonly name: string;
  /** The store the clones share (the workload wraps it in its scheduler). */
  readonly store: ObjectStore;
  /** Fault injection. */
  readonly faults: FaultController;
  /** Direct reads for the checks (no faults, no scheduling). */
  readonly inspect: StoreInspector;
  /**
   * The store past the fault proxy and the scheduler, for the checks after
   * healing (the in-memory target's own store: it has no faults once healed).
   */
  readonly direct: ObjectStore;
  /** Runs `fn` over the store with no fault injected into its calls (another client's writes, the checker's moves). */
  unfaulted<T>(fn: (store: ObjectStore) => Promise<T>): Promise<T>;
  /** Releases what the target holds (buckets, proxies). */
  close(): Promise<void>;
}

/** What a target is given by the workload. */
export interface TargetEnv {
  /** The history's fake clock (stores stamp last-modified times with it). */
  readonly clock: Clock;
  /** Sets the scheduler's per-call latency (fake time). */
  readonly setLatency: (ms: number) => void;
  /**
   * Versions derived from the bytes, as S3 ETags are (`History.etag`): the
   * in-memory store's `versionFromBytes`; a real server's versions are its own.
   */
  readonly versionFromBytes?: boolean;
}

/** Creates a fresh target for one history. */
export type TargetFactory = (env: TargetEnv) => Promise<ChaosTarget>;

/**
 * The in-memory store with fault injection: outages set `unreachable`,
 * flaky calls use `failNext`, latency is fake time the scheduler lets pass
 * before each released call.
 *
 * @example
 * ```ts
 * import { memoryTarget } from "./target.ts";
 * import { FakeClock } from "../../packages/testing/mod.ts";
 * const t = await memoryTarget({ clock: new FakeClock(), setLatency: () => {} });
 * await t.faults.outage(true);
 * ```
 */
export const memoryTarget: TargetFactory = (env) => {
  const store = new InMemoryStore({
    clock: env.clock,
    endpoint: "memory://chaos",
    ...(env.versionFromBytes ? { versionFromBytes: true } : {}),
  });
  const faults: FaultController = {
    outage: (on) => {
      store.unreachable = on;
      return Promise.resolve();
    },
    latency: (ms) => env.setLatency(ms),
    flaky: (call, count, afterEffect) =>
      store.failNext(call, count, () => new UnreachableError("injected flaky call"), {
        afterEffect,
      }),
    heal: () => {
      store.heal();
      env.setLatency(0);
      return Promise.resolve();
    },
  };
  return Promise.resolve({
    name: "memory",
    store,
    faults,
    direct: store,
    unfaulted: (fn) => store.withoutFaults(() => fn(store)),
    inspect: {
      keys: () => Promise.resolve(store.keys()),
      read: (key) => Promise.resolve(store.peek(key)),
    },
    close: () => Promise.resolve(),
  });
};

/**
 * The version of `key` the store holds, read for a check in the middle of
 * a history; null when it holds none. Read past the faults the history
 * injects (`unfaulted`): the in-memory target's `direct` is the faulted
 * store itself, so during an outage its HEAD fails, and a failure taken
 * for no object made the check report a held object as gone (seed
 * 229200020, I7).
 */
export async function heldVersionOf(target: ChaosTarget, key: string): Promise<string | null> {
  return (await target.unfaulted((s) => s.head(key)).catch(() => null))?.version ?? null;
}
