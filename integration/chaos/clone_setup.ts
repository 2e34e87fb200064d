/**
 * How a chaos history builds its clones: the sync service of each clone (its
 * lock backend, config and identity), the store view that notes what the
 * store holds at the paths users edit (for I6), and the fingerprint that
 * shows two runs of one history went the same way.
 *
 * @module
 */
import { createSluice } from "../../sluice.ts";
import {
  type ConditionalWrites,
  withConditionalFallback,
} from "../../sync/transfer/conditional.ts";
import { createEmitter, type SluiceEmitter, type WarningEvent } from "../../sync/events.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { type StoreLock, storeLockBackend } from "../../sync/locks/lock_engine.ts";
import type { Clock, LockBackend, ObjectStore } from "../../sync/ports.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { absentOnError } from "../../packages/testing/absent_on_error.ts";
import { MONOLITH_KEY } from "../../sync/transfer/bucket_layout.ts";
import { WITHDRAWN_DIR } from "../../sync/transfer/withdrawal_note.ts";
import { SHARED_FILES } from "./history.ts";
import type { StoreInspector, TruthRecords } from "./truth_records.ts";
import type { LocalChanges } from "./local_changes.ts";
import { mixSeed, mulberry32 } from "./prng.ts";

/**
 * Sync config of every clone: one transfer at a time (units must be
 * single-threaded), and a streaming threshold low enough for data to stream.
 */
export const CHAOS_CONFIG = {
  concurrency: 1,
  retry: { retries: 1, minTimeoutMs: 0, maxTimeoutMs: 0 },
  // Raw outputs (about 40 bytes) are above this, markers and lockfiles are
  // not: histories exercise the streamed path and the whole-body path alike.
  streamThresholdBytes: 24,
} as const;

/**
 * The filesystem's clock every clone's service judges mtimes settled by
 * (`fileClock`): the epoch, so every file counts as written just now, its
 * record keeps no mtime and every walk hashes it. The system's clock would
 * make whether a record keeps one (and the manifest log lines a walk adds
 * once it has settled) hang on how much real time a history took, and a
 * seed would not replay the same manifest files, nor the moves that read
 * them (a damaged log's line, a line written ahead).
 */
export const CHAOS_FILE_CLOCK = (): number => 0;

/** What {@link cloneService} builds a clone's service from. */
export interface CloneServiceOptions {
  readonly dir: string;
  /** `c<i>` or `operator`. */
  readonly name: string;
  readonly index: number;
  /** Restarts so far (the pid and the lock jitter's seed change with it). */
  readonly incarnation: number;
  /** The store as the clones see it (through the scheduler). */
  readonly store: ObjectStore;
  readonly registry: ConditionalWrites;
  readonly clock: Clock;
  readonly seed: number;
  /** Locks that report a failed read as absent and expose no nonce or loss flag. */
  readonly thirdPartyLocks: boolean;
  /** Counts library warnings by code. */
  readonly warnings: Record<string, number>;
  /** Told of each library warning (after it is counted). */
  readonly onWarning?: (w: WarningEvent) => void;
  /** Gates to leave out. */
  readonly disable?: readonly string[];
  /** Old clients push too: a core-driven clone's extension config says so (`oldClients`). */
  readonly oldClients?: boolean;
  /** Every first push makes the index first (`firstIndexAtUploads` 1: see `History.indexFirst`). */
  readonly indexFirst?: boolean;
  /** A core-driven process takes one lock object per model again for each run (`History.reusedLocks`). */
  readonly reusedLocks?: boolean;
}

/**
 * A clone's sync service over the shared store, and every lock it creates
 * (so that a crash can stop their heartbeats).
 *
 * @example
 * ```ts
 * import { cloneService } from "./clone_setup.ts";
 * // const { svc, locks } = await cloneService({ dir, name: "c0", index: 0, incarnation: 0, … });
 * ```
 */
export async function cloneService(
  o: CloneServiceOptions,
): Promise<{ svc: SyncService; locks: StoreLock[] }> {
  const events = createEmitter();
  const locks: StoreLock[] = [];
  const engine = storeLockBackend(
    withConditionalFallback(o.store, { registry: o.registry, events }),
    { clock: o.clock, events, random: mulberry32(mixSeed(o.seed, o.index, o.incarnation)) },
  );
  const lockBackend: LockBackend = {
    name: engine.name,
    createLock: (key, identity, options) => {
      const lock = engine.createLock(key, identity, options);
      locks.push(lock);
      return o.thirdPartyLocks ? absentOnError(lock) : lock;
    },
  };
  watchWarnings(events, o);
  const svc = await createSluice({
    cacheDir: o.dir,
    store: o.store,
    // Each process of a clone is a service here: its marks are its own while it runs.
    ownersInProcess: true,
    identity: {
      holder: `${o.name}@chaos`,
      hostname: `${o.name}-host`,
      pid: 1000 * o.incarnation + 1,
    },
    clock: o.clock,
    fileClock: CHAOS_FILE_CLOCK,
    events,
    config: o.indexFirst ? { ...CHAOS_CONFIG, firstIndexAtUploads: 1 } : CHAOS_CONFIG,
    lockBackend,
    conditional: o.registry,
    disable: o.disable,
  });
  return { svc, locks };
}

