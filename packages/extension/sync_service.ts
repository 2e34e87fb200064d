/**
 * The tool's sync service over Sluice's. Returned at once by
 * `createSyncService`; the Sluice service opens on the first call.
 *
 * - Namespaces: the first pull, push or prepare binds the namespace
 *   (`options.namespace`, empty meaning solo); a later call naming another
 *   throws, and one naming none is the bound namespace's (the tool's token
 *   commands push with no namespace on a service a namespaced pull bound). `markDirty` and `hydrateFile` paths carry `<ns>/`, which is
 *   stripped; before the namespace is bound, a first segment that is a cache
 *   directory holding `.namespace.json` is taken as the namespace (for
 *   `hydrateFile`, also one the datastore holds the manifest of), else
 *   the mark goes to the solo state, and the first sync of a namespace moves
 *   that namespace's marks from there to it (`namespace_binding.ts`).
 * - Locks: every push (`pushChanged`, `preparePush`) is given the model
 *   locks this process holds on the namespace, their models, the versions
 *   written since each was acquired and those not written by this run, so
 *   the lock fence and the refused-run eraser run as through Sluice's own
 *   API (`push_locks.ts`). A push naming its models (`context.models`: a
 *   model run's flush) is given only their locks: the other runs of this
 *   process (a workflow's parallel steps) are fenced by their own pushes,
 *   and what is under their locks (their models' directories) stays out of
 *   this one, dirty, for those pushes. A push naming no model (the tool's
 *   flush of a structural command; the extension syncs scoped, so no run's
 *   flush) is given only the held locks found lost as it starts, and is
 *   refused for them, erasing only what was written under them; what is
 *   under the other held locks stays out of it, for their runs' flushes.
 *   A pull leaves what is under the held locks of other models than it
 *   names (all of them, for a pull naming no model) as it is: a run's
 *   unpublished version there is never set aside for a peer's, which its
 *   flush would then take for its own and acknowledge.
 * - The tool runs a workflow's steps in parallel over one service: a
 *   push prepared while a step held its lock may commit after that step
 *   released it. A lock released after a push under it committed, and no
 *   push under it begun since, is left out of that commit's lock set (its
 *   writes were published under it); one released otherwise still counts.
 * - `commitPush` hands the prepared push back to Sluice's `commitPush`,
 *   which runs it through the pipeline again under the locks it was
 *   prepared with: a run that lost one is refused with `model_lock_lost`,
 *   its versions are erased from the cache and its prepared uploads deleted
 *   from the bucket, and nothing is committed.
 * - After such a refusal, every version left in the cache under the held
 *   locks counts as not this run's: the eraser's refresh may have pulled a
 *   peer's copy of the refused version, and a further push under the lost
 *   lock must be refused again, not take that copy for this run's
 *   (`erasure_refused`). Each lock the refused push was fenced by stays lost
 *   to its run, whatever the lock object says later: that run's versions
 *   were erased, so its own flush is refused too (`model_lock_lost`), never
 *   acknowledged with nothing of them left to push.
 * - A push from a cache the service holds no sync state for walks the whole
 *   cache (a bulk mark first), as the existing extensions do without their
 *   sidecar: the tool's setup copies files in unmarked, then pushes
 *   (`untouched_cache.ts`).
 * - `markDirty` never throws for its path: one that is the cache root,
 *   leaves the cache or has `.`/`..` segments is a bulk mark.
 * - Files the existing extensions keep local are never marked; the managed
 *   lockfile is published through the lockfile transaction
 *   (`lockfile_bridge.ts`).
 * - Counts: pulls return the files fetched, pushes the files uploaded plus
 *   those deleted.
 * - What a sync left behind is never passed over (the tool reads only the
 *   count): a push or a pull that leaves a conflict or a file unpublished,
 *   and a push that kept local deletions, warn (`sync_reporting.ts`,
 *   `left_behind.ts`; written to standard error by the entry files), and
 *   so does a pull that synced nothing from a datastore with no index (a
 *   mistyped bucket or prefix reads the same: `datastore_empty.ts`).
 *
 * @module
 */
