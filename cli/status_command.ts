/**
 * `sluice status`: what a push would do, open conflicts, set-aside copies
 * and pending lockfile changes; exits 3 while a conflict is open, else 2
 * while a push would leave a file out (as the push itself would).
 *
 * @module
 */
import { Command } from "commander";
import { EXIT_CODES, UnreachableError } from "../sync/errors.ts";
import { SyncIncompleteError } from "../sync/left_behind.ts";
import {
  action,
  refuseUnusedNamespace,
  type RunState,
  withCommonOptions,
  withSession,
} from "./command_kit.ts";
import type { CliIo, Output } from "./output.ts";
import { existsSync } from "node:fs";
import { statePath } from "../sync/transfer/cache_paths.ts";
import { isManagedLockfilePath } from "../sync/locks/lockfile_change.ts";
import {
  describeConflicts,
  describeResolvedCopy,
  listPendingLockfile,
  listSetAside,
  markerNumbers,
  remoteState,
  shownLocation,
  shownRecord,
} from "./status.ts";
import { endpointFields, storeUrl } from "./store_url.ts";
import { STATE_DIR } from "../sync/transfer/cache.ts";
import { shellWord } from "./output.ts";
import { outcomeOf } from "./sync_outcome.ts";
import { LOST_STATE_WAY } from "./session_checks.ts";
import { setAsideCopies } from "../sync/service/conflicts.ts";
import { WAITED_HERE } from "../sync/service/waiting_record.ts";
import { MARKER_AHEAD, MARKER_WAITS, VERSION_WAITS } from "../sync/service/push_result.ts";
import { withPathClasses } from "../sync/service/status.ts";
import { classifyPath, PATH_CLASSIFIER } from "../middleware/path_classifier.ts";
import { directoriesNow } from "./cache_paths.ts";
import { underMarkerNow } from "../sync/version_marker.ts";

/** The entries the last push left waiting on another writer's upload (not a marker held ahead). */
function waitedOn<E extends { path: string; reason?: string }>(entries: readonly E[]): E[] {
  return entries.filter((e) =>
    e.reason?.startsWith(WAITED_HERE) && !e.reason.startsWith(`${WAITED_HERE}: ${MARKER_AHEAD}`)
  );
}

/**
 * What to give `--adopt-uncommitted` (once per path: the option takes one)
 * to end the waits `status` lists: a data version's files by their version
 * directory (its `latest` marker waits with it, and needs none).
 */
