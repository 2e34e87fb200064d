/**
 * The shared bucket layout: the index objects that every client of a
 * datastore bucket reads and writes, so that Sluice and other clients of the
 * same layout see each other's writes.
 *
 * - v1: one index object, `.datastore-index.json`:
 *   `{version: 1, lastPulled, entries: {<path>: {key, size, lastModified, localMtime?, sha256?}}}`;
 * - v2: shards `_index/<partition>.json` (`{version: 1, entries}`) listed by
 *   `_index/_meta.json` (`{version: 2, partitions, commitSeq}`), where
 *   `commitSeq` grows by one with every commit. A bucket is v2 once its meta
 *   says so; a v1 meta (`{version: 1, partitions}`) only lists the shards
 *   written beside the v1 index.
 *
 * Sluice's own safety data rides in each entry as an extra field, `sluice`:
 * `{v: <object version>, h: <sha256>}`. Other clients ignore it; an entry
 * they rewrite loses it (or keeps a stale one whose `h` no longer matches
 * `sha256`), and Sluice then treats the entry's object version as unknown.
 *
 * Paths with no partition (outside the known top-level directories) live in
 * the shard {@link UNPARTITIONED}, which Sluice always reads whether or not
 * the meta lists it.
 *
 * @module
 */
import { isTempFileName } from "./atomic_write.ts";
import { preview } from "../errors.ts";

/** The v1 index object. */
export const MONOLITH_KEY = ".datastore-index.json";
/** The v2 (or v1 companion) shard list. */
export const META_KEY = "_index/_meta.json";
/** Shard of the paths that have no partition key. */
export const UNPARTITIONED = "_unpartitioned";
/**
 * Where Sluice keeps its own objects in a bucket (the record of lost files,
 * the clock and endpoint probes): under `_control/`, which the layout's
 * other clients leave out of their listings, so that none names them in an
 * index it writes. An earlier release kept them under `.sluice/`.
 */
export const BUCKET_RECORDS_DIR = "_control/.sluice";

/** Store key of a shard. */
export function shardKey(partition: string): string {
  return `_index/${partition}.json`;
}

/** One indexed path, as Sluice uses it. */
export interface IndexEntry {
  /**
   * Object version (ETag or generation) as recorded by Sluice; for an entry
   * another client wrote, a synthetic `~…` id (see {@link isUnversioned}) that
   * changes whenever the entry does.
   */
  readonly v: string;
  /** Hex SHA-256, or `""` when the writer recorded none. */
  readonly h: string;
  /** Size in bytes. */
  readonly s: number;
  /** The entry as read from the bucket, written back unchanged when untouched. */
  readonly raw?: Readonly<Record<string, unknown>>;
}

/** True for an entry whose object version is unknown (another client wrote it): any version of the object is accepted, checked by hash or size. */
export function isUnversioned(e: IndexEntry): boolean {
  return e.v.startsWith("~");
}

const SUBDIR_PARTITIONS = new Set([
  "workflows-evaluated",
  "auto-definitions",
  "audit",
  "telemetry",
  "logs",
  "files",
]);

/**
 * The partition (shard) of a path in the v2 layout; `undefined` for paths
 * the layout leaves unpartitioned. The rule is the layout's, kept exactly:
 * `data`, `outputs` and `definitions-evaluated` paths of 4–5 segments take
 * all but the last, of 6 or more all but the last three, joined with `--`;
 * `workflow-runs/<id>/…` takes `workflow-runs--<id>`; six other top-level
 * directories are one partition each; a single segment is `_root`.
 *
 * @example
 * ```ts
 * import { partitionKeyFromPath } from "./bucket_layout.ts";
 * partitionKeyFromPath("data/aws/ec2/vpc/abc/state/1/raw"); // "data--aws--ec2--vpc--abc"
 * partitionKeyFromPath("config/x.yaml"); // undefined
 * ```
 */
