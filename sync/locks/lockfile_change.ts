/**
 * The managed lockfile's content and the changes made to it: a JSON object
 * of extension entries, a change that sets and removes named entries, and
 * the published form (sorted keys). Pure functions; the transaction that
 * publishes a change is `lockfile_txn.ts`.
 *
 * @module
 */
import { ConfigError } from "../errors.ts";
import { assertSafeRelPath } from "../paths.ts";

/** Cache-relative path of the managed lockfile, before any namespace. */
export const MANAGED_LOCKFILE_PATH = "config/upstream_extensions.json";

/** True for `config/upstream_extensions.json` and `<ns>/config/upstream_extensions.json`. */
export function isManagedLockfilePath(path: string): boolean {
  return path === MANAGED_LOCKFILE_PATH ||
    (path.endsWith(`/${MANAGED_LOCKFILE_PATH}`) &&
      path.split("/").length === MANAGED_LOCKFILE_PATH.split("/").length + 1);
}

/**
 * The lockfile path for a namespace.
 *
 * @example
 * ```ts
 * import { managedLockfilePath } from "./lockfile_change.ts";
 * managedLockfilePath("prod"); // "prod/config/upstream_extensions.json"
 * ```
 */
export function managedLockfilePath(namespace?: string): string {
  if (namespace === undefined || namespace === "") return MANAGED_LOCKFILE_PATH;
  assertSafeRelPath(namespace);
  if (namespace.includes("/")) throw new ConfigError("namespace", "a single path segment");
  return `${namespace}/${MANAGED_LOCKFILE_PATH}`;
}

/** The lockfile's content: extension name → entry (any JSON value). */
export type LockfileEntries = Record<string, unknown>;

/** A change to named entries: `set` adds or replaces, `remove` deletes. */
export interface LockfileChange {
  /** Entries to add or replace, by name. */
  readonly set?: Readonly<Record<string, unknown>>;
  /** Names of entries to remove. */
  readonly remove?: readonly string[];
  /**
   * For an entry set or removed: the value it had where the change was made
   * (null: no such entry). Where the datastore's copy holds another value by
   * the time the change is applied (another checkout changed that entry
   * meanwhile), that entry is left as the datastore has it and the change
   * of it is told of (`lockfile_entry_conflict`), never applied over the
   * other; an entry without one is applied as it is.
   */
  readonly base?: Readonly<Record<string, unknown>>;
}

/** `b` after `a`, as one change (`set` and `remove` stay disjoint). */
export function mergeLockfileChanges(a: LockfileChange, b: LockfileChange): LockfileChange {
  const set: LockfileEntries = { ...(a.set ?? {}) };
  const remove = new Set(a.remove ?? []);
  for (const name of b.remove ?? []) {
    delete set[name];
    remove.add(name);
  }
  for (const [name, value] of Object.entries(b.set ?? {})) {
    remove.delete(name);
    set[name] = value;
  }
  // The value each entry had before the first of the two changes made it:
  // an entry either change made unconditionally (no base) stays so, and one
  // both made keeps the first's (the second's was a value never published).
  const touched = (c: LockfileChange, name: string) =>
    Object.hasOwn(c.set ?? {}, name) || (c.remove ?? []).includes(name);
  const base: Record<string, unknown> = {};
  for (const name of [...Object.keys(set), ...remove]) {
    const inA = touched(a, name);
    const inB = touched(b, name);
    if (inB && !Object.hasOwn(b.base ?? {}, name)) continue;
    if (inA && !Object.hasOwn(a.base ?? {}, name)) continue;
    if (inA) base[name] = a.base![name];
    else if (inB) base[name] = b.base![name];
  }
  return {
    set,
    remove: [...remove].sort(),
    ...(Object.keys(base).length > 0 ? { base } : {}),
  };
}

/** True when two entry values are equal as JSON (key order aside; undefined and null alike: no entry). */
export function sameLockfileValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortDeep(a ?? null)) === JSON.stringify(sortDeep(b ?? null));
}

