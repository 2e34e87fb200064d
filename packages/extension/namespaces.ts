/**
 * Namespace manifests in the datastore: `<ns>/.namespace.json` (under the
 * store's key prefix, as every key), whose body is
 * `{namespace, repoId, registeredAt}` pretty-printed with two spaces, the
 * layout the existing extensions write. The tool calls
 * {@link registerNamespace} when a repository sets its namespace, and only
 * once it succeeded writes its own copy into the cache, which the sync
 * service then recognises as a namespace directory.
 *
 * - Registering creates the manifest create-only. When it exists and names
 *   the same repository, it is rewritten with a fresh `registeredAt` by a
 *   compare-and-swap on the version read (idempotent); when it names another
 *   repository, or is no manifest at all, the registration is refused
 *   ({@link NamespaceTakenError}) and the object kept.
 * - After a write the manifest is read back, and a registration whose
 *   manifest names another repository by then is refused. Where the store
 *   honours conditional writes the create already decides the race. Where
 *   Sluice falls back to check-then-write (an endpoint that ignores or
 *   refuses them, or `conditionalWrites: "off"`), two writers can both pass
 *   their check; the read-back then lets only the one whose write stayed
 *   win. Both still win when one's write and read-back both land between
 *   the other's check and write: only conditional writes close that.
 * - Listing reads the whole store page by page and keeps the slugs of the
 *   keys `<slug>/.namespace.json`, one level deep.
 *
 * The manifests are layout-internal (`isLayoutInternal`,
 * `isInternalCacheFile`): never indexed, pushed or pulled.
 *
 * @module
 */
import {
  AlreadyExistsError,
  NotFoundError,
  PreconditionFailedError,
  SluiceError,
} from "../../sync/errors.ts";
import { type Clock, type ObjectStore, PutModes } from "../../sync/ports.ts";

/** The slug pattern of a namespace (the tool's own rule). */
export const NAMESPACE_PATTERN: RegExp = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** The longest namespace slug the tool accepts. */
export const NAMESPACE_MAX_LENGTH = 64;

/** The manifest's name inside its namespace directory. */
export const NAMESPACE_MANIFEST = ".namespace.json";

/** How often a registration starts over when the manifest vanished under it. */
const MAX_ATTEMPTS = 5;

/** The body of a namespace manifest. */
export interface NamespaceManifest {
  readonly namespace: string;
  readonly repoId: string;
  readonly registeredAt: string;
}

/**
 * True when `slug` is a namespace the tool accepts.
 *
 * @example
 * ```ts
 * import { isNamespaceSlug } from "./namespaces.ts";
 * isNamespaceSlug("prod-1"); // true
 * isNamespaceSlug("Prod"); // false
 * ```
 */
export function isNamespaceSlug(slug: string): boolean {
  return slug.length <= NAMESPACE_MAX_LENGTH && NAMESPACE_PATTERN.test(slug);
}

/** The manifest key of `namespace`, relative to the datastore's store. */
export function namespaceManifestKey(namespace: string): string {
  return `${namespace}/${NAMESPACE_MANIFEST}`;
}

/**
 * A namespace is registered in the datastore by another repository (or its
 * manifest cannot be read as one): the registration was refused and the
 * manifest kept.
 */
export class NamespaceTakenError extends SluiceError {
  /** The namespace asked for. */
  readonly namespace: string;
  /** The repository that asked. */
  readonly repoId: string;
  /** The repository the manifest names; undefined when it names none. */
  readonly registeredBy?: string;

  constructor(namespace: string, repoId: string, key: string, registeredBy: string | undefined) {
    const what = registeredBy === undefined
      ? `Namespace "${namespace}" has an object at ${key} that is not a namespace manifest (a JSON object with a string repoId)`
      : `Namespace "${namespace}" is already registered by repo ${registeredBy}`;
    super(
      "namespace_taken",
      `${what}; the registration of repo ${repoId} was refused and the existing ${key} was kept. Choose another namespace with "swamp datastore namespace set <name>"; or, if no repository uses "${namespace}" any more, delete ${key} from the datastore and run the command again.`,
    );
    this.namespace = namespace;
    this.repoId = repoId;
    if (registeredBy !== undefined) this.registeredBy = registeredBy;
  }
}

function invalid(message: string): SluiceError {
  return new SluiceError("invalid_config", message);
}

/** Throws `invalid_config` unless `namespace` is a slug and `repoId` a non-empty string. */
export function assertRegistrable(namespace: unknown, repoId: unknown): void {
  if (typeof namespace !== "string" || !isNamespaceSlug(namespace)) {
    throw invalid(
      `Namespace ${
        JSON.stringify(namespace)
      } is not a valid namespace: it must be 1 to ${NAMESPACE_MAX_LENGTH} lower-case letters, digits or "-", starting and ending with a letter or digit. Nothing was written to the datastore; choose a valid name and run "swamp datastore namespace set <name>" again.`,
    );
  }
  if (typeof repoId !== "string" || repoId === "") {
    throw invalid(
      `Namespace "${namespace}" cannot be registered without a repository id (got ${
        JSON.stringify(repoId)
      }). Nothing was written to the datastore; run the command from an initialised repository.`,
    );
  }
}

