/**
 * Shared wiring of the commands: the common options, and the action wrapper
 * that turns a command's outcome into output and an exit code.
 *
 * @module
 */
import { type Command, Option } from "commander";
import { errorReport, Output, shellWord, UsageError } from "./output.ts";
import type { CliIo } from "./output.ts";
import { AbortedError, ConfigError, SluiceError, UnreachableError } from "../sync/errors.ts";
import { STATE_DIR } from "../sync/transfer/cache.ts";
import { isDiskFull } from "../sync/transfer/cache_paths.ts";
import {
  type CommonOptions,
  DEFAULT_CACHE_DIR,
  openSession,
  resolveCacheDir,
  type Session,
} from "./session.ts";

/** The exit code of the command that ran (set by {@link action}). */
export interface RunState {
  /** The exit code. */
  code: number;
}

/** What `--verbose` shows on a command that runs no gate (its warnings all). */
export const VERBOSE_WARNINGS = "show every warning, none counted instead";

/**
 * Adds `--json` and `--verbose`; `verbose` says what the latter shows (by
 * default every gate note, for the commands that run the gates).
 */
export function withOutputOptions(
  cmd: Command,
  verbose = "show every gate note, routine classification included",
): Command {
  return cmd
    .option("--json", "print one JSON document on stdout, for scripts")
    .option("-v, --verbose", verbose);
}

/**
 * Adds the options of every command that opens the cache and the store.
 * `init`: the command starts a new cache (a push or a pull), and so offers
 * `--init`; elsewhere `--init` is not shown, and refused as a usage error
 * before anything is made ({@link openSession}).
 */
export function withCommonOptions(cmd: Command, o: { init?: boolean } = {}): Command {
  const init = new Option(
    "--init",
    "create the cache directory, or a file:// store's directory, when it does not exist yet (without it a missing one is refused)",
  );
  return withOutputOptions(
    cmd
      .option("--cache <dir>", "the cache directory", DEFAULT_CACHE_DIR)
      .option(
        "--store <url>",
        "the datastore: file:///dir, s3://bucket/prefix?endpoint=…&region=…, gs://bucket/prefix?endpoint=… (default: $SLUICE_STORE, else the store this cache was last used with)",
      )
      .option("--holder <user@host>", "who this process acts as (default: $USER@hostname)")
      .option("--hostname <name>", "host name recorded in locks (default: this host)")
      .option("--pid <n>", "process id recorded in locks (default: this process)")
      .option(
        "--namespace <ns>",
        "the namespace of the global lock (.locks/<ns>.lock) and of the lockfile (one path segment); files always sync the store's prefix",
      )
      .addOption(o.init ? init : init.hideHelp())
      .addOption(
        new Option("--conditional-writes <mode>", "on endpoints without conditional writes")
          .choices(["auto", "required", "off"])
          .default("auto"),
      ),
  );
}

/**
 * Wraps a command's body: builds its {@link Output}, runs it, and on a throw
 * prints `error[<code>]: …` and records the error's exit code.
 */
export function action<A extends unknown[]>(
  io: CliIo,
  state: RunState,
  name: string,
  body: (out: Output, cmd: Command, ...args: A) => Promise<number | void>,
): (...raw: unknown[]) => Promise<void> {
  return async (...raw: unknown[]) => {
    const cmd = raw[raw.length - 1] as Command;
    const opts = cmd.opts<{ json?: boolean; verbose?: boolean; cache?: string }>();
    // A cache named on the command line is named in the commands the output suggests.
    const cacheArgs = opts.cache !== undefined && cmd.getOptionValueSource("cache") === "cli"
      ? ["--cache", opts.cache]
      : [];
    const out = new Output(io, { json: opts.json, verbose: opts.verbose, cacheArgs });
    // Commander passes the declared arguments, then the options, then the command.
    const args = raw.slice(0, raw.length - 2) as A;
    try {
      state.code = (await body(out, cmd, ...args)) ?? 0;
      out.finish();
    } catch (e) {
      state.code = out.fail(name, errorReport(commandFailure(e, io, name)));
    }
  };
}

