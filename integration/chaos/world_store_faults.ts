/**
 * The faults injected into the calls of a chaos clone's store view (see `world_stores.ts`).
 *
 * @module
 */
import { isLayoutInternal, META_KEY } from "../../sync/transfer/bucket_layout.ts";
import { MANAGED_LOCKFILE_PATH } from "../../sync/locks/lockfile_txn.ts";
import type { CallOptions, Clock, ObjectInfo, ObjectStore } from "../../sync/ports.ts";
import { PreconditionFailedError, UnreachableError } from "../../sync/errors.ts";
import { CHAOS_CONFIG, isIndexObject } from "./clone_setup.ts";
import { findStateDir as stateDirOf } from "../../sync/transfer/cache.ts";
import { isOldClientCommand, isOldPullCommand } from "./commands.ts";
import type { CloneSlot } from "./world_slots.ts";
import { WorldFaults } from "./world_faults.ts";

/** The fake time between a checked delete's look and its delete (a network round trip, widened). */
const CHECKED_DELETE_WINDOW_MS = 300;

/**
 * `store` as an endpoint that ignores a delete's condition (MinIO): a
 * delete conditional on a version reads the version (one call), then
 * deletes (another, which names the version checked for the harness's
 * checks): a write can land between the two, and is deleted.
 */
export function checkThenDelete(store: ObjectStore, clock: Clock): ObjectStore {
  return {
    ...store,
    endpoint: store.endpoint,
    deletesChecked: true,
    delete: async (key, o = {}) => {
      if (o.ifVersion === undefined) return await store.delete(key, o);
      const now = await store.head(key, { signal: o.signal });
      if (!now) throw new PreconditionFailedError(key, "it does not exist");
      if (now.version !== o.ifVersion) {
        throw new PreconditionFailedError(key, `version ${now.version}, expected ${o.ifVersion}`);
      }
      // The window between the two, in fake time: other commands go on in it.
      await clock.sleep(CHECKED_DELETE_WINDOW_MS, o.signal);
      const checked = { signal: o.signal, checkedVersion: o.ifVersion };
      return await store.delete(key, checked);
    },
  };
}

/**
 * The clone slots with the faults injected into their store calls: an
 * index write whose answer is lost, flaky looks after a set-aside, brief
 * outages (see `WorldSlots`).
 */
