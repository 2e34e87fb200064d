/**
 * The commands a clone runs in a chaos history, one after another (as one
 * user at one terminal): model runs, lockfile transactions, syncs, bulk
 * pushes, and the edits, deletions, marker writes and conflict resolutions
 * whose local changes I6 follows (`local_changes.ts`).
 *
 * This file holds what they share: a push and a resolution as the commands
 * run them, checked as each ends (I20, I32, I22), and a user's writes by
 * hand in a cache. What a command is lives in `commands_env.ts`, the runs
 * and lockfile transactions in `commands_runs.ts`, old clients' pushes and
 * pulls and the move to v2 in `commands_fleet.ts` (all re-exported here),
 * and a user's commands in `commands_user.ts`, which builds on this file.
 *
 * @module
 */
import { ResolveRefusedError } from "../../sync/service/resolve.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { setAsideSource } from "../../sync/transfer/cache_state.ts";
import { pushUnderGlobalLock } from "../../sync/service/global_lock_push.ts";
import type { PushOptions } from "../../sync/service/push_options.ts";
import type { PushResult } from "../../sync/service/push_result.ts";
import type { SyncService } from "../../sync/service/service.ts";
import type { ConflictRecord, Resolution } from "../../sync/service/conflicts.ts";
import type { ResolveResult } from "../../sync/service/resolve.ts";
import { pendingChanges, unaccounted } from "./accounted.ts";
import { codeOf, type CommandEnv, globalLockOf } from "./commands_env.ts";

export {
  CHAOS_LOCK,
  codeOf,
  type Command,
  type CommandEnv,
  FOREIGN_WRITER,
  GLOBAL_LOCK_COMMITS,
  highestVersion,
  isMoveCommand,
  isOldClientCommand,
  isOldPullCommand,
  NOTHING_TAKEN_IN,
  OLD_CLIENT_LABEL,
  OLD_PULL_LABEL,
  OLD_WINDOW_MS,
  oldClientOf,
  plainCommand,
} from "./commands_env.ts";
export {
  freezeRun,
  lockfileCommand,
  runCommand,
  runFiles,
  runStarted,
  siblingCommand,
  siblingDies,
  siblingRun,
} from "./commands_runs.ts";
export { migrateCommand, oldPullCommand, oldPushCommand } from "./commands_fleet.ts";

const enc = new TextEncoder();

/**
 * A Sluice API push: under the global lock when old clients push too (see
 * {@link CommandEnv}). One that succeeds must account for every local
 * change it was asked to publish, and so must one that fails as unreachable
 * (I20, `accounted.ts`).
 */
export async function pushOf(
  env: CommandEnv,
  svc: SyncService,
  options: PushOptions = {},
): Promise<PushResult> {
  const before = options.dryRun ? new Map() : await pendingChanges(svc);
  // I15 as the push ends (`shapes.ts`): the clone's own puts, told by its name.
  const clone = /^c(\d+)@/.exec(svc.identity.holder)?.[1];
  const from = env.shapes.puts;
  const shapes = async () => {
    if (clone === undefined || options.dryRun) return;
    for (const v of await env.shapes.checkPush(Number(clone), from, env.opId())) {
      env.truth.violate(v);
    }
  };
  let r: PushResult;
  try {
    r = env.globalLockCommits
      ? await pushUnderGlobalLock(svc, globalLockOf(svc), options)
      : await svc.pushChanged(options);
  } catch (e) {
    if (codeOf(e) !== "unreachable") throw e;
    await shapes();
    for (const path of await unaccounted(svc, before)) {
      env.truth.violate({
        invariant: "I20",
        message:
          `a push of ${svc.identity.holder} failed as unreachable, and dropped its local change of ${path}: not published, not kept dirty, no conflict; no later push takes it`,
        afterOp: env.opId(),
      });
    }
    throw e;
  }
  await shapes();
  if (env.globalLockCommits && !options.dryRun) env.pushedUnderGlobalLock?.(svc, r);
  await withdrawnNamed(env, svc, r);
  for (const path of await unaccounted(svc, before, r)) {
    env.truth.violate({
      invariant: "I20",
      message:
        `a push of ${svc.identity.holder} succeeded, but dropped its local change of ${path}: not published, not kept dirty, not a conflict, not said to be unpublished; no later push takes it`,
      afterOp: env.opId(),
    });
  }
  return r;
}