import { isSafeRelPath } from "../../sync/paths.ts";
import { SyncService } from "../../sync/service/service.ts";
import { migrateIndex } from "../../sync/service/migrate.ts";
import { globalLockKey } from "../../sync/locks/model_locks.ts";
import { pushUnderGlobalLock } from "../../sync/service/global_lock_push.ts";
import { warnIfGlobalLost } from "./global_lock_warning.ts";
import type {
  SwampControlPlaneStore,
  SwampMigratedIndex,
  SwampPushManifest,
  SwampSyncCapabilities,
  SwampSyncOptions,
  SwampSyncService,
} from "./contract.ts";
import {
  isLockfile,
  publishLockfileChange,
  rememberLockfileBase,
  transactionLocks,
} from "./lockfile_bridge.ts";
import type { DatastoreRuntime } from "./runtime.ts";
import { isInternalCacheFile, modelPullPrefixes } from "./cache_paths.ts";
import { NamespaceBinding } from "./namespace_binding.ts";
import { walkUntouched } from "./untouched_cache.ts";
import { commitView, fenced, pushLockOptions, type PushScope } from "./push_locks.ts";
import { heldBack, runsElsewhere } from "./pull_hold_back.ts";
import { verifyLocks } from "../../middleware/lock_fence.ts";
import { ModelLockLostError } from "../../sync/lock_errors.ts";
import { carryPrepared, takePrepared } from "./prepared_manifest.ts";
import { SharedGlobalLock } from "./shared_global.ts";
import { afterCommitted, reportPull, reportPush, telling } from "./sync_reporting.ts";
import { pullTellingEmpty } from "./datastore_empty.ts";
import { isLazySkippable } from "./lazy_paths.ts";
import { controlPlane } from "./control_plane.ts";
import { fetchForeignContent, pullForeignCatalogs } from "./foreign.ts";
import { DEFAULT_RETRY, type RetryPolicy } from "../../sync/retry.ts";

export { isInternalCacheFile, modelPullPrefixes } from "./cache_paths.ts";

/**
 * The sync service handed to the tool.
 *
 * @example
 * ```ts ignore
 * const svc = provider.createSyncService("/repo", "/home/me/.swamp/repos/r1");
 * await svc.markDirty({ relPath: "data/t/m/out" });
 * await svc.pushChanged();
 * ```
 */
export class ExtensionSyncService implements SwampSyncService {
  readonly #rt: DatastoreRuntime;
  readonly #cachePath: string;
  readonly #ready: Promise<void>;
  /** The bound namespace, and the namespace directories found before it was bound. */
  readonly #binding: NamespaceBinding;

  constructor(runtime: DatastoreRuntime, cachePath: string) {
    this.#rt = runtime;
    this.#cachePath = cachePath.replace(/\/+$/, "") || "/";
    this.#binding = new NamespaceBinding(this.#cachePath, () => runtime.provider.store);
    this.#ready = runtime.held.addCache(this.#cachePath);
    this.#ready.catch(() => {});
  }

  /** The bound namespace (`""`: solo), or undefined before the first pull or push. */
  get namespace(): string | undefined {
    return this.#binding.namespace;
  }

