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
      `the datastore holds ${shape}; publishing ${e.path} would leave the datastore holding a file and files under a directory of one name, which no cache can pull whole. Nothing of it was uploaded, and it stays marked. ${move} (a pull then fetches theirs), or, to put it in their place, have them deleted on the datastore first (a push of their deletion, by name, from a cache that holds them); if they were deleted meanwhile, \`sluice pull\` finds the way clear and the next push publishes it`;
  }
  return held;
}

/**
 * Holds back each file a walk found that would stand beside a synced shape
 * of one name the walk leaves on the datastore (`deletedHere`: a walk never
 * deletes): a file under a synced file's name now a directory here, or a
 * file in place of a synced directory whose files are gone here. A push of
 * that name, by name, makes the deletion and the write together.
 */
export function holdBackWalkReshapes(plan: PlanEntry[], deletedHere: readonly string[]): string[] {
  if (deletedHere.length === 0) return [];
  const gone = new Set(deletedHere);
  const goneDirs = new Map<string, string>();
  for (const p of deletedHere) {
    for (let i = p.indexOf("/"); i > 0; i = p.indexOf("/", i + 1)) {
      const d = p.slice(0, i);
      if (!goneDirs.has(d)) goneDirs.set(d, p);
    }
  }
  const held: string[] = [];
  for (const e of plan) {
    if (e.action !== "put" || e.source !== "walk") continue;
    let above: string | undefined;
    for (let i = e.path.indexOf("/"); i > 0 && !above; i = e.path.indexOf("/", i + 1)) {
      if (gone.has(e.path.slice(0, i))) above = e.path.slice(0, i);
    }
    const under = goneDirs.get(e.path);
    if (above === undefined && under === undefined) continue;
    const name = above ?? e.path;
    const old = above !== undefined
      ? `${above}, a file this cache synced and replaced here by a directory of that name`
      : `this cache's synced files under a directory ${e.path} (${under} among them), gone here`;
    e.action = "skip";
    e.keepDirty = true;
    held.push(e.path);
    e.reason =
      `a push of the whole cache never deletes on the datastore, so publishing it would leave ${old} beside it there: a file and files under a directory of one name, which no cache can pull whole. Nothing of it was uploaded. Push ${name} by its name (\`sluice push ${
        shellWord(name)
      }\`): that deletes the old shape there and publishes this one`;
  }
  return held;
}
