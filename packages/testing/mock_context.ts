/**
 * A mock push context and a spy `next`, so a gate can be unit-tested alone:
 * call the gate with the mock, assert on the plan, the spy and the events.
 *
 * @module
 */
import { LocalCache } from "../../sync/transfer/cache.ts";
import type { PlanEntry, PushContext, SyncConfig, WriteContext } from "../../sync/context.ts";
import { createPushContext, PUSH_PHASES, WRITE_PHASES } from "../../sync/context.ts";
import { createEmitter, type GateEvent, type WarningEvent } from "../../sync/events.ts";
import { Pipeline } from "../../sync/pipeline.ts";
import {
  type DistributedLock,
  type Identity,
  type ObjectStore,
  PutModes,
} from "../../sync/ports.ts";
import { DEFAULT_CONFIG } from "../../sync/service/service.ts";
import { SyncState } from "../../sync/service/state.ts";
import type { ConflictRecord } from "../../sync/service/conflicts.ts";
import { sha256HexSync } from "../../sync/hash.ts";
import { FakeClock } from "./fake_clock.ts";
import { InMemoryStore } from "./in_memory_store.ts";

/** A `next` that records its calls and can run a callback or throw. */
export interface SpyNext {
  (): Promise<void>;
  /** Number of calls. */
  readonly calls: number;
}

/**
 * Creates a spy `next`.
 *
 * @example
 * ```ts
 * import { spyNext } from "./mock_context.ts";
 * const next = spyNext();
 * await next();
 * console.assert(next.calls === 1);
 * ```
 */
export function spyNext(impl: () => Promise<void> | void = () => {}): SpyNext {
  let calls = 0;
  const fn = async () => {
    calls++;
    await impl();
  };
  Object.defineProperty(fn, "calls", { get: () => calls });
  return fn as SpyNext;
}

/** An open conflict of `path` a pull found (both sides one byte), for tests. */
export function conflictRecord(path: string): ConflictRecord {
  return {
    path,
    mine: { location: path, hash: "m", size: 1 },
    theirs: { version: "t", hash: "t", size: 1 },
    foundBy: "pull",
    at: 1,
    reason: "test",
  };
}

/** A plan entry for tests. */
export function planEntry(path: string, fields: Partial<PlanEntry> = {}): PlanEntry {
  return { path, action: "put", handledBy: [], ...fields };
}

/** Options of {@link mockPushContext}. */
export interface MockPushOptions {
  readonly store?: ObjectStore;
  readonly cacheDir?: string;
  readonly plan?: PlanEntry[];
  readonly locks?: readonly DistributedLock[];
  readonly written?: readonly string[];
  readonly preexisting?: ReadonlySet<string>;
  readonly models?: readonly string[];
  /** Directories left out of the push (see `PushContext.holdBack`). */
  readonly holdBack?: readonly string[];
  readonly identity?: Identity;
  readonly clock?: FakeClock;
  readonly config?: Partial<SyncConfig>;
  readonly kind?: "walk" | "paths";
  /** Called at each refresh, with the directories it is to fetch nothing into. */
  readonly refresh?: (prefixes: readonly string[], leave?: readonly string[]) => Promise<void>;
}

/** A mock push context with the events it emitted. */
export interface MockPush {
  readonly ctx: PushContext;
  readonly store: ObjectStore;
  readonly clock: FakeClock;
  readonly state: SyncState;
  readonly cache: LocalCache;
  readonly warnings: WarningEvent[];
  readonly gates: GateEvent[];
  readonly refreshed: (readonly string[])[];
}

/**
 * A push context over a real temporary cache, an InMemoryStore and a
 * FakeClock (unless given).
 *
 * @example
 * ```ts
 * import { mockPushContext, planEntry, spyNext } from "./mod.ts";
 * const m = await mockPushContext({ plan: [planEntry("a.txt")] });
 * const next = spyNext();
 * await next();
 * ```
 */
export async function mockPushContext(options: MockPushOptions = {}): Promise<MockPush> {
  const clock = options.clock ?? new FakeClock();
  const store = options.store ?? new InMemoryStore({ clock });
  const dir = options.cacheDir ?? await Deno.makeTempDir({ prefix: "sluice-mock-" });
  const cache = new LocalCache(dir, () => clock.now());
  const state = await SyncState.open(dir);
  const events = createEmitter();
  const warnings: WarningEvent[] = [];
  const gates: GateEvent[] = [];
  const refreshed: (readonly string[])[] = [];
  events.on("warning", (w) => warnings.push(w));
  events.on("gate", (g) => gates.push(g));
  const ctx = createPushContext({
    id: "mock",
    kind: options.kind ?? "paths",
    dryRun: false,
    store,
    cache,
    state,
    plan: options.plan ?? [],
    locks: options.locks,
    written: options.written,
    preexisting: options.preexisting,
    models: options.models,
    holdBack: options.holdBack,
    identity: options.identity ?? { holder: "test@host", hostname: "host", pid: 1 },
    clock,
    events,
    signal: new AbortController().signal,
    config: {
      ...DEFAULT_CONFIG,
      retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 },
      ...options.config,
    },
    refresh: async (prefixes, leave) => {
      refreshed.push(prefixes);
      await options.refresh?.(prefixes, leave);
    },
    writePipeline: new Pipeline<WriteContext>(WRITE_PHASES),
    snapshot: state.snapshot(),
  });
  return { ctx, store, clock, state, cache, warnings, gates, refreshed };
}

/** A write context for a per-write gate test. */
export function mockWriteContext(
  push: PushContext,
  path: string,
  body: Uint8Array | string,
  fields: Partial<WriteContext> = {},
): WriteContext {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return {
    push,
    entry: planEntry(path),
    key: path,
    body: bytes,
    hash: sha256HexSync(bytes),
    size: bytes.length,
    mode: PutModes.overwrite,
    metadata: {},
    ...fields,
  };
}

/** The push phases, re-exported for tests that build pipelines. */
export { PUSH_PHASES, WRITE_PHASES };
