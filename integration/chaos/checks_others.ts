/**
 * The checks of a chaos history's ground truth over what other writers
 * did: old clients' pushes and writes (I12), objects another tool put into
 * the bucket (I18) or deleted from it, or another client published again
 * (I19). See `invariants.ts` for the invariants.
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import { WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { indexEntriesOf } from "./index_checks.ts";
import { sameBytes, type StoreInspector, TruthRecords } from "./truth_records.ts";

/** What I18 reads of the object at another tool's path: its version and metadata. */
export interface ForeignHead {
  readonly version: string;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** The checks of writes by old clients and other tools, over the history's records. */
export class OtherWriterChecks extends TruthRecords {
  /**
   * I12 after the final sync: each old client's push is named by the
   * remote index (`entries`, path → its sha256) with its bytes, and every
   * clone holds the file.
   */
  async checkOldPushes(
    entries: Readonly<Record<string, { h?: string }>>,
    cloneDirs: readonly string[],
    read: (path: string) => Promise<Uint8Array | undefined>,
  ): Promise<void> {
    for (const p of this.oldPushes) {
      // Dropped by an old client's pull, by their design (no lock, no compare-and-swap).
      if (this.oldPullDropped.has(p.path)) continue;
      const hash = await sha256Hex(new TextEncoder().encode(p.text));
      const e = entries[p.path];
      // Dropped by an old client's pull that met it deleted by a refused
      // run's erasure before its put-back (see `oldPullMissed`): theirs to
      // lose while the store holds its bytes again.
      if (
        !e && this.oldPullMissed.has(p.path) &&
        sameBytes(await read(p.path), new TextEncoder().encode(p.text))
      ) continue;
      // Dropped so while the store held none of it (see `oldPullMetGone`),
      // the path then filled by another writer whose bytes the index names
      // and the store holds: no write over the old client's object.
      if (
        e?.h !== undefined && e.h !== hash && this.oldPullMetGone.has(p.path)
      ) {
        const held = await read(p.path);
        if (held && await sha256Hex(held) === e.h) continue;
      }
      if (!e || (e.h !== undefined && e.h !== hash)) {
        this.violate({
          invariant: "I12",
          message: `an old client's push of ${p.path} (op #${p.op}) is ${
            e ? "named with other bytes" : "not named"
          } by the remote index after the final sync`,
          afterOp: -1,
        });
        continue;
      }
      await this.onEveryClone(cloneDirs, p.path, p.text, (dir) => ({
        invariant: "I12",
        message:
          `${dir} does not hold an old client's push of ${p.path} (op #${p.op}) after the final sync`,
        afterOp: -1,
      }));
    }
  }

  /**
   * I12 during the history (at each point no command runs) and after the
   * final sync: each old client's committed write recorded here (`oldsame`
   * moves) is held by the store, with its bytes, while the remote index
   * names those bytes there: no erasure of a refused run deletes an old
   * client's object of the same bytes (on S3, the same ETag) for good.
   */
  async checkOldCommittedNow(
    store: StoreInspector,
    afterOp: number,
    pendingPutBack: ReadonlySet<string> = new Set(),
  ): Promise<void> {
    if (this.oldCommitted.length === 0) return;
    const index = await indexEntriesOf(store);
    for (const w of this.oldCommitted) {
      // An erasure's put-back of it recorded as pending (see the workload):
      // made by that clone's next push; the final check holds it then.
      if (afterOp >= 0 && pendingPutBack.has(w.path)) continue;
      const e = index[w.path];
      if (!e || e.h !== await sha256Hex(w.bytes)) continue;
      if (sameBytes(await store.read(w.path), w.bytes)) continue;
      this.violate({
        invariant: "I12",
        message:
          `an old client's committed write of ${w.path} (op #${w.op}) is gone from the store while the remote index names it: a refused run's erasure deleted another client's object of the same bytes`,
        afterOp,
      }, `gone ${w.op} ${w.path}`);
    }
  }

  /**
   * I18 after the final sync: each object another tool put into the
   * bucket whose bytes the store (`read`, past faults) still holds is named
   * by the remote index (`entries`) with its hash; one at a path of the
   * tool's own is also on every clone, but a clone whose user changed that
   * path (`changedBy`: an edit, a merge of a conflict there), whose copy is
   * its user's choice (published, the store would no longer hold the
   * tool's bytes; else it is held here, dirty or in conflict: I6's). The
   * object there (`head`) is the tool's only at the version its put made
   * and with no writer's id: the same bytes a writer wrote there since (a
   * marker a resolution put back, its index update cut off by a crash) are
   * that writer's, held to the invariants over its own writes.
   */
  async checkForeign(
    entries: Readonly<Record<string, { h?: string }>>,
    read: (key: string) => Promise<Uint8Array | undefined>,
    cloneDirs: readonly string[],
    changedBy: (clone: number, path: string) => boolean = () => false,
    head?: (key: string) => Promise<ForeignHead | null>,
  ): Promise<void> {
    for (const f of this.foreign) {
      const hash = await sha256Hex(new TextEncoder().encode(f.text));
      const held = await read(f.path);
      if (!held || (await sha256Hex(held)) !== hash) continue;
      if (head && f.version !== undefined) {
        const now = await head(f.path);
        if (now && (now.version !== f.version || now.metadata?.[WRITER_METADATA] !== undefined)) {
          continue;
        }
      }
      const e = entries[f.path];
      // A discovered entry has no hash (`h` empty), as other clients' entries.
      if (!e || (e.h && e.h !== hash)) {
        this.violate({
          invariant: "I18",
          message:
            `the store still holds the object another tool put at ${f.path} (op #${f.op}) before any index, but the remote index ${
              e ? "names other bytes there" : "does not name it"
            } after the final sync: no reader sees it`,
          afterOp: -1,
        });
        continue;
      }
      if (!f.own) continue;
      const unchanged = cloneDirs.filter((_, i) => !changedBy(i, f.path));
      await this.onEveryClone(unchanged, f.path, f.text, (dir) => ({
        invariant: "I18",
        message:
          `${dir} does not hold ${f.path}, which another tool put into the bucket (op #${f.op}), after the final sync`,
        afterOp: -1,
      }));
    }
    for (const f of this.lockless) {
      const hash = await sha256Hex(new TextEncoder().encode(f.text));
      const held = await read(f.path);
      const kept = held !== undefined && (await sha256Hex(held)) === hash;
      // A version's file another tool deleted since (`vanish` moves) is I19's.
      if (!kept && !f.marker && !this.vanishedObjects.some((v) => v.path === f.path)) {
        this.violate({
          invariant: "I18",
          message:
            `another tool published ${f.path} honouring no lock (op #${f.op}), but after the final sync the store ${
              held ? "holds other bytes there" : "no longer holds it"
            }: a data version of another writer's was ${held ? "written over" : "deleted"}`,
          afterOp: -1,
        });
        continue;
      }
      if (!kept || !f.indexed) continue;
      const e = entries[f.path];
      if (!e || (e.h && e.h !== hash)) {
        this.violate({
          invariant: "I18",
          message:
            `another tool published ${f.path} with its index entry (op #${f.op}), and the store still holds it, but the remote index ${
              e ? "names other bytes there" : "does not name it"
            } after the final sync: no reader sees it`,
          afterOp: -1,
        });
      }
    }
  }

