/**
 * What a command checks before it does anything with a cache and a store:
 * which store it uses (\`--store\`, \`SLUICE_STORE\`, or the one the cache
 * recorded, refusing another datastore, the same bucket on another endpoint
 * included), that the cache directory exists (or \`--init\` asks for it)
 * and lies inside no other cache, and that a \`file://\` store exists.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import type { LocalCache } from "../sync/transfer/cache.ts";
import { findStateDir, STATE_DIR } from "../sync/transfer/cache.ts";
import {
  holdsNoSyncRecord,
  readStoreRecord,
  STORE_RECORD,
  type StoreRecord,
  unreadableStoreRecordError,
} from "../sync/store_record.ts";
import { SluiceError } from "../sync/errors.ts";
import { refuseStateNotADirectory } from "../sync/service/service.ts";
import { type CliIo, shellWord, UsageError } from "./output.ts";
import { parseStoreUrl, storeIdentity, type StoreSpec, storeUrl } from "./store_url.ts";
import type { CommonOptions } from "./session.ts";

/**
 * The way out for a cache that lost its sync state (its `.sluice/` removed),
 * which `--init` is not: that cache cannot tell a file a peer deleted from a
 * new one of its own, so its push would publish the file again.
 */
export const LOST_STATE_WAY =
  "If it was a cache whose sync state was removed, do not make it a cache again with --init: it cannot tell a file a peer deleted since from a new one of its own, and its push would publish such a file again, undoing that deletion. Start a new cache instead (`sluice pull --init --store <store-url> --cache <new dir>`), copy into it the files you changed, and push from there.";

/** Environment variable naming the default store URL. */
export const STORE_ENV = "SLUICE_STORE";

/** State file (in the cache's state directory) recording the store the cache mirrors. */
export const CLI_STORE_STATE = STORE_RECORD;
export type { StoreRecord };

/**
 * The store URL to use: `--store`, else `SLUICE_STORE`, else the store the
 * cache recorded; refuses a store other than the recorded one. Also gives
 * the record the cache holds.
 */
export async function chooseStore(
  options: CommonOptions,
  io: CliIo,
  cache: LocalCache,
): Promise<{ spec: StoreSpec; url: string; record: boolean; recorded: StoreRecord | null }> {
  const read = await readStoreRecord(cache.stateDir);
  // A record that cannot be read is no record only where nothing was synced.
  if (read.unreadable !== undefined && !await holdsNoSyncRecord(findStateDir(cache.dir))) {
    throw unreadableStoreRecordError(
      cache.dir,
      `${cache.stateDir}/${CLI_STORE_STATE}`,
      read.unreadable,
      options.store ?? (io.env?.[STORE_ENV] || undefined),
    );
  }
  const recorded = read.record;
  return { ...await chosenStore(options, io, cache, recorded), recorded };
}

