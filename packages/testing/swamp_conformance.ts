/**
 * Conformance checks for datastore extensions of the "swamp" tool, written
 * from the documented contract: what an extension's `datastore` export, its
 * locks, its health check and its sync service must do. Each check throws an
 * `AssertionError` saying which rule failed.
 *
 * The checks take plain structural shapes, so they apply to any extension,
 * not only Sluice's.
 *
 * @module
 */
import { AssertionError } from "node:assert";

function fail(message: string): never {
  throw new AssertionError({ message });
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

type Dict = Record<string, unknown>;
const isObject = (v: unknown): v is Dict => typeof v === "object" && v !== null;
const isFn = (v: unknown): v is (...args: unknown[]) => unknown => typeof v === "function";

function methods(value: unknown, what: string, names: readonly string[]): Dict {
  check(isObject(value), `${what} must be an object, got ${String(value)}`);
  for (const n of names) check(isFn(value[n]), `${what}.${n} must be a function`);
  return value;
}

/** The type pattern of the conformance rule (stricter than the loader's). */
export const SWAMP_TYPE_PATTERN: RegExp = /^@?[a-z][a-z0-9_-]*\/[a-z0-9][a-z0-9_-]*$/;

/** Options of {@link assertSwampExportConformance}. */
export interface SwampExportConformanceOptions {
  /** Configs the schema must accept (at least one; the first is used to create a provider). */
  readonly validConfigs: readonly Record<string, unknown>[];
  /** Configs the schema must refuse. */
  readonly invalidConfigs?: readonly unknown[];
}

/**
 * Checks a `datastore` export: `type`, `name`, `description`, a schema with
 * `safeParse` accepting every valid and refusing every invalid config, and a
 * provider from the first valid config with `createLock`, `createVerifier`
 * and `resolveDatastorePath`, whose lock (made without options) and
 * verifier have their methods; the optional `createSyncService`,
 * `resolveCachePath`, `registerNamespace` and `listNamespaces` are functions
 * when present. Synchronous and free of I/O.
 *
 * @example
 * ```ts ignore
 * import { assertSwampExportConformance } from "./swamp_conformance.ts";
 * import { datastore } from "../../extensions/s3/extensions/datastores/sluice_s3.ts";
 * assertSwampExportConformance(datastore, { validConfigs: [{ bucket: "my-bucket" }], invalidConfigs: [{}] });
 * ```
 */
export function assertSwampExportConformance(
  exported: unknown,
  options: SwampExportConformanceOptions,
): void {
  check(options.validConfigs.length >= 1, "give at least one valid config");
  check(isObject(exported), "the datastore export must be an object");
  const { type, name, description, configSchema, createProvider } = exported;
  check(typeof type === "string", "datastore.type must be a string");
  check(
    SWAMP_TYPE_PATTERN.test(type),
    `datastore.type ${JSON.stringify(type)} must match ${SWAMP_TYPE_PATTERN}`,
  );
  check(typeof name === "string" && name.length > 0, "datastore.name must be a non-empty string");
  check(
    typeof description === "string" && description.length > 0,
    "datastore.description must be a non-empty string",
  );
  const schema = methods(configSchema, "datastore.configSchema", ["safeParse"]);
  const safeParse = schema.safeParse as (v: unknown) => unknown;
  for (const c of options.validConfigs) {
    const r = safeParse.call(schema, c);
    check(isObject(r) && r.success === true, `the schema must accept ${JSON.stringify(c)}`);
  }
  for (const c of options.invalidConfigs ?? []) {
    const r = safeParse.call(schema, c);
    check(isObject(r) && r.success === false, `the schema must refuse ${JSON.stringify(c)}`);
  }
  check(isFn(createProvider), "datastore.createProvider must be a function");
  const provider = methods(
    createProvider.call(exported, options.validConfigs[0]),
    "the provider",
    ["createLock", "createVerifier", "resolveDatastorePath"],
  );
  const path = (provider.resolveDatastorePath as (r: string) => unknown).call(
    provider,
    "/tmp/test-repo",
  );
  check(typeof path === "string" && path.length > 0, "resolveDatastorePath must return a path");
  methods(
    (provider.createLock as (p: string) => unknown).call(provider, "/tmp/test-ds"),
    "createLock(path)",
    ["acquire", "release", "withLock", "inspect", "forceRelease"],
  );
  methods(
    (provider.createVerifier as () => unknown).call(provider),
    "createVerifier()",
    ["verify"],
  );
  for (const n of OPTIONAL_PROVIDER_METHODS) {
    check(
      provider[n] === undefined || isFn(provider[n]),
      `the provider's optional ${n} must be a function when present`,
    );
  }
}

/** The provider's optional members, by name. */
export const OPTIONAL_PROVIDER_METHODS: readonly string[] = [
  "createSyncService",
  "resolveCachePath",
  "registerNamespace",
  "listNamespaces",
];

/** The namespace calls the checks drive. */
export interface NamespacingProvider {
  registerNamespace?(datastorePath: string, namespace: string, repoId: string): Promise<void>;
  listNamespaces?(datastorePath: string): Promise<string[]>;
}

/** Options of {@link assertSwampNamespaceConformance}. */
export interface SwampNamespaceConformanceOptions {
  /** What the tool passes as `datastorePath` (`resolveDatastorePath` of a repository). */
  readonly datastorePath: string;
  /** A slug not registered in the datastore yet; default `conformance-ns`. */
  readonly namespace?: string;
}

/**
 * Checks a provider's namespace calls on a datastore where `namespace` is
 * not registered, in order: both exist; `listNamespaces` resolves to an
 * array of strings without it; `registerNamespace` of it for one repository
 * resolves, and it is listed; the same repository again resolves
 * (idempotent); another repository is refused with a message containing
 * "already registered by repo <first>", and it is still listed once; a slug
 * that is not one (`Not_A_Slug`) is refused.
 *
 * @example
 * ```ts ignore
 * import { assertSwampNamespaceConformance } from "./swamp_conformance.ts";
 * await assertSwampNamespaceConformance(provider, { datastorePath: provider.resolveDatastorePath(repo) });
 * ```
 */
export async function assertSwampNamespaceConformance(
  provider: NamespacingProvider,
  options: SwampNamespaceConformanceOptions,
): Promise<void> {
  const p = methods(provider, "the provider", ["registerNamespace", "listNamespaces"]);
  const path = options.datastorePath;
  const ns = options.namespace ?? "conformance-ns";
  const register = (slug: string, repoId: string) =>
    (p.registerNamespace as NonNullable<NamespacingProvider["registerNamespace"]>).call(
      p,
      path,
      slug,
      repoId,
    );
  const list = async () => {
    const r = await (p.listNamespaces as NonNullable<NamespacingProvider["listNamespaces"]>)
      .call(p, path);
    check(
      Array.isArray(r) && r.every((s) => typeof s === "string"),
      "listNamespaces() must resolve to an array of strings",
    );
    return r;
  };
  const rejection = async (run: () => Promise<void>): Promise<unknown> => {
    try {
      await run();
    } catch (e) {
      return e ?? new Error("rejected");
    }
    return undefined;
  };
  check(!(await list()).includes(ns), `give a namespace not registered yet, not "${ns}"`);
  await register(ns, "conformance-repo-a");
  check((await list()).includes(ns), `listNamespaces() must list "${ns}" once registered`);
  await register(ns, "conformance-repo-a"); // idempotent: must not reject
  const refused = await rejection(() => register(ns, "conformance-repo-b"));
  check(refused !== undefined, "registerNamespace must reject a slug another repoId holds");
  const message = refused instanceof Error ? refused.message : String(refused);
  check(
    message.includes("already registered by repo conformance-repo-a"),
    `the refusal must say "already registered by repo conformance-repo-a", got ${
      JSON.stringify(message)
    }`,
  );
  check(
    (await list()).filter((s) => s === ns).length === 1,
    `listNamespaces() must list "${ns}" exactly once after the refusal`,
  );
  check(
    (await rejection(() => register("Not_A_Slug", "conformance-repo-a"))) !== undefined,
    "registerNamespace must reject a slug that is not one",
  );
}

/** The lock shape the checks drive. */
export interface ConformingLock {
  acquire(): Promise<void>;
  release(): Promise<void>;
  withLock<T>(fn: () => T | Promise<T>): Promise<T>;
  inspect(): Promise<unknown>;
  forceRelease(nonce: string): Promise<boolean>;
}

/**
 * Checks a lock on a fresh key, in order: absent before acquire; after
 * acquire the body has `holder`, `pid`, `acquiredAt`, `ttlMs`; absent after
 * release, and a second release does not throw; `withLock` returns its
 * function's value and frees the lock, also when the function rejects;
 * `forceRelease` with the held nonce deletes (true, then absent), with
 * another nonce does not (false, still held).
 *
 * @example
 * ```ts ignore
 * import { assertSwampLockConformance } from "./swamp_conformance.ts";
 * await assertSwampLockConformance(provider.createLock(dsPath, { lockKey: "conformance/1.lock" }));
 * ```
 */
export async function assertSwampLockConformance(lock: ConformingLock): Promise<void> {
  check((await lock.inspect()) === null, "inspect() must be null before acquire");
  await lock.acquire();
  const info = await lock.inspect();
  check(isObject(info), "inspect() must return the lock body after acquire");
  check(typeof info.holder === "string", "the lock body needs holder: string");
  check(typeof info.pid === "number", "the lock body needs pid: number");
  check(typeof info.acquiredAt === "string", "the lock body needs acquiredAt: string");
  check(typeof info.ttlMs === "number", "the lock body needs ttlMs: number");
  await lock.release();
  check((await lock.inspect()) === null, "inspect() must be null after release");
  await lock.release();

  const v = await lock.withLock(() => 42);
  check(v === 42, `withLock must resolve to its function's value, got ${String(v)}`);
  check((await lock.inspect()) === null, "the lock must be free after withLock");
  let rejected = false;
  try {
    await lock.withLock(() => Promise.reject(new Error("boom")));
  } catch {
    rejected = true;
  }
  check(rejected, "withLock must reject when its function rejects");
  check((await lock.inspect()) === null, "the lock must be free after a rejecting withLock");

  await lock.acquire();
  const held = await lock.inspect();
  check(isObject(held) && typeof held.nonce === "string", "the lock body needs nonce: string");
  check((await lock.forceRelease(held.nonce)) === true, "forceRelease(held nonce) must be true");
  check((await lock.inspect()) === null, "inspect() must be null after forceRelease");
  await lock.release().catch(() => {});

  await lock.acquire();
  check(
    (await lock.forceRelease("wrong-nonce-value")) === false,
    "forceRelease(another nonce) must be false",
  );
  check((await lock.inspect()) !== null, "a lock must stay held after a refused forceRelease");
  await lock.release();
}

/**
 * Checks a health check: `verify()` resolves to `{healthy: boolean,
 * message: string, latencyMs: number >= 0, datastoreType: string}`.
 *
 * @example
 * ```ts ignore
 * import { assertSwampVerifierConformance } from "./swamp_conformance.ts";
 * await assertSwampVerifierConformance(provider.createVerifier());
 * ```
 */
export async function assertSwampVerifierConformance(
  verifier: { verify(): Promise<unknown> },
): Promise<void> {
  const r = await verifier.verify();
  check(isObject(r), "verify() must resolve to an object");
  check(typeof r.healthy === "boolean", "the report needs healthy: boolean");
  check(typeof r.message === "string", "the report needs message: string");
  check(typeof r.latencyMs === "number" && r.latencyMs >= 0, "the report needs latencyMs >= 0");
  check(typeof r.datastoreType === "string", "the report needs datastoreType: string");
}

/**
 * Checks a sync service: `pullChanged`, `pushChanged`, `markDirty` exist and
 * run without arguments (the first two resolving to a number or nothing),
 * and `capabilities()`, when present, returns an object whose `scopedSync`
 * is a boolean (true when `expectScopedSync`).
 *
 * @example
 * ```ts ignore
 * import { assertSwampSyncServiceConformance } from "./swamp_conformance.ts";
 * await assertSwampSyncServiceConformance(provider.createSyncService(repo, cache), { expectScopedSync: true });
 * ```
 */
export async function assertSwampSyncServiceConformance(
  service: unknown,
  options: { readonly expectScopedSync?: boolean } = {},
): Promise<void> {
  const svc = methods(service, "the sync service", ["pullChanged", "pushChanged", "markDirty"]);
  const call = (n: string) => (svc[n] as () => Promise<unknown>).call(svc);
  await call("markDirty");
  for (const n of ["pullChanged", "pushChanged"]) {
    const r = await call(n);
    check(r === undefined || typeof r === "number", `${n}() must resolve to a number or nothing`);
  }
  if (svc.capabilities === undefined) {
    check(!options.expectScopedSync, "capabilities() is needed to advertise scopedSync");
    return;
  }
  const caps = (svc.capabilities as () => unknown).call(svc);
  check(isObject(caps), "capabilities() must return an object");
  if (caps.scopedSync !== undefined) {
    check(typeof caps.scopedSync === "boolean", "capabilities().scopedSync must be a boolean");
  }
  if (options.expectScopedSync) check(caps.scopedSync === true, "scopedSync must be true");
}
