/**
 * `sluice resolve <path>… --mine|--theirs|--merged`: resolves the conflicts
 * a push or pull recorded (see `sync/service/conflicts.ts`) at each path,
 * or under it when it is a directory, one after another.
 *
 * @module
 */
import { Command } from "commander";
import type { Resolution } from "../sync/service/conflicts.ts";
import {
  resolutionsLeftBehind,
  ResolveRefusedError,
  type ResolveResult,
} from "../sync/service/resolve.ts";
import { leftBehindError } from "../sync/left_behind.ts";
import { AbortedError } from "../sync/errors.ts";
import { action, type RunState, withCommonOptions, withSession } from "./command_kit.ts";
import { globalLockOf } from "./session.ts";
import { type CliIo, type Output, plural, shellWord, UsageError } from "./output.ts";
import { sayingGlobalLockWait } from "../sync/locks/global_lock_wait.ts";
import { conflictPaths } from "./cache_paths.ts";
import { outcomeOf } from "./sync_outcome.ts";
import { endpointFields } from "./store_url.ts";
import { shownLocation } from "./status.ts";

/** Registers `resolve`. */
export function resolveCommand(io: CliIo, state: RunState): Command {
  return withCommonOptions(
    new Command("resolve")
      .description(
        "resolve a conflict: publish your copy, take the datastore's, or publish a merge you made",
      )
      .argument(
        "<paths...>",
        "conflicted cache paths (as `sluice status` lists them), or directories: every open conflict under one",
      )
      .option("--mine", "publish your copy over the datastore's version you saw")
      .option("--theirs", "take the datastore's copy (yours is set aside, never deleted)")
      .option("--merged", "publish what the cache holds at the path now (your merge)")
      .option(
        "--global-lock",
        "resolve under the datastore's global lock, as old swamp clients push: use it while old clients push to the same bucket",
      )
      .addHelpText(
        "after",
        "\nEach outcome is a compare-and-swap on the datastore's version the conflict recorded: if a third writer changed it since, the conflict is recorded again with the new version (exit 3) and nothing is overwritten.\n\nExamples:\n  sluice status\n  sluice resolve config/app.yaml --merged\n  sluice resolve notes/todo.txt --theirs --json\n  sluice resolve notes --mine            # every open conflict under notes/",
      ),
  ).action(action(io, state, "resolve", async (out: Output, cmd, paths: string[]) => {
    const o = cmd.opts<
      { mine?: boolean; theirs?: boolean; merged?: boolean; globalLock?: boolean }
    >();
    const chosen = (["mine", "theirs", "merged"] as const).filter((k) => o[k]);
    if (chosen.length !== 1) {
      throw new UsageError(
        `give exactly one of --mine (publish your copy), --theirs (take the datastore's; yours is set aside) or --merged (publish the merge now in the cache)${
          chosen.length ? `, not ${chosen.map((k) => `--${k}`).join(" and ")}` : ""
        }; nothing was changed. \`sluice status\` shows both versions of each open conflict.`,
      );
    }
    const resolution: Resolution = chosen[0];
    return await withSession(cmd, io, out, async (s) => {
      // Every open conflict the paths name, each resolved in turn; a path
      // naming none is refused before anything is done.
      const rels = conflictPaths(s.service, paths);
      const done: ResolveResult[] = [];
      // Several conflicts: one refused (nothing changed for it) is told of,
      // and the others are resolved all the same.
      const refused: { path: string; code: string; message: string }[] = [];
      // The notes and warnings counted past their limit are told once for
      // them all, not after each file's line.
      const resolveAll = () =>
        out.together(async () => {
          for (const rel of rels) {
            let r: ResolveResult;
            // Where the conflict's copy of yours is, when a pull set it aside.
            const mineAt = s.service.conflicts().find((c) => c.path === rel)?.mine?.location;
            try {
              r = await s.service.resolveConflict(rel, resolution, { signal: io.signal });
            } catch (e) {
              if (rels.length > 1 && e instanceof AbortedError) {
                const again = (io.argv ?? ["resolve", ...paths, `--${resolution}`]).map(shellWord);
                throw cancelledAmong(e, rel, done, rels.length, `sluice ${again.join(" ")}`);
              }
              if (rels.length === 1 || !(e instanceof ResolveRefusedError)) throw e;
              refused.push({ path: rel, code: e.code, message: e.message });
              out.warn({ code: e.code, message: e.message });
              continue;
            }
            done.push(r);
            say(
              out,
              s.store.endpoint,
              rel,
              resolution,
              r,
              (l) => shownLocation(s.service.cache, l),
            );
            // Set aside before (by the pull that met the conflict) and still
            // there: a --theirs or --merged leaves it, and says where; so does
            // a --mine that published a deletion (a file of this cache's
            // replaced the copy's directory here since), not the copy.
            if (
              r.resolved && (resolution !== "mine" || r.deleted) && mineAt !== undefined &&
              mineAt !== rel &&
              !r.setAside.includes(mineAt) && s.service.cache.exists(mineAt)
            ) {
              out.say(`Your copy stays set aside in ${shownLocation(s.service.cache, mineAt)}.`);
            }
          }
        });
      // One hold of the global lock around them all.
      if (o.globalLock) {
        const lock = globalLockOf(s);
        await lock.withLock(
          resolveAll,
          await sayingGlobalLockWait(lock, s.events, "the resolution waits for it", io.signal),
        );
      } else await resolveAll();
      // What the resolutions left behind, as their answers say (see
      // `ResolveResult.leftBehind`): the conflicts open after them, and
      // every path their pushes were to publish and held back, with the
      // push's reason; and the conflicts refused, left open.
      const after = resolutionsLeftBehind(done);
      const left = leftBehindError("resolve", {
        ...after,
        conflicts: [...new Set([...refused.map((r) => r.path), ...after.conflicts])],
      });
      const { outcome, exitCode } = outcomeOf(out, left);
      // Set-aside copies where they are on disk (a datastore's cache keeps them under `_control/`).
      const shown = (l: string) => shownLocation(s.service.cache, l);
      const shownDone = done.map((r) => ({
        ...r,
        setAside: r.setAside.map(shown),
        ...(r.pull ? { pull: { ...r.pull, setAside: r.pull.setAside.map(shown) } } : {}),
      }));
      out.result("resolve", {
        ...endpointFields(s.spec, s.store),
        cacheDir: s.cacheDir,
        ...(shownDone.length === 1 ? shownDone[0] : {}),
        resolutions: shownDone,
        ...(refused.length > 0 ? { refused } : {}),
        outcome,
      });
      return exitCode;
    });
  }));
}

