/**
 * `sluice probe`, `push`, `pull` and `status`.
 *
 * @module
 */
import { isAbsolute, relative } from "node:path";
import { Command } from "commander";
import {
  ConditionalWritesUnsupportedError,
  ConfigError,
  leftBehindError,
  SluiceError,
  SyncIncompleteError,
  UnsafePathError,
} from "../sync/errors.ts";
import { assertSafeRelPath } from "../sync/paths.ts";
import { pullLeftBehind, type PullResult } from "../sync/service/pull.ts";
import { pushLeftBehind, type PushResult } from "../sync/service/push.ts";
import { headIndex } from "../sync/transfer/remote_index.ts";
import type { SyncService } from "../sync/service/service.ts";
import {
  action,
  type RunState,
  withCommonOptions,
  withOutputOptions,
  withSession,
} from "./command_kit.ts";
import { capped, type CliIo, formatBytes, type Output, plural } from "./output.ts";
import { describeProbe, probeWithLatency } from "./probe.ts";
import { progressReporter } from "./progress.ts";
import { STORE_ENV } from "./session.ts";
import { describeConflicts, listPendingLockfile, listSetAside, remoteState } from "./status.ts";
import { endpointFields, openStore, parseStoreUrl } from "./store_url.ts";

/**
 * Cache-relative paths from command-line paths (cache-relative, or absolute
 * inside the cache); directories expand to their files. With `known`, a
 * path with nothing at it in the cache must be one this cache synced (a
 * deletion to push), or hold synced paths, or an open conflict: anything
 * else is a typo, refused with `not_found` before anything is done.
 */
export async function cachePaths(
  service: SyncService,
  paths: readonly string[],
  known = false,
): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    let rel = p;
    if (isAbsolute(p)) {
      rel = relative(service.cacheDir, p);
      if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
        throw new UnsafePathError(p, `it is not inside the cache ${service.cacheDir}`);
      }
    }
    rel = rel.replace(/^(\.\/)+/, "").replace(/\/+$/, "");
    assertSafeRelPath(rel);
    if (await service.cache.stat(rel)) {
      out.push(rel);
      continue;
    }
    const files = await service.cache.listFiles(rel);
    if (known && files.length === 0 && !service.cache.exists(rel) && !knownHere(service, rel)) {
      throw new SluiceError(
        "not_found",
        `Nothing is at ${p} in the cache ${service.cacheDir}, and this cache never synced it, so there is nothing to push or delete there; nothing was pushed. Check the path (relative to the cache, or absolute inside it); \`sluice status\` lists what changed.`,
      );
    }
    // A path that no longer exists stays as given: the push deletes it remotely.
    out.push(...(files.length ? files : [rel]));
  }
  return [...new Set(out)];
}

/**
 * Synced files (under `prefixes`, when given) with nothing at their path in
 * the cache, not in conflict: deletions made here that a pull keeps.
 */
function deletedHere(service: SyncService, prefixes: readonly string[]): string[] {
  const roots = prefixes.map((p) => p.replace(/\/+$/, ""));
  const under = (p: string) =>
    roots.length === 0 || roots.some((r) => p === r || p.startsWith(`${r}/`));
  const conflicted = new Set(service.conflicts().map((c) => c.path));
  return service.state.syncedPaths()
    .filter((p) => under(p) && !conflicted.has(p) && !service.cache.exists(p))
    .sort();
}

/** True for the reason of a copy the create-only writer set aside (`version_exists`). */
function isVersionClash(reason: string): boolean {
  return /a data version on the datastore is never rewritten|^Another writer published .+ first with different bytes/
    .test(reason);
}

/** True when this cache synced `rel` or paths under it, or holds a conflict on one of them. */
function knownHere(service: SyncService, rel: string): boolean {
  const { state } = service;
  const under = (p: string) => p === rel || p.startsWith(`${rel}/`);
  return state.synced(rel) !== undefined || state.syncedPaths().some(under) ||
    service.conflicts().some((c) => under(c.path));
}

/**
 * What a finished push or pull left behind, as the command reports it: a
 * `warning[<code>]` line and the JSON `outcome`; the exit code is the
 * error's (`conflicts_left` 3, `sync_incomplete` 2), 0 when clean.
 */
