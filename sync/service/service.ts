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
import { SluiceError, type UnreachableError } from "../errors.ts";
import { assertSafeRelPath } from "../paths.ts";
import { processIdentity, systemClock } from "../clock.ts";
import type { Clock, DistributedLock, Identity, LockBackend, ObjectStore } from "../ports.ts";
import { defaultStateDir, LocalCache } from "../transfer/cache.ts";
import { createEmitter, type SluiceEmitter } from "../events.ts";
import { Pipeline } from "../pipeline.ts";
import {
  PUSH_PHASES,
  type PushContext,
  type SyncConfig,
  WRITE_PHASES,
  type WriteContext,
} from "../context.ts";
import type { SyncState } from "./state.ts";
import type { StatusEntry } from "./status.ts";
import type { PushResult } from "./push.ts";
import type { LeftBehind } from "../left_behind.ts";
import { type PushRunDeps, pushTwice, runPush } from "./push_run.ts";
import type { PullResult } from "./pull.ts";
import type { PullBase } from "./pull_run.ts";
import type { ResolvingTheirs } from "./pull_warnings.ts";
import { pullChangedRun, pullHolding } from "./pull_changed.ts";
import { statusReport } from "./status_report.ts";
import { type ConflictRecord, type Resolution, setAsideCopies } from "./conflicts.ts";
import { notedPush } from "./waiting_record.ts";
import {
  resolutionCutOff,
  resolveConflict,
  type ResolveResult,
  storeResolveDeps,
} from "./resolve.ts";
import { IndexMemo } from "../transfer/remote_index.ts";
import {
  type SluicePlugin,
  type SyncServiceOptions,
  validateSyncServiceOptions,
} from "./service_options.ts";
import type { PreparedPush, PushOptions } from "./push_options.ts";
import type { PullOptions } from "./pull_options.ts";
import { preparePushRun } from "./push_prepare.ts";
import { underGlobalLockOrLeft } from "./left_work_lock.ts";
import { markDirtyPaths } from "./mark_dirty.ts";
import { openServiceState, pullBaseOf, serviceConfig } from "./service_parts.ts";

