/**
 * Writes a push holds back because they would leave the datastore holding
 * a file and files under a directory of one name, which no cache can pull
 * whole: beside a path the last pull could not place here
 * ({@link holdBackClashes}), or beside a synced shape a walk found replaced
 * here and, never deleting, leaves on the datastore
 * ({@link holdBackWalkReshapes}). Each is skipped and kept dirty, with the
 * way on in its reason.
 *
 * @module
 */
import type { PlanEntry } from "../context.ts";
import { shellWord } from "../shell_word.ts";
import { directoriesOf } from "../paths.ts";
import type { SyncState } from "./state.ts";

/**
 * Holds back each write that would publish a file beside a path of the
 * other shape that the last pull could not place here, because that file
 * (or a directory of files) is in its way (see `blocked_record.ts`): the
 * datastore would then hold a file and files under a directory of one name,
 * which no cache can pull whole. The write is skipped and its path stays
 * dirty, with the way on in its reason.
 */
export function holdBackClashes(plan: PlanEntry[], state: SyncState): string[] {
  const held: string[] = [];
  for (const e of plan) {
    // A path with an open conflict is left to its resolution (see `push.ts`).
    if (e.action !== "put" || state.conflicts.has(e.path)) continue;
    const other = state.blocked.clashOf(e.path, (p) => state.synced(p) !== undefined);
    if (other === undefined) continue;
    const under = other.startsWith(`${e.path}/`);
    const shape = under
      ? `files under a directory ${e.path} (${other} among them), which the last pull could not place here because this file is in their way`
      : `a file ${other}, which the last pull could not place here because this cache's directory of that name is in its way`;
    const move = under
      ? "Move it to another name and push that"
      : `Move the directory ${other} (with everything in it) to another name and push that`;
    e.action = "skip";
    e.keepDirty = true;
    held.push(e.path);
    e.reason =
      `the datastore holds ${shape}; publishing ${e.path} would leave the datastore holding a file and files under a directory of one name, which no cache can pull whole. No push publishes it while that lasts (an upload an earlier push made of it stays named by no index), and it stays marked. ${move} (a pull then fetches theirs), or, to put it in their place, have them deleted on the datastore first (a push of their deletion, by name, from a cache that holds them); if they were deleted meanwhile, \`sluice pull\` finds the way clear and the next push publishes it`;
  }
  return held;
}

/**
 * Holds back each file a push would publish beside a synced shape of one
 * name that the push does not delete: a file under a synced file's name
 * (now a directory here), or a file in place of a synced directory whose
 * files stay. A walk never deletes, and a push of some paths deletes only
 * what it names (a marked directory stands for what is under it); a
 * deletion that meets an open conflict is not made either. A push of that
 * name, by name, makes the deletion and the write together.
 */
export function holdBackReshapes(
  plan: PlanEntry[],
  state: SyncState,
  deletedHere: readonly string[],
): string[] {
  if (state.syncedCount === 0) return [];
  const deleting = new Set<string>();
  // Synced files gone here that stay on the datastore: a walk's, or a
  // deletion that meets an open conflict. (A file here replaced a synced
  // directory only where every synced file under it is gone: the plan
  // deletes them, or they are among these.)
  const staying = [...deletedHere];
  for (const e of plan) {
    if (e.action !== "delete") continue;
    if (state.conflicts.has(e.path)) staying.push(e.path);
    else deleting.add(e.path);
  }
  let stayingDirs: Set<string> | undefined;
  const held: string[] = [];
  for (const e of plan) {
    if (e.action !== "put") continue;
    let above: string | undefined;
    for (let i = e.path.indexOf("/"); i > 0 && !above; i = e.path.indexOf("/", i + 1)) {
      const a = e.path.slice(0, i);
      if (state.synced(a) && !deleting.has(a)) above = a;
    }
    let under: string | undefined;
    if (above === undefined && (stayingDirs ??= directoriesOf(staying)).has(e.path)) {
      under = staying.find((p) => p.startsWith(`${e.path}/`));
    }
    if (above === undefined && under === undefined) continue;
    const name = above ?? e.path;
    // What this cache knows of the old shape is its own record of it: the
    // datastore may hold it still, or only an upload of that name no index
    // names yet (a commit cut off, say), which a later commit may name.
    const known = above !== undefined
      ? `this cache last synced ${above} as a file (replaced here by a directory of that name), and this push does not delete it (the datastore may hold that file still, or only an upload of that name that no index names yet)`
      : `this cache last synced files under a directory ${e.path} (${under} among them), and this push does not delete them (the datastore may hold those files still, or only uploads of those names that no index names yet)`;
    const conflicted = state.conflicts.has(above ?? under!);
    const other = shellWord(above ?? under!);
    const way = conflicted
      ? `${
        above ?? under
      } has an open conflict (changed on the datastore meanwhile): resolve it first: \`sluice resolve ${other} --mine\` deletes it on the datastore over that change${
        above !== undefined
          ? " and publishes the directory's files"
          : `, then push ${name} by its name (\`sluice push ${shellWord(name)}\`)`
      }; \`sluice resolve ${other} --theirs\` takes theirs instead and sets what is here aside`
      : `Push ${name} by its name (\`sluice push ${
        shellWord(name)
      }\`): that deletes the old shape there and publishes this one`;
    e.action = "skip";
    e.keepDirty = true;
    held.push(e.path);
    e.reason =
      `${known}: publishing it there could leave a file and files under a directory of one name, which no cache can pull whole. This push does not upload it. ${way}`;
  }
  return held;
}
