/**
 * `sluice push`: marks the named paths (or the whole cache) dirty, pushes,
 * and says what was pushed and what was left behind.
 *
 * @module
 */
import { ADOPT_TOO_SOON } from "../middleware/version_adoption.ts";
import { UnsafePathError } from "../sync/errors.ts";
import { Command } from "commander";
import { leftBehindError } from "../sync/left_behind.ts";
import { pushUnderGlobalLock } from "../sync/service/global_lock_push.ts";
import { pushLeftBehind, type PushResult } from "../sync/service/push.ts";
import { headIndex } from "../sync/transfer/remote_index.ts";
import {
  action,
  refuseUnusedNamespace,
  type RunState,
  withCommonOptions,
  withSession,
} from "./command_kit.ts";
import { globalLockOf } from "./session.ts";
import { cachePaths, cacheRel, deletionLineOf, directoriesNow } from "./cache_paths.ts";
import { underMarkerNow } from "../sync/version_marker.ts";
import { capped, type CliIo, formatBytes, type Output, plural, UsageError } from "./output.ts";
import { withProgressBar } from "./progress.ts";
import { endpointFields } from "./store_url.ts";
import type { WarningEvent } from "../sync/events.ts";
import { outcomeOf, RESOLVE_HINT } from "./sync_outcome.ts";
import { ALREADY_THERE_REASON } from "../middleware/unsynced_walk_guard.ts";

/** True when a push uploaded, confirmed, deleted, skipped and left nothing (no conflict either). */
function pushedNothing(r: PushResult): boolean {
  return r.uploaded.length + r.identical.length + r.deleted.length + r.skipped.length +
      r.localDeletions.length + r.conflicts.length + r.localOnly.length === 0;
}

/**
 * `r` with every conflict still open in the push's scope (the whole cache,
 * or under the paths named) listed in `conflicts`, and those of them the
 * push did not meet (`unplanned`): a conflict whose path nothing marked (a
 * pull set this cache's copy aside and wrote theirs there) is not in the
 * push's plan, and a push must not exit 0 over it, as `status` and `pull`
 * do not.
 */
function withOpenConflicts(
  r: PushResult,
  open: readonly string[],
  named: readonly string[],
): { result: PushResult; unplanned: string[] } {
  const inScope = (p: string) =>
    !named.length || named.some((n) => p === n || p.startsWith(`${n}/`));
  const unplanned = open.filter((p) => inScope(p) && !r.conflicts.includes(p));
  return {
    result: unplanned.length ? { ...r, conflicts: [...r.conflicts, ...unplanned] } : r,
    unplanned,
  };
}

/** What the push's checks of writes an earlier push left uncommitted came to (see `PushResult.strandedChecks`). */
function describeStrandedChecks(r: PushResult): string[] {
  const of = (o: string) => r.strandedChecks.filter((c) => c.outcome === o).map((c) => c.path);
  const withdrawn = of("withdrawn");
  const published = of("published");
  const none = of("none");
  const list = (paths: string[]) =>
    capped(paths.map((p) => `  ${p}`), (n) => `  … and ${n} more (\`--json\` lists each)`);
  return [
    ...(withdrawn.length
      ? [
        `Withdrew ${
          plural(withdrawn.length, "upload")
        } of this cache's that an earlier push made and never committed, at paths with nothing here now (deleted from the datastore, so that no reader takes them for a change):`,
        ...list(withdrawn),
      ]
      : []),
    ...(published.length
      ? [
        `Named in the index ${
          plural(published.length, "upload")
        } of this cache's that an earlier push made and never committed:`,
        ...list(published),
      ]
      : []),
    ...(none.length
      ? [
        `Checked ${
          plural(none.length, "path")
        } an earlier push was about to write: the datastore holds nothing of this cache's there, so nothing was left behind:`,
        ...list(none),
      ]
      : []),
  ];
}

