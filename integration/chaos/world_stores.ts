/**
 * The store views each clone's calls go through in a chaos history, and
 * the world's setup that stacks them: the checks of lost updates (I9, and
 * I7 at each commit: `lost_updates.ts`), of the deletions a clone's users
 * named (I23), of its own writes (I29), of withdrawals (I32) and of
 * reshapes (I15), over the faults injected into the calls
 * (`world_store_faults.ts`).
 *
 * @module
 */
import { META_KEY, metaBody, MONOLITH_KEY } from "../../sync/transfer/bucket_layout.ts";
import { type ObjectStore, PutModes } from "../../sync/ports.ts";
import { UnreachableError } from "../../sync/errors.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { PushResult } from "../../sync/service/push_result.ts";
import { isIndexObject, watchedStore } from "./clone_setup.ts";
import { harnessDeps, watchLostUpdates } from "./lost_updates.ts";
import { isOldClientCommand, isOldPullCommand } from "./commands.ts";
import { indexEntriesOf } from "./index_checks.ts";
import { readWriterId, WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { plantSentinel } from "./invariants.ts";
import { memoryTarget } from "./target.ts";
import { VersionTurns } from "./old_pull_undone.ts";
import { checkThenDelete, WorldStoreFaults } from "./world_store_faults.ts";

/**
 * The clone slots with the store views their calls go through, and the
 * world's setup (see `WorldSlots`).
 */
export abstract class WorldStores extends WorldStoreFaults {
  /**
   * Deletions a clone's resolution made, by path: the clone and the version
   * it deleted (the other shape of a name it resolved, deleted before its
   * own shape's writes and its index update).
   */
  protected readonly resolutionDeleted = new Map<string, { clone: number; version?: string }>();
  /** Writer ids of caches a `copy` move replaced: their uploads no commit named are left for good. */
  protected readonly abandonedWriters = new Set<string>();
  /**
   * The objects each clone's present cache deleted on the store, by clone:
   * path to the versions deleted (a deletion's commit may not have come).
   */
  protected readonly deletedBy = new Map<number, Map<string, Set<string>>>();
  /** The turns of the puts and of those deletions, and the conditional updates' chains. */
  protected readonly versionTurns = new VersionTurns();
  /**
   * The same of caches a `copy` move replaced, and of a clone whose record of
   * the version deleted a damaged line of its manifest log held, its process
   * restarted (a `damaged` move): a deletion whose commit never came, which
   * its cache no longer knows of, leaves the index naming the version
   * deleted, until a pull past the dangling-entry grace removes the entry
   * (I7's and I8's exception).
   */
  protected readonly abandonedDeletes = new Map<string, Set<string>>();
  /**
   * The uploads of a refused run whose deletion was still pending in a
   * cache a `copy` move replaced (its erasure journal's `uploads`), by path:
   * the versions. The journal goes with the old directory, so they are left
   * for good, named by no index (I2's final exception).
   */
  protected readonly abandonedErasures = new Map<string, Set<string>>();
  /**
   * By the owner of a clone's waiting process, the service of the second
   * process whose command runs in its place (an aimed `second` command):
   * the writer whose view I9 goes by meanwhile.
   */
  protected readonly acting = new Map<string, SyncService>();

  async setup(): Promise<void> {
    const factory = this.options.target ?? memoryTarget;
    this.target = await factory({
      clock: this.sched.clock,
      setLatency: (ms) => (this.sched.latencyMs = ms),
      ...(this.history.etag ? { versionFromBytes: true } : {}),
    });
    if (this.history.v2) {
      const meta = { version: 2, partitions: [], commitSeq: 0, raw: {} } as const;
      await this.target.direct.put(META_KEY, metaBody(meta), PutModes.create);
    }
    const checked = watchLostUpdates(
      this.watched(this.target.store),
      harnessDeps({
        read: (key) => this.target.inspect.read(key),
        changes: this.changes,
        direct: this.target.direct,
        owner: () => this.sched.owner,
        label: () => this.sched.label,
        clones: this.clones,
        acting: (owner) => this.acting.get(owner),
        violate: (v) => this.truth.violate(v),
        opId: () => this.currentOpId,
        vanished: (path, e) => this.truth.namesVanished(path, e),
        raced: (path, bytes, version) => this.raced(path, bytes, version),
        markerRollback: (path, hash) => this.truth.markerRollbacks.has(`${path}\0${hash}`),
      }),
    );
    const owned = this.ownWrites.watch(
      this.namedDeletions(checked),
      () => {
        if (this.history.etag || isOldClientCommand(this.sched.label ?? "")) return undefined;
        return this.clones.find((c) => c.owner === this.sched.owner)?.index;
      },
      (key) => this.target.direct.head(key),
    );
    const withdrawing = this.withdrawals.watch(
      owned,
      () => {
        const label = this.sched.label ?? "";
        if (isOldClientCommand(label) || isOldPullCommand(label)) return undefined;
        return this.clones.find((c) => c.owner === this.sched.owner)?.index;
      },
      () => indexEntriesOf(this.target.inspect),
      () => isOldClientCommand(this.sched.label ?? ""),
    );
    const undone = this.undone(withdrawing);
    const shaped = this.shapes.watch(this.setAsideLooks(this.answerLoss(undone)), () => {
      if (isOldClientCommand(this.sched.label ?? "")) return undefined;
      const slot = this.clones.find((c) => c.owner === this.sched.owner);
      return slot && { clone: slot.index, state: slot.svc.state };
    }, () => this.currentOpId);
    const blipped = this.blips(shaped);
    this.gated = this.history.checkedDeletes
      ? checkThenDelete(this.sched.wrap(blipped), this.sched.clock)
      : this.sched.wrap(blipped);
    this.shapes.head = (key) => this.target.direct.head(key);
    // Probe once, directly: every later decision is then a memo hit, never a wait on another unit.
    await this.registry.probe(this.target.store);
    await plantSentinel(this.root);
    for (let i = 0; i < this.history.clones; i++) {
      const dir = `${this.root}/c${i}`;
      const { svc, locks } = await this.service(dir, `c${i}`, i, 0);
      this.named(svc, i);
      this.clones.push({ index: i, dir, incarnation: 0, owner: `c${i}.0`, svc, locks, queue: [] });
    }
    this.operator = (await this.service(`${this.root}/operator`, "operator", 999, 0)).svc;
  }

  /**
   * I23 (`named_deletions.ts`): the marks by name and resolutions of clone
   * `index`'s users are told of as they are made, and each push that ends
   * settles the marks it did not leave.
   */
  protected named(svc: SyncService, index: number): void {
    const mark = svc.markDirty.bind(svc);
    svc.markDirty = async (o = {}) => {
      const paths = [...(o.relPath !== undefined ? [o.relPath] : []), ...(o.relPaths ?? [])];
      // Each mark's sequence in this process's dirty set, once made: while
      // this process runs the clone and holds the path at that sequence,
      // the user's mark stands (a push may keep it without naming it); a
      // mark the library cleaned and made again has another.
      const made = new Map<string, number>();
      const held = (p: string) => {
        const seq = made.get(p);
        return seq !== undefined && this.clones.find((c) => c.index === index)?.svc === svc &&
          svc.state.snapshot().paths.get(p) === seq;
      };
      if (paths.length > 0) this.namedDeletes.named(index, paths, held);
      await mark(o);
      const now = svc.state.snapshot().paths;
      for (const p of paths) {
        const seq = now.get(p);
        if (seq !== undefined) made.set(p, seq);
      }
    };
    const resolve = svc.resolveConflict.bind(svc);
    svc.resolveConflict = (path, how, ...rest) => {
      this.namedDeletes.named(index, [path]);
      return resolve(path, how, ...rest);
    };
    const push = svc.pushChanged.bind(svc);
    svc.pushChanged = async (o) => {
      const r = await push(o);
      if (!o?.dryRun) this.settleNamed(index, r);
      return r;
    };
  }

  /** I23: a push of clone `index` ended, settling the marks it did not leave. */
  protected settleNamed(index: number, r: PushResult): void {
    this.namedDeletes.pushed(index, [
      ...r.skipped.filter((s) => s.keepDirty).map((s) => s.path),
      ...r.conflicts,
    ]);
  }

  /** `store`, checking each deletion a clone makes against I23 (`named_deletions.ts`). */
  protected namedDeletions(store: ObjectStore): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        const r = await store.put(key, body, mode, o);
        // Written again since a resolution deleted it: no hole of that resolution's.
        this.resolutionDeleted.delete(key);
        return r;
      },
      delete: async (key, o) => {
        const slot = isOldClientCommand(this.sched.label ?? "")
          ? undefined
          : this.clones.find((c) => c.owner === this.sched.owner);
        const why = slot && this.namedDeletes.check(slot.index, key);
        if (slot && why) {
          // A clone's own uncommitted write is its to withdraw; one it holds
          // synced at that very version was committed (peers may hold it
          // too), and is held to its user's names as another writer's is.
          const held = await this.target.direct.head(key);
          const own = await readWriterId(slot.svc.cache);
          const committed = held?.version === slot.svc.state.synced(key)?.version;
          if (held && (held.metadata?.[WRITER_METADATA] !== own || committed)) {
            this.truth.violate({ invariant: "I23", message: why, afterOp: this.currentOpId });
          }
        }
        // The version deleted: the condition, or the one a checked delete
        // checked; recorded only where it is the version this cache synced
        // (a deletion of a synced file, not a withdrawal of an upload of its
        // own, which no commit may name).
        const version = o?.ifVersion ??
          (o as { checkedVersion?: string } | undefined)?.checkedVersion;
        const ofSynced = slot !== undefined && version !== undefined &&
          slot.svc.state.synced(key)?.version === version;
        try {
          await store.delete(key, o);
        } catch (e) {
          // A delete whose answer was lost after it took effect deleted it all the same.
          if (ofSynced && e instanceof UnreachableError) {
            if ((await this.target.inspect.read(key)) === undefined) {
              this.deleted(slot.index, key, version);
            }
          }
          throw e;
        }
        if (ofSynced) this.deleted(slot.index, key, version);
        if (slot && / resolve /.test(` ${this.sched.label ?? ""} `)) {
          this.resolutionDeleted.set(key, { clone: slot.index, version: o?.ifVersion });
        }
      },
    };
  }

  /** Clone `clone`'s present cache deleted `version` of `key` on the store. */
  protected deleted(clone: number, key: string, version: string): void {
    this.versionTurns.deleted(clone, key, version);
    const byPath = this.deletedBy.get(clone) ?? new Map<string, Set<string>>();
    this.deletedBy.set(clone, byPath);
    byPath.set(key, (byPath.get(key) ?? new Set<string>()).add(version));
  }

  /**
   * `store`, where an old client's pull writes back the v1 index it read
   * (`oldpull`): each entry its write names again where the index it wrote
   * over named nothing, the store holding nothing at the path, at a version
   * a clone's present cache deleted there, is a Sluice deletion whose commit
   * landed after that pull's read and which its write dropped (see
   * `GroundTruth.oldPullUndeleted`). Looked at as the write lands, no other
   * call released in between; one whose answer was lost landed all the same.
   * So too where the version deleted replaced the one written back by
   * conditional updates after the pull's read (seed 220100129: another
   * clone's edit, then its reshape into a file, both committed in between).
   * Only a deletion made after the last put of the version it deleted (on a
   * store whose versions are the bytes' ETags, a version deleted and written
   * again is another object), and only until a clone writes the version
   * named again: what the index names then is that write, which the store
   * must hold.
   */
  protected undone(store: ObjectStore): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        // Who writes is known only now, before the first await.
        const label = this.sched.label ?? "";
        if (!isIndexObject(key)) {
          const info = await store.put(key, body, mode, o);
          const replaced = mode.kind === "update" ? mode.version : undefined;
          this.versionTurns.put(key, info.version, replaced);
          if (!isOldClientCommand(label) && !isOldPullCommand(label)) {
            this.truth.oldPullUndeleted.get(key)?.delete(info.version);
          }
          return info;
        }
        if (key !== MONOLITH_KEY || !isOldPullCommand(label)) {
          return await store.put(key, body, mode, o);
        }
        const before = await indexEntriesOf(this.target.inspect);
        try {
          return await store.put(key, body, mode, o);
        } finally {
          const after = await indexEntriesOf(this.target.inspect);
          // Entries rolled back to another version (`GroundTruth.oldPullRolledBack`).
          for (const [path, b] of Object.entries(before)) {
            if (!after[path] || after[path].v === b.v) continue;
            const all = this.truth.oldPullRolledBack.get(path) ?? new Set<string>();
            this.truth.oldPullRolledBack.set(path, all.add(b.v));
          }
          for (const [path, e] of Object.entries(after)) {
            if (before[path] || await this.target.inspect.read(path) !== undefined) continue;
            const deletions = [...this.deletedBy].map(([c, m]) => [c, m.get(path) ?? []] as const);
            if (!this.versionTurns.undone(path, e.v, deletions)) continue;
            const all = this.truth.oldPullUndeleted.get(path) ?? new Set<string>();
            this.truth.oldPullUndeleted.set(path, all.add(e.v));
          }
        }
      },
    };
  }

  protected watched(store: ObjectStore): ObjectStore {
    return watchedStore(store, this.changes, (key) => this.target.inspect.read(key));
  }
}