export { refuseStateNotADirectory } from "./cache_dir.ts";
export { LOCAL_DELETION_REASON, type StatusEntry } from "./status.ts";
export {
  DEFAULT_CONFIG,
  type SluicePlugin,
  type SyncServiceOptions,
  validateSyncServiceOptions,
} from "./service_options.ts";
export type { PreparedPush, PushOptions } from "./push_options.ts";
export type { PullOptions } from "./pull_options.ts";

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
    this.config = serviceConfig(options);
    this.cache = new LocalCache(this.cacheDir, () => this.clock.now(), {}, stateDir);
    this.state = state;
    this.lockBackend = options.lockBackend;
    this.pushPipeline = options.push?.clone() ?? new Pipeline<PushContext>(PUSH_PHASES);
    this.writePipeline = options.write?.clone() ?? new Pipeline<WriteContext>(WRITE_PHASES);
    for (const p of options.plugins ?? []) {
      p.setup({ push: this.pushPipeline, write: this.writePipeline });
    }
    checkPlacements(this.pushPipeline, this.writePipeline, options.plugins ?? []);
    for (const w of state.loadWarnings) {
      this.events.emit("warning", { code: "state_unreadable", message: w });
    }
    // Damaged lines of the manifest's log another process wrote, taken in
    // since the open (by a command, or by a save made outside any): their
    // records are lost, told as at an open, by the state as it takes them in.
    state.tellManifestDamage((message) =>
      this.events.emit("warning", { code: "state_unreadable", message })
    );
    const parts = {
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
    };
    this.#pullBase = pullBaseOf(parts);
    this.#runDeps = {
      ...parts,
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
  markDirty(
    options: { relPath?: string; relPaths?: readonly string[]; signal?: AbortSignal } = {},
  ): Promise<void> {
    return markDirtyPaths(this.state, this.cache, options);
  }

  /** Pushes dirty paths through the pipeline. Serialised with other pushes and pulls of this service. */
  pushChanged(options: PushOptions = {}): Promise<PushResult> {
    return this.#serial(async () => {
      await this.#markOnly(options);
      return await notedPush(this.cache, options, await pushTwice(this.#runDeps, options));
    });
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
   * without it, that failure is thrown. A preparation that throws reaches no
   * commit: what its gates left to the commit (a lost data version's marker
   * take-back, which may write the index) is made before the failure is
   * thrown, best effort: given `leftWorkLock` (the global lock, not held:
   * old clients rewrite the index under it without a compare-and-swap), under
   * it, acquired and released here; a lock not had in time, or found lost,
   * leaves that work to a later push. Give none when the caller holds that
   * lock around the preparation (the work is made under its hold).
   */
  async preparePush(
    options: PushOptions = {},
    how: { readonly keepRestOnLoss?: boolean; readonly leftWorkLock?: DistributedLock } = {},
  ): Promise<PreparedPush> {
    const leave: Array<() => Promise<void>> = [];
    try {
      return await this.#serial(async () => {
        await this.#markOnly(options);
        return await preparePushRun(this.#runDeps, options, {
          keepRestOnLoss: how.keepRestOnLoss,
          ...(how.leftWorkLock ? { leave } : {}),
        });
      });
    } catch (e) {
      // Waited for outside the queue of this service's runs: a commit of
      // this process's that holds the lock goes on meanwhile.
      if (how.leftWorkLock && leave.length > 0) {
        await underGlobalLockOrLeft(
          how.leftWorkLock,
          this,
          "this push lost its data versions to another writer's, and the take-back of its marker upload waits for the lock",
          () => this.commitLeftWork({ atCommit: leave }),
          options.signal,
        ).catch(() => false);
      }
      throw e;
    }
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
    return this.#serial(async () => {
      // What the preparation's gates left to the commit (it may write the index).
      for (const work of prepared.atCommit ?? []) await work();
      return await notedPush(
        this.cache,
        prepared.options,
        await pushTwice(this.#runDeps, { ...prepared.options, signal: options.signal }, prepared),
      );
    });
  }

  /**
   * Only what a preparation's gates left to its commit (`atCommit` of a
   * prepared push: a lost data version's marker take-back, which may write
   * the index), made as {@link SyncService.commitPush} makes it first, and
   * nothing else: for a preparation whose data versions were all lost, with
   * nothing else to commit (see `pushUnderGlobalLock`, which holds the
   * global lock around it). No commit pass runs, as a plain push whose
   * writes lost their versions reaches no commit.
   */
  commitLeftWork(prepared: Pick<PreparedPush, "atCommit">): Promise<void> {
    return this.#serial(async () => {
      for (const work of prepared.atCommit ?? []) await work();
    });
  }

  /** Pulls what changed remotely (or only under `prefixes`): see {@link PullOptions}. */
  pullChanged(
    options: PullOptions = {},
  ): Promise<PullResult> {
    const named = options.adoptUncommitted ?? [];
    return this.#serial(() =>
      pullChangedRun(this.#pullBase, options, named, () => this.clock.now())
    );
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
    // The copies set aside this process knew of for the path, as it is asked.
    const knownAside = new Set(
      setAsideCopies(this.state.conflicts.get(path)).map((c) => c.location),
    );
    return this.#serial(() =>
      resolveConflict(
        {
          ...storeResolveDeps(this, {
            pushOnly: async (paths) =>
              await notedPush(
                this.cache,
                {},
                await runPush(this.#runDeps, { signal, only: paths }),
              ),
            pull: (prefixes, theirs) => this.#pull(signal, prefixes, undefined, undefined, theirs),
          }, signal),
          knownAside,
        },
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
  async statusReport(
    options: { walk?: boolean; offline?: UnreachableError } = {},
  ): Promise<{ entries: StatusEntry[]; leftBehind: LeftBehind }> {
    // What other processes over the cache synced or resolved since, first,
    // as a push now would take it in (in turn with this service's pushes and
    // pulls, whose conflict records a take-in beside them could undo).
    await this.#serial(() => Promise.resolve());
    return await statusReport(
      this.#runDeps,
      this.writePipeline,
      this.cache,
      options.walk,
      options.offline,
    );
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    // What other processes over the cache recorded or resolved since, first.
    const go = async () => {
      await this.state.conflicts.refresh();
      await this.state.refreshSynced();
      return await fn();
    };
    const run = this.#queue.then(go, go);
    this.#queue = run.catch(() => {});
    return run;
  }

  #pull(
    signal?: AbortSignal,
    prefixes?: readonly string[],
    restoreDeleted?: boolean,
    defer?: (path: string) => boolean,
    resolvingTheirs?: ResolvingTheirs,
  ): Promise<PullResult> {
    return pullHolding(
      this.#pullBase,
      signal,
      prefixes,
      restoreDeleted,
      defer,
      undefined,
      undefined,
      resolvingTheirs,
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
  return new SyncService(options, await openServiceState(options));
}

/**
 * Orders both pipelines once, so that an entry placed before or after a
 * name no entry has (a misspelt anchor) is refused when the service is
 * created rather than at its first push; the error names the plugins.
 */
function checkPlacements(
  push: Pipeline<PushContext>,
  write: Pipeline<WriteContext>,
  plugins: readonly SluicePlugin[],
): void {
  for (const [which, pipeline] of [["push", push], ["write", write]] as const) {
    try {
      pipeline.ordered();
    } catch (e) {
      if (!(e instanceof SluiceError)) throw e;
      const names = plugins.map((p) => `"${p.name}"`).join(", ");
      throw new SluiceError(
        e.code,
        `In the ${which} pipeline${
          names ? ` (after the setup of plugin(s) ${names})` : ""
        }: ${e.message} ` +
          "The service was not created.",
      );
    }
  }
}
