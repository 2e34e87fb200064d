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
 *   that namespace's marks from there to it.
 * - Locks: every push (`pushChanged`, `preparePush`) is given the model
 *   locks this process holds on the namespace, their models, the versions
 *   written since each was acquired and those not written by this run, so
 *   the lock fence and the refused-run eraser run as through Sluice's own
 *   API.
 * - The tool runs a workflow's steps in parallel over one service: a
 *   push prepared by one step may commit after another step released its
 *   lock. A lock released after a push under it committed, and no push
 *   under it begun since, is left out of that commit's lock set (its
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
 *   (`erasure_refused`).
 * - A push from a cache the service holds no sync state for walks the whole
 *   cache (a bulk mark first), as the existing extensions do without their
 *   sidecar: the tool's setup copies files in unmarked, then pushes.
 * - `markDirty` never throws for its path: one that is the cache root,
 *   leaves the cache or has `.`/`..` segments is a bulk mark.
 * - Files the existing extensions keep local are never marked; the managed
 *   lockfile is published through the lockfile transaction
 *   (`lockfile_bridge.ts`).
 * - Counts: pulls return the files fetched, pushes the files uploaded plus
 *   those deleted.
 * - What a sync left behind is never passed over (the tool reads only the
 *   count): a push or a pull that leaves a conflict or a file unpublished,
 *   and a push that kept local deletions, warn (`left_behind.ts`; written
 *   to standard error by the entry files).
 *
 * @module
 */
import { existsSync } from "node:fs";
import { SluiceError } from "../../sync/errors.ts";
import { isSafeRelPath } from "../../sync/paths.ts";
import { ModelLockLostError } from "../../sync/lock_errors.ts";
import { ErasureRefusedError } from "../../middleware/erasure.ts";
import type { DistributedLock } from "../../sync/ports.ts";
import { type PreparedPush, type PushOptions, SyncService } from "../../sync/service/service.ts";
import { migrateToShards } from "../../sync/transfer/migrate_index.ts";
import { globalLockKey } from "../../sync/locks/model_locks.ts";
import { pushUnderGlobalLock } from "../../sync/service/global_lock_push.ts";
import { walkFiles } from "../../sync/transfer/cache_walk.ts";
import { STATE_DIR } from "../../sync/transfer/cache.ts";
import { DIRTY_FILE } from "../../sync/service/state.ts";
import type {
  SwampMigratedIndex,
  SwampModelRef,
  SwampPushManifest,
  SwampSyncCapabilities,
  SwampSyncOptions,
  SwampSyncService,
} from "./contract.ts";
import type { HeldModelLock } from "./held_locks.ts";
import { isNamespaceSlug, namespaceManifestKey } from "./namespaces.ts";
import {
  isLockfile,
  publishLockfileChange,
  rememberLockfileBase,
  transactionLocks,
} from "./lockfile_bridge.ts";
import type { DatastoreRuntime } from "./runtime.ts";
import { pullOutcome, pushOutcome } from "./left_behind.ts";
import type { PullResult } from "../../sync/service/pull.ts";
import type { PushResult } from "../../sync/service/push.ts";

/**
 * True for the files the existing extensions keep local (never uploaded,
 * never indexed), by their path relative to the cache root.
 *
 * @example
 * ```ts
 * import { isInternalCacheFile } from "./sync_service.ts";
 * isInternalCacheFile("prod/data/t/m/.lock"); // true
 * isInternalCacheFile("data/t/m/state/1/raw"); // false
 * ```
 */
export function isInternalCacheFile(rel: string): boolean {
  const base = rel.slice(rel.lastIndexOf("/") + 1);
  return [".datastore-index.json", ".push-queue.json", ".datastore.lock"].includes(rel) ||
    rel === ".datastore-sync-state.json" ||
    /^(_index|_control)(\/|$)/.test(rel) ||
    base === ".lock" || base === ".namespace.json" ||
    base === "_catalog.db" || base.startsWith("_catalog.db-");
}