/** The command's name as typed after `sluice` (e.g. `lock list`). */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Runs `fn` with a session opened from the command's options, always closing it. */
export async function withSession<T>(
  cmd: Command,
  io: CliIo,
  out: Output,
  fn: (s: Session, opts: CommonOptions) => Promise<T>,
): Promise<T> {
  const opts = cmd.opts<CommonOptions>();
  const undoFresh = await freshCacheUndo(resolveCacheDir(opts, io));
  let session: Session;
  try {
    session = await openSession(opts, io, out, commandPath(cmd));
  } catch (e) {
    if (isConfigError(e)) await undoFresh();
    throw e;
  }
  let result: T;
  try {
    result = await fn(session, opts);
  } catch (e) {
    // A store that answered is the right one, even if the command then failed.
    await session.recordStore().catch(() => {}); // the command's own error is the one to report
    session.close();
    // A failure before the store ever answered (a mistyped bucket, refused
    // credentials, an endpoint that is down) synced nothing: what this run
    // made in the cache goes too, so that a directory of files is not taken
    // for a cache by the next command without --init.
    // Any other failure: a cache directory this run created (`--init`) that
    // holds nothing but its state goes too, so a failed first command
    // leaves nothing behind.
    const removed = await undoFresh(session.reached ? { emptyOnly: true } : {});
    throw removed
      ? withoutNewCache(e, io, commandPath(cmd), resolveCacheDir(opts, io), removed)
      : e;
  }
  try {
    await session.recordStore();
  } finally {
    session.close();
  }
  return result;
}

function isConfigError(e: unknown): boolean {
  return e instanceof SluiceError && e.code === "invalid_config";
}

/**
 * What a command creates in a cache before it reaches the store: the cache
 * directory itself (with `--init`) and its state directory. The returned
 * function removes them again, the directory only while nothing but the
 * state directory is in it; what was there before is never touched. With
 * `emptyOnly`, only such a directory goes (a state directory beside files
 * stays). It answers, of a directory that was no cache before the command,
 * what is left: nothing (`dir`) or the directory without a cache's state
 * (`state`); `null` where there is a cache now, or was before.
 */
async function freshCacheUndo(
  dir: string,
): Promise<(o?: { emptyOnly?: boolean }) => Promise<"dir" | "state" | null>> {
  const isDir = async (p: string) => {
    try {
      return (await Deno.lstat(p)).isDirectory;
    } catch {
      return null;
    }
  };
  const state = `${dir}/${STATE_DIR}`;
  const had = { dir: await isDir(dir) !== null, state: await isDir(state) !== null };
  return async (o = {}) => {
    try {
      if (!had.dir && await isDir(dir)) {
        const names: string[] = [];
        for await (const e of Deno.readDir(dir)) names.push(e.name);
        if (names.every((n) => n === STATE_DIR)) await Deno.remove(dir, { recursive: true });
      }
      if (!o.emptyOnly && !had.state && await isDir(state)) {
        await Deno.remove(state, { recursive: true });
      }
    } catch {
      // Best effort: the command's own error is the one to report.
    }
    // What is there now, of a directory that was no cache before.
    if (had.state || await isDir(state)) return null;
    return had.dir || await isDir(dir) ? "state" : "dir";
  };
}

/**
 * `e` as reported by a command that made the cache `dir` (`--init`: the
 * directory, or the state in a directory of files) and `removed` it again
 * on failing: an unreachable datastore or a cancellation says that no cache
 * was kept, not that local changes stay dirty in it; any other error stands.
 */
function withoutNewCache(
  e: unknown,
  io: Pick<CliIo, "argv">,
  name: string,
  dir: string,
  removed: "dir" | "state",
): unknown {
  const kept = removed === "dir"
    ? `No cache was made: the new directory ${dir} was removed again.`
    : `No cache was made: ${dir} is no cache, as before, and its files were not touched.`;
  // A first pull of a datastore that holds nothing says what it left too.
  if (e instanceof SluiceError && e.code === "store_not_found") {
    return new SluiceError(e.code, `${e.message} ${kept}`, { cause: e });
  }
  return telling(e, io, name, kept, e instanceof AbortedError);
}

/**
 * `e`, an unreachable datastore or a cancellation (`aborted`: any; else one
 * giving a sync's account), told with `left` (what the command left) and
 * the command to run again as it was typed; any other error stands.
 */
function telling(
  e: unknown,
  io: Pick<CliIo, "argv">,
  name: string,
  left: string,
  aborted: boolean,
): unknown {
  const again = `sluice ${(io.argv ?? name.split(" ")).map(shellWord).join(" ")}`;
  if (e instanceof AbortedError && aborted) {
    return new AbortedError(e.what, {
      cause: e.cause ?? e,
      kept: `${left} Run \`${again}\` again.`,
    });
  }
  if (!(e instanceof UnreachableError)) return e;
  // What the failing work added to the error's account (a push: what else of
  // it was committed), kept after the command's own.
  const plain = new UnreachableError(e.detail).message;
  const added = e.message.startsWith(plain) ? e.message.slice(plain.length) : "";
  return new SluiceError(
    "unreachable",
    `The datastore could not be reached: ${e.detail}. ${left}${added} ${
      storeDirectoryAdvice(e) ?? "Check the endpoint and the network"
    }, then run \`${again}\` again.`,
    { cause: e, retryable: true },
  );
}

