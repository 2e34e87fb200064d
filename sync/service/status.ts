/**
 * What `status` reports for each path a push would handle: its action, class
 * and gates, and the synced files deleted here that a push of the whole cache
 * leaves on the datastore.
 *
 * @module
 */
import type { PlanEntry, WriteGateEntry } from "../context.ts";
import { STRANDED_REASON } from "./plan.ts";
import { shellWord } from "../shell_word.ts";
import { pushBothCommand } from "../version_marker.ts";

/** A dirty path as `status` reports it. */
export interface StatusEntry {
  readonly path: string;
  readonly action: PlanEntry["action"];
  readonly class?: string;
  readonly handledBy: readonly string[];
  readonly reason?: string;
  /**
   * True for a path with nothing here to push where an earlier push was
   * about to write (see `PlanEntry.strandedCheck`): the push only checks
   * what the datastore holds there and settles it (`PushResult.strandedChecks`).
   */
  readonly check?: true;
}

/** Why `status` lists a synced file deleted here that a walk push leaves on the datastore. */
export const LOCAL_DELETION_REASON =
  "deleted here; a push of the whole cache never deletes it on the datastore: push it by path to delete it there, or take it back with `sluice pull --restore-deleted` (`restoreDeleted` in the library)";

/**
 * Why `status` lists a data version file deleted here whose `latest` marker
 * here (`marker`) names its version (`n`): a push by path would hold the
 * deletion back (`version-under-marker`), so the marker comes first.
 */
export function deletedUnderMarkerReason(marker: string, n: string): string {
  return `deleted here, but the latest marker ${marker} names this version (${n}), and a version is never deleted from the datastore while its marker names it: a push by path alone would keep it there; set ${marker} to another version here, then push both (\`${
    pushBothCommand(marker, n)
  }\`), or take it back with \`sluice pull --restore-deleted\``;
}

/**
 * Why `status` lists a synced file replaced here by a directory of its
 * name: a pull with `--restore-deleted` does not write over that directory,
 * so the way back names the directory to move first.
 */
export function replacedByDirectoryReason(path: string): string {
  return `replaced here by a directory of its name; a push of the whole cache never deletes the file on the datastore: \`sluice push ${
    shellWord(path)
  }\` deletes it there and publishes the directory's files; or move the directory away and take the file back with \`sluice pull --restore-deleted\``;
}

/**
 * The status of a dry-run plan: each entry with the gates that handled it
 * and, for a put, the write gates that apply to it; then each file deleted
 * here that the walk left on the datastore (`localDeletions`), and each file
 * no push can publish (`localOnly`: a symbolic link, a name no key may carry).
 */
export function statusEntries(
  plan: readonly PlanEntry[],
  localDeletions: readonly string[],
  writeGates: readonly WriteGateEntry[],
  localOnly: readonly { path: string; reason: string }[] = [],
): StatusEntry[] {
  // A local deletion the walk also checks for an earlier upload is listed
  // once, as the deletion, with the class the gates gave it there.
  const deleted = new Set(localDeletions);
  const classOf = new Map(plan.filter((e) => deleted.has(e.path)).map((e) => [e.path, e.class]));
  const planned = plan.filter((e) => !deleted.has(e.path)).map((e): StatusEntry => ({
    path: e.path,
    action: e.action,
    class: e.class,
    handledBy: [
      ...e.handledBy,
      ...(e.action === "put"
        ? writeGates.filter((g) => g.appliesTo?.(e) && !e.handledBy.includes(g.name)).map((g) =>
          g.name
        )
        : []),
    ],
    reason: e.reason,
    ...(e.action === "skip" && e.strandedCheck && e.reason === STRANDED_REASON
      ? { check: true as const }
      : {}),
  }));
  return [
    ...planned,
    ...localDeletions.map((path): StatusEntry => ({
      path,
      action: "skip",
      ...(classOf.get(path) !== undefined ? { class: classOf.get(path) } : {}),
      handledBy: [],
      reason: LOCAL_DELETION_REASON,
    })),
    ...localOnly.map(({ path, reason }): StatusEntry => ({
      path,
      action: "skip",
      handledBy: [],
      reason: `stays local only: ${reason}`,
    })),
  ];
}

/**
 * `entries`, each one the push leaves out before any gate sees it (a skip
 * no gate handled: a local deletion, a file no push can publish) given the
 * class `classify` gives its path when it has none: the class the push's
 * classifier gives that path. The others are as they are.
 *
 * @example
 * ```ts
 * import { withPathClasses } from "./status.ts";
 * withPathClasses([{ path: "a.txt", action: "skip", handledBy: [] }], () => "other");
 * // [{ path: "a.txt", action: "skip", handledBy: [], class: "other" }]
 * ```
 */
export function withPathClasses(
  entries: readonly StatusEntry[],
  classify: (path: string) => string,
): StatusEntry[] {
  return entries.map((e) =>
    e.class === undefined && e.action === "skip" && e.handledBy.length === 0
      ? { ...e, class: classify(e.path) }
      : e
  );
}
