/**
 * The class of a cache-relative path (data version, latest marker, index,
 * managed lockfile, config, internal, other), from configurable rules tried
 * before the defaults. The path-classifier gate gives each plan entry its
 * class from it; a pull's adoption of another writer's object asks it too.
 *
 * @module
 */
import type { ClassifierRule, PathClass } from "./context.ts";
import { isLocalOnly, isLocalOnlyPath, isVersionFile } from "./transfer/bucket_layout.ts";
import { ruledClass } from "./paths.ts";

/** Path of the managed extension lockfile (cache-relative, before any namespace). */
export const MANAGED_LOCKFILE = "config/upstream_extensions.json";

const INDEX_ROOT_FILES = new Set([".datastore-index.json", ".catalog-export.json"]);

/** The class of `path` (its segments `segs`) by the default rules. */
function defaultClass(path: string, segs: readonly string[]): PathClass {
  // Sluice's state, the namespaced global locks, temporary files caught
  // between their write and their rename, and the layout's own objects (the
  // index, its shards, locks, sidecars): never pushed as files, by the rule
  // the pull keeps too. Any other name is a file of the datastore's like the
  // rest: a `yarn.lock` or a `notes.tmp` of a user's is pushed, as other
  // clients of the layout push it.
  if (isLocalOnly(path)) return "internal";
  const n = segs.length;
  const base = segs[n - 1];
  if (segs[0] === "data") {
    if (isVersionFile(segs)) return "data-version";
    if (n >= 5 && base === "latest") return "latest-marker";
  }
  if (
    (n === 1 && INDEX_ROOT_FILES.has(base)) || segs[0] === "_index" ||
    (base === "_meta.json" && segs[n - 2] !== "_index")
  ) {
    return "index";
  }
  if (path === MANAGED_LOCKFILE) return "managed-lockfile";
  if (segs[0] === "config" && n >= 2) return "config";
  return "other";
}

/**
 * The class of a cache-relative path. Extra rules are tried first (against
 * the path as given); then the defaults, first on the whole path, then with a
 * leading namespace segment (`<ns>/…`) stripped.
 *
 * @example
 * ```ts
 * import { classifyPath } from "./path_class.ts";
 * classifyPath("data/aws/ec2/m1/state/3/raw"); // "data-version"
 * classifyPath("prod/config/upstream_extensions.json"); // "managed-lockfile"
 * ```
 */
export function classifyPath(path: string, rules: readonly ClassifierRule[] = []): PathClass {
  const ruled = ruledClass(path, rules);
  if (ruled !== undefined) return ruled;
  // The layout's own objects, also under a namespace (`<ns>/_index/_meta.json`):
  // never pushed, as the pull never brings them.
  if (isLocalOnlyPath(path)) return "internal";
  const segs = path.split("/");
  const whole = defaultClass(path, segs);
  if (whole !== "other" || segs.length < 2) return whole;
  return defaultClass(path.slice(segs[0].length + 1), segs.slice(1));
}

/** The namespace prefix of a path (`""` when the path is not namespaced). */
export function namespaceOf(path: string, rules: readonly ClassifierRule[] = []): string {
  const segs = path.split("/");
  if (defaultClass(path, segs) !== "other" || segs.length < 2) return "";
  return defaultClass(path.slice(segs[0].length + 1), segs.slice(1)) !== "other" ||
      rules.length > 0
    ? segs[0]
    : "";
}