/** {@link chooseStore}, given the record the cache holds (null: none). */
async function chosenStore(
  options: CommonOptions,
  io: CliIo,
  cache: LocalCache,
  recorded: StoreRecord | null,
): Promise<{ spec: StoreSpec; url: string; record: boolean }> {
  const given = options.store ?? (io.env?.[STORE_ENV] || undefined);
  if (given === undefined) {
    if (recorded?.format === 1 && typeof recorded.url === "string") {
      return recordedStore(recorded, io, cache);
    }
    // A directory that holds files and no sync state at all is most often a
    // mistyped --cache: said so, as push and pull say it.
    const stateless = !(await Deno.lstat(findStateDir(cache.dir)).then(() => true, () => false));
    if (stateless && !options.init && await holdsAnything(cache.dir)) {
      throw new SluiceError(
        "cache_not_found",
        `No store was given, and the directory ${cache.dir} holds files but is no cache (it has no ${STATE_DIR}/ of Sluice's, so it recorded no store: never synced, or its sync state was removed): is --cache mistyped? Nothing was read or changed. Check the path, or pass --store (or set ${STORE_ENV}); a new cache is started by \`sluice push --init --store <store-url>\` or \`sluice pull --init --store <store-url>\`. ${LOST_STATE_WAY}`,
      );
    }
    throw new SluiceError(
      "invalid_config",
      `No store was given: pass --store (e.g. --store file:///srv/datastore or --store s3://bucket/prefix), or set ${STORE_ENV}; the cache ${cache.dir} has no recorded store yet (it records one at its first push or pull${
        options.init ? ", which --init starts with the store named" : ""
      }). Nothing was changed.`,
    );
  }
  const spec = parseStoreUrl(given, { cwd: io.cwd });
  const id = storeIdentity(spec);
  // A relative file:// URL is recorded absolute: the cache is used from other directories too.
  const url = spec.kind === "file" ? storeUrl(spec) : given;
  // A cache that recorded a store but never synced a file with it (a first
  // pull of a mistyped, empty prefix, say) holds no record to confuse: it
  // takes the store given now.
  if (
    recorded?.format === 1 && recorded.url !== url &&
    await holdsNoSyncRecord(findStateDir(cache.dir))
  ) {
    return { spec, url, record: true };
  }
  if (recorded?.format === 1 && recorded.identity !== id) {
    throw new SluiceError(
      "invalid_config",
      `The cache ${cache.dir} mirrors ${recorded.identity}, not ${id}: its sync records belong to the other store: a sync with ${id} would take them for its own and skip files ${id} lacks. Nothing was changed. Use another --cache directory for ${id}, or drop --store (and ${STORE_ENV}) to use ${recorded.identity}.`,
    );
  }
  // The same bucket and prefix on another server (a mistyped port, another
  // MinIO) is another datastore: its records would be taken for this one's.
  if (recorded?.format === 1 && typeof recorded.url === "string") {
    const was = endpointOf(recorded.url, io.cwd);
    const now = endpointOf(given, io.cwd);
    if (was !== null && now !== null && was !== now) {
      throw new SluiceError(
        "invalid_config",
        `The cache ${cache.dir} mirrors ${id} at ${was || "the service's own endpoint"}, not at ${
          now || "the service's own endpoint"
        }: the same bucket on another server is another datastore, and its sync records belong to the first one (a sync with the other would take them for its own, push there what belongs here, and take files missing there for deletions). Nothing was changed. Check the endpoint (a mistyped host or port?); drop --store (and ${STORE_ENV}) to use ${recorded.url}; or use another --cache directory for the other server.`,
      );
    }
  }
  return { spec, url, record: recorded?.url !== url };
}

/**
 * The store a cache recorded. A relative file:// URL recorded before such
 * URLs were recorded absolute names, from another working directory, another
 * directory than the one the cache mirrors: the record's identity (its
 * absolute directory) is taken instead, and recorded; any other mismatch is
 * refused.
 */
function recordedStore(
  recorded: StoreRecord,
  io: CliIo,
  cache: LocalCache,
): { spec: StoreSpec; url: string; record: boolean } {
  const spec = parseStoreUrl(recorded.url, { cwd: io.cwd });
  if (typeof recorded.identity !== "string" || storeIdentity(spec) === recorded.identity) {
    return { spec, url: recorded.url, record: false };
  }
  if (spec.kind === "file" && recorded.identity.startsWith("file:///")) {
    const root = recorded.identity.slice("file://".length);
    const abs: StoreSpec = { ...spec, root };
    return { spec: abs, url: storeUrl(abs), record: true };
  }
  throw new SluiceError(
    "invalid_config",
    `The cache ${cache.dir} recorded the store ${recorded.identity}, but its recorded URL ${recorded.url} now names ${
      storeIdentity(spec)
    }. Nothing was changed. Pass --store with the URL of ${recorded.identity}.`,
  );
}

/**
 * The endpoint a store URL reaches, normalised (origin and path, without a
 * trailing slash); "" for the service's own endpoint (none given, or a
 * file:// store); null when the URL does not parse.
 */
