/**
 * A store that cannot hold a key and keys under it at once (files on disk)
 * refuses a file written where the other kind is ({@link KeyClashError}).
 * When the push deletes that other kind too (a synced file replaced here by
 * a directory of its name, or the reverse), or checks an upload of this
 * cache's left there (a never-synced file, see `settleStrays`), those
 * deletions and checks go first and the refused writes are made again.
 *
 * @module
 */
import { KeyClashError } from "../errors.ts";
import type { PlanEntry } from "../context.ts";
import { shellWord } from "../shell_word.ts";
import { ancestorWhere, directoriesOf } from "../paths.ts";

/** A write or deletion of the push that failed. */
export interface PushFailureEntry {
  readonly entry: PlanEntry;
  readonly error: unknown;
}

/**
 * Finds the writes `failures` holds that a key clash refused, and the
 * deletions (in `deletes`) and stranded-upload checks (in `plan`) near them;
 * when there are any, takes those writes out of `failures` and those
 * deletions out of `deletes`, and calls `run(first, strays, again)`, which
 * makes the deletions and checks and then the writes again, and says
 * whether it got that far (if not, the writes go back into `failures`).
 *
 * @example
 * ```ts
 * import { clashesFirst } from "./push_clash.ts";
 * await clashesFirst([], [], [], () => Promise.resolve(true)); // no clash: run is not called
 * ```
 */
export async function clashesFirst(
  plan: readonly PlanEntry[],
  failures: PushFailureEntry[],
  deletes: PlanEntry[],
  run: (first: PlanEntry[], strays: Set<PlanEntry>, again: PlanEntry[]) => Promise<boolean>,
): Promise<void> {
  const clashed = failures.filter((f) => f.error instanceof KeyClashError);
  if (clashed.length === 0) return;
  const near = (a: string, b: string) => a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
  const nearClash = (e: PlanEntry) => clashed.some((f) => near(e.path, f.entry.path));
  const first = deletes.filter(nearClash);
  const strays = new Set(
    plan.filter((e) =>
      e.strandedCheck && e.action === "skip" && e.syncedVersion === undefined && nearClash(e)
    ),
  );
  if (first.length === 0 && strays.size === 0) return;
  const firstPaths = [...first, ...strays];
  const again = clashed.filter((f) => firstPaths.some((d) => near(d.path, f.entry.path)));
  for (const f of again) failures.splice(failures.indexOf(f), 1);
  for (const d of first) deletes.splice(deletes.indexOf(d), 1);
  if (!(await run(first, strays, again.map((f) => f.entry)))) failures.push(...again);
}

/**
 * A synced shape this push replaces by the other (a file by a directory of
 * its name, or a directory by a file): its deletions (in `deletes`) go
 * first, through `run`, and are taken out of `deletes`; the writes of the
 * new shape (in `uploads` and the commit-step `commits`) wait for them. A
 * deletion that is not made (it meets a peer's change as a conflict, or
 * another writer's upload not committed yet, or fails, or is not tried:
 * see `PlanEntry.notTried`) holds back the
 * writes beside it, skipped and kept dirty with the way on in their reason:
 * published beside the shape that stays, they would leave the datastore
 * holding a file and files under a directory of one name, which no cache
 * can pull whole. Returns the writes to make, and those held back.
 */
export async function replacedFirst(
  uploads: readonly PlanEntry[],
  commits: readonly PlanEntry[],
  deletes: PlanEntry[],
  run: (first: PlanEntry[]) => Promise<void>,
  failures: readonly PushFailureEntry[],
): Promise<{ uploads: PlanEntry[]; commits: PlanEntry[]; held: PlanEntry[] }> {
  const none = { uploads: [...uploads], commits: [...commits], held: [] };
  const writes = [...uploads, ...commits];
  if (deletes.length === 0 || writes.length === 0) return none;
  const written = new Set(writes.map((u) => u.path));
  const writtenDirs = directoriesOf([...written]);
  // A deletion of a directory's file a write replaces, or of a file a write lies under.
  const first = deletes.filter((d) =>
    writtenDirs.has(d.path) || ancestorWhere(d.path, (a) => written.has(a)) !== undefined
  );
  if (first.length === 0) return none;
  for (const d of first) deletes.splice(deletes.indexOf(d), 1);
  await run(first);
  const failed = new Set(failures.map((f) => f.entry));
  const notMade = (d: PlanEntry) => d.action !== "delete" || failed.has(d) || !!d.notTried;
  const standing = new Map(first.filter(notMade).map((d) => [d.path, d]));
  if (standing.size === 0) return none;
  const standingPaths = new Set(standing.keys());
  const standingDirs = directoriesOf([...standingPaths]);
  const held: PlanEntry[] = [];
  for (const u of writes) {
    const file = ancestorWhere(u.path, (a) => standingPaths.has(a));
    const stays = file !== undefined
      ? standing.get(file)
      : standingDirs.has(u.path)
      ? [...standing.values()].find((d) => d.path.startsWith(`${u.path}/`))
      : undefined;
    if (!stays) continue;
    held.push(u);
    u.action = "skip";
    u.keepDirty = true;
    u.reason = `${
      file !== undefined
        ? `the file ${stays.path}, replaced here by a directory of its name,`
        : `${stays.path}, under the directory ${u.path} that this file replaces here,`
    } was not deleted on the datastore (${
      stays.reason ??
        (stays.notTried
          ? "its deletion was not tried: one before it could not reach the datastore"
          : "its deletion failed")
    }); published beside it, ${u.path} would leave the datastore holding a file and files under a directory of one name, which no cache can pull whole. Nothing of it was uploaded, and it stays marked: once ${stays.path} is settled (\`sluice resolve ${
      shellWord(stays.path)
    } --mine\` deletes it over the peer's version), push again`;
  }
  const heldSet = new Set(held);
  const kept = (e: PlanEntry) => !heldSet.has(e);
  return { uploads: uploads.filter(kept), commits: commits.filter(kept), held };
}