function describePush(
  r: PushResult,
  unplanned: readonly string[],
  endpoint: string,
  everSynced: boolean,
  walked: boolean,
  deletionLine: (path: string) => string = (p) => `  ${p}`,
  underMarker: ReadonlySet<string> = new Set(),
): string[] {
  const lines: string[] = [];
  // Conflicts open beside the push (on none of its paths), told after what it did.
  const open = unplanned.length
    ? [
      `Open conflicts, left untouched (${unplanned.length}):`,
      ...capped(
        unplanned.map((p) => `  ${p}`),
        (n) => `  … and ${n} more (\`sluice status\` lists each)`,
      ),
      RESOLVE_HINT,
    ]
    : [];
  if (pushedNothing(r)) {
    return [
      !walked
        ? `Nothing to push: no path was marked dirty (--no-walk skips the walk of the cache, so files changed by hand are not seen; \`sluice status\` lists them, \`sluice push\` pushes them).`
        : everSynced
        ? `Nothing to push: no file changed since the last sync with ${endpoint}.`
        : `Nothing to push: the cache holds no file to publish yet (${endpoint} answered).`,
      ...describeStrandedChecks(r),
      ...open,
    ];
  }
  const extra = [
    ...(r.identical.length
      ? [
        `${r.identical.length} already on the datastore with the same bytes (an upload of an earlier push cut off, a peer's, or this cache's own copy), named in its index`,
      ]
      : []),
    ...(r.deleted.length ? [`${plural(r.deleted.length, "file")} deleted remotely`] : []),
  ];
  lines.push(
    `Pushed ${plural(r.uploaded.length, "file")} (${formatBytes(r.bytes)}) to ${endpoint}${
      extra.length ? `; ${extra.join(", ")}` : ""
    }.`,
  );
  lines.push(...describeStrandedChecks(r));
  const kept = r.skipped.filter((s) => s.keepDirty);
  // Found on the datastore with the same bytes (a cache whose state was
  // lost): in sync, recorded as synced, nothing left out.
  const there = r.skipped.filter((s) => !s.keepDirty && s.reason === ALREADY_THERE_REASON);
  const dropped = r.skipped.filter((s) => !s.keepDirty && s.reason !== ALREADY_THERE_REASON);
  if (there.length) {
    lines.push(
      `Already on the datastore with the same bytes, now recorded as synced here: ${
        plural(there.length, "file")
      }${there.length <= 3 ? ` (${there.map((s) => s.path).join(", ")})` : ""}.`,
    );
  }
  if (dropped.length) {
    lines.push(`Left out ${plural(dropped.length, "file")} (not synced by a push):`);
    lines.push(...capped(
      dropped.map((s) => `  ${s.path}: ${s.reason}`),
      (n) => `  … and ${n} more (\`--json\` lists each, with its reason)`,
    ));
  }
  const keptPaths = new Set(kept.map((s) => s.path));
  const standing = [...r.conflicts.filter((p) => !keptPaths.has(p)), ...unplanned];
  if (kept.length) {
    lines.push(
      `Kept ${
        plural(kept.length, "file")
      } dirty, not pushed (the reason beside each says what holds it back):`,
    );
    lines.push(...capped(
      kept.map((s) => `  ${s.path}: ${s.reason}`),
      (n) => `  … and ${n} more (\`sluice status\` lists each)`,
    ));
    const conflicts = new Set(r.conflicts);
    const others = kept.filter((s) => !conflicts.has(s.path)).length;
    if (others > 0) {
      lines.push(
        "Do what the reason beside each says (`sluice status` shows how each is handled); a file held only until another writer's push lands goes with the next `sluice push`.",
      );
    }
    if (conflicts.size > 0 && standing.length === 0) lines.push(RESOLVE_HINT); // else said below
  }
  if (standing.length) {
    lines.push(`Open conflicts, left untouched (${standing.length}):`);
    lines.push(...capped(
      standing.map((p) => `  ${p}`),
      (n) => `  … and ${n} more (\`sluice status\` lists each)`,
    ));
    lines.push(RESOLVE_HINT);
  }
  if (r.localDeletions.length) {
    lines.push(
      `Not deleted on the datastore: ${
        plural(r.localDeletions.length, "file")
      } deleted here (a push of the whole cache never deletes):`,
    );
    const listed = r.localDeletions.map(deletionLine);
    lines.push(...capped(
      listed,
      (n) => `  … and ${n} more (\`--json\` lists each, as \`localDeletions\`)`,
    ));
    // A version its marker here names: a push naming it alone keeps it
    // there, so the line beside it gives the way on instead.
    const held = r.localDeletions.filter((p) => underMarker.has(p)).length;
    lines.push(
      held === r.localDeletions.length
        ? "Do what the line beside each says: a push naming them alone keeps them on the datastore while their latest marker here names their version."
        : `Run \`sluice push <path>…\` naming ${
          held ? "the others" : "them"
        } to delete them there too, or \`sluice pull --restore-deleted\` to take the datastore's copies back${
          listed.some((l, i) =>
              !underMarker.has(r.localDeletions[i]) && l !== `  ${r.localDeletions[i]}`
            )
            ? " (once the directory a line beside a path names is moved away)"
            : ""
        }${
          held
            ? "; for one whose latest marker here names its version, do what the line beside it says"
            : ""
        }.`,
    );
  }
  if (r.localOnly.length) {
    lines.push(
      `Not pushed, left as they are here and on the datastore: ${
        plural(r.localOnly.length, "file")
      }:`,
    );
    lines.push(...capped(
      r.localOnly.map((s) => `  ${s.path}: ${s.reason}`),
      (n) => `  … and ${n} more (\`--json\` lists each, as \`localOnly\`)`,
    ));
    lines.push(
      "Do what the reason beside each says (replace a link with a real file, rename the file, or make it readable), then run `sluice push` again.",
    );
  }
  return lines;
}