export function adoptPaths(waited: readonly { path: string; reason?: string }[]): string[] {
  const named = new Set<string>();
  for (const e of waited) {
    const version = e.reason?.startsWith(`${WAITED_HERE}: ${VERSION_WAITS}`);
    if (!version) named.add(e.path);
    else if (!e.reason!.includes(MARKER_WAITS)) named.add(e.path.slice(0, e.path.lastIndexOf("/")));
  }
  return [...named];
}
/** Registers `status`. */
export function statusCommand(io: CliIo, state: RunState): Command {
  return withCommonOptions(
    new Command("status")
      .description(
        "show dirty paths with their class and the gates that will handle each, set-aside version conflicts, and pending lockfile changes",
      )
      .option("--no-walk", "show only paths already marked dirty (skip the walk of the cache)")
      .addHelpText(
        "after",
        "\nThe preview of a push (there is no push --dry-run): nothing is pushed or pulled. It asks the datastore only about its index, so a peer's change since the last pull shows at the push (a conflict) or the pull.\n\nExit status: 0 nothing left out (a push now takes everything listed), 2 a push would leave a file out (sync_incomplete: the reason beside it says what to run), 3 a conflict is open (conflicts_left), 69 the datastore is unreachable (unreachable: this cache's side is shown).\n\nExamples:\n  sluice status\n  sluice status --no-walk\n  sluice status --json",
      ),
  ).action(action(io, state, "status", async (out: Output, cmd) => {
    const { walk, namespace } = cmd.opts<{ walk: boolean; namespace?: string }>();
    refuseUnusedNamespace(namespace, "status");
    return await withSession(cmd, io, out, async (s) => {
      // A missing bucket, missing credentials or a refused prefix fail the status here.
      const remote = await remoteState(s.store, s.service.config.retry, io.signal);
      // With the walk, changed files not yet marked dirty are listed too;
      // nothing is recorded. Unreachable, its reads fail at once: the
      // status waits out the time to fail once, not once more.
      const report = await s.service.statusReport({
        walk,
        ...(remote.reachable ? {} : { offline: new UnreachableError(remote.error ?? "") }),
      });
      const { leftBehind } = report;
      // What the push leaves out before its gates (a deletion here, a link)
      // still has the class the push's classifier gives its path.
      const rules = s.service.config.classifierRules;
      const dirty = s.service.pushPipeline.has(PATH_CLASSIFIER)
        ? withPathClasses(report.entries, (p) => classifyPath(p, rules))
        : report.entries;
      const conflicts = s.service.conflicts();
      // A copy kept from a conflict resolved since is compared with what is at its path now.
      const setAside = await listSetAside(s.cacheDir, s.service.cache.stateDir, {
        named: new Set(conflicts.flatMap(setAsideCopies).map((c) => c.location)),
        hashFile: (p) => s.service.cache.hashFile(p),
      });
      const pendingLockfile = await listPendingLockfile(s.service.cache);
      // An open conflict is work left behind: the status exits 3 until it is
      // resolved; so is what a push now would leave out (exit 2).
      const behind = {
        ...leftBehind,
        conflicts: conflicts.map((c) => c.path),
        directoriesNow: directoriesNow(s.service, leftBehind.localDeletions ?? []),
        underMarker: await underMarkerNow(s.service, leftBehind.localDeletions ?? []),
      };
      const open = behind.conflicts.length || behind.left.length ||
          behind.localDeletions?.length || behind.localOnly?.length
        ? new SyncIncompleteError("status", behind)
        : null;
      // Unreachable: only this cache's side is known, so the answer is not "all is well".
      const { outcome, exitCode } = remote.reachable ? outcomeOf(out, open) : unreachable(out, s);
      // The paths the last push left waiting on another writer's upload, and
      // what to adopt to end those waits once that writer is gone for good.
      const waited = waitedOn(dirty);
      out.result("status", {
        ...endpointFields(s.spec, s.store),
        cacheDir: s.cacheDir,
        remote,
        dirty,
        // Set-aside copies where they are on disk (a datastore's cache keeps them under `_control/`).
        conflicts: conflicts.map((c) => shownRecord(c, (l) => shownLocation(s.service.cache, l))),
        setAside,
        pendingLockfile,
        ...(waited.length
          ? { waiting: waited.map((e) => e.path), adoptUncommitted: adoptPaths(waited) }
          : {}),
        outcome,
      });
      out.say(`Cache ${s.cacheDir} mirrors ${s.store.endpoint}.`);
      // A directory that is no cache yet (no sync state, no store recorded):
      // what follows is what a first push would do, which needs --init.
      const fresh = !s.storeKept;
      if (fresh) {
        out.say(
          `${s.cacheDir} is no cache yet (it has no ${STATE_DIR}/ of Sluice's): this is what a first push would do; \`sluice push --init --store ${
            shellWord(storeUrl(s.spec))
          }\` makes it a cache and publishes what it lists. ${LOST_STATE_WAY}`,
        );
      }
      if (!remote.reachable) {
        out.say(`The datastore could not be reached; what follows is this cache's side only.`);
      }
      // A path with nothing here to push where an earlier push was about to
      // write is only checked by the next push: listed apart, not as one to push.
      const checks = dirty.filter((e) => e.check);
      const toPush = dirty.filter((e) => !e.check);
      if (toPush.length === 0) {
        out.say(
          walk
            ? "Nothing to push."
            : "Nothing marked to push (--no-walk skips the walk of the cache, so files changed or deleted by hand are not seen; `sluice status` without --no-walk lists them).",
        );
      } else {
        const dirty = toPush;
        out.say(`To push (${dirty.length}):`);
        const w = Math.max(...dirty.map((e) => e.path.length));
        for (const e of dirty) {
          const gates = e.handledBy.length ? e.handledBy.join(", ") : "-";
          out.say(
            `  ${e.action.padEnd(6)} ${e.path.padEnd(w)}  ${(e.class ?? "?").padEnd(16)} ${gates}${
              e.reason ? `  (${e.reason})` : ""
            }`,
          );
        }
        if (dirty.some((e) => e.handledBy.length === 0)) {
          out.say(
            "(A `-` for gates: no gate handles the path, as the push leaves it out before its gates run, for the reason beside it.)",
          );
        }
        const held = dirty.filter((e) => e.action === "skip").length;
        // How the last push ran (e.g. under the global lock, which it may have
        // timed out waiting for) is not recorded: the hint names no options
        // of its own, and says to keep the usual ones.
        const push = fresh
          ? `Run \`sluice push --init --store ${
            shellWord(storeUrl(s.spec))
          }\` to make this directory a cache and publish them`
          : "Run `sluice push` to publish them, with the options you push this cache with (`sluice push --global-lock` while old swamp clients push to this bucket)";
        out.say(
          held === dirty.length
            ? "None of them will be pushed as they are: the reason beside each says what holds it back and what to run."
            : held > 0
            ? `${push}; ${held} will stay back (the reason beside each says why).`
            : `${push}.`,
        );
        // Where the last push waited on another writer's upload, a push now
        // most likely waits again: say the way out the push named.
        if (waited.length) {
          const adopt = adoptPaths(waited);
          // Only `latest` markers left waiting: the files of their versions
          // no longer wait (published, or in a conflict listed here), so
          // there is nothing of another writer's to adopt.
          const wayOut = adopt.length
            ? `if its writer is gone for good, \`sluice push ${
              adopt.map((p) => `--adopt-uncommitted ${shellWord(p)}`).join(" ")
            }\` ends the wait (see "Conflicts" in the README).`
            : "only `latest` markers wait, each with its data version, whose files no longer wait: nothing is left to adopt. Where the version is in a conflict listed here, resolve it first (`--theirs`; a push before that ends in version_exists, setting your version aside and moving the marker back); then a push settles the markers.";
          out.say(
            `${waited.length} of them the last push left waiting on another writer's upload, not committed: a push publishes them once that upload is committed or gone; ${wayOut}`,
          );
        }
      }
      if (checks.length) {
        out.say(
          `To check (${checks.length}): an earlier push was about to write ${
            checks.length === 1 ? "this path" : "these paths"
          } and no commit of it followed (it stopped, or the file was set aside); nothing is here to push, and the next push looks at what the datastore holds there (an upload of this cache's left there is withdrawn):`,
        );
        for (const e of checks) out.say(`  ${e.path}`);
      }
      // A marker conflict says which version each side names (one small read each).
      const names = await markerNumbers(
        conflicts,
        (l) => s.service.cache.read(l),
        async (p, version) => {
          if (!remote.reachable) return null;
          const got = await s.store.get(p, { signal: io.signal });
          return got.version === version ? got.body : null;
        },
      );
      for (
        const line of describeConflicts(
          conflicts,
          (l) => shownLocation(s.service.cache, l),
          (p) => s.service.cache.exists(p),
          (p) => s.service.cache.holdsDirectory(p),
          (l) => existsSync(statePath(s.service.cache.stateDir, l)),
          names,
        )
      ) out.say(line);
      if (setAside.length) {
        out.say(`Set-aside copies, kept until you delete them (${setAside.length}):`);
        for (const e of setAside) {
          out.say(`  ${e.path} -> ${e.location}: ${e.reason}`);
          const kept = describeResolvedCopy(e);
          if (kept) out.say(kept);
        }
        const clashing = setAside.filter((e) => e.code === "version_exists");
        const clashes = clashing.length;
        // Once a pull brought the datastore's copies, pulling is no next step.
        const pulled = clashing.every((e) => s.service.state.synced(e.path) !== undefined);
        // Lost to another client's upload that no index names: no pull brings it (yet).
        const unindexed = clashing.some((e) => /named by no index yet/.test(e.reason ?? ""));
        if (clashes > 0) {
          const who = clashes === setAside.length
            ? clashes === 1
              ? "It is a data version that already exists"
              : "They are data versions that already exist"
            : clashes === 1
            ? "1 of them is a data version that already exists"
            : `${clashes} of them are data versions that already exist`;
          out.say(
            `${who} on the datastore with other bytes (another writer's, or an earlier upload from this cache; the reason beside each says which): ${
              pulled
                ? "the datastore's copies are in the cache now (a pull brought them); run the method or workflow again to write a new version, and delete the set-aside copies once you no longer need them."
                : unindexed
                ? "a pull brings the datastore's copies once an index names them (named by no index yet, no pull gets them now); run the method or workflow again to write a new version."
                : "run `sluice pull` to get the datastore's copies, and run the method or workflow again to write a new version."
            }`,
          );
        }
        // A copy kept from a resolved conflict has its own line: copying it back is no next step.
        const movedAside = setAside.filter((e) => e.code !== "version_exists" && !e.resolved);
        const moved = movedAside.length;
        if (moved > 0) {
          // A copy of a path whose conflict is open is published by its resolution, not by a push.
          const openPaths = new Set(conflicts.map((c) => c.path));
          const inConflict = movedAside.filter((e) => openPaths.has(e.path)).length;
          // Only the copy an open conflict names as yours is what --mine publishes.
          const mineCopies = new Set(conflicts.map((c) => c.mine?.location));
          const earlier = movedAside.some((e) =>
            openPaths.has(e.path) && !mineCopies.has(e.location)
          );
          const resolveNext = earlier
            ? "resolve its conflict (`sluice resolve <path> --mine` publishes the copy the conflict names as yours, `mine:` in the list above, never a copy set aside earlier that it does not name: copy what you need of such a copy into the file, then `--merged`; `--theirs` keeps the datastore's; the copies stay either way)"
            : "resolve its conflict (`sluice resolve <path> --mine` publishes the set-aside copy, `--theirs` keeps the datastore's; the copy stays either way)";
          const lockfile = movedAside.some((e) => isManagedLockfilePath(e.path));
          const compareNext =
            `compare it with the file now at its path and keep what you need (copy it back, then \`sluice push <path>\`${
              lockfile
                ? "; for the managed lockfile, which no push publishes, apply its entries with `sluice lockfile add <name> '<entry JSON>'` instead"
                : ""
            })`;
          out.say(
            `${
              moved === setAside.length ? "Each was" : "The others were"
            } moved out of the way instead of being overwritten (the reason beside each says when): ${
              inConflict === moved
                ? resolveNext
                : inConflict === 0
                ? compareNext
                : `where its path has an open conflict, ${resolveNext}; otherwise ${compareNext}`
            }.`,
          );
        }
        out.say(
          "Delete a set-aside directory once you are done with it; Sluice never deletes one (a pull only moves a copy back to its path when it wrote nothing there).",
        );
      }
      if (pendingLockfile.length) {
        out.say(`Pending lockfile changes, not yet published (${pendingLockfile.length}):`);
        for (const e of pendingLockfile) out.say(`  ${e.path}: ${e.summary}`);
        out.say(
          "Run `sluice lockfile retry` to publish them (`sluice lockfile repair` when the datastore's copy is malformed).",
        );
      }
      return exitCode;
    });
  }));
}

/** The outcome of a status whose datastore did not answer: `unreachable` (69), said once. */
function unreachable(
  out: Output,
  s: { store: { endpoint: string } },
): { outcome: { code: string; exitCode: number; message: string }; exitCode: number } {
  const code = "unreachable";
  const exitCode = EXIT_CODES[code];
  const message =
    `The datastore ${s.store.endpoint} could not be reached, so this status shows only this cache's side (what is dirty, set aside or in conflict here), not what changed there. Nothing was changed. Check the endpoint and the network, then run \`sluice status\` again.`;
  out.warn({ code, message });
  return { outcome: { code, exitCode, message }, exitCode };
}
