/**
 * The sync service: the datastore sync contract (`pullChanged`,
 * `pushChanged`, `markDirty`, `capabilities`) over a cache directory and an
 * {@link ObjectStore}, with every push run through the gate pipeline.
 *
 * The service knows no gate: the composition root (`mod.ts`) passes the
 * default pipeline, and plugins add, override or remove gates by name.
 *
 * @module
 */
import { AbortedError, type UnreachableError } from "../errors.ts";
import { assertSafeRelPath } from "../paths.ts";
import { processIdentity, systemClock } from "../clock.ts";
import type { Clock, Identity, LockBackend, ObjectStore } from "../ports.ts";
import { DEFAULT_RETRY } from "../retry.ts";
import { defaultStateDir, LocalCache, STATE_DIR } from "../transfer/cache.ts";
import { createEmitter, type SluiceEmitter } from "../events.ts";
import { Pipeline } from "../pipeline.ts";
import {
  type PlanEntry,
  PUSH_PHASES,
  type PushContext,
  type SyncConfig,
  type UploadRecord,
  WRITE_PHASES,
  type WriteContext,
} from "../context.ts";
import { ownerLockHeld, SyncState } from "./state.ts";
import { makeCacheDir, refuseStateNotADirectory } from "./cache_dir.ts";

export { refuseStateNotADirectory } from "./cache_dir.ts";
import type { StatusEntry } from "./status.ts";

export { LOCAL_DELETION_REASON, type StatusEntry } from "./status.ts";
import type { PendingCommit, PushResult } from "./push.ts";
import type { LeftBehind } from "../left_behind.ts";
import { type PushRunDeps, pushTwice, runPush } from "./push_run.ts";
import type { PullResult } from "./pull.ts";
import { type PullBase, runPull } from "./pull_run.ts";
import { adoptAndPullAgain, namedBy } from "./pull_adopt.ts";
import { under } from "./pull_plan.ts";
import { statusReport } from "./status_report.ts";
import type { ConflictRecord, Resolution } from "./conflicts.ts";
import { notedPush } from "./waiting_record.ts";
import {
  resolutionCutOff,
  resolveConflict,
  type ResolveResult,
  storeResolveDeps,
} from "./resolve.ts";
import { IndexMemo } from "../transfer/remote_index.ts";
import { isInternalPath } from "../paths.ts";
import {
  DEFAULT_CONFIG,
  type SyncServiceOptions,
  validateSyncServiceOptions,
} from "./service_options.ts";

export {
  DEFAULT_CONFIG,
  type SluicePlugin,
  type SyncServiceOptions,
  validateSyncServiceOptions,
} from "./service_options.ts";

export type { PreparedPush, PushOptions } from "./push_options.ts";
import type { PreparedPush, PushOptions } from "./push_options.ts";

/**
 * A sync service over one cache directory.
 *
 * @example
 * ```ts
 * import { createSyncService } from "./service.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const svc = await createSyncService({ cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() });
 * await Deno.writeTextFile(`${svc.cacheDir}/a.txt`, "hi");
 * await svc.markDirty({ relPath: "a.txt" });
 * await svc.pushChanged();
 * ```
 */
export class SyncService {
  readonly cacheDir: string;
  readonly store: ObjectStore;
  readonly identity: Identity;
  readonly clock: Clock;
  readonly events: SluiceEmitter;
  readonly config: SyncConfig;
  readonly cache: LocalCache;
  readonly state: SyncState;
  readonly lockBackend?: LockBackend;
  readonly pushPipeline: Pipeline<PushContext>;
  readonly writePipeline: Pipeline<WriteContext>;
  #queue: Promise<unknown> = Promise.resolve();
  /** The last index read or written (pushes and pulls are serialised, so one at a time uses it). */
  readonly #indexMemo: IndexMemo;
  /** What a push runs over (`push_run.ts`). */
  readonly #runDeps: PushRunDeps;
  readonly #pullBase: PullBase;