export function partitionKeyFromPath(rel: string): string | undefined {
  // Computed for every entry of a shard or index written, so by slash
  // positions rather than by splitting and joining (a third of the time).
  const slashes: number[] = [];
  for (let i = rel.indexOf("/"); i >= 0; i = rel.indexOf("/", i + 1)) slashes.push(i);
  const segments = slashes.length + 1;
  if (segments < 2) return rel !== "" ? "_root" : undefined;
  const top = rel.slice(0, slashes[0]);
  switch (top) {
    case "data":
    case "outputs":
    case "definitions-evaluated":
      if (segments < 4) return undefined;
      // All but the last segment (4–5 segments), or all but the last three.
      return rel.slice(0, slashes[segments >= 6 ? segments - 4 : segments - 2]).replaceAll(
        "/",
        "--",
      );
    case "workflow-runs":
      return segments < 3 ? undefined : `workflow-runs--${rel.slice(slashes[0] + 1, slashes[1])}`;
    default:
      return SUBDIR_PARTITIONS.has(top) ? top : undefined;
  }
}

/**
 * The `latest` marker of a data version file
 * (`data/<type…>/<model>/<data>/<N>/raw` or `…/metadata.yaml`: the marker
 * is `data/<type…>/<model>/<data>/latest`); undefined for any other path.
 *
 * @example
 * ```ts
 * import { markerOfVersionFile } from "./bucket_layout.ts";
 * markerOfVersionFile("data/aws/m1/state/4/raw"); // "data/aws/m1/state/latest"
 * markerOfVersionFile("config/x.yaml"); // undefined
 * ```
 */
export function markerOfVersionFile(rel: string): string | undefined {
  const segs = rel.split("/");
  return isVersionFile(segs) ? `${segs.slice(0, -2).join("/")}/latest` : undefined;
}

/**
 * True for the segments of a data version file:
 * `data/<type…>/<model>/<data>/<N>/raw` or `…/metadata.yaml` (the type has
 * at least one segment).
 */
export function isVersionFile(segs: readonly string[]): boolean {
  const n = segs.length;
  const base = segs[n - 1];
  return segs[0] === "data" && n >= 6 && /^\d+$/.test(segs[n - 2]) &&
    (base === "raw" || base === "metadata.yaml");
}

/** The shard Sluice keeps a path in: its partition, or {@link UNPARTITIONED}. */
export function shardOf(rel: string): string {
  return partitionKeyFromPath(rel) ?? UNPARTITIONED;
}

/**
 * True for cache paths that other clients of the layout keep local and never
 * index: the index and its shards, the control plane, lock files, namespace
 * manifests, sync sidecars and local catalogs (at any depth where the layout
 * says so). Sluice never uploads or pulls them either.
 *
 * @example
 * ```ts
 * import { isLayoutInternal } from "./bucket_layout.ts";
 * isLayoutInternal("data/t/m/.lock"); // true
 * isLayoutInternal(".sluice/clock"); // true
 * isLayoutInternal("data/t/m/d/1/raw"); // false
 * ```
 */
export function isLayoutInternal(rel: string): boolean {
  if (
    rel === MONOLITH_KEY || rel === ".push-queue.json" || rel === ".datastore.lock" ||
    rel === ".datastore-sync-state.json"
  ) return true;
  if (rel === "_index" || rel.startsWith("_index/")) return true;
  if (rel === "_control" || rel.startsWith("_control/")) return true;
  if (rel === ".sluice" || rel.startsWith(".sluice/")) return true;
  const base = rel.slice(rel.lastIndexOf("/") + 1);
  return base === ".lock" || base === ".namespace.json" || base === "_catalog.db" ||
    base.startsWith("_catalog.db-");
}

/**
 * True for a cache path Sluice never pushes nor pulls: the layout's own
 * objects ({@link isLayoutInternal}, `.sluice/` among them), the namespaced
 * global locks under `.locks/`, and temporary files caught between their
 * write and their rename (`isTempFileName`). The push's path classifier and
 * the pull take the same paths for local-only.
 *
 * @example
 * ```ts
 * import { isLocalOnly } from "./bucket_layout.ts";
 * isLocalOnly("notes/raw.sluice-9f86d0811.tmp"); // true
 * isLocalOnly("files/app/yarn.lock"); // false
 * ```
 */