function endpointOf(url: string, cwd: string | undefined): string | null {
  let spec: StoreSpec;
  try {
    spec = parseStoreUrl(url, { cwd });
  } catch {
    return null;
  }
  if (spec.kind === "file" || !spec.endpoint) return "";
  try {
    const u = new URL(spec.endpoint);
    return `${u.origin}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return spec.endpoint;
  }
}

/** What a path is: a directory, something else, or nothing. */
async function pathKind(path: string, flag: string): Promise<"dir" | "other" | "missing"> {
  try {
    return (await Deno.stat(path)).isDirectory ? "dir" : "other";
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "missing";
    throw new SluiceError(
      "invalid_config",
      `${flag} names ${path}, which cannot be used as a directory (${
        e instanceof Error ? e.message : String(e)
      }). Nothing was changed. Pass ${flag} a directory.`,
      { cause: e },
    );
  }
}

/** True for the commands that may start a new cache or `file://` store (`--init`): push and pull. */
export function startsCaches(command: string): boolean {
  return command === "push" || command === "pull";
}

/**
 * Refuses `--init` given to a command other than a push or a pull (see
 * {@link startsCaches}): it would make an empty cache directory that no
 * sync state calls a cache. `again` is the command line without `--init`.
 */
export function refuseInit(command: string, again: string | undefined): void {
  if (startsCaches(command)) return;
  throw new UsageError(
    `${command} does not take --init: only push and pull start a new cache (or file:// store), and ${command} works on one that exists. Nothing was created or changed. ${
      again ? `Run it without --init: \`${again}\`` : "Run it without --init"
    }; if the cache does not exist yet, start it first with \`sluice pull --init\` (or \`sluice push --init\`) and the same --store.`,
  );
}

/**
 * What to run to create what was missing: the command line as the user ran
 * it, with `--init` added, quoted for a shell (without the arguments, as a
 * library caller gives none: `command`, then `fallback`). Undefined for a
 * command other than a push or a pull: only those start a cache or a store
 * (elsewhere `--init` would make an empty one and fail).
 */
export function againWithInit(
  io: Pick<CliIo, "argv">,
  command: string,
  fallback: readonly string[],
  needsStore = false,
): string | undefined {
  if (!startsCaches(command)) return undefined;
  const args = io.argv ? [...io.argv] : [...command.split(" "), ...fallback];
  if (!args.includes("--init")) args.push("--init");
  // A new cache records the store it is started with: one must be named.
  const store = needsStore && !args.some((a) => a === "--store" || a.startsWith("--store="))
    ? " --store <store-url>"
    : "";
  return `sluice ${args.map(shellWord).join(" ")}${store}`;
}

/** Default cache directory, relative to the working directory. */
export const DEFAULT_CACHE_DIR = "./.sluice-cache";

/**
 * The command line as the user ran it with `--cache <dir>` added, quoted for
 * a shell (`command` alone without the arguments): what to run when no
 * `--cache` was given and the default one cannot be used.
 */
export function againWithCache(
  io: Pick<CliIo, "argv">,
  command: string,
  dir: string,
): string {
  const args = io.argv ? [...io.argv] : command.split(" ");
  return `sluice ${[...args, "--cache", dir].map(shellWord).join(" ")}`;
}

/**
 * Refuses a cache directory that does not exist (it has never been synced:
 * most likely a mistyped `--cache`) unless `--init` asks for a new one, and
 * a cache path that is not a directory. `defaulted` is the command line to
 * run again with a `--cache` of its own when none was given (the directory is
 * then the default `./.sluice-cache`, which the messages say, rather than
 * taking it for a mistyped `--cache`); it gets the enclosing cache to name.
 * Resolves true when the directory holds Sluice's state directory (it is a
 * cache already).
 */
export async function checkCacheDir(
  dir: string,
  init: boolean,
  again: string | undefined,
  defaulted?: (outer: string) => string,
): Promise<boolean> {
  const kind = await pathKind(dir, "--cache");
  if (kind === "other") {
    throw new SluiceError(
      "invalid_config",
      `--cache names ${dir}, which is a file, not a directory. Nothing was changed. Pass --cache the cache directory; to start a new cache, give it a directory of its own: \`sluice pull --init --cache <new-dir> --store <store-url>\` (or \`sluice push --init --cache <new-dir> --store <store-url>\`, to publish the files already in that directory).`,
    );
  }
  const stateDir = findStateDir(dir);
  if (kind !== "missing") await refuseStateNotADirectory(dir, stateDir);
  if (kind === "dir") await refuseNamespacedRoot(dir, stateDir);
  const hasState = kind === "dir" && await Deno.lstat(stateDir).then(() => true, () => false);
  const outer = await enclosingCache(dir);
  if (outer && defaulted) {
    throw new SluiceError(
      "invalid_config",
      `No --cache was given, so the cache is the default ${DEFAULT_CACHE_DIR} of the working directory (${dir}), which lies inside the cache ${outer}: a cache there would publish its files at other paths than the outer cache does. Nothing was changed. Name the cache with --cache (paths stay relative to it): \`${
        defaulted(outer)
      }\`.`,
    );
  }
  if (outer) {
    throw new SluiceError(
      "invalid_config",
      `--cache names ${dir}, which lies inside the cache ${outer}: a cache there would publish its files at other paths than the outer cache does, and each would take the other's files for its own. Nothing was changed. Pass --cache ${outer} (and name the paths under it, e.g. \`sluice push ${
        shellWord(dir.slice(outer.length + 1))
      } --cache ${shellWord(outer)}\`), or choose a directory outside it.`,
    );
  }
  if (kind === "dir" && !init && again && !hasState && await holdsAnything(dir)) {
    throw new SluiceError(
      "cache_not_found",
      `The directory ${dir} holds files but is no cache (it has no ${STATE_DIR}/ of Sluice's: never synced, or its sync state was removed): ${
        defaulted
          ? `no --cache was given, and ${DEFAULT_CACHE_DIR} of the working directory is the default.`
          : "is --cache mistyped?"
      } Nothing was created, pushed or pulled. Check the path; to make this directory a new cache, run the command again with --init: \`${again}\` (a push then publishes the files in it; a pull keeps a file of it that the datastore also holds, set aside as a conflict). ${LOST_STATE_WAY}`,
    );
  }
  if (kind === "missing" && !init) {
    throw new SluiceError(
      "cache_not_found",
      `The cache directory ${dir} does not exist, so it has never been synced (${
        defaulted
          ? `no --cache was given, and ${DEFAULT_CACHE_DIR} of the working directory is the default`
          : "is --cache mistyped?"
      }). Nothing was created, pushed or pulled. Check the path${
        defaulted ? " (pass --cache the cache directory)" : ""
      }; ${
        again
          ? `to start a new cache there, run the command again with --init: \`${again}\``
          : "a new cache is started by its first `sluice pull --init` or `sluice push --init`"
      }.`,
    );
  }
  return hasState;
}

/**
 * Refuses the root of a datastore's cache laid out in namespaces (a
 * directory without sync state of its own holding `.namespace.json` under
 * it): each namespace directory mirrors its own prefix, and a sync of the
 * root would take their files for root files (a push would publish
 * `prod/config/app.yaml` beside them). A directory with a state directory
 * of its own in it (`<dir>/.sluice`, as {@link findStateDir} finds it) is an
 * ordinary cache: a `.namespace.json` in a directory of it is one of its
 * files. A datastore's cache keeps its root's state under `_control/`, made
 * before any namespace was (a mark of swamp's before one was bound): there,
 * a namespace directory beside it is one, and the root is still refused.
 */
async function refuseNamespacedRoot(dir: string, stateDir: string): Promise<void> {
  if (
    stateDir === `${dir.replace(/\/+$/, "")}/${STATE_DIR}` &&
    (await Deno.lstat(stateDir).catch(() => null))?.isDirectory
  ) return;
  const namespaces: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isDirectory) continue;
      const manifest = await Deno.lstat(`${dir}/${e.name}/.namespace.json`).catch(() => null);
      if (manifest?.isFile) namespaces.push(e.name);
    }
  } catch {
    return; // unreadable: the command's own checks say so
  }
  if (namespaces.length === 0) return;
  namespaces.sort();
  throw new SluiceError(
    "invalid_config",
    `--cache names ${dir}, the root of a datastore's cache laid out in namespaces (${
      namespaces.map((n) => `${n}/`).join(", ")
    }): each namespace directory mirrors its own prefix, and a sync of the root would take their files for its own. Nothing was changed. Pass --cache the namespace's directory and the namespace's store (its prefix ending in /<namespace>), e.g. \`--cache ${
      shellWord(`${dir}/${namespaces[0]}`)
    }\`. If a .namespace.json there is no namespace manifest but a file of your own, move it away (e.g. \`mv ${
      shellWord(`${dir}/${namespaces[0]}/.namespace.json`)
    } ${shellWord(`${dir}/${namespaces[0]}/namespace.json`)}\`) and run the command again.`,
  );
}

