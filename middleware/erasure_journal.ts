/**
 * The erasure journal of the refused-run eraser: what a refused run left to
 * erase (its version directories, the objects its push uploaded, the model
 * prefixes to refresh) and the runs held back because they could not be
 * attributed, kept durably in the cache's state directory so that a process
 * that dies mid-erasure has the next push complete it.
 *
 * @module
 */
import { SluiceError } from "../sync/errors.ts";
import type { CacheAccess, StateAccess } from "../sync/context.ts";
import type { ObjectStore } from "../sync/ports.ts";

/** File name of the journal inside the cache's state directory. */
export const ERASURE_JOURNAL = "erasure.json";

/**
 * A remote object a refused push wrote, to be deleted while it still has
 * `version` ({@link UNLOOKED}: not known yet, see there).
 */
export interface UploadRef {
  readonly path: string;
  readonly version: string;
}

/**
 * The version of an upload an earlier push of this cache may have left at a
 * path a refusal erases, that the refusal could not look at (the datastore
 * failed the look): the erasure looks again, and deletes the object found
 * there only when it carries this cache's writer id (at the version found,
 * and only while no index names it); until then it stays pending.
 */
export const UNLOOKED = "";

/** A version directory that could not be attributed to the refused run, and why. */
export interface Unattributable {
  readonly dir: string;
  readonly reason: string;
}

/** A refused run whose data could not be erased safely: held out of every push. */
export interface HeldRun {
  /** Every version directory the run wrote (all held, none deleted). */
  readonly dirs: readonly string[];
  /** Why erasing was refused. */
  readonly problems: readonly Unattributable[];
  /** Objects the refused push had already uploaded (left in place). */
  readonly uploads: readonly UploadRef[];
  /** When the run was refused (clock ms). */
  readonly at: number;
}

/** The journal: pending erasure work and held runs. Written before anything is touched. */
export interface ErasureJournal {
  readonly format: 1;
  /** Version directories still to erase from the cache, the dirty set and the manifest. */
  erase: string[];
  /** Remote objects still to delete. */
  uploads: UploadRef[];
  /** Cache prefixes to refresh once the erasure is done. */
  prefixes: string[];
  /** Runs held out of pushes because their versions could not be attributed. */
  held: HeldRun[];
  /**
   * Where each directory of `erase` is being moved (a name in the state dir),
   * recorded before the move: after a crash, that name existing means the
   * move happened, so whatever is at the directory now is a later run's.
   */
  moving: Record<string, string>;
  /** Moved-away directories (names in the state dir) still to delete. */
  trash: string[];
  /** `latest` markers still to recompute after their versions were erased. */
  markers: string[];
  /**
   * Erased version directories whose files published on the datastore
   * already were kept (see `erasure_published.ts`), while their markers are
   * still to recompute: a marker changed here naming one is recomputed as
   * if it were gone (it never names it for the discarded run).
   */
  keptPublished?: string[];
  /**
   * For a pending upload whose directory was moved away already: where its
   * bytes are kept in the state dir (under a moved-away directory of
   * `trash`, not deleted while named here), so that the next push can still
   * put it back if a peer's commit named it (see `deleteUploads`).
   */
  keep?: Record<string, string>;
}

/** What happened to one `latest` marker. */
export interface MarkerOutcome {
  readonly path: string;
  /** The version the marker names now; null when removed. */
  readonly version: number | null;
  /** True when the marker stays dirty (it names an unpushed earlier version). */
  readonly dirty: boolean;
  /**
   * What a locally changed marker said before the recomputation replaced it
   * (it named an erased version); absent when it was not a local change.
   */
  readonly was?: string;
}

