/**
 * What a service remembers of the remote index between its own pulls and
 * pushes: the last index it read or wrote (so that an unchanged v1 index is
 * not downloaded again), and the last v2 meta it saw, kept in a file of the
 * cache's state directory too, so that the first push of a fresh process
 * need not read the meta before writing its shards.
 *
 * Both are hints: a stale one only makes a compare-and-swap fail, after
 * which the index is read again. The file is written without an fsync; a
 * lost or torn one is ignored.
 *
 * @module
 */
import { type IndexEntry, type Meta, metaBody, parseMeta } from "./bucket_layout.ts";
import { atomicWrite } from "./atomic_write.ts";

/** A parsed index with its token. */
export interface RemoteIndex {
  /** `v1:<version>` or `v2:<meta version>`. */
  readonly version: string;
  readonly entries: Record<string, IndexEntry>;
  /** For a v2 index, the meta it was read under. */
  readonly meta?: MetaSeen;
  /** For a v2 index read whole: the object version of each shard read (partition to version). */
  readonly shards?: Readonly<Record<string, string>>;
  /**
   * A v1 index this process created naming nothing (a first push's early
   * index): no shard was written at its version, so a commit over it reads
   * none, and creates each it writes only where none is, as over a new index.
   */
  readonly noShards?: boolean;
}

/** Shard versions of a v2 index (partition to object version), under the meta version `at`. */
export interface ShardsSeen {
  readonly at: string;
  readonly versions: Readonly<Record<string, string>>;
}

/** A v2 meta with the object version it was read or written at. */
export interface MetaSeen {
  readonly meta: Meta;
  readonly version: string;
}

/**
 * The memo of one service (pushes and pulls are serialised, so one at a
 * time uses it).
 *
 * @example
 * ```ts
 * import { IndexMemo } from "./index_memo.ts";
 * const memo = new IndexMemo(); // in memory only
 * console.log(await memo.meta()); // undefined
 * ```
 */
export class IndexMemo {
  #last: RemoteIndex | null = null;
  #meta?: MetaSeen;
  #loaded: boolean;
  #saved?: MetaSeen;
  #shards?: ShardsSeen;
  #savedShards?: ShardsSeen;
  /** The highest `commitSeq` of any v2 meta this cache saw (see {@link highestSeq}). */
  #highest = 0;
  #savedHighest = 0;
  readonly #file?: string;
  /**
   * True once a meta write of this process was refused: the next commits
   * read the meta after their shards land instead of writing on the memo's
   * (then mostly stale) one, so that a refused write means a peer's later
   * bump published theirs.
   */
  contended = false;

  readonly #store: string;

  /**
   * `file`: where the last v2 meta is kept between processes (none: in
   * memory only); `store`: the endpoint of the store it is of (a file
   * written for another store is ignored: versions of two buckets may
   * coincide).
   */
  constructor(file?: string, store = "") {
    this.#file = file;
    this.#store = store;
    this.#loaded = file === undefined;
  }

  /** Keeps `index` (which must not be changed afterwards by the caller), and its meta. */
  remember(index: RemoteIndex | null): void {
    this.#last = index;
    this.#meta = index?.meta;
    if (index?.meta?.meta.version === 2) {
      this.#highest = Math.max(this.#highest, index.meta.meta.commitSeq);
    }
    this.#shards = index?.meta && index.shards
      ? { at: index.meta.version, versions: index.shards }
      : undefined;
  }

  /**
   * The shard versions of the index last read whole (or committed on one
   * known so), when that index is the one under meta version `at`.
   */
  async shardsAt(at: string): Promise<ShardsSeen | undefined> {
    await this.meta();
    return this.#shards?.at === at ? this.#shards : undefined;
  }

  /** Records the shard versions under meta version `at` (`undefined`: not known). */
  noteShards(seen: ShardsSeen | undefined): void {
    this.#shards = seen;
  }

  /** Hands over the kept index, if any, and forgets it. */
  take(): RemoteIndex | null {
    const last = this.#last;
    this.#last = null;
    return last;
  }

  /** The last v2 meta seen (loaded from the file on first use). */
  async meta(): Promise<MetaSeen | undefined> {
    if (!this.#loaded) {
      this.#loaded = true;
      try {
        const j = JSON.parse(await Deno.readTextFile(this.#file!));
        const meta = typeof j?.version === "string" && j.store === this.#store
          ? parseMeta(new TextEncoder().encode(JSON.stringify(j.meta)))
          : null;
        // The file's meta is the one known only while none was noted first
        // (then that one is newer, and not saved yet).
        if (meta?.version === 2 && this.#meta === undefined) {
          this.#saved = this.#meta = { meta, version: j.version };
        }
        // Of this store only (the numbers of two buckets are unrelated).
        const highest = j?.store !== this.#store ? 0 : Math.max(
          meta?.version === 2 ? meta.commitSeq : 0,
          Number.isSafeInteger(j.highestSeq) ? j.highestSeq : 0,
        );
        this.#savedHighest = highest;
        this.#highest = Math.max(this.#highest, highest);
        const shards = j.shards;
        if (
          meta?.version === 2 && typeof shards?.at === "string" &&
          typeof shards.versions === "object" && shards.versions !== null &&
          Object.values(shards.versions).every((v) => typeof v === "string")
        ) {
          if (this.#shards === undefined) {
            this.#savedShards = this.#shards = { at: shards.at, versions: shards.versions };
          }
        }
      } catch {
        // absent or unreadable: no hint
      }
    }
    return this.#meta;
  }

  /** Records the v2 meta last read or written (`undefined`: none known). */
  noteMeta(seen: MetaSeen | undefined): void {
    this.#meta = seen;
    if (seen?.meta.version === 2) this.#highest = Math.max(this.#highest, seen.meta.commitSeq);
  }

  /**
   * The highest `commitSeq` of a v2 meta this cache saw, also in earlier
   * processes (loaded from the file on first use): a meta below it was put
   * back by a writer of an older one, and old clients may have recorded
   * numbers above it that a bump to the next one would repeat.
   */
  async highestSeq(): Promise<number> {
    await this.meta();
    return this.#highest;
  }

  /** Writes the last v2 meta to the file when it changed (never throws). */
  async persist(): Promise<void> {
    // The file read first: the highest number it keeps is kept on.
    if (!this.#loaded) await this.meta();
    const m = this.#meta;
    const shards = this.#shards;
    const highest = this.#highest;
    if (
      !this.#file ||
      (m === this.#saved && shards === this.#savedShards && highest === this.#savedHighest)
    ) return;
    this.#saved = m;
    this.#savedShards = shards;
    this.#savedHighest = highest;
    const body = m
      ? `{"store":${JSON.stringify(this.#store)},"version":${JSON.stringify(m.version)},"meta":${
        new TextDecoder().decode(metaBody(m.meta))
      }${shards ? `,"shards":${JSON.stringify(shards)}` : ""},"highestSeq":${highest}}`
      : `{"store":${JSON.stringify(this.#store)},"highestSeq":${highest}}`;
    await atomicWrite(this.#file, new TextEncoder().encode(body), false).catch(() => {});
  }
}
