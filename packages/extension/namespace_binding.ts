/**
 * The namespace a sync service is bound to, and how a path names one
 * before it is bound.
 *
 * - The first pull, push or prepare binds the namespace (empty meaning
 *   solo); a later call naming another throws `invalid_config`, and one
 *   naming none is the bound namespace's.
 * - Before the namespace is bound, the first segment of a cache-relative
 *   path is taken as the namespace when it is a cache directory holding
 *   `.namespace.json` (asked once per root directory and service), or, for
 *   a file to hydrate, one whose manifest the datastore holds.
 * - Marks of `<ns>/…` paths made before that went to the solo state; the
 *   first sync of namespace `ns` moves them to it, once per service.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { SluiceError } from "../../sync/errors.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { STATE_DIR } from "../../sync/transfer/cache.ts";
import { sharedStateDir } from "../../sync/transfer/cache.ts";
import { DIRTY_FILE } from "../../sync/service/state.ts";
import { isNamespaceSlug, NAMESPACE_MAX_LENGTH, namespaceManifestKey } from "./namespaces.ts";
import { isInternalCacheFile } from "./cache_paths.ts";

/**
 * The namespace of one sync service over the cache `cachePath`, bound by
 * its first sync, and the namespace directories it found there.
 *
 * @example
 * ```ts
 * import { NamespaceBinding } from "./namespace_binding.ts";
 * import { InMemoryStore } from "../testing/in_memory_store.ts";
 * const binding = new NamespaceBinding("/tmp/cache", () => new InMemoryStore());
 * binding.bind("prod"); // "prod"
 * binding.split("prod/data/t/m/out"); // { ns: "prod", rel: "data/t/m/out" }
 * ```
 */
export class NamespaceBinding {
  readonly #cachePath: string;
  /** The datastore's store, asked whether a root directory is a registered namespace. */
  readonly #store: () => ObjectStore;
  #namespace?: string;
  /** Whether marks made before the namespace was bound were moved to it. */
  #adopted = false;
  /** Root directories of the cache found holding `.namespace.json` (or not). */
  readonly #namespaceDirs = new Map<string, boolean>();
  /** Root directories asked of the datastore whether they are registered namespaces. */
  readonly #registered = new Map<string, boolean>();

  /** A binding over the cache `cachePath` (no trailing slash); `store` is read only when needed. */
  constructor(cachePath: string, store: () => ObjectStore) {
    this.#cachePath = cachePath;
    this.#store = store;
  }

  /** The bound namespace (`""`: solo), or undefined before the first pull or push. */
  get namespace(): string | undefined {
    return this.#namespace;
  }

  /** Binds `namespace` (undefined: the bound one, else solo); throws when another is bound. */
  bind(namespace: string | undefined): string {
    // A call naming no namespace on a bound service is the bound namespace's:
    // the tool's token commands push so on the service a namespaced pull bound.
    if (namespace === undefined && this.#namespace !== undefined) return this.#namespace;
    const ns = namespace ?? "";
    // Never bound to a name `registerNamespace` refuses: its keys would be
    // a prefix no manifest names (a `/` in it one nested in another's).
    if (ns !== "" && !isNamespaceSlug(ns)) {
      throw new SluiceError(
        "invalid_config",
        `Namespace ${
          JSON.stringify(ns)
        } is not a valid namespace: it must be 1 to ${NAMESPACE_MAX_LENGTH} lower-case letters, digits or "-", starting and ending with a letter or digit. Nothing was synced; fix the repository's namespace (its .swamp.yaml, or "swamp datastore namespace set <name>") and run the command again.`,
      );
    }
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

  /**
   * Moves to namespace `ns` the marks of `<ns>/…` paths made while no
   * service knew it (a clone without the local manifest marks before its
   * first sync): they went to the solo state (`solo`), which a namespaced
   * push never reads, so its write would stay local, unpublished and
   * untold. Once per service, and only when the solo state has a dirty
   * journal.
   */
  async adoptUnboundMarks(
    svc: SyncService,
    ns: string,
    solo: () => Promise<SyncService>,
  ): Promise<void> {
    if (!ns || this.#adopted) return;
    this.#adopted = true;
    if (
      !existsSync(`${sharedStateDir(this.#cachePath, "")}/${DIRTY_FILE}`) &&
      !existsSync(`${this.#cachePath}/${STATE_DIR}/${DIRTY_FILE}`) // kept before the move
    ) return;
    const soloSvc = await solo();
    const mine = soloSvc.state.dirtyPaths().filter((p) => p.startsWith(`${ns}/`));
    if (mine.length === 0) return;
    await svc.markDirty({ relPaths: mine.map((p) => p.slice(ns.length + 1)) });
    await soloSvc.state.clean(mine);
  }

  /** Namespace and namespace-relative path of a cache-relative path. */
  split(relPath: string): { ns: string; rel: string } {
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
  async learnRegistered(relPath: string, signal?: AbortSignal): Promise<void> {
    if (this.#namespace !== undefined) return;
    const rel = relPath.replaceAll("\\", "/").replace(/^(\.\/)+/, "");
    const first = rel.split("/")[0];
    if (!first || first === rel || !isNamespaceSlug(first) || this.#detectNamespace(rel)) return;
    let found = this.#registered.get(first);
    if (found === undefined) {
      found = await this.#store().head(namespaceManifestKey(first), { signal })
        .then((info) => info !== null, () => false);
      this.#registered.set(first, found);
    }
    if (found) this.#namespaceDirs.set(first, true);
  }

  /**
   * The namespace the cache is laid out for, before any binding: the one
   * root directory holding `.namespace.json`, when nothing else at the root
   * is data of the solo layout (files the existing extensions keep local and
   * Sluice's state aside); else `""` (solo, or not known). A solo cache
   * beside a namespace directory left behind, or one holding two, is solo,
   * as the existing extensions take every call made before a binding.
   */
  async impliedNamespace(): Promise<string> {
    const found: string[] = [];
    try {
      for await (const e of Deno.readDir(this.#cachePath)) {
        if (e.name === STATE_DIR || isInternalCacheFile(e.name)) continue;
        const holds = e.isDirectory && existsSync(`${this.#cachePath}/${e.name}/.namespace.json`);
        if (e.isDirectory) this.#namespaceDirs.set(e.name, holds);
        // Anything else at the root is data of the solo layout.
        if (!holds) return "";
        found.push(e.name);
      }
    } catch {
      return "";
    }
    return found.length === 1 ? found[0] : "";
  }

  /** The namespace of the cache when exactly one root directory holds `.namespace.json`. */
  async onlyNamespace(): Promise<string> {
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
}
