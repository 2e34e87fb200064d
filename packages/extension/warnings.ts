/**
 * Sluice's warnings where the tool's user sees them. The library never
 * writes to the console; the tool prints no datastore events. So an
 * extension entry passes a line writer (standard error), and every warning
 * of the datastore's locks and services is written there as one line,
 * `[<type>] warning[<code>]: <message>`, as the existing extensions print
 * theirs. Within a window of {@link WARNING_WINDOW_MS} the same line is
 * written once, and at most {@link WARNINGS_SHOWN_PER_CODE} of one code,
 * then one line saying the rest are not shown (a push of thousands of files
 * must not bury the command's own output); a new window starts afresh, so a
 * long-running process (a server) goes on saying what is still open. What a
 * sync left behind ({@link LEFT_BEHIND_CODES}, one line of each per sync at most) is
 * its outcome, not noise: written for every sync, the same line again too,
 * so that no run is reported as a success in silence while its work is left.
 *
 * @module
 */
import type { WarningEvent } from "../../sync/events.ts";
import { shellWord } from "../../sync/shell_word.ts";
import type { CliTarget } from "./left_behind.ts";

/** Lines written per warning code and window before the rest are only counted. */
export const WARNINGS_SHOWN_PER_CODE = 20;

/**
 * The codes of what a sync left behind (see `left_behind.ts`: a push's
 * synced files deleted here and not deleted remotely too; a managed
 * lockfile change a push could not publish, see `lockfile_bridge.ts`; a
 * cache a solo push did not walk, see `untouched_cache.ts`): written for
 * every sync that leaves it, never deduplicated nor capped.
 */
export const LEFT_BEHIND_CODES: ReadonlySet<string> = new Set([
  "conflicts_left",
  "sync_incomplete",
  "local_deletions_kept",
  "lockfile_change_unpublished",
  "unsynced_cache_not_walked",
]);

/** How long one window of {@link warningPrinter} lasts: 10 minutes. */
export const WARNING_WINDOW_MS = 10 * 60_000;

/**
 * `message` with each Sluice command it names in backticks (`` `sluice …` ``
 * or `` `npx sluice …` ``) given the cache and store of `target`, so that it
 * runs as printed from any directory (the command line run without them
 * looks for a cache in the current directory). A message that names a
 * `--cache` already (one that says which cache its commands run on, see
 * `cliNext`) is left as it is.
 *
 * @example
 * ```ts
 * import { withCliTarget } from "./warnings.ts";
 * withCliTarget("Run `sluice status`.", { cacheDir: "/c", storeUrl: "s3://b/p" });
 * // "Run `sluice status --cache /c --store s3://b/p`."
 * ```
 */
export function withCliTarget(message: string, target: CliTarget): string {
  if (/(^|\s)--cache\b/.test(message)) return message;
  const args = `--cache ${shellWord(target.cacheDir)} --store ${shellWord(target.storeUrl)}`;
  return message.replace(
    /`((?:npx )?sluice [^`]+)`/g,
    (_, command: string) => `\`${command} ${args}\``,
  );
}

/**
 * A `warning` listener writing each warning of datastore `type` through
 * `write`, but those whose code is in `skip`. `targetOf` gives the cache and
 * store the Sluice commands a warning names are run on (see
 * {@link withCliTarget}); a warning it gives none for is written as it is.
 *
 * @example
 * ```ts
 * import { warningPrinter } from "./warnings.ts";
 * const print = warningPrinter("@sluice/s3-datastore", (line) => console.log(line));
 * print({ code: "store_retry", message: "Retrying." });
 * // [@sluice/s3-datastore] warning[store_retry]: Retrying.
 * ```
 */
export function warningPrinter(
  type: string,
  write: (line: string) => void,
  now: () => number = Date.now,
  skip: ReadonlySet<string> = new Set(),
  targetOf: (w: WarningEvent) => CliTarget | undefined = () => undefined,
): (w: WarningEvent) => void {
  const shown = new Map<string, number>();
  const written = new Set<string>();
  let windowStart = now();
  return (w) => {
    if (skip.has(w.code)) return;
    if (now() - windowStart >= WARNING_WINDOW_MS) {
      windowStart = now();
      shown.clear();
      written.clear();
    }
    const target = targetOf(w);
    const said = (message: string) => target ? withCliTarget(message, target) : message;
    const line = `[${type}] warning[${w.code}]: ${said(w.message)}`;
    if (LEFT_BEHIND_CODES.has(w.code)) return write(line);
    if (written.has(line)) return;
    const n = shown.get(w.code) ?? 0;
    shown.set(w.code, n + 1);
    if (n < WARNINGS_SHOWN_PER_CODE) {
      written.add(line);
      write(line);
    } else if (n === WARNINGS_SHOWN_PER_CODE) {
      write(
        `[${type}] warning[${w.code}]: more ${w.code} warnings follow and are not shown for ${
          WARNING_WINDOW_MS / 60_000
        } minutes; ${
          said(
            "the Sluice command line (`npx sluice status` on the cache) lists what is left open.",
          )
        }`,
      );
    }
  };
}

/** How much of an error's message the tool shows: the rest is cut off. */
export const TOOL_MESSAGE_LIMIT = 200;

/**
 * The line writing `e` in full for datastore `type`,
 * `[<type>] error[<code>]: <message>`, when the tool would cut its message
 * short (longer than {@link TOOL_MESSAGE_LIMIT} on one line); undefined
 * otherwise (the tool shows all of it).
 *
 * @example
 * ```ts
 * import { errorLine } from "./warnings.ts";
 * console.log(errorLine("t", new Error("short"))); // undefined
 * ```
 */
export function errorLine(type: string, e: unknown): string | undefined {
  if (!(e instanceof Error)) return undefined;
  const message = e.message.replace(/\s*\n+\s*/g, " ").trim();
  if (message.length <= TOOL_MESSAGE_LIMIT) return undefined;
  const code = (e as { code?: unknown }).code;
  return `[${type}] error[${typeof code === "string" ? code : e.name}]: ${message}`;
}
