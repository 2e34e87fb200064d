/**
 * The records a chaos history's ground truth keeps ({@link TruthRecords}),
 * the types of what it records, and the helpers its checks share; the
 * invariants themselves are in `invariants.ts`.
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import type { MineDeletion } from "./mine_deletions.ts";

/** The invariants. */
export type Invariant =
  | "I1"
  | "I2"
  | "I3"
  | "I4"
  | "I5"
  | "I6"
  | "I7"
  | "I8"
  | "I9"
  | "I10"
  | "I11"
  | "I12"
  | "I13"
  | "I14"
  | "I15"
  | "I16"
  | "I17"
  | "I18"
  | "I19"
  | "I20"
  | "I21"
  | "I22"
  | "I23"
  | "I24"
  | "I25"
  | "I26"
  | "I27"
  | "I28"
  | "I29"
  | "I30"
  | "I31"
  | "I32"
  | "I33"
  | "I34"
  | "I35"
  | "I36"
  | "I37"
  | "I38"
  | "I39";

/** A broken invariant. */
export interface Violation {
  readonly invariant: Invariant;
  readonly message: string;
  /** The history operation after which it was seen (-1: at the end). */
  readonly afterOp: number;
}

/** One file a run wrote. */
export interface RunFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** What happened to a model run. */
export interface RunRecord {
  /** History operation id. */
  readonly op: number;
  readonly clone: number;
  readonly model: string;
  /** Unique text inside every file the run wrote (unless `same`). */
  readonly token: string;
  /**
   * A deterministic run: its files hold what any run of that version
   * writes, so they tell nothing of this run (no I2 for it; I1 holds).
   */
  readonly same?: boolean;
  /** The version files, once written. */
  files: RunFile[];
  /** `pending`, `success`, `crashed`, `hung`, or the error code it failed with. */
  outcome: string;
  /** With `version_exists`: the keys the error named (a version of its own, or another left dirty here). */
  refusedKeys?: readonly string[];
}

/** The record of a run not ended yet, of `op` on its clone, for `model`, its bytes carrying `token`. */
export function pendingRun(
  op: { readonly id: number; readonly clone: number },
  model: string,
  token: string,
): RunRecord {
  return { op: op.id, clone: op.clone, model, token, files: [], outcome: "pending" };
}

/** What happened to a lockfile transaction. */
export interface TxnRecord {
  readonly op: number;
  readonly clone: number;
  /** The change it publishes: its own merged with the clone's pending delta. */
  readonly set: Readonly<Record<string, unknown>>;
  readonly remove: readonly string[];
  /** `pending`, `acked`, `crashed`, `hung`, or an error code. */
  outcome: string;
}

/** Reads the store directly, without faults or scheduling. */
export interface StoreInspector {
  /** Every key. */
  keys(): Promise<string[]>;
  /** An object's bytes, or undefined when absent. */
  read(key: string): Promise<Uint8Array | undefined>;
}

/** True when two byte arrays are equal. */
export function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A file's bytes under a cache dir, or undefined when absent. */
export async function readCacheFile(dir: string, path: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(`${dir}/${path}`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory) {
      return undefined;
    }
    throw e;
  }
}

/** Every file path under `dir` (relative to it), links not followed. */
export async function* walk(dir: string, rel = ""): AsyncGenerator<string> {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(rel ? `${dir}/${rel}` : dir)];
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return;
    throw e;
  }
  for (const e of entries) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) yield* walk(dir, p);
    else yield p;
  }
}

/**
 * What a history's ground truth records as it runs, and how a violation
 * is recorded; the checks over it are `GroundTruth`'s (`invariants.ts`).
 */