/**
 * The cancellation of one resolution among several (`resolve <dir>`, or
 * several paths), at `rel`: told of the whole command, whose run `again`
 * finishes them all, not of `rel` alone, as the resolution's own message
 * does (the command it names would resolve that one file and leave the
 * rest open).
 */
function cancelledAmong(
  e: AbortedError,
  rel: string,
  done: readonly ResolveResult[],
  total: number,
  again: string,
): AbortedError {
  const resolved = done.filter((r) => r.resolved).length;
  return new AbortedError(`The resolution of ${plural(total, "conflict")}`, {
    cause: e,
    kept: `${resolved} of them ${
      resolved === 1 ? "was" : "were"
    } resolved before it stopped, at ${rel}, whose upload may have landed and its commit may not have (peers then do not see it yet). The others stay open (\`sluice status\` lists them). Run \`${again}\` again to finish: it resolves those left, and says of a copy published already that it is.`,
  });
}

/** What one resolution did, in a line. */
/** The paths of `paths` under the directory `rel`. */
const underIt = (paths: readonly string[], rel: string) =>
  paths.filter((p) => p.startsWith(`${rel}/`));

/** The path of `fetched` (or uploaded) that is a directory above `rel` (a file that replaced it). */
const fetchedAbove = (fetched: readonly string[], rel: string) =>
  fetched.find((p) => rel.startsWith(`${p}/`));

