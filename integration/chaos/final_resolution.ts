/**
 * The final resolution of a chaos history (I13): each clone resolves every
 * conflict it has left with `--mine`, taking the ways out its refusals and
 * warnings name; `final_sync.ts` runs it after the final sync's checks.
 *
 * @module
 */
import {
  markerHeldReason,
  markerUnfinishedReason,
  markerUnlistedReason,
} from "../../middleware/marker_after_version.ts";
import { ADOPT_VERSION_AFTER_MS } from "../../middleware/version_adoption.ts";
import { UNCOMMITTED_HOLDS, VERSION_WAITS } from "../../sync/service/push_result.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { isManagedLockfilePath } from "../../sync/locks/lockfile_txn.ts";
import { codeOf, plainCommand, pushOf, resolveAsUser } from "./commands.ts";
import { indexEntriesOf } from "./index_checks.ts";
import { readWriterId, WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { holdsOtherShape } from "./shapes.ts";
import { WorldCommands } from "./world_commands.ts";
import { UNFINISHED_REASON } from "../../middleware/unfinished_version_holder.ts";
import { sha256Hex } from "../../sync/hash.ts";

/** The start of the reason a push gives for a refused run's file or marker it holds out. */
const REFUSED_RUN_HELD = "written by a run refused for losing its model lock";

/** A history's world with its final resolution (see `World`, `final_sync.ts`). */
export abstract class WorldResolution extends WorldCommands {
  /**
   * True when clone `clone` holds at `path` a live edit of its user (a merge
   * written by `resolve --merged`, whose resolution was cut off) and its
   * open conflict there names `bytes` as theirs: the pull kept the edit, as
   * it keeps any local change, and the user sees theirs in the conflict.
   * The conflict's own copy is the file at `path`, or a copy of it the pull
   * that opened the conflict set aside (a local copy the cache never
   * synced, set aside for theirs): the merge written at `path` since is
   * kept all the same (seed 216700001).
   */
  protected async editedInConflict(
    clone: number,
    path: string,
    bytes: Uint8Array,
  ): Promise<boolean> {
    const c = this.clones[clone].svc.conflicts().find((x) => x.path === path);
    if (!c?.theirs || !c.mine) return false;
    const mine = c.mine.location;
    if (mine !== path && !(mine.startsWith(".sluice/set-aside/") && mine.endsWith(`/${path}`))) {
      return false;
    }
    if (c.theirs.hash !== await sha256Hex(bytes)) return false;
    const here = await Deno.readFile(`${this.clones[clone].dir}/${path}`).catch(() => null);
    if (!here) return false;
    const hash = await sha256Hex(here);
    return this.changes.edits.some((e) =>
      e.clone === clone && e.path === path && e.hash === hash && e.state === "live"
    );
  }

  /**
   * I13, last (it publishes): each clone in turn resolves every conflict it
   * has left with `--mine`, which must publish, or meet a version a
   * resolution of another clone published before it as a new conflict. A
   * data version is never written over: there `--mine` is refused
   * (`version_exists`) and `--theirs` must settle it, as it must a copy
   * deleted by hand since its conflict recorded it (`not_found`). A resolution that is
   * refused otherwise, or waits on nothing, is a conflict its user cannot
   * get out of. The managed lockfile is resolved only by taking theirs (its
   * entries go through its transaction), so it is left out. A resolution
   * held back by another writer's uncommitted write does what its warning
   * says when that writer is gone for good (`push --adopt-uncommitted`,
   * which makes it a conflict with this copy), then resolves again, once.
   * So too a `latest` marker held back ahead of its version (whose files
   * here are not published): the version is pushed, as the reason says, and
   * where that push leaves it waiting on the upload of a writer gone for
   * good (a cache its user replaced by a copy), its warning's way out is
   * taken (`push --adopt-uncommitted` of the version, once that upload is 15
   * minutes old); then the marker is resolved again, once. So too a copy
   * held back under a directory that replaced a file its clone records as
   * synced (a damaged manifest line can bring such a record back, seed
   * 199910056): that name is pushed by its name, as the reason says, then
   * the copy is resolved again, once. Nor is a copy
   * published beside another shape of its name that the datastore holds
   * (`unsafe_path`: theirs, as told; see I15), its object or just its index
   * entry (a file another tool deleted since: the index still names it).
   */
  protected async resolveLeft(): Promise<void> {
    // Twice: a --theirs held by another clone's upload in flight goes
    // through once that clone's own resolution withdrew or published it,
    // which may come after this clone's turn.
    for (const last of [false, true]) await this.resolveLeftOnce(last);
  }

  protected async resolveLeftOnce(last: boolean): Promise<void> {
    for (const slot of this.clones) {
      if (this.aborted) return;
      if (last && !slot.svc.conflicts().some((x) => !isManagedLockfilePath(x.path))) continue;
      this.enqueue(
        slot.index,
        plainCommand(this.env, slot.index, "final resolve --mine", async (svc) => {
          const tried = new Set<string>();
          const adopted = new Set<string>();
          // Held back until another open conflict of the other shape is
          // resolved, as its reason says: tried again once the rest were.
          const waiting = new Set<string>();
          const retried = new Set<string>();
          // Markers whose held-back version was pushed (see `pushHeldVersion`).
          const versionPushed = new Set<string>();
          // Paths whose held-back reshape was pushed by name (see `reshapeToPush`).
          const reshapePushed = new Set<string>();
          for (;;) {
            // Read again each time: one resolution can settle others (a data version's files).
            let c = svc.conflicts().find((x) =>
              !tried.has(x.path) && !isManagedLockfilePath(x.path)
            );
            if (!c && waiting.size > 0) {
              for (const p of waiting) {
                tried.delete(p);
                retried.add(p);
              }
              waiting.clear();
              c = svc.conflicts().find((x) => !tried.has(x.path) && !isManagedLockfilePath(x.path));
            }
            if (!c) return;
            tried.add(c.path);
            this.stats.finalResolutions++;
            let why: string | undefined;
            try {
              // A deletion here of a version its marker here names, brought
              // back by a damaged line of the manifest log that held the
              // record of the deletion pulled or pushed (the record before it
              // synced, the file gone), meets the datastore's version as a
              // conflict, as README says a damaged line leads to. Its --mine
              // is a deletion Sluice never pushes (version-under-marker), and
              // is refused (version_under_marker). Its user takes theirs,
              // what the undamaged record would have pulled (seeds 219900192,
              // 219150198: there I1 holds the clone to an acknowledged run's
              // version).
              if (
                c.mine === null && c.theirs &&
                (this.damagedPaths.get(slot.index)?.has(c.path) ?? false) &&
                !await Deno.lstat(`${svc.cacheDir}/${c.path}`).then(() => true, () => false) &&
                await markerHereNames(svc.cacheDir, c.path)
              ) {
                const taken = await resolveAsUser(this.env, svc, slot.index, c, "theirs");
                if (taken?.resolved) continue;
              }
              // Refused on what the last pull recorded in the way, which may be
              // gone since (another clone's resolution): pulled, then tried
              // again, as the refusal says.
              const mine = () => resolveAsUser(this.env, svc, slot.index, c, "mine");
              const r = await mine().catch(async (e) => {
                if (
                  codeOf(e) !== "unsafe_path" ||
                  !/run `sluice pull` and then this again/.test((e as Error).message)
                ) throw e;
                await svc.pullChanged();
                const now = svc.conflicts().find((x) => x.path === c.path);
                if (!now) return null;
                return await resolveAsUser(this.env, svc, slot.index, now, "mine");
              }).catch(
                async (e) => {
                  // A data version is never written over; a copy deleted here by hand
                  // since the conflict is not published as a deletion, nor a directory
                  // that replaced the file (a reshape) as a file, nor a deletion of a
                  // version the marker here names (version_under_marker): theirs, as told.
                  const dirHere = codeOf(e) === "unsafe_path" &&
                    (await Deno.lstat(`${svc.cacheDir}/${c.path}`).catch(() => null))
                      ?.isDirectory;
                  // Nor beside another shape of its name the datastore holds (I15):
                  // an object, or an entry of the index, which Sluice reads for it
                  // (one whose object another tool deleted since included).
                  const otherShape = codeOf(e) === "unsafe_path" &&
                    holdsOtherShape(
                      c.path,
                      await this.target.inspect.keys(),
                      Object.keys(await indexEntriesOf(this.target.inspect)),
                    );
                  if (
                    codeOf(e) !== "version_exists" && codeOf(e) !== "not_found" &&
                    codeOf(e) !== "version_under_marker" && !dirHere && !otherShape
                  ) {
                    throw e;
                  }
                  const now = svc.conflicts().find((x) => x.path === c.path);
                  if (now) return await resolveAsUser(this.env, svc, slot.index, now, "theirs");
                  // The push refused it as a run that lost its version: this
                  // cache's files of it set aside, the conflict dropped, and
                  // the datastore's version left for a pull, as it says.
                  if (
                    codeOf(e) === "version_exists" &&
                    /\bPull\b|\bA pull brings\b/.test(String((e as Error).message))
                  ) {
                    await svc.pullChanged();
                  }
                  return null;
                },
              );
              const left = r?.push?.skipped.find((s) => s.path === c.path);
              // Left out beside the other shape of its name that the datastore
              // holds (published since): theirs, as its reason says (see I15),
              // as for the refusal of the same before any upload.
              if (
                r && !r.resolved &&
                /would leave a file and files under a directory of one name/.test(
                  left?.reason ?? "",
                )
              ) {
                const now = svc.conflicts().find((x) => x.path === c.path);
                const taken = now && await resolveAsUser(this.env, svc, slot.index, now, "theirs");
                if (!now || taken?.resolved) continue;
              }
              // A marker naming a version that exists nowhere (a hand move
              // "one back" past the first version), or one still being
              // written here whose writer stopped for good (a crashed run's
              // raw with no metadata.yaml, moved "one back" onto: seed
              // 143500042), is never published (marker-after-version):
              // theirs, as its reason says.
              if (r && !r.resolved && left && isMarkerUnlisted(left.reason, c.path)) {
                const now = svc.conflicts().find((x) => x.path === c.path);
                const taken = now && await resolveAsUser(this.env, svc, slot.index, now, "theirs");
                if (!now || taken?.resolved) continue;
              }
              // A version's raw whose metadata.yaml is not here (its user took
              // theirs, the deletion, for it: another tool deleted the version
              // whole) is a version still being written, never published: its
              // way out, as the reason says, is the version's deletion, theirs.
              if (
                r && !r.resolved && left?.reason === UNFINISHED_REASON &&
                !await Deno.lstat(`${svc.cacheDir}/${c.path.replace(/raw$/, "metadata.yaml")}`)
                  .then(() => true, () => false)
              ) {
                const now = svc.conflicts().find((x) => x.path === c.path);
                const taken = now && await resolveAsUser(this.env, svc, slot.index, now, "theirs");
                if (!now || taken?.resolved) continue;
              }
              // A copy written by a run refused for losing its model lock is never
              // published: its conflict is left by taking theirs.
              if (r && !r.resolved && left?.reason.startsWith(REFUSED_RUN_HELD)) {
                const now = svc.conflicts().find((x) => x.path === c.path);
                const taken = now && await resolveAsUser(this.env, svc, slot.index, now, "theirs");
                if (!taken || taken.resolved) continue;
                why = `--mine left it out (${left.reason}) and --theirs did not resolve it`;
              } else if (
                r && !r.resolved && !retried.has(c.path) &&
                /has an open conflict \(changed on the datastore meanwhile\): resolve it first/
                  .test(left?.reason ?? "")
              ) {
                waiting.add(c.path);
                continue;
              } else if (
                r && !r.resolved && left?.reason === UNCOMMITTED_HOLDS && !adopted.has(c.path)
              ) {
                adopted.add(c.path);
                await svc.pushChanged({ adoptUncommitted: [c.path] });
                tried.delete(c.path);
                continue;
              } else if (
                r && !r.resolved && r.resolution === "theirs" && !retried.has(c.path) &&
                r.pull?.uncommitted.includes(c.path)
              ) {
                // Theirs not taken while another writer's upload there waits
                // for its commit (or its withdrawal, by that clone's own
                // resolution): tried again once the rest were, as a user
                // does after the pull's note that it was skipped.
                waiting.add(c.path);
                continue;
              }
              // Held back under a directory that replaced a file this cache
              // synced (or records as synced: a damaged manifest line), which
              // the push did not delete: its name pushed, as the reason says,
              // then resolved again, once.
              const reshaped = r && !r.resolved && left
                ? reshapeToPush(left.reason, c.path)
                : undefined;
              if (reshaped !== undefined && !reshapePushed.has(c.path)) {
                reshapePushed.add(c.path);
                await pushOf(this.env, svc, { only: [reshaped] });
                tried.delete(c.path);
                continue;
              }
              const heldDir = r && !r.resolved && left
                ? markerHeldDir(left.reason, c.path)
                : undefined;
              if (heldDir !== undefined && !versionPushed.has(c.path)) {
                versionPushed.add(c.path);
                await this.pushHeldVersion(svc, heldDir);
                tried.delete(c.path);
                continue;
              }
              if (
                !last && r && !r.resolved && r.resolution === "theirs" &&
                r.pull?.uncommitted.includes(c.path)
              ) {
                // Still held by another clone's upload: its turn may withdraw it.
                continue;
              }
              if (r && !r.resolved && r.conflicts.length === 0) {
                why = left ? `its push left it out: ${left.reason}` : "it was not published";
              } else if (r && !r.resolved) {
                // A new conflict is another writer's doing: never this clone's own write.
                const held = await this.target.direct.head(c.path);
                const own = await readWriterId(svc.cache);
                if (own !== null && held?.metadata?.[WRITER_METADATA] === own) {
                  why =
                    `it met its own uncommitted write (version ${held.version}) as theirs, a new conflict it cannot get out of`;
                }
              }
            } catch (e) {
              why = `it failed: ${codeOf(e)}: ${e instanceof Error ? e.message : String(e)}`;
            }
            if (why) {
              this.truth.violate({
                invariant: "I13",
                message:
                  `c${slot.index} cannot resolve its conflict on ${c.path} (${c.reason}; theirs ${
                    c.theirs ? `version ${c.theirs.version}` : "deleted"
                  }) with --mine: ${why}`,
                afterOp: -1,
              });
            }
          }
        }),
      );
      await this.drain();
    }
  }

  /**
   * What a user does for a `latest` marker `resolve --mine` held back ahead
   * of the version directory `dir` it names: pushes that version, as the
   * reason says. Where that push leaves the version waiting on another
   * writer's uncommitted upload (`push_waiting_uncommitted`), and every such
   * upload there is of a writer gone for good (a cache its user replaced by
   * a copy, its run's commit cut off before: nothing will erase or commit
   * it), the warning's way out: `push --adopt-uncommitted` of the version,
   * once the youngest of those uploads is 15 minutes old by this clone's
   * clock (the adoption's own measure), the time let pass first. An upload
   * of any other writer is waited for as it is, and I13 says so.
   */
  protected async pushHeldVersion(svc: SyncService, dir: string): Promise<void> {
    const files = await svc.cache.listFiles(dir);
    if (files.length === 0) return;
    const pushed = await pushOf(this.env, svc, { only: files });
    if (!pushed.skipped.some((s) => s.reason.startsWith(VERSION_WAITS))) return;
    const own = await readWriterId(svc.cache);
    let youngest: number | undefined;
    for (const key of await this.target.inspect.keys()) {
      if (!key.startsWith(`${dir}/`)) continue;
      // A failed look adopts nothing.
      const head = await this.target.direct.head(key).catch(() => "unknown" as const);
      if (head === "unknown") return;
      const writer = head?.metadata?.[WRITER_METADATA];
      if (!head || writer === undefined || writer === own) continue;
      if (!this.abandonedWriters.has(writer)) return;
      youngest = Math.max(youngest ?? head.lastModified, head.lastModified);
    }
    if (youngest === undefined) return;
    const wait = ADOPT_VERSION_AFTER_MS - (svc.clock.now() - youngest);
    if (wait > 0) await svc.clock.sleep(wait);
    await pushOf(this.env, svc, { only: files, adoptUncommitted: files });
  }
}

/**
 * True for the reasons `marker-after-version` gives a marker no push will
 * publish: one naming a version that exists nowhere, or one still being
 * written here (no reader could follow either).
 */
function isMarkerUnlisted(reason: string, marker: string): boolean {
  const m = /: it names (\S+), /.exec(reason);
  return m !== null &&
    (reason === markerUnlistedReason(m[1]) || reason === markerUnfinishedReason(marker, m[1]));
}

/**
 * The version directory a `latest` marker was held back ahead of, its files
 * here not published (see `markerHeldReason`), when that is `reason`.
 */
function markerHeldDir(reason: string, marker: string): string | undefined {
  const m = /: it names (\S+), /.exec(reason);
  if (m === null || reason !== markerHeldReason(m[1])) return undefined;
  return m[1].startsWith(`${marker.slice(0, marker.lastIndexOf("/") + 1)}`) ? m[1] : undefined;
}

/**
 * The name a push held `path` back for (a file this cache synced that a
 * directory of its name replaced here, above `path`, or synced files under
 * `path`, replaced here by a file, that the push did not delete), when
 * `reason` is that hold's (`shape_holds.ts`) with no open conflict in the
 * way: its way on is a push of that name, by name.
 */
function reshapeToPush(reason: string, path: string): string | undefined {
  const m =
    /\. Push (\S+) by its name \(`sluice push \S+`\): that deletes the old shape there and publishes this one$/
      .exec(reason);
  if (m === null || !reason.startsWith("this cache last synced ")) return undefined;
  return m[1] === path || path.startsWith(`${m[1]}/`) ? m[1] : undefined;
}

/** Whether the `latest` marker in cache `cacheDir` names the version that file `path` is of. */
async function markerHereNames(cacheDir: string, path: string): Promise<boolean> {
  if (!path.startsWith("data/")) return false;
  const dir = path.slice(0, path.lastIndexOf("/"));
  const slash = dir.lastIndexOf("/");
  if (slash < 0) return false;
  const n = dir.slice(slash + 1);
  if (!/^[0-9]+$/.test(n)) return false;
  const named = await Deno.readTextFile(`${cacheDir}/${dir.slice(0, slash)}/latest`)
    .catch(() => null);
  return named !== null && named.trim() === n;
}