  /**
   * Use {@link createSyncService}, which checks the options and opens
   * `state`; the constructor takes both as given.
   */
  constructor(options: SyncServiceOptions, state: SyncState) {
    this.cacheDir = options.cacheDir.replace(/\/+$/, "");
    const stateDir = options.stateDir ?? defaultStateDir(this.cacheDir);
    this.#indexMemo = new IndexMemo(
      `${stateDir}/index-meta.json`,
      options.store.endpoint,
    );
    this.store = options.store;
    this.identity = options.identity ?? processIdentity();
    this.clock = options.clock ?? systemClock;
    this.events = options.events ?? createEmitter();
    // A partial retry policy is completed from the defaults (never left with holes).
    const retry = { ...DEFAULT_RETRY, ...(options.config?.retry ?? {}) };
    this.config = {
      ...DEFAULT_CONFIG,
      ...(options.config ?? {}),
      // Retries live in one layer: a store that retries itself is called once
      // per operation here, so a dead endpoint costs `retries + 1` attempts.
      retry: options.store.retriesInternally ? { ...retry, retries: 0 } : retry,
    };
    this.cache = new LocalCache(this.cacheDir, () => this.clock.now(), {}, stateDir);
    this.state = state;
    this.lockBackend = options.lockBackend;
    this.pushPipeline = options.push?.clone() ?? new Pipeline<PushContext>(PUSH_PHASES);
    this.writePipeline = options.write?.clone() ?? new Pipeline<WriteContext>(WRITE_PHASES);
    for (const p of options.plugins ?? []) {
      p.setup({ push: this.pushPipeline, write: this.writePipeline });
    }
    for (const w of state.loadWarnings) {
      this.events.emit("warning", { code: "state_unreadable", message: w });
    }
    this.#pullBase = {
      store: this.store,
      cache: this.cache,
      state,
      config: this.config,
      events: this.events,
      // What a push never takes, a pull never brings (`isLocalOnlyPath`).
      isInternal: (p) =>
        p.startsWith(`${STATE_DIR}/`) || isInternalPath(p, this.config.classifierRules),
      indexMemo: this.#indexMemo,
      now: () => this.clock.now(),
    };
    this.#runDeps = {
      store: this.store,
      cache: this.cache,
      state,
      events: this.events,
      config: this.config,
      identity: this.identity,
      clock: this.clock,
      pushPipeline: this.pushPipeline,
      writePipeline: this.writePipeline,
      indexMemo: this.#indexMemo,
      refresh: (signal, prefixes, leave) =>
        this.#pull(
          signal,
          prefixes,
          undefined,
          leave?.length ? (p) => leave.some((d) => p.startsWith(`${d}/`)) : undefined,
        ),
    };
  }

  /** The gate order of both pipelines. */
  describe(): { push: string[]; write: string[] } {
    return { push: this.pushPipeline.describe(), write: this.writePipeline.describe() };
  }

  /** What this service can do. */
  capabilities(): {
    push: boolean;
    pull: boolean;
    locks: boolean;
    gates: string[];
    endpoint: string;
  } {
    return {
      push: true,
      pull: true,
      locks: this.lockBackend !== undefined,
      gates: [...this.pushPipeline.names(), ...this.writePipeline.names()],
      endpoint: this.store.endpoint,
    };
  }

  /**
   * Marks one path (`relPath`) or several (`relPaths`, one durable append) dirty, or (with neither) everything: the next push
   * walks the cache and uploads only files whose content changed. Durable on
   * return.
   */
  async markDirty(
    options: { relPath?: string; relPaths?: readonly string[]; signal?: AbortSignal } = {},
  ): Promise<void> {
    if (options.signal?.aborted) throw new AbortedError("markDirty");
    if (options.relPaths !== undefined) {
      for (const p of options.relPaths) assertSafeRelPath(p);
      await this.state.markDirtyMany(
        options.relPaths,
        options.relPaths.filter((p) => this.#newFile(p)),
      );
      if (options.relPath === undefined) return;
    }
    if (options.relPath !== undefined) assertSafeRelPath(options.relPath);
    const p = options.relPath;
    await this.state.markDirty(p, p !== undefined && this.#newFile(p));
  }

  /**
   * A regular file this cache never synced: its push will write it unnamed
   * by any index until its commit, so it is recorded as such with its mark
   * (one append for both; the push need not append again, see
   * `SyncState.markAttempted`).
   */
  #newFile(path: string): boolean {
    if (this.state.synced(path)) return false;
    try {
      return this.cache.isRegularFileSync(path);
    } catch {
      return false; // a link, or unreadable: the push decides, and records it then if it writes
    }
  }

  /** Pushes dirty paths through the pipeline. Serialised with other pushes and pulls of this service. */
  pushChanged(options: PushOptions = {}): Promise<PushResult> {
    return this.#serial(async () => {
      await this.#markOnly(options);
      return await this.#noted(options, await pushTwice(this.#runDeps, options));
    });
  }

  /**
   * Records the paths `result` left waiting on another writer's upload (see
   * `waiting_record.ts`). A run's push (under model locks) that left a data
   * version of its own waiting so is not done: it fails (`sync_incomplete`,
   * the version kept dirty), so that the run is never taken as published.
   */
  #noted(
    options: { dryRun?: boolean; locks?: readonly unknown[] },
    result: PushResult,
  ): Promise<PushResult> {
    return notedPush(this.cache, options, result);
  }

  /** The paths of `options.only`, marked dirty before their push (see `PushOptions.only`). */
  async #markOnly(options: PushOptions): Promise<void> {
    if (options.only?.length && !options.dryRun) {
      await this.markDirty({ relPaths: options.only, signal: options.signal });
    }
  }

  /**
   * The first half of a two-phase push: runs the gates and writes the
   * objects, but leaves the remote index and the dirty set alone. Peers see
   * nothing of it until {@link SyncService.commitPush}; the paths stay dirty
   * until then (a crash in between loses nothing: the next push redoes it).
   * With `keepRestOnLoss`, a preparation that failed only for data versions
   * lost to another writer's (set aside) resolves with the rest of the push,
   * ready to commit, and that failure as `lost` (see `pushUnderGlobalLock`);
   * without it, that failure is thrown.
   */
  preparePush(
    options: PushOptions = {},
    how: { readonly keepRestOnLoss?: boolean } = {},
  ): Promise<PreparedPush> {
    return this.#serial(async () => {
      const out: {
        plan?: PlanEntry[];
        prepare: { pending?: PendingCommit; uploaded?: UploadRecord[]; lost?: unknown };
        result?: PushResult;
      } = { prepare: {} };
      await this.#markOnly(options);
      const { signal: _signal, ...rest } = options;
      let result: PushResult;
      try {
        result = await runPush(this.#runDeps, options, out);
      } catch (e) {
        // Failed only for data versions lost to another writer's (set aside):
        // the rest of the push is ready to commit, as a plain push commits it
        // (`pushUnderGlobalLock` does). Its deferred commit-step writes
        // (markers) stay held, as a plain push holds them beside a failure.
        const pending = out.prepare.pending;
        if (
          !how.keepRestOnLoss || e !== out.prepare.lost || !pending || !out.result ||
          !(e instanceof Error)
        ) {
          throw e;
        }
        return {
          result: out.result,
          pending,
          options: rest,
          plan: (out.plan ?? []).map((entry) =>
            entry.commit && entry.action === "put"
              ? { ...entry, action: "skip" as const, keepDirty: true }
              : entry
          ),
          uploaded: out.prepare.uploaded ?? [],
          lost: e,
        };
      }
      return {
        result,
        pending: out.prepare.pending,
        options: rest,
        plan: out.plan ?? [],
        uploaded: out.prepare.uploaded ?? [],
      };
    });
  }

  /**
   * The second half: merges a prepared push into the remote index
   * (compare-and-swap against the index as it is now) and commits the local
   * state. Returns the prepared push's result.
   */
  commitPush(prepared: PreparedPush, options: { signal?: AbortSignal } = {}): Promise<PushResult> {
    // Through the push pipeline again: under model locks the fence checks them
    // once more, and a run that lost one is refused and erased (its prepared
    // uploads included) before its deferred markers are written or anything
    // is committed.
    return this.#serial(async () =>
      await this.#noted(
        prepared.options,
        await pushTwice(this.#runDeps, { ...prepared.options, signal: options.signal }, prepared),
      )
    );
  }

  /**
   * Pulls what changed remotely (or only under `prefixes`). A file deleted
   * here is a local change, so a pull keeps it deleted; with
   * `restoreDeleted`, each synced file deleted here whose datastore copy is
   * still the one this cache synced is taken back (one the datastore changed
   * meanwhile is a conflict, as without it). A deletion marked dirty, to be
   * pushed, is left as it is.
   *
   * With `defer`, a path it answers true for that this cache has nothing
   * at (no file, never synced) is not fetched: it is listed in `deferred`,
   * its directory is made, and a later pull of it (by its prefix, or without
   * `defer`) fetches it; the pull keeps no index token, so a later pull
   * without `defer` reads the index again. swamp's lazy hydration
   * (`metadataOnly`) defers the `data/…/raw` files this way.
   *
   * With `holdBack`, what lies under those directories is left as it is
   * (nothing fetched, set aside or removed there; its conflicts stand), and
   * the pull keeps no index token, so a later pull looks at it again: the
   * extension holds back what is under another run's held model lock, that
   * run's until its own flush.
   */
  pullChanged(
    options: {
      signal?: AbortSignal;
      prefixes?: readonly string[];
      restoreDeleted?: boolean;
      defer?: (path: string) => boolean;
      adoptUncommitted?: readonly string[];
      holdBack?: readonly string[];
    } = {},
  ): Promise<PullResult> {
    const named = options.adoptUncommitted ?? [];
    return this.#serial(async () => {
      const pulled = await this.#pull(
        options.signal,
        options.prefixes,
        options.restoreDeleted,
        options.defer,
        named.length ? (p) => namedBy(p, named) : undefined,
        options.holdBack,
      );
      if (named.length === 0) return pulled;
      return await adoptAndPullAgain(
        {
          store: this.store,
          config: this.config,
          events: this.events,
          signal: options.signal,
          now: () => this.clock.now(),
        },
        pulled,
        named,
        (paths) =>
          this.#pull(options.signal, paths, undefined, undefined, undefined, options.holdBack),
      );
    });
  }

  /** Every unresolved conflict, with both versions (see `conflicts.ts`). */
  conflicts(): ConflictRecord[] {
    return this.state.conflicts.list();
  }

  /**
   * Resolves the conflict of `path`: `mine` publishes this cache's copy (a
   * set-aside one is put back first), `merged` publishes what the cache
   * holds at the path now, `theirs` sets the local copy aside and takes the
   * datastore's. Publishing is a compare-and-swap on the version of theirs
   * the conflict recorded: a newer one makes it a new conflict
   * (`resolved: false`), never a loss. Serialised with pushes and pulls.
   */
  resolveConflict(
    path: string,
    resolution: Resolution,
    options: { signal?: AbortSignal } = {},
  ): Promise<ResolveResult> {
    assertSafeRelPath(path);
    const signal = options.signal;
    return this.#serial(() =>
      resolveConflict(
        storeResolveDeps(this, {
          pushOnly: async (paths) =>
            await this.#noted({}, await runPush(this.#runDeps, { signal, only: paths })),
          pull: (prefixes) => this.#pull(signal, prefixes),
        }, signal),
        path,
        resolution,
      ).catch((e) => {
        throw resolutionCutOff(e, path, resolution, this.state.conflicts.get(path) !== undefined);
      })
    );
  }

  /**
   * The dirty paths with their class and the gates that will handle each.
   * Nothing is written, locally or remotely. With `walk`, files changed but
   * not yet marked dirty are listed too (as the next bulk push would find them).
   */
  async status(options: { walk?: boolean } = {}): Promise<StatusEntry[]> {
    return (await this.statusReport(options)).entries;
  }

  /**
   * {@link SyncService.status}, with what a push now would leave behind
   * (its conflicts, the files it would leave out and keep dirty, the local
   * deletions a walk keeps, the files no push can publish). `offline`: the
   * datastore was just found unreachable; the dry run's reads fail at once
   * with that error instead of waiting out their retries again.
   */
  statusReport(
    options: { walk?: boolean; offline?: UnreachableError } = {},
  ): Promise<{ entries: StatusEntry[]; leftBehind: LeftBehind }> {
    return statusReport(
      this.#runDeps,
      this.writePipeline,
      this.cache,
      options.walk,
      options.offline,
    );
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  #pull(
    signal?: AbortSignal,
    prefixes?: readonly string[],
    restoreDeleted?: boolean,
    defer?: (path: string) => boolean,
    adopting?: (path: string) => boolean,
    holdBack?: readonly string[],
  ): Promise<PullResult> {
    const held = holdBack?.length ? (p: string) => holdBack.some((d) => under(p, [d])) : undefined;
    return runPull(
      this.#pullBase,
      { signal, restoreDeleted, defer, adopting, ...(held ? { holdBack: held } : {}) },
      prefixes,
    );
  }
}