/**
 * The entries of `change` whose base (see `LockfileChange.base`) `remote`
 * no longer holds, where the change would not leave them as `remote` has
 * them anyway: another checkout changed each meanwhile. Returns the change
 * without them, and them.
 */
export function splitConflictingEntries(
  remote: LockfileEntries,
  change: LockfileChange,
): {
  change: LockfileChange;
  conflicts: { name: string; mine: unknown; base: unknown; theirs: unknown }[];
} {
  const base = change.base ?? {};
  const conflicts: { name: string; mine: unknown; base: unknown; theirs: unknown }[] = [];
  const stale = (name: string, mine: unknown) =>
    Object.hasOwn(base, name) && !sameLockfileValue(remote[name], base[name]) &&
    !sameLockfileValue(remote[name], mine);
  const set: LockfileEntries = {};
  for (const [name, value] of Object.entries(change.set ?? {})) {
    if (stale(name, value)) {
      conflicts.push({ name, mine: value, base: base[name] ?? null, theirs: remote[name] ?? null });
    } else set[name] = value;
  }
  const remove: string[] = [];
  for (const name of change.remove ?? []) {
    if (stale(name, null)) {
      conflicts.push({ name, mine: null, base: base[name] ?? null, theirs: remote[name] ?? null });
    } else remove.push(name);
  }
  return { change: { set, remove }, conflicts };
}

/** Applies a change to entries, returning new entries. */
export function applyLockfileChange(
  entries: LockfileEntries,
  change: LockfileChange,
): LockfileEntries {
  const out: LockfileEntries = { ...entries };
  for (const name of change.remove ?? []) delete out[name];
  Object.assign(out, change.set ?? {});
  return out;
}

/** True when a change sets and removes nothing. */
export function isEmptyLockfileChange(change: LockfileChange): boolean {
  return Object.keys(change.set ?? {}).length === 0 && (change.remove ?? []).length === 0;
}

/** A one-line description of a change, for messages. */
export function describeLockfileChange(change: LockfileChange): string {
  const set = Object.keys(change.set ?? {});
  const remove = change.remove ?? [];
  const parts = [
    ...(set.length ? [`set ${set.join(", ")}`] : []),
    ...(remove.length ? [`remove ${remove.join(", ")}`] : []),
  ];
  return parts.length ? parts.join("; ") : "no change";
}

/** Throws `invalid_config` for an empty name, an undefined value, or a name both set and removed. */
export function validateLockfileChange(change: LockfileChange): void {
  const set = Object.entries(change.set ?? {});
  for (const [name, value] of set) {
    if (name === "") throw new ConfigError("change.set", "entry names must not be empty");
    if (value === undefined) throw new ConfigError(`change.set.${name}`, "a JSON value");
  }
  for (const name of change.remove ?? []) {
    if (typeof name !== "string" || name === "") {
      throw new ConfigError("change.remove", "non-empty entry names");
    }
    if (change.set && Object.hasOwn(change.set, name)) {
      throw new ConfigError("change", `${name} both set and removed in one change`);
    }
  }
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, sortDeep(o[k])]));
}

/** The published form: sorted keys, two-space indent, trailing newline. */
export function serializeLockfile(entries: LockfileEntries): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(sortDeep(entries), null, 2)}\n`);
}

/** Parses lockfile bytes; throws a plain Error saying what is wrong unless a JSON object. */
export function parseLockfile(body: Uint8Array): LockfileEntries {
  const j = JSON.parse(new TextDecoder().decode(body));
  if (j === null || typeof j !== "object" || Array.isArray(j)) {
    const kind = j === null ? "null" : Array.isArray(j) ? "an array" : `a ${typeof j}`;
    throw new Error(`not a JSON object: it is ${kind}`);
  }
  return j as LockfileEntries;
}

/** True when two entry sets are equal as JSON (key order aside). */
export const sameLockfileEntries = (a: LockfileEntries, b: LockfileEntries): boolean =>
  JSON.stringify(sortDeep(a)) === JSON.stringify(sortDeep(b));
