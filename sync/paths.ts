/**
 * Cache-relative paths and store keys: validation and joining.
 *
 * @module
 */
import { UnsafePathError } from "./errors.ts";
import type { ClassifierRule, PathClass } from "./context.ts";
import { isLocalOnlyPath } from "./transfer/bucket_layout.ts";

/** Longest cache-relative path accepted, in UTF-16 code units. */
export const MAX_PATH_LENGTH = 1024;

/**
 * Throws {@link UnsafePathError} unless `p` is a safe cache-relative path:
 * non-empty, `/`-separated, not absolute, no `..` or `.` segments, no empty
 * segments, no backslash or NUL or control characters, no lone surrogates
 * (invalid Unicode), not too long.
 *
 * @example
 * ```ts
 * import { assertSafeRelPath } from "./paths.ts";
 * assertSafeRelPath("data/t/m/d/1/raw"); // ok
 * ```
 */
export function assertSafeRelPath(p: string): void {
  if (isPlainRelPath(p)) return;
  if (typeof p !== "string" || p.length === 0) throw new UnsafePathError(String(p), "it is empty");
  if (p.length > MAX_PATH_LENGTH) {
    throw new UnsafePathError(p, `it is longer than ${MAX_PATH_LENGTH} characters`);
  }
  if (p.includes("\0")) throw new UnsafePathError(p, "it contains a NUL character");
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(p)) throw new UnsafePathError(p, "it contains a control character");
  if (p.includes("\\")) throw new UnsafePathError(p, "it contains a backslash");
  // A lone surrogate has no UTF-8 form: the file would be written under
  // another name (U+FFFD) than the one recorded for it.
  if (!p.isWellFormed()) throw new UnsafePathError(p, "it is not valid Unicode (a lone surrogate)");
  if (p.startsWith("/") || /^[A-Za-z]:/.test(p)) throw new UnsafePathError(p, "it is absolute");
  for (const seg of p.split("/")) {
    if (seg === "") throw new UnsafePathError(p, "it has an empty segment");
    if (seg === "." || seg === "..") throw new UnsafePathError(p, "it has a '.' or '..' segment");
    // A UTF-16 code unit is at most 3 UTF-8 bytes: only long segments need encoding.
    if (seg.length > 85 && new TextEncoder().encode(seg).length > 255) {
      throw new UnsafePathError(p, "a segment is longer than 255 bytes");
    }
  }
}

/**
 * One pass over `p` that accepts only what {@link assertSafeRelPath} surely
 * accepts: printable characters outside the surrogate range, no backslash,
 * short segments other than "", "." and "..", no drive letter. Anything else
 * (also every path it refuses) goes through the full checks, which say why.
 * A push checks each path at several layers: this keeps each check cheap.
 */
function isPlainRelPath(p: string): boolean {
  if (typeof p !== "string") return false;
  const n = p.length;
  if (n === 0 || n > MAX_PATH_LENGTH) return false;
  // A drive letter ("C:") is refused as absolute.
  if (n > 1 && p.charCodeAt(1) === 0x3a) return false;
  let start = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? p.charCodeAt(i) : 0x2f;
    if (c === 0x2f) {
      const len = i - start;
      if (len === 0 || len > 85) return false;
      if (
        p.charCodeAt(start) === 0x2e &&
        (len === 1 || (len === 2 && p.charCodeAt(start + 1) === 0x2e))
      ) {
        return false;
      }
      start = i + 1;
    } else if (c < 0x20 || c === 0x7f || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) {
      return false;
    }
  }
  return true;
}

/** True when {@link assertSafeRelPath} would accept `p`. */
export function isSafeRelPath(p: string): boolean {
  if (isPlainRelPath(p)) return true;
  try {
    assertSafeRelPath(p);
    return true;
  } catch {
    return false;
  }
}

/** Joins key parts with single `/`, dropping empty parts and edge slashes. */
export function joinKey(...parts: string[]): string {
  return parts.map((s) => s.replace(/^\/+|\/+$/g, "")).filter((s) => s.length > 0).join("/");
}

/** The parent of a `/`-separated path ("" for a top-level name). */
export function parentOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i < 0 ? "" : p.slice(0, i);
}

/** Compiles a rule pattern: `*` matches one segment's characters, `**` any number of segments. */
export function globToRegExp(pattern: string): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "*" && pattern[i + 1] === "*") {
      re += pattern[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += pattern[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** Every directory `paths` lie in (`a/b/c` gives `a/b` and `a`). */
export function directoriesOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const p of paths) {
    for (let i = p.lastIndexOf("/"); i > 0; i = p.lastIndexOf("/", i - 1)) {
      const d = p.slice(0, i);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  return dirs;
}

/**
 * True when some path of `sorted` (sorted by code unit, as `Array.prototype.sort`
 * sorts strings) lies under the directory `dir`: the same answer as
 * `directoriesOf(sorted).has(dir)` for a non-empty `dir`, found by one binary
 * search instead of a set of every directory (the paths under a directory
 * sort together, right after `dir/`).
 *
 * @example
 * ```ts
 * import { sortedHasUnder } from "./paths.ts";
 * sortedHasUnder(["a/b/c", "d"], "a/b"); // true
 * sortedHasUnder(["a/b/c", "d"], "d"); // false
 * ```
 */
export function sortedHasUnder(sorted: readonly string[], dir: string): boolean {
  if (dir === "") return false;
  const prefix = `${dir}/`;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo].startsWith(prefix);
}

/**
 * The first directory above `path` (from the top down) that `holds` says
 * yes to; undefined when none does.
 *
 * @example
 * ```ts
 * import { ancestorWhere } from "./paths.ts";
 * ancestorWhere("a/b/c", (d) => d === "a/b"); // "a/b"
 * ```
 */
export function ancestorWhere(path: string, holds: (dir: string) => boolean): string | undefined {
  for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
    const dir = path.slice(0, i);
    if (holds(dir)) return dir;
  }
  return undefined;
}

const compiled = new Map<string, RegExp>();

/**
 * The class the first of `rules` whose pattern matches `path` gives it
 * (patterns compiled once each); undefined when none matches.
 *
 * @example
 * ```ts
 * import { ruledClass } from "./paths.ts";
 * ruledClass("docs/_index/a.md", [{ pattern: "docs/**", class: "other" }]); // "other"
 * ```
 */
export function ruledClass(
  path: string,
  rules: readonly ClassifierRule[],
): PathClass | undefined {
  for (const r of rules) {
    let re = compiled.get(r.pattern);
    if (!re) compiled.set(r.pattern, re = globToRegExp(r.pattern));
    if (re.test(path)) return r.class;
  }
  return undefined;
}

/**
 * True for a path no push takes and no pull brings: one an extra rule
 * classes `internal`, or, where no rule matches, a local-only path
 * (`isLocalOnlyPath`: the layout's own objects, also under a first segment).
 * The push's path classifier decides the same.
 */
export function isInternalPath(path: string, rules: readonly ClassifierRule[] = []): boolean {
  const ruled = ruledClass(path, rules);
  return ruled !== undefined ? ruled === "internal" : isLocalOnlyPath(path);
}
