/**
 * The end of a chaos history: everything healed and drained, every clone
 * synced (push all, pull all, a third time where a pull found the way
 * clear), conflicts left resolved (`final_resolution.ts`), and the
 * invariants checked over the store and every clone.
 *
 * @module
 */
import { readErasureJournal } from "../../middleware/erasure_journal.ts";
import type { IndexEntry } from "../../sync/transfer/bucket_layout.ts";
import { fingerprintOf } from "./clone_setup.ts";
import { lockfileCommand, oldPushCommand, plainCommand, pushOf } from "./commands.ts";
import { SHARED_FILES } from "./history.ts";
import {
  checkFreshClone,
  checkIndexNamesHeld,
  checkNothingUnnamed,
  indexEntriesOf,
} from "./index_checks.ts";
import { readWriterId, WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { checkOutside, type Violation } from "./invariants.ts";
import { checkMarkedUnder, checkNamedHeld } from "./named_held.ts";
import { checkMineDeletions } from "./mine_deletions.ts";
import { checkSwitchBack } from "./switch_back.ts";
import { disarmBaseRename } from "./save_crash.ts";
import { underMarks } from "../../sync/service/pull_elsewhere.ts";
import { findStateDir } from "../../sync/transfer/cache_paths.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { WorldResolution } from "./final_resolution.ts";
import { rolledBackDeletedHere } from "./old_pull_undone.ts";

/** One history's world: scheduler, target, clones, operator, ground truth. */
export class World extends WorldResolution {
  /**
   * Heals, drains, syncs every clone (twice: push all, pull all; a third
   * time when a pull of the second found the way clear for a held-back
   * path), and checks.
   */
  async finish(): Promise<void> {
    this.currentOpId = -1;
    this.stats.chaosDecisions = this.sched.stats.decisions;
    this.armed.clear();
    this.answerArmed.clear();
    this.answerDue.clear();
    this.blipArmed.clear();
    this.setAsideLooksHealed = true;
    for (const slot of this.clones) disarmBaseRename(findStateDir(slot.dir));
    await this.saveCrashes();
    this.due.clear();
    this.stallArmed.clear();
    for (const slot of this.clones) this.sched.resume(slot.owner);
    await this.target.faults.heal();
    await this.drain();
    // A cache a second process shared is synced by a process started afresh
    // on it, as the next command on that checkout is: it loads the marks
    // every process left there.
    for (const slot of this.shared) {
      for (const l of slot.locks) l.abandon();
      slot.svc.state.exit();
      slot.incarnation++;
      await this.boot(slot);
    }
    // Old clients whose push stopped push again, as they do when they come back.
    for (const op of this.truth.oldUnfinished.values()) {
      this.stats.oldPushesRetried++;
      // Not stopped inside its read-modify-write again (`window`).
      this.enqueue(
        op.clone,
        oldPushCommand(this.env, { ...op, kind: "oldpush", window: undefined }),
      );
    }
    await this.drain();
    // A reshape left for a walk: the walk's exit (2) names the synced paths
    // it did not delete, and the user pushes them by name, and the path too.
    for (const slot of this.clones) {
      const left = this.shapes.leftByHand(slot.index);
      if (left.length === 0) continue;
      this.enqueue(
        slot.index,
        plainCommand(this.env, slot.index, "mark reshaped paths by name", async (svc) => {
          const isFile = (p: string) => {
            try {
              return Deno.lstatSync(`${svc.cacheDir}/${p}`).isFile;
            } catch {
              return false;
            }
          };
          const gone = svc.state.syncedPaths().filter((p) =>
            left.some((l) => p.startsWith(`${l}/`)) && !isFile(p)
          );
          await svc.markDirty({ relPaths: [...left, ...gone] });
        }),
      );
    }
    await this.drain();
    /** Each clone's last final pull's paths left out as blocked. */
    const blocked = new Map<number, string[]>();
    /** Each clone's last final pull's files kept to publish again (their entries dropped). */
    const kept = new Map<number, Set<string>>();
    // Twice, and once more when the second round's pulls found the way clear
    // for a path a push held back (a path dropped from a clone's record of
    // paths in the way, `blocked_record.ts`): that push's reason says the
    // next push publishes it, and its own upload, left by a commit that met
    // the other shape, waits unnamed until then (I11 spares it only while
    // held back). The round after is that next push, checked by I11 too,
    // for those clones alone (any other's failure to settle in two rounds
    // stays a violation).
    const released = new Set<number>();
    // The index as the third round starts, and the clones that run it: the
    // others' last pull came before it (I33 holds them to what it named).
    let beforeThird: Record<string, IndexEntry> | undefined;
    const third = new Set<number>();
    for (let round = 0; (round < 2 || (round === 2 && released.size)) && !this.aborted; round++) {
      if (round === 2) {
        this.stats.finalRoundsAfterRelease++;
        beforeThird = await indexEntriesOf(this.target.inspect);
        for (const i of released) third.add(i);
      }
      const these = round === 2 ? this.clones.filter((c) => released.has(c.index)) : this.clones;
      released.clear();
      for (const slot of these) {
        this.enqueue(
          slot.index,
          lockfileCommand(this.env, { id: -1 - round, clone: slot.index }),
        );
        this.enqueue(
          slot.index,
          plainCommand(
            this.env,
            slot.index,
            "final push",
            (svc) => pushOf(this.env, svc).then(() => {}),
          ),
        );
      }
      await this.drain();
      for (const slot of these) {
        this.enqueue(
          slot.index,
          plainCommand(
            this.env,
            slot.index,
            "final pull",
            async (svc) => {
              const before = svc.state.blocked.paths();
              const r = await svc.pullChanged();
              blocked.set(slot.index, r.blocked ?? []);
              kept.set(slot.index, new Set(r.dropped));
              const after = new Set(svc.state.blocked.paths());
              if (before.some((p) => !after.has(p))) released.add(slot.index);
            },
          ),
        );
      }
      await this.drain();
    }
    if (this.aborted) return;
    await this.logFailChecks();
    // A refused run's upload whose deletion was pending in a cache its user
    // replaced by a copy: the journal naming it went with the old directory,
    // so it is left for good, as that cache's other uploads whose commit
    // never came (I11's exception). Spared by I2's final store scan only
    // while the store holds that very version there and no index entry
    // names it (no clone can pull it; I2's scan of the clones still runs).
    const leftByCopy = new Set<string>();
    if (this.abandonedErasures.size > 0) {
      const indexed = await indexEntriesOf(this.target.inspect);
      for (const [path, versions] of this.abandonedErasures) {
        // A failed look spares nothing.
        const head = await this.target.direct.head(path).catch(() => null);
        if (!head || !versions.has(head.version) || indexed[path]?.v === head.version) continue;
        leftByCopy.add(path);
      }
    }
    this.stats.refusedLeftByCopy += await this.truth.checkFinal(
      this.target.inspect,
      this.clones.map((c) => c.dir),
      (key) => leftByCopy.has(key),
      (clone, path, bytes) => this.editedInConflict(clone, path, bytes),
      async (clone, path, bytes) => {
        const c = this.clones[clone].svc.conflicts().find((x) => x.path === path);
        return c?.mine?.location === path && c.theirs?.hash === await sha256Hex(bytes);
      },
      // Deleted here, its record of the deletion lost to a damaged line of
      // the manifest log (`damaged` moves): the final resolution takes theirs.
      async (clone, path, bytes) => {
        const c = this.clones[clone].svc.conflicts().find((x) => x.path === path);
        return c !== undefined && c.mine === null &&
          c.theirs?.hash === await sha256Hex(bytes) &&
          (this.damagedPaths.get(clone)?.has(path) ?? false) &&
          this.clones[clone].svc.cache.fileGone(path);
      },
    );
    for (const slot of this.clones) {
      await this.checkLocal(slot);
      const named = this.changes.asides.check(slot.index, slot.dir, slot.svc.conflicts(), -1);
      for (const v of await named) this.truth.violate(v);
      // I21: only where the extension keeps the state (a library user chooses where).
      if ((this.history.kinds?.[slot.index] ?? "api") !== "api") {
        for (const v of checkSwitchBack(slot.index, slot.dir)) this.truth.violate(v);
      }
    }
    const writers = await Promise.all(this.clones.map(async (slot) => {
      const state = slot.svc.state;
      // A run held for `erasure_refused`: what its push uploaded stays on the
      // datastore until its user keeps or discards it (I11's exception).
      const journal = await readErasureJournal(slot.svc.cache).catch(() => undefined);
      // Its marks, by name or by a directory above (a bulk mark deletes nothing).
      const marks = new Set(state.dirtyPaths().map((p) => p.replace(/\/+$/, "")));
      return {
        writer: await readWriterId(slot.svc.cache),
        heldUploads: journal?.held.flatMap((h) => h.uploads) ?? [],
        conflicts: state.conflicts,
        // A path its push holds back (in the way of the other shape, or of
        // the new shape of a name whose old shape's deletion met a conflict):
        // its own upload waits there until the way is clear or the conflict
        // resolved (I11's exception).
        heldBack: (path: string) =>
          state.blocked.clashOf(path, (p) => state.synced(p) !== undefined) !== undefined ||
          state.conflicts.list().some((c) =>
            c.mine === null && (path.startsWith(`${c.path}/`) || c.path.startsWith(`${path}/`))
          ),
        // Its record lost to a damaged line of its manifest log (`damaged`
        // moves), the entry naming its write dropped by an old client's pull
        // (`oldpull`): no pull of its names that write again (I11's exception).
        recordLost: (path: string) =>
          (this.damagedPaths.get(slot.index)?.has(path) ?? false) &&
          this.truth.oldPullUnnamed.has(path),
        // Synced at that very version, deleted here with no mark of it: a
        // local deletion its user has not pushed by name (I11's exception).
        deletedHere: (path: string, version: string) =>
          state.synced(path)?.version === version && slot.svc.cache.fileGone(path) &&
          !underMarks(marks, path),
      };
    }));
    // The uploads of a cache its user replaced by a copy of another's (a
    // `copy` move), whose commit never came (a crash before it): left for
    // good, waiting for an adoption no history makes (I11's exception).
    const abandoned = [...this.abandonedWriters].map((writer) => ({
      writer,
      conflicts: { has: () => false },
      heldBack: () => true,
    }));
    // A clone's own write over the version the index names, at a path that
    // clone has an open conflict on (a resolution cut off before its index
    // update): its pending change, which the resolution publishes or drops
    // (I11's exception, seen from the index; I13 then resolves it).
    const pendingOwn = new Set<string>();
    for (const w of writers) {
      for (const c of w.conflicts.list()) {
        const head = await this.target.direct.head(c.path).catch(() => null);
        if (w.writer && head?.metadata?.[WRITER_METADATA] === w.writer) pendingOwn.add(c.path);
      }
    }
    // So too the other shape of a name a clone's resolution deleted, at the
    // version the index names, before an outage cut it off ahead of its own
    // shape's writes and its index update, while that clone's conflict there
    // is still open: the resolution, made again, commits the deletion.
    const near = (a: string, b: string) =>
      a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
    const resolvedAway = new Map<string, string | undefined>();
    for (const [path, d] of this.resolutionDeleted) {
      const open = writers[d.clone]?.conflicts.list().some((c) => near(c.path, path));
      if (open && !(await this.target.direct.head(path).catch(() => null))) {
        resolvedAway.set(path, d.version);
      }
    }
    const pendingGone = (path: string, e: IndexEntry | undefined) =>
      !!e && resolvedAway.has(path) &&
      (resolvedAway.get(path) === undefined || resolvedAway.get(path) === e.v);
    // An old client's stopped push left as it left it (see `GroundTruth.oldStranded`),
    // or an old client's write another old client's pull dropped from the index.
    const spared = (path: string) =>
      this.truth.oldStranded.has(path) || this.truth.oldPullDropped.has(path) ||
      this.truth.oldPullMissed.has(path);
    // An entry naming an object another tool deleted, not yet past the grace
    // after which a pull removes it (I19 checks that object's bytes instead).
    const gone = (path: string, e: IndexEntry | undefined) =>
      !!e && this.truth.namesVanished(path, e);
    // A path where the store holds an upload of a cache its user replaced
    // by a copy (a `copy` move) over the version the index names, its commit
    // cut off before: waiting for an adoption no history makes, as I11's
    // exception above; readers skip it as uncommitted until one is made.
    const overAbandoned = new Set<string>();
    if (this.abandonedWriters.size > 0) {
      for (const path of Object.keys(await indexEntriesOf(this.target.inspect))) {
        const head = await this.target.direct.head(path).catch(() => null);
        const writer = head?.metadata?.[WRITER_METADATA];
        if (writer && this.abandonedWriters.has(writer)) overAbandoned.add(path);
      }
    }
    // An entry naming the very version a cache its user replaced by a copy
    // deleted, its deletion's commit cut off before, the store holding
    // nothing there: the deletion went with the old directory, and a pull
    // that has seen the entry so past the dangling-entry grace removes it,
    // as after another tool's deletion (seed 121000113). So too a deletion
    // whose record a damaged line of the manifest log took (seeds 194400002,
    // 194800308), and an old client's deletion or a Sluice one whose entry
    // an old client's pull that read the index before its commit wrote back
    // (README's old-client limits; seeds 217800345, 219400115).
    const deletedAbandoned = new Set<string>();
    const undone = [...this.abandonedDeletes, ...this.truth.oldPullUndeleted];
    if (undone.length > 0) {
      const indexed = await indexEntriesOf(this.target.inspect);
      for (const [path, versions] of undone) {
        const e = indexed[path];
        if (!e || !versions.has(e.v)) continue;
        // A failed look spares nothing.
        if ((await this.target.direct.head(path).catch(() => "unknown")) === null) {
          deletedAbandoned.add(path);
        }
      }
    }
    // An entry an old client's pull rolled back over a clone's commit whose
    // file that clone's user deleted by hand, unmarked: left to that user,
    // told by its pull (README's old-client limits; seed 4104).
    const rolledBack = await rolledBackDeletedHere(
      this.truth.oldPullRolledBack,
      await indexEntriesOf(this.target.inspect),
      (path) => this.target.direct.head(path),
      (path, version) =>
        this.clones.some(({ svc, index }) =>
          svc.state.synced(path)?.version === version && svc.cache.fileGone(path) &&
          !underMarks(new Set(svc.state.dirtyPaths()), path) &&
          this.truth.droppedTold.has(`${index}\0${path}`)
        ),
    );
    for (const p of rolledBack) deletedAbandoned.add(p);
    const { entries, violations } = await checkIndexNamesHeld(
      this.target.direct,
      (path, e) =>
        spared(path) || pendingOwn.has(path) || pendingGone(path, e) || gone(path, e) ||
        overAbandoned.has(path) || deletedAbandoned.has(path),
    );
    for (const v of violations) this.truth.violate(v);
    // Another tool's objects written with no index entry (`lockless` moves):
    // no index is bound to name them once one was made (I18's rule holds
    // only for what is there when an index is made).
    const unindexed = (key: string) =>
      this.truth.lockless.some((l) => !l.indexed && l.path === key);
    const oldClientFile = (key: string) =>
      key.startsWith("logs/old-") || spared(key) || unindexed(key);
    for (
      const v of await checkNothingUnnamed(
        this.target.direct,
        entries,
        [...writers, ...abandoned],
        oldClientFile,
      )
    ) {
      this.truth.violate(v);
    }
    // I15: one shape per path (see `shapes.ts`).
    const oldWrote = (path: string) =>
      this.history.ops.some((o) =>
        o.kind === "oldpush" && o.file !== undefined && SHARED_FILES[o.file] === path
      );
    const conflicts = this.clones.map((c) => c.svc.conflicts());
    const { violations: clashes, clashed } = this.shapes.checkClashes(entries, conflicts, oldWrote);
    for (const v of clashes) this.truth.violate(v);
    for (const slot of this.clones) {
      for (
        const v of await this.shapes.checkBlocked(
          slot.index,
          slot.dir,
          slot.svc.state,
          slot.svc.conflicts(),
          blocked.get(slot.index) ?? [],
          clashed,
          kept.get(slot.index),
        )
      ) this.truth.violate(v);
    }
    // A fresh clone can hold only one shape of a path the datastore holds both of (I15's).
    const fresh = { root: this.root, store: this.target.direct, clock: this.sched.clock };
    const freshSpared = (path: string) =>
      spared(path) || clashed.has(path) || pendingOwn.has(path) ||
      pendingGone(path, entries[path]) || gone(path, entries[path]) || overAbandoned.has(path) ||
      deletedAbandoned.has(path);
    for (const v of await checkFreshClone(fresh, entries, freshSpared)) this.truth.violate(v);
    // I33: every clone holds what the index names (`named_held.ts`).
    const held = this.clones.map((slot) => ({
      index: slot.index,
      dir: slot.dir,
      conflicts: slot.svc.conflicts().map((c) => c.path),
      blocked: blocked.get(slot.index) ?? [],
      touched: (path: string) =>
        this.changes.touchedIn.some((t) => t.clone === slot.index && t.path === path),
      namedAfterItsPull: (path: string) =>
        beforeThird !== undefined && !third.has(slot.index) &&
        entries[path]?.v !== beforeThird[path]?.v,
    }));
    for (const v of await checkNamedHeld(entries, held, freshSpared)) this.truth.violate(v);
    // I39: a --mine of a deletion here is published, or its conflict open.
    const mine = this.clones.map((slot) => ({
      dir: slot.dir,
      dirty: slot.svc.state.dirtyPaths(),
      conflicts: slot.svc.conflicts().map((c) => c.path),
    }));
    const i39 = checkMineDeletions(this.truth.mineDeletions, mine, entries, this.changes.touchedIn);
    for (const v of await i39) this.truth.violate(v);
    // Its other half: a file written under a directory and marked by the directory's name.
    const edits = this.changes.edits;
    const under = edits.filter((e) => e.how === "under" && e.hash !== null).map((e) => ({
      op: e.op,
      clone: e.clone,
      path: e.path,
      hash: e.hash!,
      // Changed since, or set aside with its directory by its clone's --theirs.
      changedSince: e.state !== "live" || edits.some((l) => l.path === e.path && l.seq > e.seq) ||
        this.changes.setAsideAbove(e.clone, e.path, e.seq),
    }));
    for (
      const v of checkMarkedUnder(
        entries,
        under,
        (c) => this.clones[c].svc.state.dirtyPaths(),
        (c) => this.clones[c].svc.conflicts().map((x) => x.path),
      )
    ) this.truth.violate(v);
    await this.truth.checkOldCommittedNow(this.target.inspect, -1);
    await this.truth.checkOldPushes(
      entries,
      this.clones.map((c) => c.dir),
      (key) => this.target.inspect.read(key),
    );
    await this.truth.checkMarked(
      entries,
      (key) => this.target.inspect.read(key),
      this.clones.map((c) => c.dir),
    );
    await this.truth.checkLostVersions(entries, (key) => this.target.inspect.read(key));
    await this.truth.checkForeign(
      entries,
      (key) => this.target.inspect.read(key),
      this.clones.map((c) => c.dir),
      (clone, path) => this.changes.edits.some((e) => e.clone === clone && e.path === path),
      (key) => this.target.direct.head(key),
    );
    await this.truth.checkVanished(
      (key) => this.target.inspect.read(key),
      this.clones.map((c) => c.dir),
      this.changes.touched,
    );
    this.truth.checkUnwritten((c) => this.clones[c].svc.conflicts(), this.changes.touched);
    const allowed = [...this.clones.map((c) => `c${c.index}`), "operator", "fresh"];
    for (const v of await checkOutside(this.root, allowed)) this.truth.violate(v);
    await this.resolveLeft();
    if (!this.aborted) await this.truth.checkAfterResolution(this.clones.map((c) => c.dir));
  }

  abort(v: Violation): void {
    this.aborted = true;
    this.truth.violate(v);
  }

  get opId(): number {
    return this.currentOpId;
  }

  fingerprint(): Promise<string> {
    return fingerprintOf(this.truth, this.target.inspect);
  }
}