  /**
   * I19 after the final sync: the bytes of each object another tool deleted
   * where a clone held them are on the store (`read`) or on a clone
   * (`cloneDirs`), unless a user changed or deleted that path since
   * (`touched`: `LocalChanges.touched`) or took theirs there, or an older
   * client's blind push deleted a run's output (those very bytes) whose
   * clone's cache has been replaced by a copy since, as has the cache of
   * every other acknowledged run that wrote them there.
   */
  async checkVanished(
    read: (key: string) => Promise<Uint8Array | undefined>,
    cloneDirs: readonly string[],
    touched: readonly string[],
  ): Promise<void> {
    for (const v of this.vanishedObjects) {
      if (v.holders.length === 0 || v.pending) continue;
      if (v.rewritten) {
        await this.#checkRewritten(v, cloneDirs);
        continue;
      }
      if (touched.slice(v.touchedBefore).includes(v.path)) continue;
      // An older client's blind push deleted a run's output, and the run's
      // clone gave up the cache that published it for a copy of another's:
      // only the cache whose push created a data version keeps it over a
      // deletion (README's old-client limits); a clone that pulled it follows
      // the deletion, as a deliberate one carries nothing to tell it by.
      if (this.#givenUp(v)) continue;
      if (this.letGoPaths.slice(v.letGoBefore).includes(v.path)) continue;
      if (await read(v.path)) continue;
      let kept = false;
      for (const dir of cloneDirs) {
        if (sameBytes(await Deno.readFile(`${dir}/${v.path}`).catch(() => undefined), v.bytes)) {
          kept = true;
        }
      }
      if (kept) continue;
      this.violate({
        invariant: "I19",
        message: `another tool deleted ${v.path} from the store (op #${v.op}) while c${
          v.holders.join(", c")
        } held its bytes; after the final sync neither the store nor any clone holds them, and no user changed, deleted or took theirs for that path since: the last copies were removed`,
        afterOp: -1,
      });
    }
  }

  /**
   * Whether the bytes an older client's blind push deleted are the output
   * of the run it aimed at (not another run's bytes at that version since:
   * a clone that followed a deletion may number that version again), and
   * every acknowledged run that wrote them there was made by a cache its
   * clone has given up since: no cache whose push created them is left to
   * keep them.
   */
  #givenUp(v: { blindRun?: number; path: string; bytes: Uint8Array }): boolean {
    if (v.blindRun === undefined) return false;
    const makers = this.runs.filter((r) =>
      r.outcome === "success" &&
      r.files.some((f) => f.path === v.path && sameBytes(f.bytes, v.bytes))
    );
    return makers.some((r) => r.op === v.blindRun) &&
      makers.every((r) => this.givenUpRuns.has(r.op));
  }

  /**
   * A data version another client published again with other bytes: each
   * clone that held the bytes published first still holds them somewhere in
   * its directory (at the path, or set aside by the pull that met the
   * rewrite), whatever its user resolved since: a data version is never
   * rewritten, and nothing deletes a set-aside copy but its user.
   */
  async #checkRewritten(
    v: { path: string; op: number; bytes: Uint8Array; holders: number[] },
    cloneDirs: readonly string[],
  ): Promise<void> {
    for (const c of v.holders) {
      const dir = cloneDirs[c];
      if (dir === undefined || await holdsBytes(dir, v.bytes)) continue;
      this.violate({
        invariant: "I19",
        message:
          `another client published ${v.path} again with other bytes (op #${v.op}) while c${c} held the bytes published first; after the final sync c${c} holds them nowhere: its pull wrote over the last copy`,
        afterOp: -1,
      });
    }
  }
}

/** True when a file anywhere under `dir` (links not followed) holds exactly `bytes`. */
async function holdsBytes(dir: string, bytes: Uint8Array): Promise<boolean> {
  for await (const e of Deno.readDir(dir)) {
    const at = `${dir}/${e.name}`;
    if (e.isDirectory && await holdsBytes(at, bytes)) return true;
    if (e.isFile && sameBytes(await Deno.readFile(at).catch(() => undefined), bytes)) return true;
  }
  return false;
}