export function outcomeOf(
  out: Output,
  left: SyncIncompleteError | null,
): { outcome: { code: string; exitCode: number; message?: string }; exitCode: number } {
  if (!left) return { outcome: { code: "ok", exitCode: 0 }, exitCode: 0 };
  out.warn({ code: left.code, message: left.message });
  return {
    outcome: { code: left.code, exitCode: left.exitCode, message: left.message },
    exitCode: left.exitCode,
  };
}

/** True when a push uploaded, confirmed, deleted, skipped and left nothing (no conflict either). */
function pushedNothing(r: PushResult): boolean {
  return r.uploaded.length + r.identical.length + r.deleted.length + r.skipped.length +
      r.localDeletions.length + r.conflicts.length === 0;
}

function describePush(
  r: PushResult,
  endpoint: string,
  everSynced: boolean,
  walked: boolean,
): string[] {
  const lines: string[] = [];
  if (pushedNothing(r)) {
    return [
      !walked
        ? `Nothing to push: no path was marked dirty (--no-walk skips the walk of the cache, so files changed by hand are not seen; \`sluice status\` lists them, \`sluice push\` pushes them).`
        : everSynced
        ? `Nothing to push: no file changed since the last sync with ${endpoint}.`
        : `Nothing to push: the cache holds no file to publish yet (${endpoint} answered).`,
    ];
  }
  const extra = [
    ...(r.identical.length ? [`${r.identical.length} already identical remotely`] : []),
    ...(r.deleted.length ? [`${plural(r.deleted.length, "file")} deleted remotely`] : []),
  ];
  lines.push(
    `Pushed ${plural(r.uploaded.length, "file")} (${formatBytes(r.bytes)}) to ${endpoint}${
      extra.length ? `; ${extra.join(", ")}` : ""
    }.`,
  );
  const kept = r.skipped.filter((s) => s.keepDirty);
  const dropped = r.skipped.filter((s) => !s.keepDirty);
  if (dropped.length) {
    lines.push(`Left out ${plural(dropped.length, "file")} (not synced by a push):`);
    lines.push(...capped(
      dropped.map((s) => `  ${s.path}: ${s.reason}`),
      (n) => `  … and ${n} more (\`--json\` lists each, with its reason)`,
    ));
  }
  const keptPaths = new Set(kept.map((s) => s.path));
  const standing = r.conflicts.filter((p) => !keptPaths.has(p));
  if (kept.length) {
    lines.push(`Kept ${plural(kept.length, "file")} dirty for a later push:`);
    lines.push(...capped(
      kept.map((s) => `  ${s.path}: ${s.reason}`),
      (n) => `  … and ${n} more (\`sluice status\` lists each)`,
    ));
    const conflicts = new Set(r.conflicts);
    const others = kept.filter((s) => !conflicts.has(s.path)).length;
    if (others > 0) {
      lines.push("Run `sluice status` to see how each is handled, then `sluice push` again.");
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
    lines.push(...capped(
      r.localDeletions.map((p) => `  ${p}`),
      (n) => `  … and ${n} more (\`--json\` lists each, as \`localDeletions\`)`,
    ));
    lines.push(
      "Run `sluice push <path>…` naming them to delete them there too, or `sluice pull --restore-deleted` to take the datastore's copies back.",
    );
  }
  return lines;
}

/** What to run for an open conflict: a push again would only find it again. */
const RESOLVE_HINT =
  "Each conflict stays until resolved: run `sluice status` to see both versions, then `sluice resolve <path> --mine|--theirs|--merged`.";

function describePull(r: PullResult, endpoint: string): string[] {
  if (r.unchanged) return [`Already up to date with ${endpoint}.`];
  const lines = [
    `Pulled ${plural(r.fetched.length, "file")} (${formatBytes(r.bytes)}) from ${endpoint}${
      r.removed.length ? `; removed ${plural(r.removed.length, "file")} deleted remotely` : ""
    }.`,
  ];
  // A copy this cache never synced was set aside and the datastore's put in place.
  const asideOf = new Map<string, string>();
  for (const at of r.setAside) asideOf.set(at.split("/").slice(3).join("/"), at);
  const inPlace = r.conflicts.filter((p) => !asideOf.has(p));
  const moved = r.conflicts.filter((p) => asideOf.has(p));
  if (inPlace.length) {
    lines.push(
      `Kept ${
        plural(inPlace.length, "local change")
      } that also changed remotely (the local copy was not overwritten):`,
    );
    lines.push(...capped(
      inPlace.map((p) => `  ${p}`),
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
      moved.map((p) => `  ${p} → ${asideOf.get(p)}`),
      (n) => `  … and ${n} more (\`sluice status\` lists each)`,
    ));
  }
  if (r.conflicts.length) lines.push(RESOLVE_HINT);
  return lines;
}

/** Registers `probe`. */
export function probeCommand(io: CliIo, state: RunState): Command {
  return withOutputOptions(
    new Command("probe")
      .description(
        "check whether a store honours, refuses or silently ignores create-only and compare-and-swap writes, with latency",
      )
      .argument("[store-url]", `the store to probe (default: --store, else $${STORE_ENV})`)
      .option("--store <url>", "the store to probe")
      .option(
        "--require",
        "exit with conditional_writes_unsupported (69) unless both forms are honoured",
      )
      .addHelpText(
        "after",
        "\nThe probe writes a random key under .sluice/probe/ twice create-only, then updates it on a stale version, and deletes it.\n\nExamples:\n  sluice probe 's3://bucket/prefix?endpoint=http://127.0.0.1:9000'\n  sluice probe --json 'gs://bucket?endpoint=http://127.0.0.1:4443'",
      ),
  ).action(action(io, state, "probe", async (out: Output, cmd, url?: string) => {
    const opts = cmd.opts<{ store?: string; require?: boolean }>();
    const given = url ?? opts.store ?? io.env?.[STORE_ENV];
    if (!given) {
      throw new ConfigError("store", `a store URL to probe, as an argument or in $${STORE_ENV}`);
    }
    const opened = openStore(parseStoreUrl(given, { cwd: io.cwd }), { env: io.env });
    try {
      const report = await probeWithLatency(opened.store, { signal: io.signal });
      const short = opts.require && (report.create !== "honoured" || report.update !== "honoured");
      const refusal = short
        ? new ConditionalWritesUnsupportedError(
          report.endpoint,
          report.create === "refused" || report.update === "refused" ? "refused" : "ignored",
        )
        : undefined;
      out.result("probe", {
        ...report,
        ...endpointFields(opened.spec, opened.store),
        ...(refusal
          ? {
            outcome: { code: refusal.code, exitCode: refusal.exitCode, message: refusal.message },
          }
          : {}),
      });
      for (const line of describeProbe(report)) out.say(line);
      if (refusal) return refusal.exitCode;
    } finally {
      opened.close();
    }
  }));
}

/** Registers `push`. */
export function pushCommand(io: CliIo, state: RunState): Command {
  return withCommonOptions(
    new Command("push")
      .description("push the cache's changes to the store through the gate pipeline")
      .argument(
        "[paths...]",
        "only these cache paths (files or directories); default: every changed file",
      )
      .option("--no-walk", "push only paths already marked dirty (skip the walk of the cache)")
      .option(
        "--adopt-uncommitted <path>",
        "for a writer gone for good: publish its uncommitted object at this file path as its change instead of waiting for it (nothing is overwritten; this cache's copy becomes a conflict to resolve); repeat the option for several paths",
        (path: string, earlier?: string[]) => [...earlier ?? [], path],
      )
      .addHelpText(
        "after",
        "\nExamples:\n  sluice push --store file:///srv/datastore\n  sluice push data/aws/ec2/web-1 --json\n  sluice push --adopt-uncommitted config/app.yaml",
      ),
  ).action(action(io, state, "push", async (out: Output, cmd, paths: string[] = []) => {
    const { walk, adoptUncommitted: named = [] } = cmd.opts<
      { walk: boolean; adoptUncommitted?: string[] }
    >();
    return await withSession(cmd, io, out, async (s) => {
      const adopt = await cachePaths(s.service, named, true);
      const given = await cachePaths(s.service, paths, true);
      // A path to adopt is pushed: it is marked dirty like a named path.
      if (given.length || adopt.length) {
        await s.service.markDirty({ relPaths: [...given, ...adopt] });
      }
      if (!paths.length && walk) await s.service.markDirty();
      // Whether anything was marked for this push: "nothing marked" is said only when nothing was.
      const marked = s.service.state.dirtyPaths().length > 0;
      const bar = progressReporter(io, out.json);
      s.events.on("progress", (p) => bar.update(p));
      let result: PushResult;
      try {
        result = await s.service.pushChanged({
          signal: io.signal,
          ...(adopt.length ? { adoptUncommitted: adopt } : {}),
        });
      } finally {
        bar.stop();
      }
      // A push with nothing to do may send no request; before saying so, one
      // small read confirms the store answers, so that a mistyped bucket,
      // refused credentials or an unreachable endpoint fail here (their own
      // codes) instead of passing as "Nothing to push".
      if (pushedNothing(result) && !s.reached) {
        await headIndex(s.store, s.service.config.retry, io.signal);
      }
      const { outcome, exitCode } = outcomeOf(out, leftBehindError("push", pushLeftBehind(result)));
      out.result("push", {
        ...endpointFields(s.spec, s.store),
        cacheDir: s.cacheDir,
        ...result,
        outcome,
      });
      for (
        const line of describePush(
          result,
          s.store.endpoint,
          s.service.state.syncedCount > 0,
          walk || paths.length > 0 || marked,
        )
      ) {
        out.say(line);
      }
      return exitCode;
    });
  }));
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
      .addHelpText(
        "after",
        "\nExamples:\n  sluice pull\n  sluice pull data/aws/ec2/ --json\n  sluice pull --restore-deleted notes/",
      ),
  ).action(action(io, state, "pull", async (out: Output, cmd, prefixes: string[] = []) => {
    const restoreDeleted = cmd.opts<{ restoreDeleted?: boolean }>().restoreDeleted === true;
    return await withSession(cmd, io, out, async (s) => {
      const clean = prefixes.map((p) => {
        const rel = p.replace(/^(\.\/)+/, "");
        assertSafeRelPath(rel.replace(/\/+$/, ""));
        return rel;
      });
      // Prefixes with nothing under them here before the pull: a typo unless the pull finds them.
      const unknown = clean.map((p) => p.replace(/\/+$/, "")).filter((rel) =>
        !s.service.cache.exists(rel) && !knownHere(s.service, rel)
      );
      const bar = progressReporter(io, out.json);
      s.events.on("progress", (p) => bar.update(p));
      let result: PullResult;
      try {
        result = await s.service.pullChanged({
          signal: io.signal,
          ...(clean.length ? { prefixes: clean } : {}),
          ...(restoreDeleted ? { restoreDeleted } : {}),
        });
      } finally {
        bar.stop();
      }
      // A prefix with nothing under it, here or in the datastore's index, is a typo.
      const seen = [...result.uncommitted, ...result.conflicts];
      const missing = unknown.filter((rel) =>
        !s.service.cache.exists(rel) && !knownHere(s.service, rel) &&
        !seen.some((p) => p === rel || p.startsWith(`${rel}/`))
      );
      if (missing.length > 0) {
        const others = clean.length > missing.length
          ? " The other prefixes were pulled; run the pull again to see what it did."
          : "";
        throw new SluiceError(
          "not_found",
          `Nothing is under ${
            missing.join(", ")
          } in the index of ${s.store.endpoint}, nor in the cache ${s.cacheDir}; nothing was pulled there.${others} Check the prefix: paths are relative to the cache, as \`sluice status\` shows them.`,
        );
      }
      // Synced files deleted here stay deleted (a local change): said, as a push says it.
      const localDeletions = deletedHere(s.service, clean);
      const { outcome, exitCode } = outcomeOf(
        out,
        leftBehindError("pull", { ...pullLeftBehind(result), localDeletions }),
      );
      out.result("pull", {
        ...endpointFields(s.spec, s.store),
        cacheDir: s.cacheDir,
        ...result,
        localDeletions,
        outcome,
      });
      for (const line of describePull(result, s.store.endpoint)) out.say(line);
      if (localDeletions.length) {
        out.say(
          `Kept deleted here (a pull keeps a local deletion): ${
            plural(localDeletions.length, "file")
          } this cache synced:`,
        );
        for (
          const line of capped(
            localDeletions.map((p) => `  ${p}`),
            (n) => `  … and ${n} more (\`--json\` lists each, as \`localDeletions\`)`,
          )
        ) out.say(line);
        out.say(
          "Run `sluice push <path>…` naming them to delete them on the datastore too, or `sluice pull --restore-deleted` to take the datastore's copies back.",
        );
      }
      return exitCode;
    });
  }));
}