/** Opens the cache's state and creates a {@link SyncService}; `ConfigError` on bad options, before anything is created. */
export async function createSyncService(options: SyncServiceOptions): Promise<SyncService> {
  validateSyncServiceOptions(options);
  return await openSyncService(options);
}

/**
 * {@link createSyncService} without the check of the options, for a factory
 * that ran `validateSyncServiceOptions` itself before building anything from
 * them (the composition root's `createSluice` does), so that they are
 * checked once. Creates the cache directory, opens its state and creates
 * the service.
 *
 * @example
 * ```ts
 * import { openSyncService, validateSyncServiceOptions } from "./service.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const options = { cacheDir: await Deno.makeTempDir(), store: new InMemoryStore() };
 * validateSyncServiceOptions(options);
 * const svc = await openSyncService(options);
 * console.log(svc.capabilities().locks); // false
 * ```
 */
export async function openSyncService(options: SyncServiceOptions): Promise<SyncService> {
  await makeCacheDir(options.cacheDir);
  const stateDir = options.stateDir ?? defaultStateDir(options.cacheDir);
  await refuseStateNotADirectory(options.cacheDir, stateDir);
  const state = await SyncState.open(
    options.cacheDir,
    stateDir,
    options.ownersInProcess ? { ownerRuns: (owner) => ownerLockHeld(stateDir, owner) } : {},
  );
  return new SyncService(options, state);
}