  async #service(ns: string): Promise<SyncService> {
    await this.#ready;
    return await this.#rt.service(this.#cachePath, ns);
  }

  /** Moves to `ns` the marks of `<ns>/…` paths made before it was bound (see `namespace_binding.ts`). */
  #adoptUnboundMarks(svc: SyncService, ns: string): Promise<void> {
    return this.#binding.adoptUnboundMarks(svc, ns, () => this.#service(""));
  }

  /** Marks the whole cache dirty when `svc` holds no sync state yet (see `untouched_cache.ts`). */
  #walkUntouched(svc: SyncService, ns: string, signal?: AbortSignal): Promise<void> {
    return walkUntouched(svc, {
      cachePath: this.#cachePath,
      namespace: ns,
      events: this.#rt.events,
      signal,
    });
  }

  #lockfileLocks(ns: string) {
    return transactionLocks(this.#rt.provider.lockBackend, ns, this.#rt.held);
  }

  pullChanged(options: SwampSyncOptions = {}): Promise<number> {
    return telling(this.#rt, () => this.#pullChanged(options));
  }

  pushChanged(options: SwampSyncOptions = {}): Promise<number> {
    return telling(this.#rt, () => this.#pushChanged(options));
  }

  preparePush(options: SwampSyncOptions = {}): Promise<SwampPushManifest> {
    return telling(this.#rt, () => this.#preparePush(options));
  }

  commitPush(manifest: SwampPushManifest, options: SwampSyncOptions = {}): Promise<number> {
    return telling(this.#rt, () => this.#commitPush(manifest, options));
  }

  hydrateFile(relPath: string, options: SwampSyncOptions = {}): Promise<boolean> {
    return telling(this.#rt, () => this.#hydrateFile(relPath, options));
  }

  migrateMonolithToShards(options: SwampSyncOptions = {}): Promise<SwampMigratedIndex> {
    return telling(this.#rt, () => this.#migrateMonolithToShards(options));
  }

  async #pullChanged(options: SwampSyncOptions = {}): Promise<number> {
    const ns = this.#binding.bind(options.namespace);
    const svc = await this.#service(ns);
    await this.#adoptUnboundMarks(svc, ns);
    const models = options.context?.models ?? [];
    const named = models.map((m) => `${m.modelType}/${m.modelId}`);
    const holdBack = [...heldBack(this.#rt.held, ns, named), ...await runsElsewhere(svc, named)];
    const r = await pullTellingEmpty(this.#rt, svc, this.#cachePath, ns, {
      signal: options.signal,
      ...(models.length > 0 ? { prefixes: modelPullPrefixes(models) } : {}),
      ...(holdBack.length > 0 ? { holdBack } : {}),
      // Lazy hydration: the data versions' bytes are fetched when read (`hydrateFile`).
      ...(options.metadataOnly ? { defer: isLazySkippable } : {}),
    });
    this.#rt.held.pulled(this.#cachePath, r.fetched.map((p) => ns ? `${ns}/${p}` : p));
    reportPull(this.#rt, this.#cachePath, r, ns);
    return r.fetched.length;
  }

  async #pushChanged(options: SwampSyncOptions = {}): Promise<number> {
    const { ns, svc, lockOptions, held } = await this.#beforePush(options);
    const p = this.#rt.provider;
    // Beside old clients, each create is checked at the commit (they delete
    // without a compare-and-swap).
    const push = { signal: options.signal, ...lockOptions, checkCreates: !!p.config.oldClients };
    // Beside old clients, a push the tool makes without the global lock
    // (its token commands do) commits under it, as theirs rely on it.
    // Whether this process holds it is asked when the commit takes it, not
    // now: a hold seen now may be another step's commit, released before
    // this one's. A hold then is shared, its release waiting for this
    // commit (the tool's own around a structural command's push, so that
    // push never waits for it); else the lock is acquired.
    const global = globalLockKey(ns);
    const commitLock = p.config.oldClients
      ? new SharedGlobalLock(this.#rt.held, p.lockBackend.createLock(global, p.identity))
      : undefined;
    // Without old clients, the global lock the tool holds around this push,
    // if any: lost during it, the commit is told of (as under a lock of the
    // push's own; beside old clients, the commit under it tells).
    const toolGlobal = commitLock ? undefined : this.#rt.held.acquiredGlobal(global);
    const r = await fenced(
      this.#rt.held,
      this.#cachePath,
      ns,
      () => commitLock ? pushUnderGlobalLock(svc, commitLock, push) : svc.pushChanged(push),
      held,
    );
    this.#rt.held.committed(held);
    await warnIfGlobalLost(svc, toolGlobal, r, !!p.config.oldClients);
    await reportPush(this.#rt, this.#cachePath, r, ns, svc);
    // The lockfile, published through its transaction, counts as a file pushed.
    const lockfile = await publishLockfileChange(svc, this.#lockfileLocks(ns), options.signal)
      .catch((e) => {
        throw afterCommitted(r, e);
      });
    return r.uploaded.length + r.deleted.length + lockfile;
  }

  /**
   * The models a push is for (a step's flush names them; none for a push
   * naming no model), and how a held lock is found lost.
   */
  #scope(options: SwampSyncOptions): PushScope {
    const models = (options.context?.models ?? []).map((m) => `${m.modelType}/${m.modelId}`);
    const identity = this.#rt.provider.identity;
    return {
      models,
      lost: async (lock) => {
        try {
          await verifyLocks([lock], identity, options.signal);
          return false;
        } catch (e) {
          if (e instanceof ModelLockLostError) return true;
          // Unreadable: whether it is lost cannot be told, so the push fails
          // retryably now (lock_read_failed), as the fence would.
          throw e;
        }
      },
    };
  }

  /**
   * What a push and a prepared push do first: the namespace's service, the
   * untouched files walked, unbound marks adopted, and the run locks the push
   * is fenced by.
   */
  async #beforePush(options: SwampSyncOptions) {
    const ns = this.#binding.bind(options.namespace);
    const svc = await this.#service(ns);
    await this.#walkUntouched(svc, ns, options.signal);
    await this.#adoptUnboundMarks(svc, ns);
    const { options: lockOptions, held } = await pushLockOptions(
      this.#rt.held,
      this.#cachePath,
      ns,
      this.#scope(options),
    );
    return { ns, svc, lockOptions, held };
  }

  async #preparePush(options: SwampSyncOptions = {}): Promise<SwampPushManifest> {
    const { ns, svc, lockOptions, held } = await this.#beforePush(options);
    const p = this.#rt.provider;
    const checkCreates = !!p.config.oldClients;
    // Beside old clients, a preparation that throws its lost data version
    // (no commit comes) makes its marker take-back, an index write, under
    // the global lock, acquired for it: the tool holds none around a
    // preparation, and a hold of this process's seen now (another step's
    // commit) may end before that work, which it would then not cover.
    const leftWorkLock = p.config.oldClients
      ? p.lockBackend.createLock(globalLockKey(ns), p.identity)
      : undefined;
    const prepared = await fenced(
      this.#rt.held,
      this.#cachePath,
      ns,
      () =>
        svc.preparePush(
          { signal: options.signal, ...lockOptions, checkCreates },
          leftWorkLock ? { leftWorkLock } : {},
        ),
      held,
    );
    return carryPrepared({ namespace: ns, prepared, held });
  }

  async #commitPush(manifest: SwampPushManifest, options: SwampSyncOptions = {}): Promise<number> {
    const data = takePrepared(manifest); // committed once only
    const ns = data.namespace;
    const svc = await this.#service(ns);
    const { prepared, held } = commitView(data, this.#rt.held);
    const toolGlobal = this.#rt.held.acquiredGlobal(globalLockKey(ns));
    // Sluice's commit fences the prepared locks again; a lost one refuses and erases.
    const r = await fenced(
      this.#rt.held,
      this.#cachePath,
      ns,
      () => svc.commitPush(prepared, { signal: options.signal }),
      held,
    );
    this.#rt.held.committed(held);
    await warnIfGlobalLost(svc, toolGlobal, r, !!this.#rt.provider.config.oldClients);
    const count = r.uploaded.length + r.deleted.length;
    await reportPush(this.#rt, this.#cachePath, r, ns, svc);
    const lockfile = await publishLockfileChange(svc, this.#lockfileLocks(ns), options.signal)
      .catch((e) => {
        throw afterCommitted(r, e);
      });
    return count + lockfile;
  }

  async markDirty(options: SwampSyncOptions = {}): Promise<void> {
    if (options.relPath === undefined || options.relPath === "") {
      const ns = this.#binding.namespace ?? await this.#binding.onlyNamespace();
      await (await this.#service(ns)).markDirty({ signal: options.signal });
      return;
    }
    const { ns, rel } = this.#binding.split(options.relPath);
    if (rel !== "" && (isInternalCacheFile(rel) || isInternalCacheFile(options.relPath))) return;
    // The tool awaits this before its write, so a throw would fail the write:
    // a path that is the cache (or namespace) root, leaves the cache or has
    // `.`/`..` segments (or is otherwise no cache path as it stands) is taken
    // as the existing extensions take it, a bulk mark (the push walks all).
    if (rel === "" || !isSafeRelPath(rel)) return await this.markDirty({ signal: options.signal });
    const svc = await this.#service(ns);
    if (isLockfile(rel)) return await rememberLockfileBase(svc);
    await svc.markDirty({ relPath: rel, signal: options.signal });
  }

  async #hydrateFile(relPath: string, options: SwampSyncOptions = {}): Promise<boolean> {
    await this.#binding.learnRegistered(relPath, options.signal);
    const { ns, rel } = this.#binding.split(relPath);
    const svc = await this.#service(ns);
    const r = await svc.pullChanged({ signal: options.signal, prefixes: [rel] });
    this.#rt.held.pulled(this.#cachePath, r.fetched.map((p) => ns ? `${ns}/${p}` : p));
    reportPull(this.#rt, this.#cachePath, r, ns);
    return r.fetched.includes(rel) || (await svc.cache.stat(rel)) !== null;
  }

  /**
   * Moves the namespace's index to v2 (core holds the global lock); a v2
   * index is left as it is. See `sync/transfer/migrate_index.ts`.
   */
  async #migrateMonolithToShards(options: SwampSyncOptions = {}): Promise<SwampMigratedIndex> {
    const ns = this.#binding.bind(options.namespace);
    const svc = await this.#service(ns);
    // Core holds the global lock around it: once lost, the move stops.
    const r = await migrateIndex(
      svc,
      options.signal,
      this.#rt.held.acquiredGlobal(globalLockKey(ns)),
    );
    return { version: r.version, partitions: r.partitions, commitSeq: r.commitSeq };
  }

  capabilities(): SwampSyncCapabilities {
    return {
      scopedSync: true,
      namespacedSync: true,
      twoPhaseSync: typeof SyncService.prototype.preparePush === "function" &&
        typeof SyncService.prototype.commitPush === "function",
      lazyHydration: true,
      previewPush: false,
      controlPlane: true,
    };
  }

  /**
   * Other namespaces' catalog exports, read from the datastore as they are
   * (see `foreign.ts`); binds nothing.
   */
  pullForeignCatalogs(
    namespaces: string[],
    signal?: AbortSignal,
  ): Promise<{ namespace: string; rows: unknown[] }[]> {
    return telling(
      this.#rt,
      () =>
        pullForeignCatalogs(
          this.#rt.conditionalStore,
          namespaces,
          this.#retry(),
          this.#rt.events,
          signal,
        ),
    );
  }

  /** One file of another namespace (see `foreign.ts`); `null` when absent; binds nothing. */
  fetchForeignContent(
    namespace: string,
    relPath: string,
    signal?: AbortSignal,
  ): Promise<Uint8Array | null> {
    return telling(
      this.#rt,
      () =>
        fetchForeignContent(this.#rt.conditionalStore, namespace, relPath, this.#retry(), signal),
    );
  }

  /** The retry policy of direct reads and writes (none where the store retries by itself). */
  #retry(): RetryPolicy {
    const store = this.#rt.conditionalStore;
    const retry = { ...DEFAULT_RETRY, ...this.#rt.provider.config.retry };
    return store.retriesInternally ? { ...retry, retries: 0 } : retry;
  }

  /**
   * swamp's control plane under `[<ns>/]_control/` of the bound namespace,
   * asked at each call; before any binding, of the namespace the cache is
   * laid out for (its one root directory holding `.namespace.json`, with no
   * solo data beside it), else solo: see `control_plane.ts`. No I/O until
   * used; binds nothing.
   */
  controlPlaneStore(): SwampControlPlaneStore {
    return controlPlane(
      this.#rt.conditionalStore,
      async () => this.#binding.namespace ?? await this.#binding.impliedNamespace(),
      this.#retry(),
    );
  }
}
