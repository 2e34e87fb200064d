/**
 * A cache mirrors one datastore. The tool keeps a repository's cache at one
 * path whatever the datastore's configuration says, so a configuration
 * changed to another bucket, prefix or endpoint meets a cache whose sync
 * records belong to the first datastore: taken for the new one's, they
 * would remove here every synced file the new one lacks, and never push one
 * it already holds. Such a cache is refused, as the command line refuses a
 * `--store` other than the one a cache recorded.
 *
 * @module
 */
import { SluiceError } from "../../sync/errors.ts";
import {
  holdsNoSyncRecord,
  readStoreRecord,
  recordedEndpoint,
  STORE_RECORD,
  type StoreRecord,
  unreadableStoreRecordError,
} from "../../sync/store_record.ts";
import { shellWord } from "../../sync/shell_word.ts";

/**
 * The record a state directory holds; null when none. One that cannot be
 * read is refused where the cache synced something (`now`: the datastore
 * configured now), and is none where it synced nothing.
 */
async function recordIn(
  cacheDir: string,
  stateDir: string,
  now: StoreRecord,
): Promise<StoreRecord | null> {
  const read = await readStoreRecord(stateDir);
  if (read.unreadable !== undefined) {
    if (await holdsNoSyncRecord(stateDir)) return null;
    throw unreadableStoreRecordError(
      cacheDir,
      `${stateDir}/${STORE_RECORD}`,
      read.unreadable,
      now.identity,
    );
  }
  // A record without the store's identity (an earlier release's) names none to refuse.
  return typeof read.record?.identity === "string" ? read.record : null;
}

/**
 * Throws `invalid_config` when the cache at `cacheDir` (its state in
 * `stateDir`) recorded another datastore than `now` (another bucket or
 * prefix, or the same on another endpoint) and holds sync records of it.
 * A cache that never synced a file takes the new datastore. `root` is the
 * directory the message tells to move aside: the repository's whole cache,
 * which holds a namespace's directory and its state alike.
 *
 * @example
 * ```ts
 * import { refuseOtherStore } from "./store_binding.ts";
 * const dir = await Deno.makeTempDir();
 * const now = { format: 1 as const, url: "s3://b/p", identity: "s3://b/p" };
 * await refuseOtherStore(dir, `${dir}/.sluice`, now); // nothing recorded: nothing to refuse
 * ```
 */
export async function refuseOtherStore(
  cacheDir: string,
  stateDir: string,
  now: StoreRecord,
  root = cacheDir,
): Promise<void> {
  const had = await recordIn(cacheDir, stateDir, now);
  if (!had) return;
  const [was, is] = [recordedEndpoint(had.url), recordedEndpoint(now.url)];
  const otherEndpoint = was !== null && is !== null && was !== is;
  if (had.identity === now.identity && !otherEndpoint) return;
  if (await holdsNoSyncRecord(stateDir)) return;
  const at = (endpoint: string | null) =>
    otherEndpoint ? ` at ${endpoint || "the service's own endpoint"}` : "";
  const [old, neu] = [`${had.identity}${at(was)}`, `${now.identity}${at(is)}`];
  throw new SluiceError(
    "invalid_config",
    `The cache ${cacheDir} mirrors ${old}, not ${neu}: the datastore's configuration changed since this cache last synced, and its sync records belong to ${old}. A sync with ${neu} would take them for its own: it would remove here every synced file ${neu} lacks and never push one it holds. Nothing was changed, here or in either datastore. To go on with ${old}, set the configuration back. To use ${neu} from this repository, first push what this cache has not pushed to ${old} (with the configuration set back; \`npx sluice status --cache ${
      shellWord(cacheDir)
    } --store ${
      shellWord(had.url)
    }\` from a Sluice checkout lists it), then move the cache aside (\`mv ${shellWord(root)} ${
      shellWord(`${root}.old`)
    }\`): the next command starts a new cache from ${neu}.`,
  );
}