/**
 * A `nothing_to_adopt` warning for each path named to `--adopt-uncommitted`
 * under which the push adopted nothing (no `adopted_uncommitted` warning
 * names it or a file under it): the datastore held no other writer's
 * uncommitted object there.
 */
export function nothingAdopted(
  adopt: readonly string[],
  warnings: readonly WarningEvent[],
): WarningEvent[] {
  // A path whose adoption was refused as too soon was told of already.
  const adopted = warnings.filter((w) =>
    (w.code === "adopted_uncommitted" || w.code === ADOPT_TOO_SOON) && w.path
  );
  return adopt
    .filter((p) => !adopted.some((w) => w.path === p || w.path!.startsWith(`${p}/`)))
    .map((p) => ({
      code: "nothing_to_adopt",
      message:
        `--adopt-uncommitted ${p}: nothing was adopted, as the datastore holds no other writer's uncommitted object there (it holds what this cache last synced, or nothing); no other writer's change was published for it, and this push treated the path as any other it pushes.`,
      path: p,
    }));
}

/**
 * A push asked to adopt a path that adopted nothing did not do what it was
 * asked: where it left nothing else behind, it exits 2 (`nothing_to_adopt`)
 * rather than 0, so that a script never reads the adoption as done.
 */
export function adoptionOutcome(
  done: ReturnType<typeof outcomeOf>,
  notAdopted: readonly WarningEvent[],
): ReturnType<typeof outcomeOf> {
  if (done.exitCode !== 0 || !notAdopted.length) return done;
  const message = `nothing was adopted at ${
    notAdopted.map((w) => w.path).join(", ")
  }: the datastore holds no other writer's uncommitted object there; check the path (a push names each one it waits on with \`push_waiting_uncommitted\`); whatever else this push had to publish was pushed as usual.`;
  return { outcome: { code: "nothing_to_adopt", exitCode: 2, message }, exitCode: 2 };
}