export function isLocalOnly(rel: string): boolean {
  return isLayoutInternal(rel) || rel === ".locks" || rel.startsWith(".locks/") ||
    isTempFileName(rel.slice(rel.lastIndexOf("/") + 1));
}

/**
 * {@link isLocalOnly} of `rel`, or of `rel` under a namespace or another
 * datastore's prefix (its first segment taken off): `prod/_index/_meta.json`
 * and `team/.datastore-index.json` are that prefix's own layout objects,
 * never a file of this datastore's. The push's path classifier, the pull and
 * the index discovery take these paths for local-only alike.
 *
 * @example
 * ```ts
 * import { isLocalOnlyPath } from "./bucket_layout.ts";
 * isLocalOnlyPath("prod/_index/_meta.json"); // true
 * isLocalOnlyPath("notes/_meta.json"); // false
 * ```
 */
export function isLocalOnlyPath(rel: string): boolean {
  if (isLocalOnly(rel)) return true;
  const slash = rel.indexOf("/");
  return slash > 0 && isLocalOnly(rel.slice(slash + 1));
}

type Raw = Record<string, unknown>;

const isObject = (x: unknown): x is Raw => typeof x === "object" && x !== null && !Array.isArray(x);

/** Reads one entry; throws naming the path when it is malformed. */
export function parseEntry(path: string, raw: unknown): IndexEntry {
  if (!isObject(raw) || !Number.isSafeInteger(raw.size) || (raw.size as number) < 0) {
    throw new Error(`the entry of ${JSON.stringify(preview(path, 80))} is malformed`);
  }
  const sha = typeof raw.sha256 === "string" && /^[0-9a-f]{64}$/.test(raw.sha256) ? raw.sha256 : "";
  const ours = isObject(raw.sluice) ? raw.sluice : undefined;
  const known = ours && typeof ours.v === "string" && ours.v !== "" && !ours.v.startsWith("~") &&
    ours.h === sha && sha !== "";
  const v = known ? ours.v as string : `~${sha || `${raw.size}@${String(raw.lastModified ?? "")}`}`;
  return { v, h: sha, s: raw.size as number, raw };
}

/** Writes one entry: the raw entry when Sluice did not change it, else a fresh one. */
export function serialiseEntry(path: string, e: IndexEntry, nowIso: string): Raw {
  if (e.raw) return e.raw as Raw;
  const out: Raw = { key: path, size: e.s, lastModified: nowIso };
  if (e.h) out.sha256 = e.h;
  if (e.h && !isUnversioned(e)) out.sluice = { v: e.v, h: e.h };
  return out;
}

/**
 * One entry's JSON text: exactly `JSON.stringify(serialiseEntry(path, e,
 * nowIso))`, built as text because every commit serialises each entry of
 * the shards (and of a v1 index) it writes, and the object form took twice
 * as long.
 */
export function entryJson(path: string, e: IndexEntry, nowIso: string): string {
  return entryText(JSON.stringify(path), e, JSON.stringify(nowIso));
}

/** {@link entryJson} of the path and time given as JSON text already (`key`, `at`). */
function entryText(key: string, e: IndexEntry, at: string): string {
  if (e.raw) return JSON.stringify(e.raw);
  let out = `{"key":${key},"size":${JSON.stringify(e.s)},"lastModified":${at}`;
  if (e.h) {
    const h = JSON.stringify(e.h);
    out += `,"sha256":${h}`;
    if (!isUnversioned(e)) out += `,"sluice":{"v":${JSON.stringify(e.v)},"h":${h}}`;
  }
  return `${out}}`;
}

/**
 * The text of each entry as last serialised (with its path, at its time):
 * a v1 commit writes each new entry twice (the index object and its shard),
 * and an entry read from the index keeps its text from commit to commit.
 */
const entryTexts = new WeakMap<IndexEntry, { path: string; at: string; text: string }>();