/** True when `dir` holds anything at all. */
async function holdsAnything(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return true;
  } catch {
    return false;
  }
  return false;
}

/**
 * The nearest directory above `dir` that is a cache of the command line (it
 * holds its record of a store), unless `dir` is one itself; null when none.
 */
async function enclosingCache(dir: string): Promise<string | null> {
  if (await isCliCache(dir)) return null;
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) {
    if (await isCliCache(d)) return d;
  }
  return null;
}

/** True when `dir` is a cache of the command line (it holds its record of a store). */
async function isCliCache(dir: string): Promise<boolean> {
  try {
    return (await Deno.lstat(`${findStateDir(dir)}/${CLI_STORE_STATE}`)).isFile;
  } catch {
    return false;
  }
}

/**
 * Refuses a `file://` store whose directory does not exist (nothing was ever
 * pushed there: most likely a mistyped `--store`) unless `--init` asks for a
 * new one, which is then created; and a store path that is not a directory.
 */
export async function checkFileStore(
  spec: StoreSpec,
  init: boolean,
  again: string | undefined,
  cacheDir?: string,
): Promise<void> {
  if (spec.kind !== "file") return;
  const url = storeIdentity(spec);
  if (cacheDir !== undefined) await refuseNested(url, spec.root, cacheDir);
  await refuseInCache(url, spec.root);
  const kind = await pathKind(spec.root, "--store");
  if (kind === "other") {
    throw new SluiceError(
      "invalid_config",
      `The store ${url} names ${spec.root}, which is a file, not a directory. Nothing was changed. Pass --store the datastore's directory, as file:///abs/dir.`,
    );
  }
  if (kind === "dir") return;
  if (!init) {
    throw new SluiceError(
      "store_not_found",
      `The store directory ${spec.root} does not exist, so nothing was ever pushed to ${url} (is --store mistyped?). Nothing was pushed or pulled, and the cache was not tied to that store. Check the URL; ${
        again
          ? `to start a new datastore there, run the command again with --init: \`${again}\``
          : `a new datastore is started by the first \`sluice push --init --store ${
            shellWord(url)
          }\` to it`
      }.`,
    );
  }
  await Deno.mkdir(spec.root, { recursive: true });
}

/**
 * Refuses a `file://` store directory that is a cache of the command line,
 * or lies inside one (another cache than the command's: that one is refused
 * by {@link refuseNested}): the store's own files would land in that cache,
 * and its next push would publish them to its datastore as its files.
 */
async function refuseInCache(url: string, root: string): Promise<void> {
  const store = await realOrGiven(root);
  const cache = (await isCliCache(store)) ? store : await enclosingCache(store);
  if (cache === null) return;
  const where = cache === store ? `is the cache ${cache}` : `lies inside the cache ${cache}`;
  throw new SluiceError(
    "invalid_config",
    `The store ${url} ${where}, which syncs with a datastore of its own: the store's files (its objects, locks and temporary files) would be written into that cache, and its next push would publish them to its datastore as its own files. Nothing was changed. Pass --store the datastore's directory, outside every cache (e.g. --store file:///srv/datastore); \`sluice status --cache ${
      shellWord(cache)
    }\` names the store that cache syncs with.`,
  );
}

/** A directory's real path (links resolved) where it exists, else the path as given, normalised. */
async function realOrGiven(dir: string): Promise<string> {
  try {
    return await Deno.realPath(dir);
  } catch {
    return resolve(dir);
  }
}

/**
 * Refuses a `file://` store directory that is the cache, or lies inside it,
 * or holds it: a push would publish the store's own objects as cache files
 * (and again, one level deeper, on every push), and a pull would write the
 * cache into the store.
 */
async function refuseNested(url: string, root: string, cacheDir: string): Promise<void> {
  const store = await realOrGiven(root);
  const cache = await realOrGiven(cacheDir);
  const inside = (a: string, b: string) => a === b || a.startsWith(b.endsWith("/") ? b : `${b}/`);
  if (!inside(store, cache) && !inside(cache, store)) return;
  const where = store === cache
    ? "is the cache directory itself"
    : inside(store, cache)
    ? `lies inside the cache ${cache}`
    : `holds the cache ${cache}`;
  throw new SluiceError(
    "invalid_config",
    `The store ${url} ${where}: a push would publish the store's own files as cache files (one level deeper on every push), and a pull would write into the store. Nothing was changed. Put the datastore's directory outside the cache (and the cache outside it), e.g. --store file:///srv/datastore.`,
  );
}