function say(
  out: Output,
  endpoint: string,
  rel: string,
  resolution: Resolution,
  r: ResolveResult,
  shown: (location: string) => string,
): void {
  if (r.resolved && r.ownUpload !== undefined) {
    out.say(
      `The datastore no longer held theirs of ${rel}: a resolution of this conflict, cut off before its commit, had written your copy over it (version ${r.ownUpload}). Took that copy into the cache and finished publishing it${
        r.published ? ` (version ${r.published})` : ""
      }: the datastore's index names it now.`,
    );
  } else if (r.resolved && r.ownUploadReplaced !== undefined) {
    out.say(
      `The datastore no longer held theirs of ${rel}: a resolution of this conflict, cut off before its commit, had written your copy over it (version ${r.ownUploadReplaced}). The copy here was theirs already: wrote it back over that upload${
        r.published ? ` (version ${r.published})` : ""
      }: the datastore's index names it now.`,
    );
  } else if (r.resolved && r.theirsGone !== undefined) {
    out.say(
      `Theirs of ${rel} (version ${r.theirsGone}) is no longer on the datastore: another writer's upload no index names, taken back or replaced since. Took what a pull gives for ${rel} now: nothing, as the object the datastore holds there is not the one its index names (a push not committed)${
        r.setAside.length ? `; your copy stays in ${r.setAside.map(shown).join(", ")}` : ""
      }. A later pull fetches ${rel} once that push completes; if its writer is gone for good, \`sluice pull --adopt-uncommitted ${
        shellWord(rel)
      }\` publishes what it left as its change, and takes it.`,
    );
  } else if (r.resolved && resolution === "theirs" && (r.pull?.vanished ?? []).includes(rel)) {
    out.say(
      `Took the datastore's side of ${rel}: its index names a copy whose object is gone from the store (deleted outside the sync), so nothing was fetched and nothing is at ${rel} here now${
        r.setAside.length ? `; your copy stays in ${r.setAside.map(shown).join(", ")}` : ""
      }. \`sluice resolve\` cannot bring that copy back; a pull removes the entry once it has named nothing for 15 minutes.`,
    );
  } else if (r.resolved) {
    out.say(
      resolution === "theirs"
        ? r.pull && !r.pull.fetched.includes(rel) &&
            (r.pull.removed.includes(rel) || r.setAside.length > 0)
          ? underIt(r.pull.fetched, rel).length
            ? `Took the datastore's side of ${rel}, a directory of that name now: ${
              plural(underIt(r.pull.fetched, rel).length, "file")
            } under ${rel}/ fetched, and no file ${rel} here now.`
            : fetchedAbove(r.pull.fetched, rel) !== undefined
            ? `Took the datastore's side of ${rel}, a deletion: a file ${
              fetchedAbove(r.pull.fetched, rel)
            } replaced its directory there, fetched in its place; nothing is at ${rel} here now.`
            : `Took the datastore's side of ${rel}, a deletion: nothing is at ${rel} here now.`
          : `Took the datastore's copy of ${rel}${
            r.tookNewer
              ? ` (version ${r.tookNewer}, newer than the one the conflict showed: it changed again on the datastore since)`
              : ""
          }.`
        : r.deleted
        ? `Deleted ${rel} on ${endpoint} (your deletion)${
          underIt(r.push?.uploaded ?? [], rel).length
            ? `, and published the ${
              plural(underIt(r.push?.uploaded ?? [], rel).length, "file")
            } under ${rel}/ that replaced it here`
            : fetchedAbove(r.push?.uploaded ?? [], rel) !== undefined
            ? `, and published the file ${
              fetchedAbove(r.push?.uploaded ?? [], rel)
            } that replaced its directory here`
            : ""
        }.`
        : r.published === undefined
        ? `Your ${
          resolution === "mine" ? "copy" : "merge"
        } of ${rel} is the datastore's copy already: nothing was published, and the conflict is resolved.`
        : `Published your ${resolution === "mine" ? "copy" : "merge"} of ${rel}${
          r.published ? ` (version ${r.published})` : ""
        }.`,
    );
  } else if (r.conflicts.length === 0 && resolution === "theirs") {
    out.say(
      `The datastore's copy of ${rel} could not be taken: its object is not the one the index names (a push that has not committed it, perhaps one of yours that stopped). Nothing was overwritten, and the conflict stays open. Run this again once that push completes; if its writer is gone for good, \`sluice pull --adopt-uncommitted ${
        shellWord(rel)
      }\` publishes its object as its change, and this resolution, run again, takes it.`,
    );
  } else if (r.conflicts.length === 0) {
    const why = r.push?.skipped.find((s) => s.path === rel)?.reason;
    out.say(
      `Your ${resolution === "mine" ? "copy" : "merge"} of ${rel} was not published yet${
        why ? ` (${why})` : ""
      }: it stays dirty, based on the datastore's version, and the next push publishes it. Run \`sluice push ${
        shellWord(rel)
      }\` once it can go.`,
    );
  } else if (r.recordedMeanwhile) {
    out.say(
      `Another process over this cache recorded a newer conflict of ${rel} while this resolution ran: it stays open, naming the copies set aside for it, and nothing was written over the datastore's copy${
        resolution === "theirs" && r.pull?.fetched.includes(rel)
          ? ` (its copy was taken into the cache)`
          : ""
      }. Run \`sluice status\` to see it, then resolve it.`,
    );
  } else {
    out.say(
      `${rel} changed again on the datastore before your copy landed; nothing was overwritten. Run \`sluice status\` to see the new version, then resolve again.`,
    );
  }
  for (const a of r.setAside) out.say(`Your previous local copy was set aside in ${shown(a)}.`);
}
