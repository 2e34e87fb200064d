/**
 * What a sync the tool drives left behind, said where the tool's user sees
 * it. The tool takes a push's answer as a count and a pull's as a count, so
 * a conflict, a file left for a later run or a file no push can publish
 * would otherwise pass in silence:
 *
 * - a push (`pushChanged`, `commitPush`) or a pull that leaves a conflict
 *   or a file unpublished warns `conflicts_left` or `sync_incomplete`,
 *   naming the paths and the Sluice command that shows and settles them on
 *   this cache;
 * - a push of the whole cache that did not delete files deleted here warns
 *   `local_deletions_kept` (the tool's bulk marks never delete, as its own
 *   extensions do not: this is how it works, not a failure).
 *
 * Warned, never thrown: the tool turns a push that throws into a failed
 * workflow step, a failed login (its token minted and published, then lost
 * to the caller) or a setup that never records its config, after the push
 * published everything else; and one open conflict, re-planned by every
 * push, would fail every later command until resolved.
 *
 * @module
 */
import {
  type DeletedUnderMarker,
  leftBehindError,
  SyncIncompleteError,
} from "../../sync/left_behind.ts";
import type { WarningEvent } from "../../sync/events.ts";
import { shellWord } from "../../sync/shell_word.ts";
import { pullLeftBehind, type PullResult } from "../../sync/service/pull.ts";
import { pushLeftBehind, type PushResult } from "../../sync/service/push.ts";
import type { StoreRecord } from "../../sync/store_record.ts";

/** Where the Sluice command line finds what the tool's sync left: the cache and its store. */
export interface CliTarget {
  /** The cache directory of the namespace (`<cache>/<ns>` when namespaced). */
  readonly cacheDir: string;
  /** The store URL as `--store` takes it (`/<ns>` added when namespaced). */
  readonly storeUrl: string;
}

/**
 * The store URL of a datastore for `--store`: its path (`s3://bucket/prefix`
 * or `gs://…`, with `/<ns>` when namespaced) and the endpoint, region or
 * project of the mapped config as query parameters.
 *
 * @example
 * ```ts
 * import { cliStoreUrl } from "./left_behind.ts";
 * console.log(cliStoreUrl("s3://b/p", { endpoint: "http://127.0.0.1:9000" }, "prod"));
 * // s3://b/p/prod?endpoint=http://127.0.0.1:9000
 * ```
 */