/** Registers `push`. */
export function pushCommand(io: CliIo, state: RunState): Command {
  return withCommonOptions(
    new Command("push")
      .description("push the cache's changes to the store through the gate pipeline")
      .argument(
        "[paths...]",
        "only these cache paths (files or directories: a directory stands for everything under it, so a synced file deleted under it, or replaced by a directory of its name, is deleted on the datastore too); other changed files, and a walk still pending from an earlier push, wait for a push of the whole cache; default: every changed file, and never a deletion",
      )
      .option(
        "--no-walk",
        "push only paths already marked dirty (skip the walk of the cache; a walk still pending from an earlier push, one that held a file back or stopped, runs all the same)",
      )
      .option(
        "--adopt-uncommitted <path>",
        "for a writer gone for good: publish its uncommitted object at this file path as its change instead of waiting for it (nothing is overwritten; this cache's copy becomes a conflict to resolve); for a data version (a file or its version directory), replace that writer's upload, 15 minutes old or more, with this cache's copy instead (a data version is never published from a run that did not finish publishing it); repeat the option for several paths",
        (path: string, earlier?: string[]) => [...earlier ?? [], path],
      )
      .option(
        "--global-lock",
        "commit under the datastore's global lock, as old swamp clients push: use it while old clients push to the same bucket (the files are written first, outside the lock)",
      )
      .addHelpText(
        "after",
        "\nExamples:\n  sluice push --store file:///srv/datastore\n  sluice push data/aws/ec2/web-1 --json\n  sluice push --adopt-uncommitted config/app.yaml\n  sluice push --global-lock",
      ),
    { init: true },
  ).action(action(io, state, "push", async (out: Output, cmd, paths: string[] = []) => {
    const { walk, adoptUncommitted: named = [], globalLock, namespace } = cmd.opts<
      { walk: boolean; adoptUncommitted?: string[]; globalLock?: boolean; namespace?: string }
    >();
    if (!globalLock) refuseUnusedNamespace(namespace, "push");
    // `--adopt-uncommitted --cache a` takes `--cache` for the path: an option, never a path.
    const option = named.find((p) => p.startsWith("-"));
    if (option !== undefined) {
      throw new UsageError(
        `--adopt-uncommitted takes the path of a file, got the option ${option}: give the path right after it (\`sluice push --adopt-uncommitted <path> ${option} …\`). Nothing was pushed.`,
      );
    }
    // `sluice push .` means the whole cache: a path is never `.`, so say what does that.
    const dot = paths.find((p) => p === "." || p === "./");
    if (dot !== undefined) {
      throw new UnsafePathError(
        dot,
        "it has a '.' or '..' segment (a plain `sluice push`, with no path, pushes the whole cache)",
      );
    }
    return await withSession(cmd, io, out, async (s) => {
      const adopt = await cachePaths(s.service, named, true);
      const given = await cachePaths(s.service, paths, true, true);
      // Named paths go alone (`only`, which marks them first; a walk still
      // pending waits for a push of the whole cache). A path to adopt is
      // pushed like a named one: without named paths, it is marked here.
      const only = [...given, ...adopt];
      if (!paths.length && adopt.length) await s.service.markDirty({ relPaths: adopt });
      if (!paths.length && walk) await s.service.markDirty();
      // Whether anything was marked for this push: "nothing marked" is said only when nothing was.
      const marked = s.service.state.dirtyPaths().length > 0;
      const pushed: PushResult = await withProgressBar(
        io,
        out,
        s.events,
        () => {
          const options = {
            signal: io.signal,
            ...(adopt.length ? { adoptUncommitted: adopt } : {}),
            ...(paths.length ? { only } : {}),
          };
          return globalLock
            ? pushUnderGlobalLock(s.service, globalLockOf(s), options)
            : s.service.pushChanged(options);
        },
      );
      // A push with nothing to do may send no request; before saying so, one
      // small read confirms the store answers, so that a mistyped bucket,
      // refused credentials or an unreachable endpoint fail here (their own
      // codes) instead of passing as "Nothing to push".
      // So too when it only left files behind (local deletions, skipped
      // files): its report names the store, which must have answered.
      if (!s.reached) await headIndex(s.store, s.service.config.retry, io.signal);
      const { result, unplanned } = withOpenConflicts(
        pushed,
        s.service.conflicts().map((c) => c.path),
        paths.length ? only : [],
      );
      // An adoption that found nothing stranded writes nothing and says nothing
      // itself: say so, rather than let the push read as having adopted it.
      // One per path as named (a directory's files are not each told of).
      const notAdopted = nothingAdopted(
        [...new Set(named.map((p) => cacheRel(s.service, p)))],
        out.warnings,
      );
      for (const w of notAdopted) out.warn(w);
      const underMarker = await underMarkerNow(s.service, result.localDeletions);
      const { outcome, exitCode } = adoptionOutcome(
        outcomeOf(
          out,
          leftBehindError("push", {
            ...pushLeftBehind(result),
            directoriesNow: directoriesNow(s.service, result.localDeletions),
            underMarker,
          }),
        ),
        notAdopted,
      );
      out.result("push", {
        ...endpointFields(s.spec, s.store),
        cacheDir: s.cacheDir,
        ...result,
        outcome,
      });
      for (
        const line of describePush(
          pushed,
          unplanned,
          s.store.endpoint,
          s.service.state.syncedCount > 0,
          walk || paths.length > 0 || marked,
          deletionLineOf(s.service, underMarker),
          new Set(underMarker.map((u) => u.path)),
        )
      ) {
        out.say(line);
      }
      return exitCode;
    });
  }));
}
