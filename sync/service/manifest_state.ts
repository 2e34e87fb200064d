/**
 * The state `ManifestFiles` keeps of the synced manifest's files: what it
 * found of them (`ManifestLoad`), the points where a test puts another
 * process's write (`ManifestHooks`), and what this process knows of the
 * base and the log on disk (`ManifestState`), which the take-in
 * (`manifest_take_in.ts`) and the base writer (`manifest_base.ts`) read and
 * set.
 *
 * @module
 */
import { AheadLog } from "./manifest_ahead.ts";
import { SeenFiles } from "./manifest_disk.ts";

/** What {@link ManifestFiles.load} found. */
export type ManifestLoad =
  | { readonly kind: "none" }
  | {
    readonly kind: "read";
    readonly indexVersion: string | undefined;
    /** Numbers of the log lines passed over as unreadable (their records lost); absent when none. */
    readonly damaged?: readonly number[];
  }
  | { readonly kind: "unreadable"; readonly error: Error };

/**
 * Points inside a write where a test puts another process's write (two
 * processes' writes interleave there, one thread's cannot).
 */
export interface ManifestHooks {
  /** A base's take-in read the files; the base is about to be written. */
  readonly beforeBase?: () => void;
  /** A line written ahead found the log it holds in place; its bytes are about to be written. */
  readonly beforeAheadWrite?: () => void;
}

/** The state of the manifest's files in the state directory `dir`, as one process knows it. */
export interface ManifestState {
  readonly dir: string;
  /** Generation of the base on disk (-1 before the first); the next base takes a higher one. */
  gen: number;
  /**
   * The base of generation {@link gen} as found before this process read
   * it, or once it wrote it (see `baseStamp`): lines are written ahead only
   * while it is in place.
   */
  baseStamp: string | undefined;
  /** Whether a readable base is on disk: until then every save writes one. */
  hasBase: boolean;
  /** Lines of this generation in the log. */
  logLines: number;
  /** The next save writes a base (the files were damaged, or the log's last line torn). */
  rewrite: boolean;
  /** The log as lines are written ahead of a save (see `ManifestFiles.writeAhead`). */
  readonly ahead: AheadLog;
  /** The base on disk records nothing (no entry, no index version). */
  emptyBase: boolean;
  /** The files as this process last read them, with its own appends since (see `ManifestFiles.refresh`). */
  readonly seen: SeenFiles;
  /** The log the last take-in read (inode, null for none; bytes of its whole lines read): see `writeBase`. */
  readThrough: { readonly ino: number | null; readonly size: number } | undefined;
  /**
   * Paths whose lines another process wrote ahead to a log this process's
   * base replaced, taken into its records but not yet written again under a
   * base (the append failed): its own records until its next base or
   * append holds them, as no file does.
   */
  readonly lateUnsaved: Set<string>;
  /**
   * Numbers of the log lines a take-in passed over as damaged (their
   * records lost) not yet told (see `ManifestFiles.tellDamaged`).
   */
  readonly damagedUntold: number[];
  /** The damaged log lines found so far, by the log's inode and line number: each is told once. */
  readonly damagedFound: Set<string>;
  readonly hooks: ManifestHooks;
}

/**
 * The state of files not read yet in `dir`.
 *
 * @example
 * ```ts
 * import { newManifestState } from "./manifest_state.ts";
 * const s = newManifestState(await Deno.makeTempDir());
 * console.log(s.gen, s.hasBase); // -1 false
 * ```
 */
export function newManifestState(dir: string, hooks: ManifestHooks = {}): ManifestState {
  return {
    dir,
    gen: -1,
    baseStamp: undefined,
    hasBase: false,
    logLines: 0,
    rewrite: false,
    ahead: new AheadLog(dir),
    emptyBase: false,
    seen: new SeenFiles(),
    readThrough: undefined,
    lateUnsaved: new Set<string>(),
    damagedUntold: [],
    damagedFound: new Set<string>(),
    hooks,
  };
}
