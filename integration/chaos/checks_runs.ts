/**
 * The checks of a chaos history's ground truth over model runs, marks and
 * lockfile transactions: I1, I2, I3, I14, I24, I25, I27 and I28 (see
 * `invariants.ts`).
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { sha256Hex } from "../../sync/hash.ts";
import { MANAGED_LOCKFILE_PATH } from "../../sync/locks/lockfile_txn.ts";
import { OtherWriterChecks } from "./checks_others.ts";
import { indexEntriesOf } from "./index_checks.ts";
import {
  readCacheFile,
  type RunFile,
  type RunRecord,
  sameBytes,
  type StoreInspector,
  walk,
} from "./truth_records.ts";

const dec = new TextDecoder();

/** The checks of runs, marks and transactions, over the history's records. */
export class RunChecks extends OtherWriterChecks {
  /** SHA-256 of the marker text `<n>` → n, for I14. */
  #markerNumbers: Map<string, number> | undefined;

  /**
   * I28 after the final sync: each version a process marked dirty in a
   * cache it shared with another process, and did not push itself (it died
   * before its push, or its push failed), is named by the remote index
   * (`entries`) with its bytes, held by the store (`read`), and on every
   * clone: the final sync, in a process started afresh on that cache, took
   * the marks in and published it. (One acknowledged is I1's; one refused,
   * its lock lost, is erased.)
   */
  async checkMarked(
    entries: Readonly<Record<string, { h?: string }>>,
    read: (key: string) => Promise<Uint8Array | undefined>,
    cloneDirs: readonly string[],
  ): Promise<void> {
    const settled = ["success", "model_lock_lost", "version_exists"];
    for (const r of this.marked) {
      if (settled.includes(r.outcome)) continue;
      for (const f of r.files) {
        const hash = await this.hashOf(f);
        const missing: string[] = [];
        if (entries[f.path]?.h !== hash) missing.push("the remote index");
        if (!sameBytes(await read(f.path), f.bytes)) missing.push("the store");
        for (const [i, dir] of cloneDirs.entries()) {
          if (!sameBytes(await readCacheFile(dir, f.path), f.bytes)) missing.push(`clone c${i}`);
        }
        if (missing.length === 0) continue;
        this.violate({
          invariant: "I28",
          message:
            `a second process over c${r.clone}'s cache marked ${f.path} dirty (op #${r.op}) and ${
              r.outcome === "crashed" ? "died before its push" : `its push failed (${r.outcome})`
            }; after the final sync, in a process started afresh on that cache, ${
              missing.join(", ")
            } ${missing.length > 1 ? "do" : "does"} not hold it: its marks were lost`,
          afterOp: -1,
        });
      }
    }
  }

