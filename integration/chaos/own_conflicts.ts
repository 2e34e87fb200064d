/**
 * I29, no conflict with itself: a pull never records a conflict whose
 * datastore copy ("theirs") is the clone's own write. An object its cache
 * uploaded (its commit landed, whether or not the answer came back) is the
 * base of whatever the clone changed there since: no one else changed the
 * file, and a conflict would ask the user to choose between their own two
 * edits (and hold the later one back until they do).
 *
 * Each put a clone's command makes that carries its writer id is recorded
 * by key and version, read back from the store when the call failed (its
 * answer lost, it may have taken effect). A copy of another clone's cache
 * in its place makes its earlier writes another writer's. Stores whose
 * versions are the bytes' (ETags) are left out: two writers of the same
 * bytes write the same version.
 *
 * @module
 */
import type { ObjectStore } from "../../sync/ports.ts";
import { WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import type { ConflictRecord } from "../../sync/service/conflicts.ts";
import type { Violation } from "./invariants.ts";

/** The puts of each clone, by key and version; checks I29 (see the module). */
export class OwnWrites {
  /** `<key>\0<version>` → the clone whose cache wrote it. */
  readonly #by = new Map<string, number>();
  /** Conflicts told of already, by `<clone>\0<path>\0<version>`. */
  readonly #told = new Set<string>();

  /**
   * `store`, recording each put of the clone `writer()` names (undefined:
   * not a clone's, or not checked) that carries a writer id. `head` reads
   * the store directly, past faults and scheduling.
   */
  watch(
    store: ObjectStore,
    writer: () => number | undefined,
    head: (key: string) => Promise<{ version: string; metadata?: Record<string, string> } | null>,
  ): ObjectStore {
    return {
      ...store,
      endpoint: store.endpoint,
      put: async (key, body, mode, o) => {
        // Who writes is known only now, before the first await.
        const clone = writer();
        const id = o?.metadata?.[WRITER_METADATA];
        if (clone === undefined || id === undefined) return await store.put(key, body, mode, o);
        try {
          const info = await store.put(key, body, mode, o);
          this.#by.set(`${key}\0${info.version}`, clone);
          return info;
        } catch (e) {
          const now = await head(key).catch(() => null);
          if (now && now.metadata?.[WRITER_METADATA] === id) {
            this.#by.set(`${key}\0${now.version}`, clone);
          }
          throw e;
        }
      },
    };
  }

  /** Clone `clone`'s cache was replaced by a copy of another's: its writes so far are another writer's. */
  forget(clone: number): void {
    for (const [k, c] of this.#by) if (c === clone) this.#by.delete(k);
  }

  /**
   * I29 over clone `clone`'s open conflicts (each told once), but at a path
   * `recordLost` names (its latest synced record, of that write, lost with a
   * damaged line of the clone's manifest log: the file counts as synced at
   * its record before, so a change to it meets the datastore's copy as a
   * conflict, as documented).
   */
  check(
    clone: number,
    conflicts: readonly ConflictRecord[],
    afterOp: number,
    recordLost: (path: string) => boolean = () => false,
  ): Violation[] {
    const out: Violation[] = [];
    for (const c of conflicts) {
      const v = c.theirs?.version;
      if (c.foundBy !== "pull" || v === undefined || recordLost(c.path)) continue;
      if (this.#by.get(`${c.path}\0${v}`) !== clone) continue;
      const told = `${clone}\0${c.path}\0${v}`;
      if (this.#told.has(told)) continue;
      this.#told.add(told);
      out.push({
        invariant: "I29",
        message:
          `c${clone}'s pull recorded a conflict on ${c.path} whose datastore copy (version ${v}) is c${clone}'s own write (${
            c.reason ?? "no reason given"
          }): a conflict with itself`,
        afterOp,
      });
    }
    return out;
  }
}
