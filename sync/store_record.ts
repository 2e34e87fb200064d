/**
 * What a cache records of the store it mirrors (`cli-store.json` in its
 * state directory): written by the command line on a cache's first sync,
 * and by the datastore extension for the caches it syncs, so that the
 * command line run on a cache takes that store without `--store` and
 * refuses another one (its sync records would be taken for the other's).
 *
 * @module
 */
import { ConfigError, SluiceError } from "./errors.ts";
import { z } from "zod";
import { classifierRuleSchema } from "./config_schema.ts";
import type { ClassifierRule } from "./context.ts";
import { shellWord } from "./shell_word.ts";
import { DIRTY_FILE } from "./service/state.ts";
import { PROBE_STATE_FILE } from "./transfer/conditional.ts";
import { OWNERS_DIR, STATE_LOCK_FILE } from "./service/state_lock.ts";

/** The state file recording the store a cache mirrors. */
export const STORE_RECORD = "cli-store.json";

/** What a cache records of the store it mirrors. */
export interface StoreRecord {
  format: 1;
  /** The store URL, as `--store` takes it. */
  url: string;
  /** The store's identity: `s3://bucket/prefix`, `gs://bucket/prefix` or `file:///dir`. */
  identity: string;
  /**
   * `hold` where the swamp extension made the cache: a data version whose
   * `metadata.yaml` is not written yet is still being written by the tool,
   * and every push on this cache (the command line's too) holds it.
   */
  unfinishedVersions?: "hold";
  /**
   * The datastore configuration's extra classifier rules, where the swamp
   * extension made the cache with some: the command line run on this cache
   * follows them too (a path they class `internal` is never pushed nor pulled).
   */
  classifierRules?: ClassifierRule[];
}

/**
 * The classifier rules a store record holds (none: `[]`). A record whose
 * rules are no list of `{pattern, class}` rules is refused (`invalid_config`):
 * taken for none, the command line would push what they keep local.
 *
 * @example
 * ```ts
 * import { recordedClassifierRules } from "./store_record.ts";
 * const rules = [{ pattern: "scratch/**", class: "internal" as const }];
 * console.log(recordedClassifierRules({ format: 1, url: "s3://b/p", identity: "s3://b/p", classifierRules: rules }));
 * ```
 */
export function recordedClassifierRules(record: StoreRecord | null): ClassifierRule[] {
  if (record?.classifierRules === undefined) return [];
  const r = z.array(classifierRuleSchema).safeParse(record.classifierRules);
  if (!r.success) {
    throw new ConfigError(
      `${STORE_RECORD}: classifierRules`,
      "a list of {pattern, class} rules, as the datastore configuration recorded them",
    );
  }
  return r.data;
}

/**
 * The endpoint a recorded store URL names, normalised (origin and path,
 * without a trailing slash); "" for the service's own endpoint (none named,
 * or a `file://` store, or the service's own spelled out); null when the URL
 * does not parse.
 *
 * @example
 * ```ts
 * import { recordedEndpoint } from "./store_record.ts";
 * console.log(recordedEndpoint("s3://b/p?endpoint=http://127.0.0.1:9000/")); // http://127.0.0.1:9000
 * ```
 */
export function recordedEndpoint(url: string): string | null {
  let endpoint: string | null;
  let scheme: string;
  try {
    const parsed = new URL(url);
    endpoint = parsed.searchParams.get("endpoint");
    scheme = parsed.protocol;
  } catch {
    return null;
  }
  if (!endpoint) return "";
  try {
    const u = new URL(endpoint);
    const at = `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
    // The service's own endpoint, spelled out: the same datastore as none named.
    if (scheme === "gs:" && at === "https://storage.googleapis.com") return "";
    if (scheme === "s3:" && /^https:\/\/s3([.-][a-z0-9-]+)?\.amazonaws\.com$/.test(at)) return "";
    return at;
  } catch {
    return endpoint;
  }
}

/**
 * True when the state directory `stateDir` holds nothing but the cache's
 * record of a store (and an empty dirty set, a cached endpoint probe, or the
 * locks of the processes sharing it): no
 * file was ever synced, marked, set aside or left in conflict there. Also
 * true when there is no such directory.
 */
export async function holdsNoSyncRecord(stateDir: string): Promise<boolean> {
  try {
    for await (const e of Deno.readDir(stateDir)) {
      if (e.name === STORE_RECORD || e.name === PROBE_STATE_FILE) continue;
      // The locks of processes sharing the cache (any push or pull takes them): no record of a sync.
      if (e.name === STATE_LOCK_FILE || e.name === OWNERS_DIR) continue;
      if (
        e.name === DIRTY_FILE && e.isFile && (await Deno.stat(`${stateDir}/${e.name}`)).size === 0
      ) {
        continue;
      }
      return false;
    }
    return true;
  } catch (e) {
    return e instanceof Deno.errors.NotFound;
  }
}

/**
 * What a state directory holds of a store record: the record, none
 * (`record` null, no `unreadable`), or a file there that is no record this
 * release reads (`unreadable` says why: not JSON, another format, a failed
 * read).
 */
export interface StoreRecordRead {
  /** The record, when it is one. */
  readonly record: StoreRecord | null;
  /** Why the file there is no readable record; absent when there is no file or it is one. */
  readonly unreadable?: string;
}

/**
 * Reads the store record of the state directory `stateDir`, telling a
 * missing one from one that cannot be read (never taken for none: a cache
 * that synced with a store it can no longer name must not take another).
 *
 * @example
 * ```ts
 * import { readStoreRecord } from "./store_record.ts";
 * const dir = await Deno.makeTempDir();
 * console.log(await readStoreRecord(dir)); // { record: null }
 * ```
 */
export async function readStoreRecord(stateDir: string): Promise<StoreRecordRead> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${stateDir}/${STORE_RECORD}`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { record: null };
    return { record: null, unreadable: e instanceof Error ? e.message : String(e) };
  }
  let had: unknown;
  try {
    had = JSON.parse(text);
  } catch (e) {
    return { record: null, unreadable: `not JSON: ${(e as Error).message}` };
  }
  const r = had as Partial<StoreRecord> | null;
  if (
    typeof r === "object" && r !== null && r.format === 1 && typeof r.url === "string" &&
    (r.identity === undefined || typeof r.identity === "string")
  ) {
    return { record: r as StoreRecord };
  }
  return {
    record: null,
    unreadable: "not a record of a store this release reads (format 1, with its url)",
  };
}

/**
 * The refusal of a cache that synced with a store its record no longer
 * names (`file` is the record, `why` what is wrong with it): taken for any
 * other store's, its sync records would remove every synced file that store
 * lacks. `now` is the store the command or configuration names now.
 */
export function unreadableStoreRecordError(
  cacheDir: string,
  file: string,
  why: string,
  now: string | undefined,
): SluiceError {
  const mine = now
    ? `If ${now} is the datastore this cache mirrors, delete ${
      shellWord(file)
    } and run the command again: the store is recorded anew.`
    : `If you know the datastore this cache mirrors, delete ${
      shellWord(file)
    } and run the command again naming it: the store is recorded anew.`;
  return new SluiceError(
    "invalid_config",
    `The cache ${cacheDir} has synced with a datastore, but its record of which one (${file}) cannot be read (${why}), so it cannot tell whose sync records it holds: a sync with another datastore would take them for its own, and remove here every synced file that one lacks. Nothing was changed. ${mine} Otherwise move the cache aside (\`mv ${
      shellWord(cacheDir)
    } ${shellWord(`${cacheDir}.old`)}\`) and start a new one from the datastore.`,
  );
}