  /**
   * I27 after the final sync (see the module): each run refused with
   * `version_exists` lost to a version the index names, not to nothing nor
   * to a refused run's bytes.
   */
  async checkLostVersions(
    entries: Readonly<Record<string, unknown>>,
    read: (key: string) => Promise<Uint8Array | undefined>,
  ): Promise<void> {
    const refused = this.runs.filter((r) => r.outcome === "model_lock_lost" && !r.same);
    for (const r of this.runs) {
      if (r.outcome !== "version_exists") continue;
      const raw = r.files.find((f) => f.path.endsWith("/raw"));
      if (!raw || this.vanishedObjects.some((v) => v.path === raw.path)) continue;
      // The version lost to: its raw, or, where an old client wrote only
      // another file of it (the same bytes as a run's, over its upload), that.
      const dir = raw.path.slice(0, raw.path.lastIndexOf("/") + 1);
      const files = r.files.map((f) => f.path).filter((p) => p.startsWith(dir));
      const shown = [raw.path, ...files.filter((p) => p !== raw.path)].find((p) =>
        Object.hasOwn(entries, p)
      );
      const named = shown !== undefined;
      const bytes = named ? new TextDecoder().decode(await read(shown) ?? new Uint8Array()) : "";
      const to = refused.find((x) => bytes.includes(x.token));
      if (named && !to) continue;
      // Lost to another tool's version put there with no index entry (a
      // `lockless` move), which the store holds: a version, named or not.
      if (!named && await this.#heldUnindexed(raw.path, read)) continue;
      this.violate({
        invariant: "I27",
        message: `run #${r.op} (c${r.clone}) was refused with version_exists for ${raw.path}, ${
          to
            ? `which holds run #${to.op}'s bytes, a run refused for losing its lock`
            : "which no index names after the final sync"
        }: it lost its version to no version`,
        afterOp: -1,
      });
    }
  }

  /** True when the store (`read`) holds at `path` what another tool wrote there with no index entry. */
  async #heldUnindexed(
    path: string,
    read: (key: string) => Promise<Uint8Array | undefined>,
  ): Promise<boolean> {
    const held = await read(path);
    return held !== undefined &&
      this.lockless.some((l) =>
        !l.indexed && l.path === path && sameBytes(held, new TextEncoder().encode(l.text))
      );
  }

  /**
   * I25 after the final sync: a mark whose write never came (nothing was
   * ever at the path here) is no deletion here: no conflict of the clone's
   * records one at that path, unless a user changed or deleted the path
   * since (`touched`).
   */
  checkUnwritten(
    conflictsOf: (clone: number) => readonly { path: string; mine: unknown }[],
    touched: readonly string[],
  ): void {
    for (const u of this.unwritten) {
      if (touched.slice(u.touchedBefore).includes(u.path)) continue;
      const rec = conflictsOf(u.clone).find((c) => c.path === u.path);
      if (!rec || rec.mine !== null) continue;
      this.violate({
        invariant: "I25",
        message:
          `c${u.clone} marked ${u.path} dirty with nothing there (op #${u.op}: its write never came), and a conflict of its records that as a deletion here: --mine would delete theirs, which no user deleted`,
        afterOp: -1,
      });
    }
  }

  /**
   * I2 during the history: no clone holds a refused run's file, and the store
   * holds one only uncommitted (absent from the remote index).
   */
  async checkRefusedNow(
    store: StoreInspector,
    cacheDirs: readonly string[],
    afterOp: number,
  ): Promise<void> {
    const lost = this.runs.filter((r) =>
      r.outcome === "model_lock_lost" && r.files.length > 0 && !r.same
    );
    if (lost.length === 0) return;
    let index: Record<string, { h?: string }> | undefined;
    // Read as every client reads it: the v1 index object, or the v2 shards.
    for (const r of lost) {
      for (const f of r.files) {
        if (sameBytes(await store.read(f.path), f.bytes)) {
          index ??= await indexEntriesOf(store);
          if (index[f.path]?.h === await this.hashOf(f)) {
            this.violate({
              invariant: "I2",
              message:
                `${f.path} of run #${r.op} (c${r.clone}, refused with model_lock_lost) is committed to the remote index, so clones pull it`,
              afterOp,
            }, `${r.op} index ${f.path}`);
          }
        }
        for (const [i, dir] of cacheDirs.entries()) {
          if (sameBytes(await readCacheFile(dir, f.path), f.bytes)) {
            this.violate({
              invariant: "I2",
              message:
                `clone c${i} holds ${f.path} of run #${r.op} (c${r.clone}), which was refused with model_lock_lost`,
              afterOp,
            }, `${r.op} c${i} ${f.path}`);
          }
        }
      }
    }
  }

  /**
   * True when clone `clone` holds at `f.path` the bytes of a run of its own
   * that did not succeed, in an open conflict naming `f`'s bytes as theirs,
   * and an old client's pull wrote an index over without `f.path` while the
   * store held it (`oldPullRunsUnnamed`: a commit of run `r` it dropped,
   * README's old-client limits): a run of the clone
   * numbered from that index made the same version, its push found `r`'s
   * upload uncommitted in the way, and `r`'s writer named it again only at
   * the final sync, whose pull kept the clone's own version in a conflict
   * (a data version is never written over). Seed 209700114.
   */
  async #ownRunAtDropped(
    r: RunRecord,
    f: RunFile,
    clone: number,
    dir: string,
    theirsInConflict: (clone: number, path: string, bytes: Uint8Array) => Promise<boolean>,
  ): Promise<boolean> {
    if (!this.oldPullRunsUnnamed.has(f.path) || r.clone === clone) return false;
    const here = await readCacheFile(dir, f.path);
    const own = this.runs.some((o) =>
      o.clone === clone && o.outcome !== "success" &&
      o.files.some((g) => g.path === f.path && sameBytes(g.bytes, here))
    );
    return own && await theirsInConflict(clone, f.path, f.bytes);
  }

