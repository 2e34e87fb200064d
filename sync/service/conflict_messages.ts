/**
 * The messages conflicts are told with: a version as a user reads it, the
 * adoption of another writer's uncommitted object, and the commands that
 * resolve a conflict or stop waiting on a writer gone for good.
 *
 * @module
 */
import { shellWord } from "../shell_word.ts";

/**
 * How a version of theirs reads in messages: `version <v>`, or, for another
 * client's index entry (an old client's, whose synthetic `~…` id names no
 * object version), what it is.
 *
 * @example
 * ```ts
 * import { describeVersion } from "./conflict_messages.ts";
 * console.log(describeVersion("v3")); // version v3
 * ```
 */
export function describeVersion(version: string): string {
  return version.startsWith("~")
    ? "another client's entry, no object version"
    : `version ${version}`;
}

/** Warning code emitted when a push published another writer's uncommitted object as that writer's change, as told. */
export const ADOPTED_UNCOMMITTED = "adopted_uncommitted";

/**
 * The message of {@link ADOPTED_UNCOMMITTED}.
 *
 * @example
 * ```ts
 * import { adoptedMessage } from "./conflict_messages.ts";
 * console.log(adoptedMessage("notes/a.txt", "v3", "w-1"));
 * ```
 */
export function adoptedMessage(path: string, version: string, writer?: string): string {
  return `${path}: published another writer's uncommitted object (version ${version}, writer ${
    writer ?? "unknown"
  }) in the index as that writer's change, as asked; nothing was overwritten. This cache's copy, where it differs, is now a conflict with it: run \`sluice status\` to see both versions, then \`${
    resolveHint(path)
  }\`.`;
}

/**
 * How to stop waiting on a writer that is gone for good (said where a push
 * waits for another writer's uncommitted object).
 *
 * @example
 * ```ts
 * import { ADOPT_HINT } from "./conflict_messages.ts";
 * console.log(ADOPT_HINT("notes/a.txt"));
 * ```
 */
export function ADOPT_HINT(path: string, pathClass?: string): string {
  if (pathClass === "index") return "an index file is never adopted";
  return `if that writer is gone for good, \`sluice push --adopt-uncommitted ${
    shellWord(path)
  }\` publishes its object as its change${
    pathClass === "latest-marker" ? " (once the version it names is in the index)" : ""
  }, and this cache's copy becomes a conflict with it`;
}

/**
 * Said beside {@link resolveHint} where the side here is a deletion:
 * `--merged` publishes what the cache holds at the path, and with nothing
 * there it is refused (`not_found`), so the merge is written there first.
 *
 * @example
 * ```ts
 * import { mergedAfterDeletion } from "./conflict_messages.ts";
 * console.log(mergedAfterDeletion("notes/a.txt"));
 * ```
 */
export function mergedAfterDeletion(path: string): string {
  return `--merged publishes a file: write the merged file at ${path} first`;
}

/** The command that resolves a conflict of `path`, for messages. */
export function resolveHint(path: string): string {
  return `sluice resolve ${shellWord(path)} --mine|--theirs|--merged`;
}