export class TruthRecords {
  /** Model runs, in start order. */
  readonly runs: RunRecord[] = [];
  /**
   * Files of committed versions a clone's user deleted while the marker
   * there named their version (`delete` with `committed`): held by the
   * push while the marker names the version (I36), gone once a later push
   * finds the marker moved on; I1 spares them.
   */
  readonly userDeletedCommitted = new Set<string>();
  /** Each `--mine` of a deletion here that dropped its conflict (I39, `mine_deletions.ts`). */
  readonly mineDeletions: MineDeletion[] = [];
  /**
   * Versions a second process over a clone's cache marked dirty (`sibling`
   * moves): one it did not push itself (it died, or its push failed) is the
   * next process's on that cache to publish (I28).
   */
  readonly marked: RunRecord[] = [];
  /** Lockfile transactions, in start order. */
  readonly txns: TxnRecord[] = [];
  /** Entry names some issued transaction removes (acknowledged or not). */
  readonly removals = new Set<string>();
  /** Old clients' writes of a refused run's bytes (`oldsame` moves), for I12 at every decision. */
  readonly oldCommitted: { op: number; path: string; bytes: Uint8Array }[] = [];
  /** Pushes old clients completed (histories with old clients): a new file each. */
  readonly oldPushes: { op: number; path: string; text: string }[] = [];
  /**
   * Old clients' pushes started and not returned yet (a crash, an outage):
   * an old client whose push stopped pushes again when it comes back (its
   * file still differs from the index), which the final sync does first.
   */
  /**
   * Shared files an old client's push left as old clients leave them: its
   * stopped push, pushed again on a bucket turned v2 (where old clients
   * index no such file), or a push whose lock another old client took over
   * as stale meanwhile (the two rewrote the index over each other). I7, I8
   * and I11 spare them.
   */
  readonly oldStranded = new Set<string>();
  /** Marks whose writes never came (`unwritten` moves), for I25. */
  readonly unwritten: { op: number; clone: number; path: string; touchedBefore: number }[] = [];
  /** Every old client's push, in the order they started. */
  readonly oldStarted: {
    readonly id: number;
    readonly clone: number;
    readonly file?: number;
    readonly del?: boolean;
    readonly again?: { readonly op: number; readonly clone: number };
  }[] = [];
  /** Paths an old client's pull wrote an index over that no longer named them (`oldpull` moves). */
  readonly oldPullDropped = new Set<string>();
  /**
   * Shared files an old client's push deleted whose entry an old client's
   * pull, having read the index before that deletion's commit, wrote back
   * (`oldpull` moves), by the versions the entries it wrote named: their
   * design drops the deletion's commit, and the index names an object gone
   * until a Sluice pull past the dangling-entry grace removes the entry.
   * I7, I8 and I33 spare such an entry while it names one of those versions
   * and the store holds nothing at the path (seed 217800345). So too a
   * Sluice deletion whose commit landed between that pull's read and its
   * write-back, which named the path again at the version a clone deleted,
   * over an index that no longer named it (`WorldStores.undone`; seed
   * 219400115), or at a version the deleted one replaced by conditional
   * updates landed in between (seed 220100129).
   */
  readonly oldPullUndeleted = new Map<string, Set<string>>();
  /**
   * Per path, the versions an old client's pull's write-back took out of
   * the index by naming the path at another version, the one it had read
   * (`oldpull` moves): a Sluice commit rolled back. Its writer's next pull
   * names it again, but where the file was deleted there by hand, the
   * deletion never marked: README's old-client limits leave that to its
   * user (its pull warned `index_entry_dropped`: `droppedTold`), the index naming the older
   * version meanwhile (see `rolledBackDeletedHere` in `old_pull_undone.ts`;
   * seed 4104).
   */
  readonly oldPullRolledBack = new Map<string, Set<string>>();
  /** `<clone>\0<path>` of each path a clone's `index_entry_dropped` warning named first. */
  readonly droppedTold = new Set<string>();
  /**
   * Paths of Sluice writes (their object written by a clone, its writer id
   * on it) an old client's pull wrote an index over without (`oldpull`
   * moves): a commit it dropped, named again by its writer's next pull
   * unless that writer lost its record of the path (see I11).
   */
  readonly oldPullUnnamed = new Set<string>();
  /**
   * Files of runs' versions the store held that an old client's pull wrote
   * an index over without (`oldpull` moves): a commit it dropped, which its
   * writer's next pull names again (`index_entry_dropped`); meanwhile a
   * run of another clone numbered from that index may make the same
   * version (see `checkFinal`).
   */
  readonly oldPullRunsUnnamed = new Set<string>();
  /**
   * Paths of old clients' writes of a refused run's bytes (`oldsame` moves)
   * that an old client's pull wrote an index over without their entry: on a
   * store whose versions are ETags, the run's erasure deletes such a write
   * when it lands between the erasure's look at the object and its delete
   * (the same bytes, the same version), and puts it back once the index
   * names it; an old client's pull that meets the object gone in between
   * drops the entry, by their design. Spared by I11 and I12 while the store
   * holds the write's bytes (put back); gone, it is I12's.
   */
  readonly oldPullMissed = new Set<string>();
  /**
   * Of `oldPullMissed`, those the store did not hold as that pull wrote
   * (the erasure's delete had taken them, and nothing had put them back):
   * with the index naming no entry there, the erasure puts nothing back,
   * and the version's path stands empty, so a later writer that holds the
   * model's lock may make that version with bytes of its own (a create-only
   * put, an object it met absent). I12 spares the write then when the index
   * names other bytes there that the store holds (seed 197300051), unless
   * the store held the old client's bytes again since (`seeOldPutBack`).
   */
  readonly oldPullMetGone = new Set<string>();