/**
 * I32: a push that reports an upload of its cache taken back as a deleted
 * file's (`withdrawn`), with no conflict at that path, leaves no index entry
 * naming the path as it ends: one a peer committed while the withdrawal was
 * under way (naming the path again between the entry's removal and the
 * object's deletion) would bring the deleted file back at the next pull
 * with no conflict ever shown. Spared (`withdrawals.ts`): an entry committed
 * after the push's last read of the index (a later change, shown by the
 * next pull as any is), and any entry beside an upload the index never named
 * (a peer's file of its own, no entry of this cache's named again). An
 * entry naming the withdrawn upload itself, gone from the store, is never
 * spared: an index write from a read made before the withdrawal (an old
 * client's read-modify-write) put it back, naming nothing.
 */
async function withdrawnNamed(env: CommandEnv, svc: SyncService, r: PushResult): Promise<void> {
  if (!env.withdrawnNamed) return;
  for (const s of r.strandedChecks) {
    if (s.outcome !== "withdrawn" || r.conflicts.includes(s.path)) continue;
    if (!(await env.withdrawnNamed(s.path, svc.identity.holder))) continue;
    env.truth.violate({
      invariant: "I32",
      message:
        `a push of ${svc.identity.holder} reported its upload of ${s.path} withdrawn (a deleted file's) with no conflict, while the index names ${s.path}: its next pull brings the deleted file back`,
      afterOp: env.opId(),
    });
  }
}

/**
 * Writes `bytes` to a cache file as a user does, in place. Its mtime is set
 * explicitly (so outcomes never hang on the filesystem's timestamp tick):
 * with `sameTick`, to the one the file had (an edit within the tick of the
 * last write), else past it.
 */
export async function handWrite(file: string, bytes: Uint8Array, sameTick: boolean): Promise<void> {
  const before = await Deno.stat(file).catch(() => null);
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeFile(file, bytes);
  const old = before?.mtime?.getTime();
  if (old === undefined) return;
  const mtime = sameTick ? old : Math.max(old + 1_000, Date.now());
  await Deno.utime(file, new Date(mtime), new Date(mtime));
}

/** The bytes of a latest marker (a number up to `max`, as written) whose SHA-256 is `hash`. */
export async function markerBytes(hash: string, max: number): Promise<Uint8Array | undefined> {
  for (let k = 1; k <= max; k++) {
    for (const text of [`${k}`, `${k}\n`]) {
      const bytes = enc.encode(text);
      if (await sha256Hex(bytes) === hash) return bytes;
    }
  }
  return undefined;
}

/** True when a directory is at `path` in the cache (a file replaced by a directory of its name). */
export async function directoryAt(svc: SyncService, path: string): Promise<boolean> {
  return (await Deno.lstat(`${svc.cacheDir}/${path}`).catch(() => null))?.isDirectory === true;
}

/** True when a file (or anything but a directory) is where a directory above `path` must be. */
export async function fileAbove(svc: SyncService, path: string): Promise<boolean> {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const st = await Deno.lstat(`${svc.cacheDir}/${parts.slice(0, i).join("/")}`).catch(() => null);
    if (st === null) return false;
    if (!st.isDirectory) return true;
  }
  return false;
}

/** The files under directory `rel` of the cache at `cacheDir`, at any depth (cache-relative). */
export async function filesIn(cacheDir: string, rel: string): Promise<string[]> {
  const out: string[] = [];
  let list: Deno.DirEntry[];
  try {
    list = [...Deno.readDirSync(`${cacheDir}/${rel}`)];
  } catch {
    return out;
  }
  for (const e of list) {
    if (e.isDirectory) out.push(...await filesIn(cacheDir, `${rel}/${e.name}`));
    else if (e.isFile) out.push(`${rel}/${e.name}`);
  }
  return out;
}

/** Bytes of an edit: unique (they name the op), of the old size when asked and possible. */
export function editBytes(head: string, size?: number): Uint8Array {
  const text = `${head}; some settings\n`;
  if (size === undefined || size < head.length + 1) return enc.encode(text);
  return enc.encode(`${head}${".".repeat(size)}`.slice(0, size - 1) + "\n");
}

/**
 * Records an edit of `path` in clone `c`'s cache for I6, unless its bytes
 * are what the cache last synced (then it is no local change: the edit only
 * replaces any earlier one of the clone).
 */
export async function recordEdit(
  env: CommandEnv,
  svc: SyncService,
  e: { op: number; clone: number; path: string; how: string },
  bytes: Uint8Array,
): Promise<void> {
  if (e.path.endsWith("/latest")) env.truth.userMarkers.add(`${e.path}\0${await sha256Hex(bytes)}`);
  if (svc.state.synced(e.path)?.hash === await sha256Hex(bytes)) {
    env.changes.replaced(e.clone, e.path);
  } else await env.changes.record(e, bytes);
}

