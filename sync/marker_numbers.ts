/**
 * The version numbers `latest` markers name: a marker's bytes are the
 * number of the newest data version of its data name (`3`, or `3` and a
 * newline). Both the push (a marker written over a peer's older one) and
 * the pull (a marker here moved further than a peer's) compare them.
 *
 * A peer's marker above the one this cache synced may still have been moved
 * back: forward to a version, then back to an older one (a user's rollback).
 * A marker carries no record of that, and the index does: a rollback leaves
 * the versions it moved back from listed (unless it deleted them), above the
 * marker. So a peer's marker is taken as moved forward only when it names
 * the highest version the index lists ({@link namesHighestListed}).
 *
 * @module
 */
import { sha256Hex } from "./hash.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** The highest version number {@link markerNumberOfHash} looks for. */
export const MARKER_SEARCH_MAX = 10_000;

/** The version number a marker's bytes name; undefined when they name none. */
export function markerNumber(bytes: Uint8Array): number | undefined {
  const text = new TextDecoder().decode(bytes).trim();
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/**
 * The version number a marker whose bytes hash to `hash` (hex SHA-256)
 * named, looked for from 0 up to `upTo` (at most {@link MARKER_SEARCH_MAX});
 * undefined when none of those.
 *
 * @example
 * ```ts
 * import { markerNumberOfHash } from "./marker_numbers.ts";
 * import { sha256Hex } from "./hash.ts";
 * await markerNumberOfHash(await sha256Hex(new TextEncoder().encode("3")), 10); // 3
 * ```
 */
export async function markerNumberOfHash(hash: string, upTo: number): Promise<number | undefined> {
  // Looked for one by one: a number past this many (a date used as a
  // version, say) is not looked for, and the caller treats it as unknown.
  if (upTo > MARKER_SEARCH_MAX) return undefined;
  for (let n = 0; n <= upTo; n++) {
    if ((await sha256Hex(enc(`${n}`))) === hash || (await sha256Hex(enc(`${n}\n`))) === hash) {
      return n;
    }
  }
  return undefined;
}

/**
 * True when a marker here (`mine`) and a peer's (`theirs`) both moved
 * forward from the one this cache synced (`base`), this one further: the
 * peer's names an older version, and writing this one over it loses
 * nothing (both versions stay published). A marker moved back on either
 * side, or one that names no number, is false.
 */
export function movedFurther(
  base: number | undefined,
  theirs: number | undefined,
  mine: number | undefined,
): boolean {
  return base !== undefined && theirs !== undefined && mine !== undefined &&
    base < theirs && theirs < mine;
}

/**
 * True when no version of the data name whose marker is at `markerPath`
 * that `paths` (the index's) list is above `theirs`, a peer's marker's
 * number: versions `skip` takes (this push's own) left out. A version above
 * it means the peer moved the marker back from it (a rollback), or it was
 * published without moving the marker: in neither case a marker moved
 * forward that a further one may replace.
 *
 * @example
 * ```ts
 * import { namesHighestListed } from "./marker_numbers.ts";
 * namesHighestListed("d/latest", ["d/1/raw", "d/3/raw"], 2); // false
 * ```
 */
export function namesHighestListed(
  markerPath: string,
  paths: Iterable<string>,
  theirs: number,
  skip: (version: number) => boolean = () => false,
): boolean {
  const dir = markerPath.slice(0, markerPath.lastIndexOf("/") + 1);
  for (const p of paths) {
    if (!p.startsWith(dir)) continue;
    const name = p.slice(dir.length).split("/")[0];
    if (!/^\d{1,15}$/.test(name) || !p.slice(dir.length).includes("/")) continue;
    const n = Number(name);
    if (n > theirs && !skip(n)) return false;
  }
  return true;
}

/**
 * A `skip` for {@link namesHighestListed}: the versions of the data name
 * whose marker is at `markerPath` every file of which that `listed` (the
 * index's paths) names is `own` (this cache's upload, synced so). A version
 * this cache's own pushes created is no peer's to have moved its marker back
 * from (its marker may have lost the race to the peer's, and stays dirty).
 *
 * @example
 * ```ts
 * import { ownListedVersions } from "./marker_numbers.ts";
 * ownListedVersions("d/latest", ["d/1/raw", "d/3/raw"], (p) => p === "d/3/raw")(3); // true
 * ```
 */
export function ownListedVersions(
  markerPath: string,
  listed: readonly string[],
  own: (path: string) => boolean,
): (version: number) => boolean {
  const dir = markerPath.slice(0, markerPath.lastIndexOf("/") + 1);
  return (n) => {
    const files = listed.filter((p) => p.startsWith(`${dir}${n}/`));
    return files.length > 0 && files.every(own);
  };
}