/** The manifest's `repoId`, or undefined when the body is no manifest. */
function registeredBy(body: Uint8Array): string | undefined {
  try {
    const o = JSON.parse(new TextDecoder().decode(body));
    if (typeof o !== "object" || o === null || Array.isArray(o)) return undefined;
    return typeof o.repoId === "string" ? o.repoId : undefined;
  } catch {
    return undefined;
  }
}

/** The manifest body: pretty-printed with two spaces, as the existing extensions write it. */
export function manifestBody(manifest: NamespaceManifest): Uint8Array {
  const { namespace, repoId, registeredAt } = manifest;
  return new TextEncoder().encode(JSON.stringify({ namespace, repoId, registeredAt }, null, 2));
}

/** What {@link registerNamespace} writes with. */
export interface RegisterDeps {
  /**
   * The datastore's store (its keys under the configured prefix), behind
   * the conditional-write fallback as the locks use it.
   */
  readonly store: ObjectStore;
  /** The datastore's clock: `registeredAt` is its time. */
  readonly clock: Clock;
}

/**
 * Registers `namespace` for `repoId` (see the module notes): creates the
 * manifest, refreshes it when the same repository holds it, and throws
 * {@link NamespaceTakenError} when another does, `invalid_config` for a bad
 * slug or repository id.
 *
 * @example
 * ```ts
 * import { registerNamespace } from "./namespaces.ts";
 * import { InMemoryStore } from "../testing/in_memory_store.ts";
 * import { systemClock } from "../../sync/clock.ts";
 * const store = new InMemoryStore();
 * await registerNamespace({ store, clock: systemClock }, "prod", "repo-1");
 * console.log(store.keys("")); // ["prod/.namespace.json"]
 * ```
 */
export async function registerNamespace(
  deps: RegisterDeps,
  namespace: string,
  repoId: string,
): Promise<void> {
  assertRegistrable(namespace, repoId);
  const { store, clock } = deps;
  const key = namespaceManifestKey(namespace);
  const body = () =>
    manifestBody({ namespace, repoId, registeredAt: new Date(clock.now()).toISOString() });
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      await store.put(key, body(), PutModes.create);
      return await confirm(store, key, namespace, repoId);
    } catch (e) {
      if (!(e instanceof AlreadyExistsError)) throw e;
    }
    let current;
    try {
      current = await store.get(key);
    } catch (e) {
      if (e instanceof NotFoundError) continue; // deleted since: create again
      throw e;
    }
    const holder = registeredBy(current.body);
    if (holder !== repoId) throw new NamespaceTakenError(namespace, repoId, key, holder);
    try {
      await store.put(key, body(), PutModes.update(current.version));
    } catch (e) {
      // Changed since the read: whoever wrote it decides (confirm reads it).
      if (!(e instanceof PreconditionFailedError)) throw e;
    }
    return await confirm(store, key, namespace, repoId);
  }
  throw new SluiceError(
    "precondition_failed",
    `The namespace manifest ${key} was created and deleted by other writers ${MAX_ATTEMPTS} times while repo ${repoId} registered "${namespace}"; nothing is registered for it. Run the command again.`,
    { retryable: true },
  );
}

/** Reads the manifest back: it must name `repoId` (another writer may have replaced it). */
async function confirm(
  store: ObjectStore,
  key: string,
  namespace: string,
  repoId: string,
): Promise<void> {
  let current;
  try {
    current = await store.get(key);
  } catch (e) {
    if (!(e instanceof NotFoundError)) throw e;
    throw new SluiceError(
      "precondition_failed",
      `The namespace manifest ${key} was deleted right after repo ${repoId} wrote it; "${namespace}" is not registered. Run the command again.`,
      { retryable: true },
    );
  }
  const holder = registeredBy(current.body);
  if (holder !== repoId) throw new NamespaceTakenError(namespace, repoId, key, holder);
}

/**
 * The slugs of every `<slug>/.namespace.json` in `store`, sorted; `[]` when
 * there is none. The whole store is listed, page by page.
 *
 * @example
 * ```ts
 * import { listNamespaces } from "./namespaces.ts";
 * import { InMemoryStore } from "../testing/in_memory_store.ts";
 * const store = new InMemoryStore();
 * store.seed("prod/.namespace.json", "{}");
 * console.log(await listNamespaces(store)); // ["prod"]
 * ```
 */
export async function listNamespaces(
  store: ObjectStore,
  options: { readonly signal?: AbortSignal } = {},
): Promise<string[]> {
  const suffix = `/${NAMESPACE_MANIFEST}`;
  const found = new Set<string>();
  for await (const page of store.list("", { signal: options.signal })) {
    for (const { key } of page) {
      if (!key.endsWith(suffix)) continue;
      const slug = key.slice(0, -suffix.length);
      if (isNamespaceSlug(slug)) found.add(slug);
    }
  }
  return [...found].sort();
}