export function cliStoreUrl(
  datastorePath: string,
  config: Readonly<Record<string, unknown>>,
  namespace: string,
): string {
  // A prefix's `%`, `?` and `#` escaped, as the command line decodes its path.
  const base = `${datastorePath.replace(/\/+$/, "")}${namespace ? `/${namespace}` : ""}`
    .replace(
      /^([a-z0-9]+:\/\/[^/]*)(.*)$/,
      (_, head: string, path: string) =>
        head + path.replace(/[%?#]/g, (c) => encodeURIComponent(c)),
    );
  const pairs: [string, unknown][] = datastorePath.startsWith("gs://")
    ? [["endpoint", config.apiEndpoint], ["project", config.projectId]]
    : [
      ["endpoint", config.endpoint],
      ["region", config.region],
      // The command line takes path-style addressing with an endpoint unless told otherwise.
      ["path-style", config.forcePathStyle === false ? "false" : undefined],
    ];
  const query = pairs.filter(([, v]) => typeof v === "string" && v !== "")
    .map(([k, v]) => `${k}=${String(v).replace(/[%&#+ ]/g, (c) => encodeURIComponent(c))}`);
  return query.length ? `${base}?${query.join("&")}` : base;
}

/**
 * What the cache of `target` records of its store (see `sync/store_record.ts`),
 * so that the command line run on it takes that store and refuses another;
 * null for a store the command line cannot reach (an in-memory one).
 *
 * @example
 * ```ts
 * import { storeRecordOf } from "./left_behind.ts";
 * storeRecordOf({ cacheDir: "/c/prod", storeUrl: "s3://b/p/prod?endpoint=http://127.0.0.1:9000" });
 * // { format: 1, url: "s3://b/p/prod?endpoint=http://127.0.0.1:9000", identity: "s3://b/p/prod" }
 * ```
 */
export function storeRecordOf(target: CliTarget): StoreRecord | null {
  const m = /^(s3|gs):\/\/([^/?#]+)([^?#]*)/.exec(target.storeUrl);
  if (!m) return null;
  let prefix: string;
  try {
    prefix = decodeURIComponent(m[3]).replace(/^\/+|\/+$/g, "");
  } catch {
    return null;
  }
  return {
    format: 1,
    url: target.storeUrl,
    identity: `${m[1]}://${m[2]}/${prefix}`,
    // The tool writes a version's metadata.yaml last: the command line run
    // on this cache holds an unfinished version as the extension does.
    unfinishedVersions: "hold",
  };
}

/** The closing sentence of a message: the command that shows what was left, on this cache. */
export function cliNext(target: CliTarget): string {
  const args = `--cache ${shellWord(target.cacheDir)} --store ${shellWord(target.storeUrl)}`;
  return `The tool has no command for this: run the Sluice command line on this cache (\`npx sluice status ${args}\` from a Sluice checkout after \`npm ci\`), then each command this message names with the same --cache and --store.`;
}

/**
 * The warnings for what a push the tool drove left behind: a conflict or a
 * file left unpublished (`conflicts_left` or `sync_incomplete`), and synced
 * files deleted here that it did not delete (`local_deletions_kept`);
 * `underMarker`, of those, the data versions whose marker here names them
 * (`underMarkerNow`), whose advice moves the marker first, as the command
 * line's does. Empty for a clean push.
 *
 * @example
 * ```ts
 * import { emptyPushResult } from "../../sync/service/push.ts";
 * import { pushOutcome } from "./left_behind.ts";
 * const r = { ...emptyPushResult(), conflicts: ["config/a.yaml"] };
 * const t = { cacheDir: "/c", storeUrl: "s3://b/p" };
 * console.log(pushOutcome(r, t).map((w) => w.code)); // ["conflicts_left"]
 * ```
 */
export function pushOutcome(
  r: PushResult,
  target: CliTarget,
  underMarker: readonly DeletedUnderMarker[] = [],
): WarningEvent[] {
  const { localDeletions, ...rest } = pushLeftBehind(r);
  const next = cliNext(target);
  const out: WarningEvent[] = [];
  const left = leftBehindError("push", rest, next);
  if (left) out.push({ code: left.code, message: left.message });
  if (localDeletions?.length) {
    out.push({
      code: "local_deletions_kept",
      message: new SyncIncompleteError("push", {
        conflicts: [],
        left: [],
        localDeletions,
        directoriesNow: directoriesAt(target.cacheDir, localDeletions),
        underMarker,
      }, next).message,
    });
  }
  return out;
}

/**
 * Of `deleted` (synced files deleted here), those a directory of their name
 * now stands at in the cache `cacheDir`: a pull with `--restore-deleted`
 * does not write over it, so the advice names the move first (as the
 * command line's does). One `stat` per deleted path; one that cannot be
 * looked at counts as no directory.
 */
function directoriesAt(cacheDir: string, deleted: readonly string[]): string[] {
  return deleted.filter((p) => {
    try {
      return Deno.statSync(`${cacheDir}/${p}`).isDirectory;
    } catch {
      return false;
    }
  });
}

/**
 * The warning for what a pull the tool drove left behind (`conflicts_left`
 * or `sync_incomplete`, with the paths and the command); null when nothing.
 */
export function pullOutcome(r: PullResult, target: CliTarget): WarningEvent | null {
  const left = leftBehindError("pull", pullLeftBehind(r), cliNext(target));
  return left ? { code: left.code, message: left.message } : null;
}