interface ManifestData {
  readonly namespace: string;
  readonly prepared: PreparedPush;
  /** The held locks under the prepared push's `options.locks`, in the same order. */
  readonly held: readonly DistributedLock[];
}

/**
 * Where a manifest carries its prepared push: a symbol-keyed field of the
 * opaque object core passes back untouched (no module-level map holds it).
 */
const PREPARED: unique symbol = Symbol("sluice.preparedPush");

type CarryingManifest = SwampPushManifest & { [PREPARED]?: ManifestData & { used: boolean } };

/** A lock seen by a namespace's service: the same lock, its key relative to the namespace. */
function viewOf(lock: DistributedLock, namespace: string): DistributedLock {
  if (!namespace) return lock;
  const key = lock.key.startsWith(`${namespace}/`)
    ? lock.key.slice(namespace.length + 1)
    : lock.key;
  return {
    key,
    get nonce() {
      return lock.nonce;
    },
    get lost() {
      return lock.lost;
    },
    get loss() {
      return lock.loss;
    },
    acquire: (o) => lock.acquire(o),
    release: () => lock.release(),
    withLock: (fn, o) => lock.withLock(fn, o),
    inspect: (o) => lock.inspect(o),
    forceRelease: (n) => lock.forceRelease(n),
  };
}

