/**
 * Whether a push holds back the deletion of data version `n` under its
 * `latest` marker: the one rule the push gate `version-under-marker` holds
 * by (over the push's ports) and `resolve --mine` looks at before it changes
 * anything (over the service's store, cache and state), each through its
 * own {@link MarkerLooks}.
 *
 * The deletion is held where the marker here names `n` (`here`), or where
 * the committed marker names `n` (the one this cache synced, or the one the
 * datastore's index lists; an index that cannot be read counts as naming
 * it) and the marker here cannot be published in its place (`committed`):
 * the push does not write it, it names no version (no number), or the
 * version it names is one no reader can follow once the push is done (a
 * file of it here not published, or, none held here, none listed by the
 * datastore). A marker removed here holds nothing (`free`), nor does a
 * committed marker naming another version. The committed marker naming `n`
 * with the marker here published in its place lets it through (`in-place`):
 * the push gate looks at it again once the uploads are made.
 *
 * @module
 */
import type { ClassifierRule } from "./context.ts";
import { sha256Hex } from "./hash.ts";
import { isInternalPath } from "./paths.ts";

/**
 * What the rule looks at, as one side sees it. A look that rejects rejects
 * the verdict; a look that answers `null` cannot tell, and the rule holds
 * the deletion on it.
 */
export interface MarkerLooks {
  /** The classifier rules: a file they make internal is no file of a version. */
  readonly rules: readonly ClassifierRule[];
  /** The marker's bytes here; null where there is none (removed here too). */
  markerBytes(marker: string): Promise<Uint8Array | null>;
  /** The hash this cache synced the marker at; undefined where it never did. */
  syncedHash(marker: string): string | undefined;
  /**
   * The hash the datastore's index lists for the marker; undefined where it
   * lists none, null where the index cannot be read.
   */
  indexedHash(marker: string): Promise<string | undefined | null>;
  /** Whether the push writes the marker here. */
  writesMarker(marker: string): Promise<boolean>;
  /** The files held here under `dir` (internal ones too); null where they cannot be listed. */
  filesUnder(dir: string): Promise<readonly string[] | null>;
  /** Whether the file here `path` is published once the push is done (synced, or written by it). */
  published(path: string): boolean;
  /** Whether the datastore's index lists a file under `dir` once the push is done. */
  indexLists(dir: string): Promise<boolean>;
}

/** The verdict on the deletion of version `n` under `marker` (see the module). */
export type MarkerVerdict =
  | { readonly kind: "free" }
  | { readonly kind: "here"; readonly marker: string; readonly n: string }
  | {
    readonly kind: "committed" | "in-place";
    readonly marker: string;
    readonly n: string;
    /** What the marker here names (trimmed; empty where too long to be a version number). */
    readonly here: string;
  };

/**
 * What a marker's bytes name: trimmed, empty where too long (over 64
 * bytes) to be a version number.
 *
 * @example
 * ```ts
 * import { markerText } from "./version_marker_hold.ts";
 * markerText(new TextEncoder().encode("2\n")); // "2"
 * ```
 */
export function markerText(bytes: Uint8Array): string {
  return bytes.length <= 64 ? new TextDecoder().decode(bytes).trim() : "";
}

/**
 * The rule over `looks`: the verdict on a deletion of version `n` under
 * `marker`. Each marker is read, and whether the marker here goes in the
 * committed one's place looked at, once per function made.
 *
 * @example
 * ```ts
 * import { markerVerdicts } from "./version_marker_hold.ts";
 * const verdict = markerVerdicts({
 *   rules: [],
 *   markerBytes: () => Promise.resolve(new TextEncoder().encode("2")),
 *   syncedHash: () => undefined,
 *   indexedHash: () => Promise.resolve(undefined),
 *   writesMarker: () => Promise.resolve(false),
 *   filesUnder: () => Promise.resolve([]),
 *   published: () => false,
 *   indexLists: () => Promise.resolve(false),
 * });
 * await verdict("data/t/m/out/latest", "2"); // { kind: "here", marker: "data/t/m/out/latest", n: "2" }
 * ```
 */
export function markerVerdicts(
  looks: MarkerLooks,
): (marker: string, n: string) => Promise<MarkerVerdict> {
  const here = new Map<string, Promise<string | null>>();
  const inPlace = new Map<string, Promise<boolean>>();
  const enc = new TextEncoder();
  return async (marker, n) => {
    if (!here.has(marker)) {
      here.set(marker, looks.markerBytes(marker).then((b) => b ? markerText(b) : null));
    }
    const named = await here.get(marker)!;
    if (named === n) return { kind: "here", marker, n };
    if (named === null) return { kind: "free" };
    const hashes = await Promise.all([n, `${n}\n`].map((t) => sha256Hex(enc.encode(t))));
    const names = (h: string | undefined | null) =>
      h === null || (h !== undefined && hashes.includes(h));
    if (!names(looks.syncedHash(marker)) && !names(await looks.indexedHash(marker))) {
      return { kind: "free" };
    }
    if (!inPlace.has(marker)) inPlace.set(marker, publishable(looks, marker, named));
    const kind = await inPlace.get(marker)! ? "in-place" : "committed";
    return { kind, marker, n, here: named };
  };
}

/**
 * Whether the push publishes the marker here, naming `named`, in the
 * committed one's place: it writes the marker, the marker names a version
 * (a number), and that version's files here are each published (or are all
 * internal), or, none held here, the datastore's index lists it.
 */
async function publishable(looks: MarkerLooks, marker: string, named: string): Promise<boolean> {
  if (!await looks.writesMarker(marker)) return false;
  if (!/^[0-9]+$/.test(named)) return false;
  const dir = `${marker.slice(0, marker.lastIndexOf("/"))}/${named}`;
  const held = await looks.filesUnder(dir);
  if (held === null) return false;
  const files = held.filter((f) => !isInternalPath(f, looks.rules));
  if (held.length > 0 && files.length === 0) return true;
  if (files.length === 0) return await looks.indexLists(dir);
  return files.every((f) => looks.published(f));
}
