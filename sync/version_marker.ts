/**
 * The `latest` marker beside a data version file, as the marker here names
 * it: a data version is never deleted from the datastore while its marker
 * here names it (the push gate `version-under-marker`). The gate holds such
 * a deletion back; a resolution that would publish one refuses it first
 * (`sync/service/resolve_refusals.ts`), since its push would hold it back.
 * Both hold by the rule of `version_marker_hold.ts`, which also holds the
 * deletion of a version the committed marker names.
 *
 * @module
 */
import type { ClassifierRule } from "./context.ts";
import { classifyPath } from "./path_class.ts";
import { shellWord } from "./shell_word.ts";

/** The registered name of the push gate that holds such a deletion back. */
export const VERSION_UNDER_MARKER = "version-under-marker";

/**
 * The marker beside the version directory a data version file lies in
 * (`<data>/<n>/<file>` gives `<data>/latest`), and the version's number
 * `n` as the directory names it.
 *
 * @example
 * ```ts
 * import { markerBeside } from "./version_marker.ts";
 * markerBeside("data/t/m/out/2/raw"); // { marker: "data/t/m/out/latest", n: "2" }
 * ```
 */
export function markerBeside(path: string): { readonly marker: string; readonly n: string } {
  const dir = path.slice(0, path.lastIndexOf("/"));
  const slash = dir.lastIndexOf("/");
  return { marker: `${dir.slice(0, slash)}/latest`, n: dir.slice(slash + 1) };
}

/**
 * What the marker at `marker` here names now (its bytes trimmed, changed or
 * not), or null when there is none, it cannot be read, or it is too long to
 * be a marker.
 */
export async function markerNamesHere(
  cache: { read(path: string): Promise<Uint8Array | null> },
  marker: string,
): Promise<string | null> {
  const bytes = await cache.read(marker).catch(() => null);
  return bytes && bytes.length <= 64 ? new TextDecoder().decode(bytes).trim() : null;
}

/**
 * The marker here, and the version it names, that holds back a deletion of
 * `path` (see the module): `path` a data version file (by `rules`, as the
 * push classifies it) whose marker here names its version; undefined
 * otherwise.
 *
 * @example
 * ```ts
 * import { markerHolding } from "./version_marker.ts";
 * const cache = { read: () => Promise.resolve(new TextEncoder().encode("2\n")) };
 * await markerHolding(cache, "data/t/m/out/2/raw"); // { marker: "data/t/m/out/latest", n: "2" }
 * ```
 */
export async function markerHolding(
  cache: { read(path: string): Promise<Uint8Array | null> },
  path: string,
  rules: readonly ClassifierRule[] = [],
): Promise<{ readonly marker: string; readonly n: string } | undefined> {
  if (classifyPath(path, rules) !== "data-version") return undefined;
  const beside = markerBeside(path);
  return await markerNamesHere(cache, beside.marker) === beside.n ? beside : undefined;
}

/**
 * The push that deletes version `n` under `marker` from the datastore once
 * the marker here names another version: the version and the marker, both
 * by path.
 *
 * @example
 * ```ts
 * import { pushBothCommand } from "./version_marker.ts";
 * pushBothCommand("data/t/m/out/latest", "2"); // sluice push data/t/m/out/2 data/t/m/out/latest
 * ```
 */
export function pushBothCommand(marker: string, n: string): string {
  const version = `${marker.slice(0, marker.lastIndexOf("/"))}/${n}`;
  return `sluice push ${shellWord(version)} ${shellWord(marker)}`;
}

/**
 * Of `deleted` (synced files deleted here), the data version files whose
 * `latest` marker here names their version, where the push holds such a
 * deletion back (`version-under-marker` in `service`'s push pipeline): a
 * push naming them alone keeps them on the datastore. One read of the
 * marker per path.
 */
export async function underMarkerNow(
  service: {
    readonly cache: { read(path: string): Promise<Uint8Array | null> };
    readonly config: { readonly classifierRules: readonly ClassifierRule[] };
    readonly pushPipeline: { has(name: string): boolean };
  },
  deleted: readonly string[],
): Promise<{ readonly path: string; readonly marker: string; readonly n: string }[]> {
  if (!service.pushPipeline.has(VERSION_UNDER_MARKER)) return [];
  const out: { path: string; marker: string; n: string }[] = [];
  for (const path of deleted) {
    const held = await markerHolding(service.cache, path, service.config.classifierRules);
    if (held) out.push({ path, ...held });
  }
  return out;
}