/** The JSON text of a map of entries (`{"<path>":<entry>,…}`, in the map's key order). */
function entriesJson(entries: Record<string, IndexEntry>, nowIso: string): string {
  const parts: string[] = [];
  // Each path's JSON text serves as its key and its entry's `key`; the time, every entry's.
  const at = JSON.stringify(nowIso);
  for (const p of Object.keys(entries)) {
    const e = entries[p];
    const known = entryTexts.get(e);
    if (known && known.path === p && (e.raw || known.at === nowIso)) {
      parts.push(known.text);
      continue;
    }
    const key = JSON.stringify(p);
    const text = `${key}:${entryText(key, e, at)}`;
    entryTexts.set(e, { path: p, at: nowIso, text });
    parts.push(text);
  }
  return `{${parts.join(",")}}`;
}

/** Parses a map of entries (of the v1 index or a shard), leaving out internal paths. */
export function parseEntries(raw: unknown): Record<string, IndexEntry> {
  if (!isObject(raw)) throw new Error("its entries are not an object");
  const out: Record<string, IndexEntry> = {};
  for (const [path, e] of Object.entries(raw)) {
    if (isLayoutInternal(path)) continue; // scrubbed, as every client of the layout does
    out[path] = parseEntry(path, e);
  }
  return out;
}

/** Parses the v1 index object. */
export function parseMonolith(body: Uint8Array): Record<string, IndexEntry> {
  const j = JSON.parse(new TextDecoder().decode(body));
  if (!isObject(j) || j.version !== 1) throw new Error("it is not a version 1 index");
  return parseEntries(j.entries);
}

/** The v1 index object's bytes. */
export function monolithBody(entries: Record<string, IndexEntry>, nowIso: string): Uint8Array {
  return new TextEncoder().encode(
    `{"version":1,"lastPulled":${JSON.stringify(nowIso)},"entries":${
      entriesJson(entries, nowIso)
    }}`,
  );
}

/** Parses a shard; `null` when its version is not 1 (the layout treats it as absent). */
export function parseShard(body: Uint8Array): Record<string, IndexEntry> | null {
  const j = JSON.parse(new TextDecoder().decode(body));
  if (!isObject(j)) throw new Error("it is not an object");
  if (j.version !== 1) return null;
  return parseEntries(j.entries);
}

/** A shard's bytes. */
export function shardBody(entries: Record<string, IndexEntry>, nowIso: string): Uint8Array {
  return new TextEncoder().encode(`{"version":1,"entries":${entriesJson(entries, nowIso)}}`);
}

/** The shard list. */
export type Meta =
  | {
    readonly version: 1;
    readonly partitions: readonly string[];
    /**
     * Set by a move to v2 before it reads the v1 index: a v1 commit of
     * Sluice's that finds it always writes the meta (without it), so the
     * move's compare-and-swap of its v2 meta fails and it reads again.
     */
    readonly movingToV2?: string;
  }
  | {
    readonly version: 2;
    readonly partitions: readonly string[];
    readonly commitSeq: number;
    readonly raw: Readonly<Raw>;
  };

/** Parses the meta; `null` when it is neither form (the layout then uses the v1 index). */
export function parseMeta(body: Uint8Array): Meta | null {
  let j: unknown;
  try {
    j = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return null;
  }
  if (!isObject(j) || !Array.isArray(j.partitions)) return null;
  const partitions = j.partitions.filter((p): p is string =>
    typeof p === "string" && /^[^/\\]+$/.test(p) && p !== ".." && p !== "."
  );
  if (j.version === 1) {
    const moving = typeof j.movingToV2 === "string" ? { movingToV2: j.movingToV2 } : {};
    return { version: 1, partitions, ...moving };
  }
  if (j.version === 2 && Number.isSafeInteger(j.commitSeq)) {
    return { version: 2, partitions, commitSeq: j.commitSeq as number, raw: j };
  }
  return null;
}

/** The meta's bytes (extra fields of a v2 meta are kept). */
export function metaBody(meta: Meta): Uint8Array {
  const body = meta.version === 2
    ? {
      ...meta.raw,
      version: 2,
      partitions: [...meta.partitions].sort(),
      commitSeq: meta.commitSeq,
    }
    : {
      version: 1,
      partitions: [...meta.partitions].sort(),
      ...(meta.movingToV2 === undefined ? {} : { movingToV2: meta.movingToV2 }),
    };
  return new TextEncoder().encode(JSON.stringify(body));
}