/** What {@link completeErasure} did. */
export interface ErasureOutcome {
  /** Directories removed from the cache, the dirty set and the manifest (but their `published` files). */
  readonly erased: readonly string[];
  /** Remote objects deleted. */
  readonly deleted: readonly string[];
  /** Remote objects left because they no longer carry the refused push's version. */
  readonly kept: readonly string[];
  /** Remote deletions that failed (still in the journal, retried by the next push). */
  readonly pending: readonly UploadRef[];
  /**
   * Remote objects deleted while a peer's commit named them (its same-output
   * run's version), put back with the same bytes and named again.
   */
  readonly restored: readonly string[];
  /** The recomputed markers. */
  readonly markers: readonly MarkerOutcome[];
  /**
   * Files of the erased directories published on the datastore already
   * (synced, their bytes unchanged): the datastore's copies, kept in the
   * cache and on the datastore (see `erasure_published.ts`).
   */
  readonly published: readonly string[];
}

/** Collaborators of an erasure. */
export interface ErasureDeps {
  readonly cache: CacheAccess;
  readonly state: StateAccess;
  readonly store: ObjectStore;
  readonly signal?: AbortSignal;
  /**
   * Parallel store reads (the remote index's shards), default 1; and
   * whether unfinished versions are held (a recomputed `latest` marker then
   * never names one), default `push`.
   */
  readonly config?: {
    readonly concurrency?: number;
    readonly unfinishedVersions?: "push" | "hold";
  };
  /**
   * Waits while another process holds the journal's lock, and times the
   * index entry of an upload put back (default: real time).
   */
  readonly clock?: { sleep(ms: number, signal?: AbortSignal): Promise<void>; now?(): number };
}

/** A new, empty journal. */
export function emptyJournal(): ErasureJournal {
  return {
    format: 1,
    erase: [],
    uploads: [],
    prefixes: [],
    held: [],
    moving: {},
    trash: [],
    markers: [],
  };
}

/** True when the journal has erasure work left (a crash happened mid-erasure). */
export function journalPending(j: ErasureJournal): boolean {
  return j.erase.length > 0 || j.uploads.length > 0 || j.trash.length > 0 ||
    j.markers.length > 0;
}

const strings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === "string");
const refs = (v: unknown): v is UploadRef[] =>
  Array.isArray(v) &&
  v.every((u) => typeof u?.path === "string" && typeof u?.version === "string");

/**
 * Reads the journal; an absent file is an empty journal. A malformed file
 * throws: the push fails closed rather than forget a pending erasure.
 */
export async function readErasureJournal(cache: CacheAccess): Promise<ErasureJournal> {
  const raw = await cache.readState<Partial<ErasureJournal>>(ERASURE_JOURNAL);
  if (raw === null) return emptyJournal();
  const moving = raw.moving ?? {};
  const keep = raw.keep ?? {};
  if (
    raw.format !== 1 || !strings(raw.erase) || !refs(raw.uploads) || !strings(raw.prefixes) ||
    !Array.isArray(raw.held) || !strings(raw.trash ?? []) || !strings(raw.markers ?? []) ||
    typeof moving !== "object" || Array.isArray(moving) ||
    !strings(Object.values(moving)) || typeof keep !== "object" || Array.isArray(keep) ||
    !strings(Object.values(keep)) || !strings(raw.keptPublished ?? [])
  ) {
    throw new SluiceError(
      "internal",
      `The erasure journal ${cache.stateDir}/${ERASURE_JOURNAL} is malformed. Nothing was pushed, so that no refused run's data can leave this cache. Restore the file or remove the refused run's version directories and the file by hand, then run the sync again.`,
    );
  }
  return {
    format: 1,
    erase: raw.erase,
    uploads: raw.uploads,
    prefixes: raw.prefixes,
    held: raw.held,
    moving: { ...moving },
    trash: raw.trash ?? [],
    markers: raw.markers ?? [],
    ...(Object.keys(keep).length > 0 ? { keep: { ...keep } } : {}),
    ...(raw.keptPublished?.length ? { keptPublished: [...raw.keptPublished] } : {}),
  };
}

/** Writes the journal atomically and durably. */
export async function writeErasureJournal(cache: CacheAccess, j: ErasureJournal): Promise<void> {
  await cache.writeState(ERASURE_JOURNAL, j);
}