  /**
   * At each scheduling decision: a path of `oldPullMetGone` whose object
   * the store holds with the old client's bytes again (put back) leaves
   * it, so that a write over that object after is still I12's.
   */
  async seeOldPutBack(store: StoreInspector): Promise<void> {
    for (const w of this.oldCommitted) {
      if (!this.oldPullMetGone.has(w.path)) continue;
      if (sameBytes(await store.read(w.path), w.bytes)) this.oldPullMetGone.delete(w.path);
    }
  }
  /** Old clients' pushes inside the global lock now (op ids). */
  readonly oldInside = new Set<number>();
  /** `<marker path>\0<hash>` of every marker a user wrote (a marker edit, a merge): not I14's. */
  readonly userMarkers = new Set<string>();
  /** `<marker path>\0<hash>` of every marker a user moved back (`marker` moves with `back`): I9's. */
  readonly markerRollbacks = new Set<string>();
  /** Old clients' pushes that were inside the global lock together with another (op ids). */
  readonly oldOverlapped = new Set<number>();
  readonly oldUnfinished = new Map<
    number,
    {
      readonly id: number;
      readonly clone: number;
      readonly file?: number;
      readonly del?: boolean;
      readonly again?: { readonly op: number; readonly clone: number };
    }
  >();
  /**
   * The objects another tool put into the bucket (`foreign` moves); `own`:
   * a path of its own; `version`: the store's version of its put.
   */
  readonly foreign: { op: number; path: string; text: string; own: boolean; version?: string }[] =
    [];
  /**
   * The objects another tool published mid-history honouring no lock
   * (`lockless` moves): `indexed`, written with its index entry; `marker`,
   * a `latest` marker (not a version's file).
   */
  readonly lockless: {
    op: number;
    path: string;
    text: string;
    indexed: boolean;
    marker: boolean;
  }[] = [];
  /** Objects another tool deleted (`vanish` moves): their bytes, version, and the clones holding them then. */
  protected readonly vanishedObjects: {
    /** Published again with other bytes by another client (not deleted): see `checkVanished`. */
    rewritten: boolean;
    op: number;
    path: string;
    bytes: Uint8Array;
    hash: string;
    version: string;
    holders: number[];
    /** Paths touched before it (`LocalChanges.touched`), and paths let go of before it. */
    touchedBefore: number;
    letGoBefore: number;
    /** A clone's user had deleted the file it synced there, and not pushed that yet (its push may delete the path). */
    pending: boolean;
    /**
     * With an older client's blind push (a `vanish` with `blind`): the run
     * whose raw output it deleted.
     */
    blindRun?: number;
    /**
     * The version the remote index named at the path when the object went:
     * another than `version` where a write no commit named yet had replaced
     * it (the index then names an object gone for the same deletion).
     */
    indexed?: string;
  }[] = [];
  /** Paths a user let go of by taking theirs, in order. */
  protected readonly letGoPaths: string[] = [];
  /**
   * Runs acknowledged whose clone's cache was replaced by a copy since: the
   * cache whose push created their versions, the one copy a pull keeps over
   * a deletion of them on the datastore, went with it.
   */
  protected readonly givenUpRuns = new Set<number>();
  /** Violations found so far. */
  readonly violations: Violation[] = [];
  readonly #seen = new Set<string>();
  readonly #hashes = new WeakMap<RunFile, string>();