/** Cache prefixes a scoped pull of `models` covers. */
export function modelPullPrefixes(models: readonly SwampModelRef[]): string[] {
  return models.flatMap((m) => [
    `data/${m.modelType}/${m.modelId}`,
    `definitions-evaluated/${m.modelType}/${m.modelId}.yaml`,
  ]);
}

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
  #namespace?: string;
  /** Whether marks made before the namespace was bound were moved to it. */
  #adopted = false;
  /** Root directories of the cache found holding `.namespace.json` (or not). */
  readonly #namespaceDirs = new Map<string, boolean>();
  /** Root directories asked of the datastore whether they are registered namespaces. */
  readonly #registered = new Map<string, boolean>();

  constructor(runtime: DatastoreRuntime, cachePath: string) {
    this.#rt = runtime;
    this.#cachePath = cachePath.replace(/\/+$/, "") || "/";
    this.#ready = runtime.held.addCache(this.#cachePath);
    this.#ready.catch(() => {});
  }

  /** The bound namespace (`""`: solo), or undefined before the first pull or push. */
  get namespace(): string | undefined {
    return this.#namespace;
  }

  #bind(namespace: string | undefined): string {
    // A call naming no namespace on a bound service is the bound namespace's:
    // the tool's token commands push so on the service a namespaced pull bound.
    if (namespace === undefined && this.#namespace !== undefined) return this.#namespace;
    const ns = namespace ?? "";
    if (this.#namespace === undefined) this.#namespace = ns;
    else if (this.#namespace !== ns) {
      throw new SluiceError(
        "invalid_config",
        `Namespace mismatch: this sync service is bound to ${
          this.#namespace ? `namespace "${this.#namespace}"` : "solo mode"
        }, and a call asked for ${
          ns ? `namespace "${ns}"` : "solo mode"
        }. Nothing was synced; use one service per namespace.`,
      );
    }
    return ns;
  }

  async #service(ns: string): Promise<SyncService> {
    await this.#ready;
    return await this.#rt.service(this.#cachePath, ns);
  }

  /**
   * Moves to namespace `ns` the marks of `<ns>/…` paths made while no
   * service knew it (a clone without the local manifest marks before its
   * first sync): they went to the solo state, which a namespaced push never
   * reads, so its write would stay local, unpublished and untold. Once per
   * service, and only when the solo state has a dirty journal.
   */
  async #adoptUnboundMarks(svc: SyncService, ns: string): Promise<void> {
    if (!ns || this.#adopted) return;
    this.#adopted = true;
    if (!existsSync(`${this.#cachePath}/${STATE_DIR}/${DIRTY_FILE}`)) return;
    const solo = await this.#service("");
    const mine = solo.state.dirtyPaths().filter((p) => p.startsWith(`${ns}/`));
    if (mine.length === 0) return;
    await svc.markDirty({ relPaths: mine.map((p) => p.slice(ns.length + 1)) });
    await solo.state.clean(mine);
  }

  /** Namespace and namespace-relative path of a cache-relative path. */
  #split(relPath: string): { ns: string; rel: string } {
    const rel = relPath.replaceAll("\\", "/").replace(/^(\.\/)+/, "").replace(/\/+$/, "");
    const ns = this.#namespace ?? this.#detectNamespace(rel);
    if (ns && rel.startsWith(`${ns}/`)) return { ns, rel: rel.slice(ns.length + 1) };
    return { ns, rel };
  }

  #detectNamespace(rel: string): string {
    const first = rel.split("/")[0];
    if (!first || first === rel) return "";
    // Asked once per root directory and service: an unbound service asks at
    // every markDirty, and a stat per mark cost about 11 µs of CPU (after each
    // mark's journal fsync, an async one waited 0.2-0.3 ms on an idle worker
    // thread). Core writes `.namespace.json` when it sets a namespace, before
    // any sync of it, not between the marks of one service.
    let found = this.#namespaceDirs.get(first);
    if (found === undefined) {
      found = existsSync(`${this.#cachePath}/${first}/.namespace.json`);
      this.#namespaceDirs.set(first, found);
    }
    return found ? first : "";
  }

  /**
   * Before the namespace is bound, learns from the datastore whether the
   * first segment of `relPath` is a registered namespace when the cache
   * holds no manifest of it (a clone whose namespace is set in its
   * configuration but that never ran `namespace set`): the file to hydrate
   * is then that namespace's, which the solo index never lists, and the
   * tool would be told it does not exist. One read per root directory and
   * service; a failed read leaves the path to the solo state, as before.
   */
  async #learnRegistered(relPath: string, signal?: AbortSignal): Promise<void> {
    if (this.#namespace !== undefined) return;
    const rel = relPath.replaceAll("\\", "/").replace(/^(\.\/)+/, "");
    const first = rel.split("/")[0];
    if (!first || first === rel || !isNamespaceSlug(first) || this.#detectNamespace(rel)) return;
    let found = this.#registered.get(first);
    if (found === undefined) {
      found = await this.#rt.provider.store.head(namespaceManifestKey(first), { signal })
        .then((info) => info !== null, () => false);
      this.#registered.set(first, found);
    }
    if (found) this.#namespaceDirs.set(first, true);
  }

  /** The namespace of the cache when exactly one root directory holds `.namespace.json`. */
  async #onlyNamespace(): Promise<string> {
    const found: string[] = [];
    try {
      for await (const e of Deno.readDir(this.#cachePath)) {
        if (!e.isDirectory) continue;
        // Asked afresh (a bulk mark is rare, and may follow a namespace migration).
        const holds = existsSync(`${this.#cachePath}/${e.name}/.namespace.json`);
        this.#namespaceDirs.set(e.name, holds);
        if (holds) found.push(e.name);
      }
    } catch {
      return "";
    }
    return found.length === 1 ? found[0] : "";
  }

  /**
   * The lock options of a push of `ns` (the held model locks, seen by the
   * namespace), and the held locks under them (`held`, in the same order),
   * which are told that a push under them starts.
   */
  async #pushOptions(
    ns: string,
  ): Promise<{
    options: Pick<PushOptions, "locks" | "written" | "preexisting" | "models">;
    held: DistributedLock[];
  }> {
    const h = await this.#rt.held.pushOptions(this.#cachePath, ns);
    if (h.locks.length === 0) return { options: {}, held: [] };
    const held = h.locks.map((l: HeldModelLock) => l.lock);
    this.#rt.held.pushing(held);
    const strip = (p: string) => ns && p.startsWith(`${ns}/`) ? p.slice(ns.length + 1) : p;
    return {
      options: {
        locks: h.locks.map((l: HeldModelLock) => viewOf(l.lock, ns)),
        models: h.locks.map((l) => l.model),
        written: h.written.map(strip),
        preexisting: new Set([...h.preexisting].map(strip)),
      },
      held,
    };
  }

  /**
   * The prepared push `data` as its commit runs it: without the model locks
   * this process has settled since the preparation (another step's, released
   * after its own push committed: see `HeldLocks.settled`), their models and
   * the versions written under them. The tool runs a workflow's steps in
   * parallel over one service, and each step's prepared push is given every
   * lock held then; a step whose lock is released before another's commit
   * would otherwise make that commit refuse as for a lost lock, and erase
   * the other step's run.
   */
  #toCommit(data: ManifestData): { prepared: PreparedPush; held: DistributedLock[] } {
    const { prepared } = data;
    const keep = data.held.map((l) => !this.#rt.held.settled(l));
    if (!keep.includes(false)) return { prepared, held: [...data.held] };
    const o = prepared.options;
    const locks = o.locks ?? [];
    const gone = locks.filter((_, i) => !keep[i]).map((l) =>
      `${l.key.slice(0, -"/.lock".length)}/`
    );
    return {
      prepared: {
        ...prepared,
        options: {
          ...o,
          locks: locks.filter((_, i) => keep[i]),
          ...(o.models ? { models: o.models.filter((_, i) => keep[i]) } : {}),
          ...(o.written
            ? { written: o.written.filter((w) => !gone.some((g) => w.startsWith(g))) }
            : {}),
        },
      },
      held: data.held.filter((_, i) => keep[i]),
    };
  }

  /**
   * Runs a push of namespace `ns`; when the pipeline refuses it for a lost
   * model lock, the held locks learn that no version left in the cache is
   * this run's (see `HeldLocks.refused`).
   */
  async #fenced<T>(ns: string, push: () => Promise<T>): Promise<T> {
    try {
      return await push();
    } catch (e) {
      if (e instanceof ModelLockLostError || e instanceof ErasureRefusedError) {
        await this.#rt.held.refused(this.#cachePath, ns);
      }
      throw e;
    }
  }

  /** Warns of a conflict or a file left unpublished, and of local deletions kept (never throws). */
  #settlePush(r: PushResult, ns: string): void {
    for (const w of pushOutcome(r, this.#rt.cliTarget(this.#cachePath, ns))) {
      this.#rt.events.emit("warning", w);
    }
  }

  /** Warns of a conflict or a file left for a later run by a pull. */
  #reportPull(r: PullResult, ns: string): void {
    const warning = pullOutcome(r, this.#rt.cliTarget(this.#cachePath, ns));
    if (warning) this.#rt.events.emit("warning", warning);
  }

  #lockfileLocks(ns: string) {
    return transactionLocks(this.#rt.provider.lockBackend, ns, (k) => this.#rt.held.global(k));
  }

  /**
   * Marks the whole cache dirty (a bulk mark: the push walks it) when the
   * service holds no sync state yet and the cache holds files. The tool's
   * `datastore setup extension` copies files into a new cache without a mark,
   * pushes, then deletes its copies; the existing extensions walk a cache
   * they hold no state for, and so does this. The walk deletes nothing (the
   * cache recorded no synced file) and never overwrites a datastore copy this
   * cache never synced. In solo mode a cache whose root holds namespace
   * directories is not walked (the walk would take their files for root
   * files): that is warned, naming what to run.
   */
  async #walkUntouched(svc: SyncService, ns: string, signal?: AbortSignal): Promise<void> {
    if (!svc.state.untouched) return;
    const namespaceDirs = ns ? [] : await this.#namespaceDirsAtRoot();
    let found: string | undefined;
    for await (const f of walkFiles(svc.cacheDir)) {
      const first = f.path.split("/")[0];
      if (isInternalCacheFile(f.path) || f.path.endsWith(".tmp")) continue;
      if (namespaceDirs.includes(first)) continue;
      found = f.path;
      break;
    }
    if (found === undefined) return;
    if (namespaceDirs.length > 0) {
      this.#rt.events.emit("warning", {
        code: "unsynced_cache_not_walked",
        message: `The cache ${svc.cacheDir} was never synced in solo mode and holds files (${
          JSON.stringify(found)
        } among them) beside namespace directories (${
          namespaceDirs.join(", ")
        }), so this solo push did not walk it: a walk would take the namespaces' files for root files. Nothing was changed and no unmarked file was pushed. Set the repository's namespace (or move the namespace directories out of ${svc.cacheDir}), then push again.`,
        path: found,
      });
      return;
    }
    await svc.markDirty({ signal });
  }

  /** Root directories of the cache holding `.namespace.json`. */
  async #namespaceDirsAtRoot(): Promise<string[]> {
    const found: string[] = [];
    try {
      for await (const e of Deno.readDir(this.#cachePath)) {
        if (e.isDirectory && existsSync(`${this.#cachePath}/${e.name}/.namespace.json`)) {
          found.push(e.name);
        }
      }
    } catch {
      return [];
    }
    return found.sort();
  }

  pullChanged(options: SwampSyncOptions = {}): Promise<number> {
    return this.#telling(() => this.#pullChanged(options));
  }

  pushChanged(options: SwampSyncOptions = {}): Promise<number> {
    return this.#telling(() => this.#pushChanged(options));
  }

  preparePush(options: SwampSyncOptions = {}): Promise<SwampPushManifest> {
    return this.#telling(() => this.#preparePush(options));
  }

  commitPush(manifest: SwampPushManifest, options: SwampSyncOptions = {}): Promise<number> {
    return this.#telling(() => this.#commitPush(manifest, options));
  }

  hydrateFile(relPath: string, options: SwampSyncOptions = {}): Promise<boolean> {
    return this.#telling(() => this.#hydrateFile(relPath, options));
  }

  migrateMonolithToShards(options: SwampSyncOptions = {}): Promise<SwampMigratedIndex> {
    return this.#telling(() => this.#migrateMonolithToShards(options));
  }

  /**
   * Runs a call of the tool, writing its error in full where the tool's
   * user sees it before it reaches the tool, which shows only its first 200
   * characters (see `warnings.ts`).
   */
  async #telling<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      this.#rt.tellError(e);
      throw e;
    }
  }

  async #pullChanged(options: SwampSyncOptions = {}): Promise<number> {
    const ns = this.#bind(options.namespace);
    const svc = await this.#service(ns);
    await this.#adoptUnboundMarks(svc, ns);
    const models = options.context?.models ?? [];
    const r = await svc.pullChanged({
      signal: options.signal,
      ...(models.length > 0 ? { prefixes: modelPullPrefixes(models) } : {}),
    });
    this.#rt.held.pulled(this.#cachePath, r.fetched.map((p) => ns ? `${ns}/${p}` : p));
    this.#reportPull(r, ns);
    return r.fetched.length;
  }

  async #pushChanged(options: SwampSyncOptions = {}): Promise<number> {
    const ns = this.#bind(options.namespace);
    const svc = await this.#service(ns);
    await this.#walkUntouched(svc, ns, options.signal);
    await this.#adoptUnboundMarks(svc, ns);
    const { options: lockOptions, held } = await this.#pushOptions(ns);
    const p = this.#rt.provider;
    // Beside old clients, each create is checked at the commit (they delete
    // without a compare-and-swap).
    const push = { signal: options.signal, ...lockOptions, checkCreates: !!p.config.oldClients };
    // Beside old clients, a push the tool makes without the global lock
    // (its token commands do) commits under it, as theirs rely on it.
    const global = globalLockKey(ns);
    const commitLock = p.config.oldClients && !this.#rt.held.global(global)
      ? p.lockBackend.createLock(global, p.identity)
      : undefined;
    const r = await this.#fenced(
      ns,
      () => commitLock ? pushUnderGlobalLock(svc, commitLock, push) : svc.pushChanged(push),
    );
    this.#rt.held.committed(held);
    await publishLockfileChange(svc, this.#lockfileLocks(ns), options.signal);
    this.#settlePush(r, ns);
    return r.uploaded.length + r.deleted.length;
  }

  async #preparePush(options: SwampSyncOptions = {}): Promise<SwampPushManifest> {
    const ns = this.#bind(options.namespace);
    const svc = await this.#service(ns);
    await this.#walkUntouched(svc, ns, options.signal);
    await this.#adoptUnboundMarks(svc, ns);
    const { options: lockOptions, held } = await this.#pushOptions(ns);
    const checkCreates = !!this.#rt.provider.config.oldClients;
    const prepared = await this.#fenced(
      ns,
      () => svc.preparePush({ signal: options.signal, ...lockOptions, checkCreates }),
    );
    const manifest = {} as CarryingManifest;
    Object.defineProperty(manifest, PREPARED, {
      value: { namespace: ns, prepared, held, used: false },
      enumerable: false,
    });
    return Object.freeze(manifest) as SwampPushManifest;
  }

  async #commitPush(manifest: SwampPushManifest, options: SwampSyncOptions = {}): Promise<number> {
    const data = (manifest as CarryingManifest)[PREPARED];
    if (!data || data.used) {
      throw new SluiceError(
        "internal",
        "commitPush was given a manifest that preparePush of this process did not return. Nothing was committed; run the push again.",
      );
    }
    data.used = true; // committed once only
    const ns = data.namespace;
    const svc = await this.#service(ns);
    const { prepared, held } = this.#toCommit(data);
    // Sluice's commit fences the prepared locks again; a lost one refuses and erases.
    const r = await this.#fenced(
      ns,
      () => svc.commitPush(prepared, { signal: options.signal }),
    );
    this.#rt.held.committed(held);
    const count = r.uploaded.length + r.deleted.length;
    await publishLockfileChange(svc, this.#lockfileLocks(ns), options.signal);
    this.#settlePush(r, ns);
    return count;
  }

  async markDirty(options: SwampSyncOptions = {}): Promise<void> {
    if (options.relPath === undefined || options.relPath === "") {
      const ns = this.#namespace ?? await this.#onlyNamespace();
      await (await this.#service(ns)).markDirty({ signal: options.signal });
      return;
    }
    const { ns, rel } = this.#split(options.relPath);
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
    await this.#learnRegistered(relPath, options.signal);
    const { ns, rel } = this.#split(relPath);
    const svc = await this.#service(ns);
    const r = await svc.pullChanged({ signal: options.signal, prefixes: [rel] });
    this.#rt.held.pulled(this.#cachePath, r.fetched.map((p) => ns ? `${ns}/${p}` : p));
    this.#reportPull(r, ns);
    return r.fetched.includes(rel) || (await svc.cache.stat(rel)) !== null;
  }

  /**
   * Moves the namespace's index to v2 (core holds the global lock); a v2
   * index is left as it is. See `sync/transfer/migrate_index.ts`.
   */
  async #migrateMonolithToShards(options: SwampSyncOptions = {}): Promise<SwampMigratedIndex> {
    const ns = this.#bind(options.namespace);
    const svc = await this.#service(ns);
    const r = await migrateToShards(svc.store, {
      retry: svc.config.retry,
      signal: options.signal,
      concurrency: svc.config.concurrency,
      clock: () => svc.clock.now(),
    });
    return { version: r.version, partitions: r.partitions, commitSeq: r.commitSeq };
  }

  capabilities(): SwampSyncCapabilities {
    return {
      scopedSync: true,
      namespacedSync: true,
      twoPhaseSync: typeof SyncService.prototype.preparePush === "function" &&
        typeof SyncService.prototype.commitPush === "function",
      lazyHydration: false,
      previewPush: false,
      controlPlane: false,
    };
  }
}