  /** Files of acknowledged runs that I1 checks on a clone after the final resolution. */
  readonly #afterResolution: {
    run: RunRecord;
    path: string;
    bytes: Uint8Array;
    clone: number;
    /** What held the run's bytes back there at the final sync. */
    met: string;
  }[] = [];

  /**
   * I1 for the files `checkFinal` found a user's edit, a run of the
   * clone's own at that version, or a deletion a damaged manifest line
   * brought back (see `checkFinal`), in conflict at: the
   * final resolution (`--mine`, refused for a data version another writer
   * published, then `--theirs` or the pull its refusal names) must have
   * brought the run's bytes there.
   */
  async checkAfterResolution(cacheDirs: readonly string[]): Promise<void> {
    for (const { run: r, path, bytes, clone, met } of this.#afterResolution) {
      if (sameBytes(await readCacheFile(cacheDirs[clone], path), bytes)) continue;
      this.violate({
        invariant: "I1",
        message:
          `run #${r.op} (c${r.clone}) reported success, but after the final resolution of the conflict ${met} there met, clone c${clone} does not hold its ${path}`,
        afterOp: -1,
      });
    }
  }

  /** I14 (see the module) over the index `store` holds now. */
  async checkMarkersNow(store: StoreInspector, afterOp: number): Promise<void> {
    if (!this.#markerNumbers) {
      this.#markerNumbers = new Map();
      for (let n = 1; n <= 256; n++) {
        this.#markerNumbers.set(await sha256Hex(new TextEncoder().encode(`${n}`)), n);
      }
    }
    const index = await indexEntriesOf(store);
    for (const [path, e] of Object.entries(index)) {
      if (!path.endsWith("/latest") || !e.h || this.userMarkers.has(`${path}\0${e.h}`)) continue;
      const n = this.#markerNumbers.get(e.h);
      const raw = `${path.slice(0, -"latest".length)}${n}/raw`;
      if (n === undefined || Object.hasOwn(index, raw)) continue;
      // Its raw output deleted by another tool, and its entry removed since.
      if (this.vanishedObjects.some((v) => v.path === raw)) continue;
      this.violate({
        invariant: "I14",
        message:
          `the remote index names ${path} = ${n}, but not ${raw}: readers are pointed at a version whose files it does not list`,
        afterOp,
      }, `I14 ${path} ${e.h}`);
    }
  }

  /**
   * I1, the final I2 scan, and I3, after the final sync. `leftForGood`
   * names the keys whose refused bytes I2's store scan spares (a refused
   * run's upload whose erasure went with a cache a `copy` move replaced,
   * named by no index: `workload.ts`); returns how many it spared.
   */
  async checkFinal(
    store: StoreInspector,
    cacheDirs: readonly string[],
    leftForGood: (key: string) => boolean = () => false,
    editedInConflict: (clone: number, path: string, bytes: Uint8Array) => Promise<boolean> = () =>
      Promise.resolve(false),
    theirsInConflict: (clone: number, path: string, bytes: Uint8Array) => Promise<boolean> = () =>
      Promise.resolve(false),
    deletedInConflict: (clone: number, path: string, bytes: Uint8Array) => Promise<boolean> = () =>
      Promise.resolve(false),
  ): Promise<number> {
    const afterOp = -1;
    let spared = 0;
    for (const r of this.runs.filter((r) => r.outcome === "success")) {
      for (const f of r.files) {
        // Deleted by a user of a clone while its marker named it: I36.
        if (this.userDeletedCommitted.has(f.path)) continue;
        // Deleted by another tool: I19 checks its bytes instead.
        if (this.vanishedObjects.some((v) => v.path === f.path && sameBytes(v.bytes, f.bytes))) {
          continue;
        }
        const missing: string[] = [];
        if (!sameBytes(await store.read(f.path), f.bytes)) missing.push("the store");
        for (const [i, dir] of cacheDirs.entries()) {
          if (sameBytes(await readCacheFile(dir, f.path), f.bytes)) continue;
          // A user's edit there (a merge its resolution left in place, cut
          // off), kept by the pull in a conflict naming these bytes as
          // theirs: never written over; checked again after the final
          // resolution (see `checkAfterResolution`).
          if (await editedInConflict(i, f.path, f.bytes)) {
            const met = "its user's edit";
            this.#afterResolution.push({ run: r, path: f.path, bytes: f.bytes, clone: i, met });
          } else if (await this.#ownRunAtDropped(r, f, i, cacheDirs[i], theirsInConflict)) {
            const met = "a run of its own at that version";
            this.#afterResolution.push({ run: r, path: f.path, bytes: f.bytes, clone: i, met });
          } else if (await deletedInConflict(i, f.path, f.bytes)) {
            // A deletion here that a damaged line of the manifest log brought
            // back (its record of the deletion lost, the record before it
            // synced), met by these bytes as a conflict, as README says a
            // damaged line leads to: a data version its marker names is
            // never deleted, so its resolution takes theirs.
            const met = "a deletion here that a damaged manifest line brought back";
            this.#afterResolution.push({ run: r, path: f.path, bytes: f.bytes, clone: i, met });
          } else missing.push(`clone c${i}`);
        }
        if (missing.length > 0) {
          this.violate({
            invariant: "I1",
            message: `run #${r.op} (c${r.clone}) reported success, but after the final sync ${
              missing.join(", ")
            } ${missing.length > 1 ? "do" : "does"} not hold its ${f.path}`,
            afterOp,
          });
        }
      }
    }
    // I24: a run that lost its version to another writer (`version_exists`)
    // has none of its own bytes committed: the version is the other's, whole.
    const own = (r: RunRecord) => {
      const dirs = r.files.map((f) => f.path.slice(0, f.path.lastIndexOf("/") + 1));
      return (r.refusedKeys ?? []).some((k) => dirs.some((d) => k.startsWith(d)));
    };
    const beaten = this.runs.filter((r) =>
      r.outcome === "version_exists" && r.files.length > 0 && !r.same && own(r)
    );
    if (beaten.length > 0) {
      const index = await indexEntriesOf(store);
      for (const path of Object.keys(index)) {
        const text = dec.decode((await store.read(path)) ?? new Uint8Array());
        const r = beaten.find((r) => text.includes(r.token));
        if (r) {
          this.violate({
            invariant: "I24",
            message:
              `the remote index names ${path}, which holds bytes of run #${r.op} (c${r.clone}), refused with version_exists: a version another writer won holds part of the loser's output`,
            afterOp,
          });
        }
      }
    }
    const lost = this.runs.filter((r) =>
      r.outcome === "model_lock_lost" && r.files.length > 0 && !r.same
    );
    if (lost.length > 0) {
      const find = (text: string) => lost.find((r) => text.includes(r.token));
      for (const key of await store.keys()) {
        const r = find(dec.decode((await store.read(key)) ?? new Uint8Array()));
        if (r && leftForGood(key)) spared++;
        else if (r) {
          this.violate({
            invariant: "I2",
            message:
              `the store holds ${key} with bytes of run #${r.op} (c${r.clone}), which was refused with model_lock_lost`,
            afterOp,
          });
        }
      }
      for (const [i, dir] of cacheDirs.entries()) {
        for await (const p of walk(dir)) {
          const r = find(dec.decode((await readCacheFile(dir, p)) ?? new Uint8Array()));
          if (r) {
            this.violate({
              invariant: "I2",
              message:
                `clone c${i} holds ${p} with bytes of run #${r.op} (c${r.clone}), which was refused with model_lock_lost`,
              afterOp,
            });
          }
        }
      }
    }
    const body = await store.read(MANAGED_LOCKFILE_PATH);
    let entries: Record<string, unknown> = {};
    try {
      entries = body ? JSON.parse(dec.decode(body)) : {};
    } catch (e) {
      this.violate({
        invariant: "I3",
        message: `the managed lockfile on the store is not JSON (${(e as Error).message})`,
        afterOp,
      });
    }
    for (const t of this.txns.filter((t) => t.outcome === "acked")) {
      for (const [name, value] of Object.entries(t.set)) {
        if (this.removals.has(name)) continue;
        if (!(name in entries)) {
          this.violate({
            invariant: "I3",
            message:
              `lockfile entry ${name}, added by acknowledged transaction #${t.op} (c${t.clone}), is missing from the store and no transaction removed it`,
            afterOp,
          }, `missing ${name}`);
        } else if (!isDeepStrictEqual(entries[name], value)) {
          this.violate({
            invariant: "I3",
            message: `lockfile entry ${name} holds ${JSON.stringify(entries[name])}, not ${
              JSON.stringify(value)
            } as transaction #${t.op} published`,
            afterOp,
          }, `changed ${name}`);
        }
      }
    }
    return spared;
  }
}
