/**
 * `sluice pull`: pulls everything or some prefixes, and says what came,
 * what was set aside, what stays deleted here, and what is a typo.
 *
 * @module
 */
import { Command } from "commander";
import { SluiceError } from "../sync/errors.ts";
import { leftBehindError } from "../sync/left_behind.ts";
import { pullLeftBehind, type PullResult } from "../sync/service/pull.ts";
import { DATASTORE_EMPTY, pulledFromNoIndex } from "../sync/service/datastore_empty.ts";
import type { ObjectStore } from "../sync/ports.ts";
import { setAsideSource } from "../sync/transfer/cache.ts";
import { VANISHED_KEY } from "../sync/service/vanished_record.ts";
import { UNINDEXED_WRITES_LEFT } from "../sync/service/index_discovered.ts";
import {
  action,
  refuseUnusedNamespace,
  type RunState,
  withCommonOptions,
  withSession,
} from "./command_kit.ts";
import { cacheRel, deletedHere, deletionLineOf, directoriesNow, knownHere } from "./cache_paths.ts";
import { underMarkerNow } from "../sync/version_marker.ts";
import { capped, type CliIo, formatBytes, type Output, plural, UsageError } from "./output.ts";
import { withProgressBar } from "./progress.ts";
import { globalLockOf } from "./session.ts";
import { pullUnderGlobalLock } from "../sync/service/global_lock_pull.ts";
import { endpointFields } from "./store_url.ts";
import { outcomeOf, RESOLVE_HINT } from "./sync_outcome.ts";
import { shownLocation } from "./status.ts";

function describePull(
  r: PullResult,
  endpoint: string,
  shown: (location: string) => string = (l) => l,
): string[] {
  const nothing = r.fetched.length + r.removed.length + r.conflicts.length +
      r.setAside.length + r.uncommitted.length + r.dropped.length + r.unreadable.length +
      (r.links?.length ?? 0) + (r.blocked?.length ?? 0) + (r.vanished?.length ?? 0) === 0;
  // The index read was new (another client committed, or the index moved)
  // but asked nothing of this cache: up to date all the same.
  if (r.unchanged || nothing) return [`Already up to date with ${endpoint}.`];
  const lines = [
    `Pulled ${plural(r.fetched.length, "file")} (${formatBytes(r.bytes)}) from ${endpoint}${
      r.removed.length ? `; removed ${plural(r.removed.length, "file")} deleted remotely` : ""
    }.`,
  ];
  // A copy this cache never synced was set aside and the datastore's put in place.
  const asideOf = new Map<string, string>();
  for (const at of r.setAside) asideOf.set(setAsideSource(at), at);
  const lost = new Set(r.lost ?? []);
  const undecided = new Set(r.undecided ?? []);
  const ownKept = new Set(r.ownKept ?? []);
  const inPlace = r.conflicts.filter((p) =>
    !asideOf.has(p) && !lost.has(p) && !undecided.has(p) && !ownKept.has(p)
  );
  const moved = r.conflicts.filter((p) => asideOf.has(p));
  if (inPlace.length) {
    lines.push(
      `Kept ${
        plural(inPlace.length, "local change")
      } that also changed remotely (nothing here was overwritten: an edit stays as it is, a deletion stays deleted):`,
    );
    lines.push(...capped(
      inPlace.map((p) => `  ${p}`),
      (n) => `  … and ${n} more (\`sluice status\` lists each)`,
    ));
  }
  if (lost.size) {
    lines.push(
      `Kept ${
        plural(lost.size, "file")
      } the datastore lost (deleted outside Sluice, its entry then removed as naming nothing): the copy here may be the last. \`sluice resolve <path> --mine\` publishes it again, \`--theirs\` takes the deletion:`,
    );
    lines.push(...capped(
      [...lost].sort().map((p) => `  ${p}`),
      (n) => `  … and ${n} more (\`sluice status\` lists each)`,
    ));
  }
  if (ownKept.size) {
    lines.push(
      `Kept ${
        plural(ownKept.size, "data version")
      } this cache published, deleted on the datastore since (by another client): the copy here may be the last, and kept, the next run here numbers above it. \`sluice resolve <path> --mine\` publishes it again, \`--theirs\` takes the deletion:`,
    );
    lines.push(...capped(
      [...ownKept].sort().map((p) => `  ${p}`),
      (n) => `  … and ${n} more (\`sluice status\` lists each)`,
    ));
  }
  if (undecided.size) {
    lines.push(
      `Kept ${
        plural(undecided.size, "file")
      } whose entries were removed from the datastore's index while its record of lost files (${VANISHED_KEY}) cannot be read, so a peer's deletion cannot be told from a loss: the copy here may be the last. \`sluice resolve <path> --theirs\` takes the deletion, \`--mine\` publishes it again:`,
    );
    lines.push(...capped(
      [...undecided].sort().map((p) => `  ${p}`),
      (n) => `  … and ${n} more (\`sluice status\` lists each)`,
    ));
  }
  if (moved.length) {
    lines.push(
      `Set aside ${
        plural(moved.length, "local copy", "local copies")
      } this cache never synced, which differed from the datastore's: the datastore's copy is now in place, yours is kept here:`,
    );
    lines.push(...capped(
      moved.map((p) => `  ${p} → ${shown(asideOf.get(p)!)}`),
      (n) => `  … and ${n} more (\`sluice status\` lists each)`,
    ));
  }
  if (r.dropped.length) {
    lines.push(
      `Kept ${
        plural(r.dropped.length, "file")
      } that the datastore's index no longer names, though the store still holds the version this cache synced (another client rewrote the index without them):`,
    );
    lines.push(...capped(
      r.dropped.map((p) => `  ${p}`),
      (n) => `  … and ${n} more (\`--json\` lists each)`,
    ));
    lines.push(
      "They are marked dirty: run `sluice push` to publish them again (`sluice push --global-lock` while old swamp clients push to this bucket).",
    );
  }
  if (r.adopted?.length) {
    lines.push(
      `Adopted ${
        plural(r.adopted.length, "file")
      } another writer's push left uncommitted (published as that writer's change, and taken):`,
    );
    lines.push(...capped(
      r.adopted.map((p) => `  ${p}`),
      (n) => `  … and ${n} more (\`--json\` lists each)`,
    ));
  }
  if (r.conflicts.length) lines.push(RESOLVE_HINT);
  return lines;
}