  /**
   * Clone `clone`'s cache was replaced by a copy of another's (a `copy`
   * move): what it held there its user gave up, and it holds it no more.
   */
  cacheReplaced(clone: number): void {
    for (const v of this.vanishedObjects) v.holders = v.holders.filter((c) => c !== clone);
    for (const r of this.runs) {
      if (r.clone === clone && r.outcome === "success") this.givenUpRuns.add(r.op);
    }
  }

  /**
   * Another tool deleted the object at `path` (op `op`), holding `bytes` at
   * `version`; `holders` held them; the remote index named `indexed` there
   * then (undefined: nothing); `blindRun`: the run whose raw output an older
   * client's blind push deleted so.
   */
  async vanished(
    op: number,
    path: string,
    bytes: Uint8Array,
    version: string,
    holders: number[],
    touchedBefore: number,
    pending = false,
    indexed?: string,
    rewritten = false,
    blindRun?: number,
  ): Promise<void> {
    this.vanishedObjects.push({
      rewritten,
      ...(blindRun !== undefined ? { blindRun } : {}),
      op,
      path,
      bytes,
      hash: await sha256Hex(bytes),
      version,
      holders,
      touchedBefore,
      letGoBefore: this.letGoPaths.length,
      pending,
      ...(indexed !== undefined ? { indexed } : {}),
    });
  }

  /** A user took theirs at `path` (for I19: a deletion of theirs stands by choice). */
  letGo(path: string): void {
    this.letGoPaths.push(path);
  }

  /**
   * True when `e` names an object another tool deleted at `path`: its
   * version, or, for an entry naming no version, its bytes' hash (or, naming
   * no hash either, as a listing's entry does, their size); or the version
   * the index named there when it was deleted (a write replaced that object
   * before the deletion, and its commit never came).
   */
  namesVanished(path: string, e: { v: string; h?: string; s?: number }): boolean {
    return this.vanishedObjects.some((v) =>
      v.path === path &&
      (v.version === e.v || v.indexed === e.v ||
        (e.v.startsWith("~") && (e.h ? e.h === v.hash : e.s === v.bytes.length)))
    );
  }

  /** Records `missing(dir)` for each of `cloneDirs` that does not hold `text` at `path`. */
  protected async onEveryClone(
    cloneDirs: readonly string[],
    path: string,
    text: string,
    missing: (dir: string) => Violation,
  ): Promise<void> {
    for (const dir of cloneDirs) {
      const here = await Deno.readTextFile(`${dir}/${path}`).catch(() => null);
      if (here !== text) this.violate(missing(dir));
    }
  }

  /** Records a violation unless the same (invariant, key) was recorded before. */
  violate(v: Violation, key = v.message): void {
    const k = `${v.invariant} ${key}`;
    if (this.#seen.has(k)) return;
    this.#seen.add(k);
    this.violations.push(v);
  }

  /** The SHA-256 of a run file's bytes (computed once). */
  protected async hashOf(f: RunFile): Promise<string> {
    let h = this.#hashes.get(f);
    if (!h) this.#hashes.set(f, h = await sha256Hex(f.bytes));
    return h;
  }
}