export abstract class WorldStoreFaults extends WorldFaults {
  /**
   * `store`, where the index write (the v1 index, a shard) of a clone armed
   * to crash at `answer` lands and never answers: the clone crashes at the
   * decision that made it, its command never knowing its commit was made.
   * Not an old client's: its push is no Sluice commit, and its pull does
   * nothing after its write (a crash there is its return), while the
   * checker learns what that write dropped only from its return.
   */
  protected answerLoss(store: ObjectStore): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        // Who writes is known only now, before the first await.
        const label = this.sched.label ?? "";
        const slot = isOldClientCommand(label) || isOldPullCommand(label)
          ? undefined
          : this.clones.find((c) => c.owner === this.sched.owner && this.answerArmed.has(c));
        const info = await store.put(key, body, mode, o);
        if (!slot || !isIndexObject(key) || key === META_KEY) return info;
        this.answerArmed.delete(slot);
        // The command parks on a look at what it wrote, as its answer is
        // on its way: the process dies there, at the decision that parks it.
        this.answerDue.add(slot);
        await this.gated.head(key).catch(() => null);
        return info;
      },
    };
  }

  /** Per clone slot: the lost versions' set-asides seen, and the index reads still to fail. */
  protected readonly setAsides = new Map<CloneSlot, { seen: number; failing: number }>();
  /** True once the final sync healed every fault: no index read fails after a set-aside then. */
  protected setAsideLooksHealed = false;

  /**
   * `store`, where in `setAsideFlaky` histories a clone's first reads of an
   * index object after a copy of its was set aside as a lost version's (a
   * new `version_exists` reason in its state's set-aside area) fail as
   * unreachable, as many as its retries allow (one more than them): the
   * look that settles the record of its write there fails.
   */
  protected setAsideLooks(store: ObjectStore): ObjectStore {
    if (!this.history.setAsideFlaky) return store;
    return {
      ...store,
      endpoint: store.endpoint,
      get: (key, o) => {
        // Who reads is known only now, before the first await.
        const slot = isIndexObject(key) && !this.setAsideLooksHealed
          ? this.clones.find((c) => c.owner === this.sched.owner)
          : undefined;
        if (slot) {
          const n = lostSetAsides(slot.dir);
          const s = this.setAsides.get(slot) ?? { seen: 0, failing: 0 };
          this.setAsides.set(slot, s);
          if (n > s.seen) [s.seen, s.failing] = [n, CHAOS_CONFIG.retry.retries + 1];
          if (s.failing > 0) {
            s.failing--;
            this.stats.setAsideFlakyLooks++;
            return Promise.reject(
              new UnreachableError("injected flaky look right after a set-aside"),
            );
          }
        }
        return store.get(key, o);
      },
    };
  }

  /**
   * Clones armed by a `blip` move: the key of the call failing (once the
   * first eligible call met it) and how many of its calls are still to fail.
   */
  readonly blipArmed = new Map<
    CloneSlot,
    {
      key?: string;
      call: "put" | "delete" | "head";
      left: number;
      marker?: boolean;
      landed?: boolean;
      /** Aimed at a look after a delete (see {@link putBackLook}). */
      putBack?: boolean;
      /** With `putBack`: the file's object the clone deleted last, and its looks at it since. */
      deleted?: { key: string; looks: number };
    }
  >();

  /**
   * The clone slot armed by a `blip` with `putBack` that calls the store
   * now (an old client's command never): known only before the call's
   * first await.
   */
  private putBackArmed(): CloneSlot | undefined {
    const label = this.sched.label ?? "";
    if (isOldClientCommand(label) || isOldPullCommand(label)) return undefined;
    const slot = this.clones.find((c) => c.owner === this.sched.owner);
    return slot && this.blipArmed.get(slot)?.putBack ? slot : undefined;
  }

  /**
   * A look at `key` by the clone `slot`, armed by a `blip` with `putBack`:
   * its second look at a file's object since its delete of that object
   * (a take-back's look, after the index is read again, at what the store
   * holds there: the first is the removal's check of that path), made, and
   * where the store holds that object again (a peer's copy put back over
   * the delete), its answer lost, once: a transient failure. The blip is
   * disarmed then.
   */
  private async putBackLook(
    store: ObjectStore,
    slot: CloneSlot,
    key: string,
    o?: CallOptions,
  ): Promise<ObjectInfo | null> {
    const armed = this.blipArmed.get(slot)!;
    const held = await store.head(key, o);
    if (armed.deleted?.key !== key || ++armed.deleted.looks < 2 || !held) return held;
    this.blipArmed.delete(slot);
    this.stats.blips++;
    this.note(
      `c${slot.index} meets a brief outage at its look at ${key}, held again since its delete`,
    );
    throw new UnreachableError(`head ${key}: injected brief outage`);
  }

  /**
   * `store`, where a clone armed by a `blip` move meets a brief outage: its
   * next write (or deletion) of a file's object, no index, lock or lockfile
   * object, fails as unreachable, and so does each retry of that very call
   * (one more than the retries: its attempts spent), while every other call
   * goes through. Disarmed once the last of them failed.
   */
  protected blips(store: ObjectStore): ObjectStore {
    /** 0: the call goes through; 1: it fails; 2: it lands, its answer lost. */
    const strike = (call: "put" | "delete" | "head", key: string, create = false): 0 | 1 | 2 => {
      // Who calls is known only now, before the first await.
      const label = this.sched.label ?? "";
      if (isOldClientCommand(label) || isOldPullCommand(label)) return 0;
      const slot = this.clones.find((c) => c.owner === this.sched.owner);
      const armed = slot && this.blipArmed.get(slot);
      if (!slot || !armed || armed.call !== call || armed.putBack) return 0;
      let first = false;
      if (armed.key === undefined) {
        if (!blippable(key)) return 0;
        if (armed.marker && (!key.endsWith("/latest") || (call === "put" && !create))) return 0;
        armed.key = key;
        armed.left = CHAOS_CONFIG.retry.retries + 1;
        first = true;
        this.stats.blips++;
        if (armed.marker) this.stats.markerBlips++;
        this.note(
          `c${slot.index} meets a brief outage at its ${call} of ${key}${
            armed.landed ? " (its first attempt lands)" : ""
          }`,
        );
      } else if (armed.key !== key) return 0;
      if (--armed.left <= 0) this.blipArmed.delete(slot);
      return first && armed.landed ? 2 : 1;
    };
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        const s = strike("put", key, mode.kind === "create");
        if (s === 0) return store.put(key, body, mode, o);
        if (s === 2) await store.put(key, body, mode, o);
        throw new UnreachableError(`put ${key}: injected brief outage`);
      },
      delete: (key, o) => {
        const aimed = this.putBackArmed();
        if (strike("delete", key) !== 0) {
          return Promise.reject(new UnreachableError(`delete ${key}: injected brief outage`));
        }
        if (!aimed || !blippable(key)) return store.delete(key, o);
        // Landed: the looks at that object from now on are counted.
        return store.delete(key, o).then(() => {
          const armed = this.blipArmed.get(aimed);
          if (armed) armed.deleted = { key, looks: 0 };
        });
      },
      head: (key, o) => {
        const aimed = this.putBackArmed();
        if (aimed) return this.putBackLook(store, aimed, key, o);
        return strike("head", key) !== 0
          ? Promise.reject(new UnreachableError(`head ${key}: injected brief outage`))
          : store.head(key, o);
      },
    };
  }
}

/** How many copies the state of the cache `dir` set aside as lost versions' (`version_exists`). */
function lostSetAsides(dir: string): number {
  const area = `${stateDirOf(dir)}/set-aside`;
  let n = 0;
  try {
    for (const d of Deno.readDirSync(area)) {
      try {
        const why = JSON.parse(Deno.readTextFileSync(`${area}/${d.name}/REASON.json`));
        if (why?.code === "version_exists") n++;
      } catch {
        // Not a set-aside's reason (or being written).
      }
    }
  } catch {
    // No set-aside area.
  }
  return n;
}

/**
 * Whether a `blip` move strikes a call on `key`: a file's object a push
 * transfers (an upload, a deletion, a commit-step write), not the layout's
 * own (the index, locks) nor the managed lockfile, which a lockfile
 * transaction writes, not a push's transfer.
 */
function blippable(key: string): boolean {
  return !isLayoutInternal(key) && !key.startsWith(".locks/") && key !== MANAGED_LOCKFILE_PATH;
}