/**
 * `store`, noting in `changes` what it holds at a path users edit after each
 * write or delete there (read with `read`, past faults and scheduling).
 *
 * @example
 * ```ts
 * import { watchedStore } from "./clone_setup.ts";
 * import { LocalChanges } from "./local_changes.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const inner = new InMemoryStore();
 * const store = watchedStore(inner, new LocalChanges(), (k) => Promise.resolve(inner.peek(k)));
 * ```
 */
export function watchedStore(
  store: ObjectStore,
  changes: LocalChanges,
  read: (key: string) => Promise<Uint8Array | undefined>,
): ObjectStore {
  const look = (key: string, deleted: boolean) => async () => {
    if (!changes.watches(key)) return;
    const bytes = await read(key);
    await (deleted ? changes.observedDelete(key, bytes) : changes.observedPut(key, bytes));
  };
  return {
    endpoint: store.endpoint,
    ...(store.retriesInternally ? { retriesInternally: true } : {}),
    get: (key, o) => store.get(key, o),
    head: (key, o) => store.head(key, o),
    ...(store.getStream ? { getStream: (key, o) => store.getStream!(key, o) } : {}),
    list: (prefix, o) => store.list(prefix, o),
    put: (key, body, mode, o) => store.put(key, body, mode, o).finally(look(key, false)),
    delete: (key, o) => store.delete(key, o).finally(look(key, true)),
  };
}

/**
 * Where a store call `what` (as the scheduler names it) stands for a crash
 * between a commit-step write and the index update: `write` for a latest
 * marker's put or a shared file's put or delete, `index` for the index
 * update's first call, else undefined. That first call is a call on any
 * index object (the v1 index, the meta, a shard), whichever the commit makes
 * first: a v1 index's read, a v2 meta's read, or, when the cache holds the
 * meta it saw last, a shard's read (its meta is read, or written, only after
 * the shards). The clone crashes while parked on it, before it is made, so
 * that no index write of the commit has landed (a crash as one lands is the
 * `answer` move's).
 */
export function commitCrashPoint(what: string): "write" | "index" | undefined {
  const key = what.replace(/^(put|delete|get|head|list) /, "").replace(/ \(.*$/, "");
  if (/^(put|delete) /.test(what) && (key.endsWith("/latest") || SHARED_FILES.includes(key))) {
    return "write";
  }
  return /^(put|delete|get|head|list) /.test(what) && isIndexObject(key) ? "index" : undefined;
}

/** The index's objects: the v1 index, the meta, a shard. */
export function isIndexObject(key: string): boolean {
  return key === MONOLITH_KEY || key.startsWith("_index/");
}

/**
 * Every run's and transaction's outcome and a digest of the store's objects
 * (locks left out; a withdrawal note without its random `n`, which tells
 * two take-backs' notes apart and differs from run to run).
 */
export async function fingerprintOf(truth: TruthRecords, inspect: StoreInspector): Promise<string> {
  const parts = truth.runs.map((r) => `#${r.op}:${r.outcome}`);
  parts.push(...truth.txns.map((t) => `lf#${t.op}:${t.outcome}`));
  for (const key of await inspect.keys()) {
    if (key.endsWith(".lock")) continue;
    let bytes = (await inspect.read(key))!;
    if (key.startsWith(`${WITHDRAWN_DIR}/`)) bytes = withoutNonce(bytes);
    parts.push(`${key}=${(await sha256Hex(bytes)).slice(0, 12)}`);
  }
  return parts.join(" ");
}

/** A withdrawal note's bytes without its `n` (as they are when they are no JSON object). */
function withoutNonce(bytes: Uint8Array): Uint8Array {
  let note: unknown;
  try {
    note = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return bytes;
  }
  if (typeof note !== "object" || note === null || !("n" in note)) return bytes;
  const { n: _n, ...rest } = note;
  return new TextEncoder().encode(JSON.stringify(rest));
}

/** Counts the library warnings of `events` in `o.warnings` and hands each to `o.onWarning`. */
export function watchWarnings(
  events: SluiceEmitter,
  o: Pick<CloneServiceOptions, "warnings" | "onWarning">,
): void {
  events.on("warning", (w) => {
    o.warnings[w.code] = (o.warnings[w.code] ?? 0) + 1;
    if (Deno.env.get("TRACE_WARN")) console.log(`    WARN ${w.code}: ${w.message}`);
    o.onWarning?.(w);
  });
}