/** Registers `status`. */
export function statusCommand(io: CliIo, state: RunState): Command {
  return withCommonOptions(
    new Command("status")
      .description(
        "show dirty paths with their class and the gates that will handle each, set-aside version conflicts, and pending lockfile changes",
      )
      .option("--no-walk", "show only paths already marked dirty (skip the walk of the cache)"),
  ).action(action(io, state, "status", async (out: Output, cmd) => {
    const walk = cmd.opts<{ walk: boolean }>().walk;
    return await withSession(cmd, io, out, async (s) => {
      // With the walk, changed files not yet marked dirty are listed too; nothing is recorded.
      const dirty = await s.service.status({ walk });
      const setAside = await listSetAside(s.cacheDir);
      const pendingLockfile = await listPendingLockfile(s.service.cache);
      const conflicts = s.service.conflicts();
      // A missing bucket, missing credentials or a refused prefix fail the status here.
      const remote = await remoteState(s.store, s.service.config.retry, io.signal);
      // An open conflict is work left behind: the status exits 3 until it is resolved.
      const open = conflicts.length
        ? new SyncIncompleteError("status", { conflicts: conflicts.map((c) => c.path), left: [] })
        : null;
      const { outcome, exitCode } = outcomeOf(out, open);
      out.result("status", {
        ...endpointFields(s.spec, s.store),
        cacheDir: s.cacheDir,
        remote,
        dirty,
        conflicts,
        setAside,
        pendingLockfile,
        outcome,
      });
      out.say(`Cache ${s.cacheDir} mirrors ${s.store.endpoint}.`);
      if (!remote.reachable) {
        out.say(`The datastore could not be reached; what follows is this cache's side only.`);
      }
      if (dirty.length === 0) out.say("Nothing to push.");
      else {
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
        const held = dirty.filter((e) => e.action === "skip").length;
        out.say(
          held === dirty.length
            ? "None of them will be pushed as they are: the reason beside each says what holds it back and what to run."
            : held > 0
            ? `Run \`sluice push\` to publish them; ${held} will stay back (the reason beside each says why).`
            : "Run `sluice push` to publish them.",
        );
      }
      for (const line of describeConflicts(conflicts)) out.say(line);
      if (setAside.length) {
        out.say(`Set-aside copies, kept until you delete them (${setAside.length}):`);
        for (const e of setAside) out.say(`  ${e.path} -> ${e.location}: ${e.reason}`);
        const clashes = setAside.filter((e) => isVersionClash(e.reason)).length;
        if (clashes > 0) {
          const who = clashes === setAside.length
            ? clashes === 1
              ? "It is a data version that already exists"
              : "They are data versions that already exist"
            : clashes === 1
            ? "1 of them is a data version that already exists"
            : `${clashes} of them are data versions that already exist`;
          out.say(
            `${who} on the datastore with other bytes (another writer's, or an earlier upload from this cache; the reason beside each says which): run \`sluice pull\` to get the datastore's copies, and run the method or workflow again to write a new version.`,
          );
        }
        if (clashes < setAside.length) {
          out.say(
            `${
              clashes === 0 ? "Each" : "The others"
            } was moved out of the way instead of being overwritten (the reason beside each says when): compare it with the file now at its path and keep what you need (copy it back, then \`sluice push <path>\`).`,
          );
        }
        out.say("Delete a set-aside directory once you are done with it; Sluice never does.");
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