/**
 * Resolves clone `c`'s conflict `picked` with `how` as a user does (under
 * the global lock where Sluice commits under it), keeping I6's record of
 * the choice: taking theirs, or publishing a copy a pull set aside, undoes
 * a later local change by choice.
 */
export async function resolveAsUser(
  env: CommandEnv,
  svc: SyncService,
  c: number,
  picked: ConflictRecord,
  how: Resolution,
): Promise<ResolveResult> {
  const path = picked.path;
  // Taking theirs undoes a local deletion by choice, whether or not its pull succeeds.
  if (how === "theirs") {
    env.changes.tookTheirs(c, path);
    env.truth.letGo(path); // a deletion of theirs stands there by choice (I19)
  }
  // So does publishing a copy a pull set aside (the working copy is neither side).
  if (how === "mine" && picked.mine && picked.mine.location !== path) {
    env.changes.choseSetAside(c, path);
  }
  await env.changes.asides.resolving(c, svc.cacheDir, path);
  const resolve = () => svc.resolveConflict(path, how);
  // I22: a resolution that failed part way (the datastore unreachable, say)
  // or did not take its side resolved nothing: its conflict stays open, for
  // the user to see and to resolve again, naming this cache's copy where it
  // is. A data version lost whole to another writer (`version_exists`) is
  // settled: theirs stands.
  // The copy this cache had before the resolution (none: deleted by hand since).
  const had = !!picked.mine &&
    (await svc.cache.hashFile(picked.mine.location).catch(() => null)) !== null;
  // Nor is a copy the user removed by hand while the resolution ran (a
  // deletion aimed at the look of the path, the merge's upload landed) the
  // library's to keep: the conflict rightly names it at its path, where a
  // later --mine is refused (not_found, naming this cache's own upload when
  // it holds theirs' place) and --theirs takes that upload (seed 177300182).
  const touchedBefore = env.changes.touchedIn.length;
  const removedHere = (location: string) =>
    env.changes.touchedIn.slice(touchedBefore).some((t) => t.clone === c && t.path === location);
  const stillOpen = async (what: string) => {
    const open = svc.conflicts().find((x) => x.path === path);
    const mineGone = had && open?.mine && !removedHere(open.mine.location) &&
      !(await svc.cache.hashFile(open.mine.location).catch(() => null));
    if (open && !mineGone) return;
    env.truth.violate({
      invariant: "I22",
      message: open
        ? `c${c}'s resolve --${how} of ${path} ${what}, and its conflict names this cache's copy at ${
          open.mine!.location
        }, where there is none: a later --mine would publish something else`
        : `c${c}'s resolve --${how} of ${path} ${what}, and its conflict is gone: nothing says the path is still in conflict, and the same resolution, run again, is refused`,
      afterOp: env.opId(),
    });
  };
  const r = await (env.globalLockCommits ? globalLockOf(svc).withLock(resolve) : resolve()).catch(
    async (e) => {
      if (codeOf(e) !== "version_exists" && !(e instanceof ResolveRefusedError)) {
        await stillOpen(`failed (${codeOf(e)})`);
      }
      throw e;
    },
  );
  // A --mine or --merged held back (another writer's upload in flight
  // there) keeps its choice as a change to push: the next push completes it.
  const pending = how !== "theirs" && svc.state.dirtyPaths().includes(path);
  if (!r.resolved && !pending) await stillOpen("was not resolved");
  // I39: a --mine of a deletion here whose conflict went is published by
  // the final sync, or met again as a conflict (`mine_deletions.ts`).
  if (how === "mine" && picked.mine === null && !svc.conflicts().some((x) => x.path === path)) {
    const touched = env.changes.touchedIn.length;
    env.truth.mineDeletions.push({ clone: c, path, op: env.opId(), touched });
  }
  // What was at the path set aside for theirs (a directory, whole), theirs
  // no directory (none is there after: a directory that is theirs stays or
  // comes back with its pull): a file its user wrote under it goes aside
  // with it by this choice (I33).
  if (
    r.resolved && how === "theirs" && r.setAside.some((l) => setAsideSource(l) === path) &&
    !(await directoryAt(svc, path))
  ) env.changes.tookTheirsAside(c, path);
  // I22: a resolution reported resolved took its side: a --theirs whose pull
  // left the path out (something here in the way) took nothing.
  if (r.resolved && how === "theirs" && (r.pull?.blocked ?? []).includes(path)) {
    env.truth.violate({
      invariant: "I22",
      message:
        `c${c}'s resolve --theirs of ${path} was reported resolved, but its pull left the path out (blocked by something here): theirs was not taken, and the path is neither synced nor in conflict`,
      afterOp: env.opId(),
    });
  }
  return r;
}
