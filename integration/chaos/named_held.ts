/**
 * I33, a file the index names is on every clone after the final sync: each
 * file at a shared file's path or under its name (a directory that replaced
 * it) that the index names is held by every clone, as a file, after the
 * final sync, unless that clone's user replaced, edited or deleted that very
 * path itself (a deletion of the file whose name a peer's directory took is
 * no deletion of the files under it), or the clone has an open conflict at
 * the path, above it or under it, or its final pull left the path out as
 * blocked (something of its own of the other shape in the way: I15's), or
 * something of its own of the other shape is there (a file above it, a
 * directory at it). A clone that lacks such a file with none of these
 * silently lacks a published file, which no pull brings back, while its
 * synced record says it has it: a walk then offers the file's deletion
 * for a push its user never made. The paths the final sync spares
 * otherwise (old clients' writes, another tool's deletions, clashes of two
 * shapes) are spared here too.
 *
 * Its other half ({@link checkMarkedUnder}): a file a clone's user wrote
 * under a directory at a shared file's name and marked by the directory's
 * name (an `under` edit: the mark of a name stands for what is under it) is
 * named by the index with its bytes after the final sync, unless that clone
 * still holds it marked (its push said why it did not publish it) or has a
 * conflict open at, above or under it, or anyone changed that path since. A
 * clone that holds such a file unpublished and unmarked lost its user's
 * mark: no push publishes it, and none said so.
 *
 * @module
 */
import type { IndexEntry } from "../../sync/transfer/bucket_layout.ts";
import type { Violation } from "./invariants.ts";
import { inSharedFiles } from "./named_deletions.ts";

/** What one clone's final state says about a path. */
export interface HeldClone {
  readonly index: number;
  /** Its cache directory. */
  readonly dir: string;
  /** The paths of its open conflicts. */
  readonly conflicts: readonly string[];
  /** The paths its last final pull left out as blocked. */
  readonly blocked: readonly string[];
  /** True when its user replaced, edited or deleted exactly `path` here. */
  readonly touched: (path: string) => boolean;
  /**
   * True when the index came to name `path` as it does only after this
   * clone's last final pull (a third round's push, which only the clones
   * whose pull found the way clear run): no pull of its has met it yet.
   */
  readonly namedAfterItsPull?: (path: string) => boolean;
}

const near = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

async function kindAt(dir: string, path: string): Promise<"file" | "dir" | undefined> {
  const st = await Deno.lstat(`${dir}/${path}`).catch(() => null);
  return st?.isFile ? "file" : st?.isDirectory ? "dir" : undefined;
}

/** True when something of the other shape is in the way of a file at `path` here. */
async function otherShapeHere(dir: string, path: string): Promise<boolean> {
  if (await kindAt(dir, path) === "dir") return true;
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    if (await kindAt(dir, parts.slice(0, i).join("/")) === "file") return true;
  }
  return false;
}

/**
 * I33 over `entries` (the index's entries after the final sync) and every
 * clone; `spared` names the paths the final sync spares otherwise.
 *
 * @example
 * ```ts ignore
 * const v = await checkNamedHeld(entries, clones, () => false);
 * ```
 */
export async function checkNamedHeld(
  entries: Readonly<Record<string, IndexEntry>>,
  clones: readonly HeldClone[],
  spared: (path: string) => boolean,
): Promise<Violation[]> {
  const out: Violation[] = [];
  for (const path of Object.keys(entries).filter(inSharedFiles).sort()) {
    if (spared(path)) continue;
    for (const c of clones) {
      if (await kindAt(c.dir, path) === "file") continue;
      if (c.touched(path)) continue;
      if (c.namedAfterItsPull?.(path)) continue;
      if (c.conflicts.some((p) => near(p, path)) || c.blocked.some((p) => near(p, path))) continue;
      if (await otherShapeHere(c.dir, path)) continue;
      out.push({
        invariant: "I33",
        message:
          `after the final sync the index names ${path}, which clone c${c.index} does not hold, though its user never changed or deleted that path there, no conflict is open there and nothing of its own is in the way: a published file silently missing here, no pull bringing it back`,
        afterOp: -1,
      });
    }
  }
  return out;
}

/** A file a clone's user wrote under a directory and marked by that directory's name. */
export interface MarkedUnder {
  readonly op: number;
  readonly clone: number;
  readonly path: string;
  readonly hash: string;
  /** True when anyone changed that path after this write (its clone's own later edit included). */
  readonly changedSince: boolean;
}

/**
 * I33's marked files over `entries` (the index's entries after the final
 * sync): each of `writes` is named with its bytes, unless its clone holds it
 * marked still (`dirty`, by its path or a directory above it) or has a
 * conflict open near it (`conflicts`), or it was changed since.
 *
 * @example
 * ```ts ignore
 * const v = checkMarkedUnder(entries, writes, () => [], () => []);
 * ```
 */
export function checkMarkedUnder(
  entries: Readonly<Record<string, IndexEntry>>,
  writes: readonly MarkedUnder[],
  dirty: (clone: number) => readonly string[],
  conflicts: (clone: number) => readonly string[],
): Violation[] {
  const out: Violation[] = [];
  for (const w of writes) {
    if (w.changedSince || entries[w.path]?.h === w.hash) continue;
    if (dirty(w.clone).some((p) => near(p, w.path))) continue;
    if (conflicts(w.clone).some((p) => near(p, w.path))) continue;
    out.push({
      invariant: "I33",
      message:
        `clone c${w.clone}'s user wrote ${w.path} under a directory and marked the directory's name (op #${w.op}); after the final sync the index does not name it with those bytes, and c${w.clone} neither holds it marked nor has a conflict there: its mark was lost, no push publishes it and none said so`,
      afterOp: -1,
    });
  }
  return out;
}