/**
 * What to do about a `file://` store's directory when the filesystem under
 * it failed `e` (its cause chain: a full disk or quota, a write refused),
 * where no endpoint or network is in question; undefined otherwise.
 */
function storeDirectoryAdvice(e: unknown): string | undefined {
  for (let c: unknown = e, depth = 0; c instanceof Error && depth < 8; c = c.cause, depth++) {
    if (isDiskFull(c)) return "Free space on the disk that holds the store's directory";
    // The runtime's own filesystem errors only: a socket's EACCES or EPERM
    // (a firewall) is the network's.
    if (c instanceof Deno.errors.PermissionDenied || (c as { code?: unknown }).code === "EROFS") {
      return "Make the store's directory writable by this user (or run as its owner)";
    }
  }
  return undefined;
}

/** What a push or a pull says it left when the datastore could not be reached. */
const SYNC_LEFT: Record<"push" | "pull", string> = {
  push:
    "Nothing was lost: local changes stay in the cache and dirty, and what the push published before stays published.",
  pull:
    "Nothing was lost: local changes stay in the cache, and the files the pull placed before stay (the rest are fetched by the next pull).",
};

/** What each command that is no sync says it left when the datastore could not be reached or it was cancelled. */
const LEFT_BY: Record<string, string> = {
  "index migrate":
    "The move stopped where it was: the bucket reads as before until the move's last write lands, and as v2 after it; running the move again takes it up, or says the index is v2 already.",
  "lock release":
    "The lock may or may not have been broken: `sluice lock inspect` (with `--model` for a model lock) says whether it is still held.",
  "bucket create":
    "The bucket may or may not have been made: running the command again says so either way.",
  status: "Nothing was changed: status only reads.",
  theirs: "Nothing was changed: theirs only reads.",
  "lock list": "Nothing was changed: lock list only reads.",
  "lock inspect": "Nothing was changed: lock inspect only reads.",
};

/** How a {@link ConfigError} of a configuration field ends, and how the command line says it. */
const DATASTORE_CONFIG_FIX = "fix the datastore configuration and run the command again.";
const CLI_CONFIG_FIX =
  "fix the store URL (as given, or as the cache recorded it) and run the command again.";
/** The same, for the commands that take a store URL and no cache. */
const CLI_URL_FIX = "fix the store URL and run the command again.";
const CACHELESS = new Set(["probe", "bucket create"]);

/**
 * `e` as the command `name` reports it: an unreachable datastore, or a
 * cancellation that gives a sync's account, met by a command that is no
 * push or pull, gets that command's account of what it left and the
 * command to run again as it was typed, not the sync's "local changes stay
 * dirty; run the sync again"; a push or a pull that could not reach the
 * datastore names itself as typed too; any other error stands.
 */
export function commandFailure(e: unknown, io: Pick<CliIo, "argv">, name: string): unknown {
  // On the command line the datastore's configuration is the store URL.
  // (Credentials are never in it: their errors say the environment already.)
  // (A push that failed so says after it what it did not commit.)
  if (e instanceof ConfigError && e.message.includes(DATASTORE_CONFIG_FIX)) {
    e.message = e.message.replace(
      DATASTORE_CONFIG_FIX,
      CACHELESS.has(name) ? CLI_URL_FIX : CLI_CONFIG_FIX,
    );
  }
  if (name === "push" || name === "pull") {
    // A sync's own account of a cancellation stands; an unreachable datastore
    // gets the command to run again as it was typed.
    return e instanceof UnreachableError ? telling(e, io, name, SYNC_LEFT[name], false) : e;
  }
  const left = LEFT_BY[name] ?? `${name} stopped there; what it did before stays.`;
  return telling(e, io, name, left, e instanceof AbortedError && !e.keptGiven);
}

/** Throws a {@link UsageError} unless `flag` is set. */
export function requireFlag(flag: boolean | undefined, message: string): void {
  if (!flag) throw new UsageError(message);
}

/**
 * Refuses `--namespace` (`namespace`, as given) where it would change
 * nothing: it names the namespace of the global lock (`.locks/<ns>.lock`)
 * and of the managed lockfile, never where files sync, so `push` without
 * `--global-lock`, `pull` and `status` would take it and sync the store's
 * prefix all the same.
 */
export function refuseUnusedNamespace(namespace: string | undefined, command: string): void {
  if (namespace === undefined) return;
  throw new UsageError(
    `--namespace has no effect on \`sluice ${command}\`: it names the namespace of the global lock (\`.locks/<ns>.lock\`, taken by \`push --global-lock\` and \`resolve --global-lock\`) and of the lock and lockfile commands, never where files sync: a cache syncs its store's prefix. Nothing was done. To sync a namespace's files, give its prefix in the store URL (e.g. --store s3://bucket/prefix/<ns>) with a cache of its own; or drop --namespace.`,
  );
}