/** Registers `pull`. */
export function pullCommand(io: CliIo, state: RunState): Command {
  return withCommonOptions(
    new Command("pull")
      .description(
        "pull what changed in the store into the cache (never overwrites a local change)",
      )
      .argument("[prefixes...]", "only paths under these cache prefixes")
      .option(
        "--restore-deleted",
        "also take back the datastore's copy of each synced file deleted here (a pull otherwise keeps a local deletion)",
      )
      .option(
        "--adopt-uncommitted <path>",
        "for a writer gone for good: publish the object its push left uncommitted at this path (a file, or a directory for every such file under it) as its change, and take it (nothing is overwritten; never a data version file: a run that did not finish publishing one never publishes it); repeat the option for several paths",
        (path: string, earlier?: string[]) => [...earlier ?? [], path],
      )
      .option(
        "--global-lock",
        "hold the datastore's global lock while the pull runs: an adoption's index commit (--adopt-uncommitted) is then never undone by an old swamp client, which writes the index under that lock without a compare-and-swap",
      )
      .addHelpText(
        "after",
        "\nExamples:\n  sluice pull\n  sluice pull data/aws/ec2/ --json\n  sluice pull --restore-deleted notes/\n  sluice pull --adopt-uncommitted notes/ --global-lock",
      ),
    { init: true },
  ).action(action(io, state, "pull", async (out: Output, cmd, prefixes: string[] = []) => {
    const opts = cmd.opts<
      {
        restoreDeleted?: boolean;
        adoptUncommitted?: string[];
        namespace?: string;
        globalLock?: boolean;
      }
    >();
    if (!opts.globalLock) refuseUnusedNamespace(opts.namespace, "pull");
    const restoreDeleted = opts.restoreDeleted === true;
    const named = opts.adoptUncommitted ?? [];
    // `--adopt-uncommitted --cache a` takes `--cache` for the path: an option, never a path.
    const option = named.find((p) => p.startsWith("-"));
    if (option !== undefined) {
      throw new UsageError(
        `--adopt-uncommitted takes the path of a file or directory, got the option ${option}: give the path right after it (\`sluice pull --adopt-uncommitted <path> ${option} …\`). Nothing was pulled.`,
      );
    }
    return await withSession(cmd, io, out, async (s) => {
      // Relative to the cache, or absolute inside it, as push and resolve take paths.
      const clean = prefixes.map((p) => cacheRel(s.service, p));
      const adopt = named.map((p) => cacheRel(s.service, p).replace(/\/+$/, ""));
      // Prefixes with nothing under them here before the pull: a typo unless the pull finds them.
      const unknown = [...clean.map((p) => p.replace(/\/+$/, "")), ...adopt].filter((rel) =>
        !s.service.cache.exists(rel) && !knownHere(s.service, rel)
      );
      const result: PullResult = await withProgressBar(
        io,
        out,
        s.events,
        () => {
          const options = {
            signal: io.signal,
            ...(clean.length ? { prefixes: clean } : {}),
            ...(restoreDeleted ? { restoreDeleted } : {}),
            ...(adopt.length ? { adoptUncommitted: adopt } : {}),
          };
          return opts.globalLock
            ? pullUnderGlobalLock(s.service, globalLockOf(s), options)
            : s.service.pullChanged(options);
        },
      );
      // A prefix with nothing under it, here or in the datastore's index, is a typo.
      // (A path the pull named but left out, for whatever reason, is not one.)
      const seen = [
        ...result.uncommitted,
        ...result.unreadable,
        ...result.conflicts,
        ...result.blocked ?? [],
        ...result.links ?? [],
        ...result.vanished ?? [],
        ...result.deferred ?? [],
        ...result.dropped,
        ...result.adopted ?? [],
        ...(result.notAdopted ?? []).map((x) => x.path),
      ];
      const missing = unknown.filter((rel) =>
        !s.service.cache.exists(rel) && !knownHere(s.service, rel) &&
        !seen.some((p) => p === rel || p.startsWith(`${rel}/`))
      );
      // A path named to adopt that the store holds (an upload no index names)
      // is no typo: nothing there is adopted, as told below (exit 2).
      for (const rel of adopt.filter((a) => missing.includes(a))) {
        if (await onStore(s.store, rel, io.signal)) missing.splice(missing.indexOf(rel), 1);
      }
      if (missing.length > 0) {
        // A pull given no prefix pulled the whole cache, a path to adopt or not.
        const others = clean.length === 0
          ? " The rest of the cache was pulled; run the pull again to see what it did."
          : clean.length + adopt.length > missing.length
          ? " The other prefixes were pulled; run the pull again to see what it did."
          : "";
        throw new SluiceError(
          "not_found",
          `Nothing is under ${
            missing.join(", ")
          } in the index of ${s.store.endpoint}, nor in the cache ${s.cacheDir}; nothing was pulled there.${others} Check the ${
            adopt.some((a) => missing.includes(a)) ? "path" : "prefix"
          }: paths are relative to the cache, as \`sluice status\` shows them.`,
        );
      }
      // Synced files deleted here stay deleted (a local change): said, as a push says it.
      const localDeletions = deletedHere(s.service, clean);
      // Of them, a version its marker here names: a push naming it alone keeps it there.
      const underMarker = await underMarkerNow(s.service, localDeletions);
      // A path named to adopt under which nothing was adopted: told, and never exit 0.
      const notAdopted = adopt.filter((n) =>
        !(result.adopted ?? []).some((p) => p === n || p.startsWith(`${n}/`))
      );
      for (const n of notAdopted) {
        const why = (result.notAdopted ?? []).filter((x) =>
          x.path === n || x.path.startsWith(`${n}/`)
        );
        out.warn({
          code: "nothing_to_adopt",
          message: `--adopt-uncommitted ${n}: nothing was adopted${
            why.length
              ? `: ${why.map((x) => `${x.path}: ${x.why}`).join("; ")}`
              : ", as this pull found no object another writer's push left uncommitted at a path the index names there (the datastore's object is the one its index names, or the index names nothing there: a pull sees only what an index names, and a data version a run never finished publishing is never adopted)"
          }. Nothing was published for it; check the path (a pull names each file it skips with \`pull_skipped_uncommitted\`).`,
          path: n,
        });
      }
      const done = outcomeOf(
        out,
        leftBehindError("pull", {
          ...pullLeftBehind(result),
          localDeletions,
          directoriesNow: directoriesNow(s.service, localDeletions),
          underMarker,
        }),
      );
      const { outcome, exitCode } = done.exitCode === 0 && notAdopted.length
        ? {
          outcome: {
            code: "nothing_to_adopt",
            exitCode: 2,
            message: `nothing was adopted at ${
              notAdopted.join(", ")
            }; whatever else there was to pull was pulled as usual.`,
          },
          exitCode: 2,
        }
        : done;
      // Set-aside copies where they are on disk (a datastore's cache keeps them under `_control/`).
      const shown = (l: string) => shownLocation(s.service.cache, l);
      // A cache that synced nothing from a datastore with no index: a new
      // datastore, or a mistyped bucket or prefix, which reads the same. A
      // first pull that makes the cache (`--init`) was meant to take a
      // datastore's files: refused, so a typo never passes as "Already up to
      // date" (the cache it made goes again); a later pull says it.
      // A datastore whose listing found Sluice's uploads no commit named yet
      // (a first push still under way, or stopped before its commit) is no
      // typo: its warning says what is there.
      const unindexed = out.warnings.some((w) => w.code === UNINDEXED_WRITES_LEFT);
      if (
        await pulledFromNoIndex({
          fetched: result.fetched,
          syncedCount: s.service.state.syncedCount,
          unindexedWritesLeft: unindexed,
          store: s.store,
          retry: s.service.config.retry,
          signal: io.signal,
        })
      ) {
        if (cmd.opts<{ init?: boolean }>().init) {
          throw new SluiceError(
            "store_not_found",
            `Nothing was pulled: the datastore at ${s.store.endpoint} holds no index, so nothing was ever pushed there (a mistyped bucket or prefix reads the same as a new datastore). Check the bucket and prefix in --store; a new datastore starts with its first push (\`sluice push --init --cache <dir> --store <url>\`), after which this pull takes its files.`,
          );
        }
        out.warn({
          code: DATASTORE_EMPTY,
          message:
            `The datastore at ${s.store.endpoint} holds no index: nothing was ever pushed there. If you expected files, check the bucket and prefix in --store (a new datastore starts with the first push to it).`,
        });
      }
      out.result("pull", {
        ...endpointFields(s.spec, s.store),
        cacheDir: s.cacheDir,
        ...result,
        setAside: result.setAside.map(shown),
        localDeletions,
        outcome,
      });
      for (const line of describePull(result, s.store.endpoint, shown)) out.say(line);

      if (localDeletions.length) {
        out.say(
          `Kept deleted here (a pull keeps a local deletion): ${
            plural(localDeletions.length, "file")
          } this cache synced:`,
        );
        for (
          const line of capped(
            localDeletions.map(deletionLineOf(s.service, underMarker)),
            (n) => `  … and ${n} more (\`--json\` lists each, as \`localDeletions\`)`,
          )
        ) out.say(line);
        // After --restore-deleted, what stays deleted here is held by a
        // directory of its name (said beside each): no advice to run it again.
        // A version its marker here names: a push naming it alone keeps it
        // there, so the line beside it gives the way on instead.
        const held = underMarker.length;
        out.say(
          held === localDeletions.length
            ? "Do what the line beside each says: a push naming them alone keeps them on the datastore while their latest marker here names their version."
            : `Run \`sluice push <path>…\` naming ${
              held ? "the others" : "them"
            } to delete them on the datastore too, or ${
              restoreDeleted
                ? "do what the line beside each says."
                : `\`sluice pull --restore-deleted\` to take the datastore's copies back${
                  held
                    ? "; for one whose latest marker here names its version, do what the line beside it says"
                    : ""
                }.`
            }`,
        );
      }
      return exitCode;
    });
  }));
}

/** True when the store holds an object at `rel` or under it (one request each, at most two). */
async function onStore(
  store: Pick<ObjectStore, "head" | "list">,
  rel: string,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    if (await store.head(rel, { signal })) return true;
    for await (const page of store.list(`${rel}/`, { signal, pageSize: 1 })) {
      return page.length > 0;
    }
  } catch {
    // Not known: taken as nothing there, as before.
  }
  return false;
}
