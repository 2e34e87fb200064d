/**
 * What a resolution left behind (`ResolveResult.leftBehind`), as a push's
 * or a status's answer says it (`LeftBehind`): read from the resolution's
 * own push, whatever gate held a path back, so that no resolution is taken
 * for success while a path it was to publish waits. And what several
 * resolutions run one after another left, once all are done.
 *
 * @module
 */
import type { LeftBehind } from "../left_behind.ts";
import { pushLeftBehind } from "./push_result.ts";
import type { ResolveOutcome, ResolveResult } from "./resolve.ts";

/** Why a `--theirs` took nothing, the conflict left open with no newer theirs. */
const THEIRS_NOT_TAKEN = "the datastore's object is not the one its index names";

/**
 * What a resolution left behind: what its push left, as a push's answer
 * says it (its conflicts, the paths it held back and kept dirty, with its
 * reasons), with the path's own conflict; and the path itself where it was
 * neither published nor taken and no conflict names it.
 *
 * @example
 * ```ts
 * import { leftBehindOf } from "./resolve_left.ts";
 * const r = { path: "a.md", resolution: "theirs" as const, resolved: false, setAside: [], conflicts: [] };
 * console.log(leftBehindOf(r).left); // [{ path: "a.md", reason: "the datastore's object is not the one its index names" }]
 * ```
 */
export function leftBehindOf(r: ResolveOutcome): LeftBehind {
  const pushed: LeftBehind = r.push ? pushLeftBehind(r.push) : { conflicts: [], left: [] };
  const conflicts = [...new Set([...r.conflicts, ...pushed.conflicts])];
  const left = pushed.left.filter((l) => !conflicts.includes(l.path));
  if (!r.resolved && conflicts.length === 0 && !left.some((l) => l.path === r.path)) {
    left.unshift({
      path: r.path,
      reason: r.resolution === "theirs" ? THEIRS_NOT_TAKEN : "not published yet",
    });
  }
  return {
    conflicts,
    left,
    ...(pushed.localDeletions?.length ? { localDeletions: pushed.localDeletions } : {}),
    ...(pushed.localOnly?.length ? { localOnly: pushed.localOnly } : {}),
  };
}

/**
 * What resolutions run one after another (`done`, in their order) left
 * behind once all are done: each path as the last of them to meet it left
 * it. A later resolution of a path, or a later push that published it,
 * settles what an earlier push left there (the marker in conflict beside a
 * version's deletion, then resolved itself); a path named by several is
 * told once.
 *
 * @example
 * ```ts
 * import { resolutionsLeftBehind } from "./resolve_left.ts";
 * console.log(resolutionsLeftBehind([])); // { conflicts: [], left: [] }
 * ```
 */
export function resolutionsLeftBehind(done: readonly ResolveResult[]): LeftBehind {
  const conflicts = new Set<string>();
  const left = new Map<string, { path: string; reason: string }>();
  const localOnly = new Map<string, { path: string; reason: string }>();
  for (const r of done) {
    const push = r.push;
    for (
      const p of [r.path, ...push?.uploaded ?? [], ...push?.identical ?? [], ...push?.deleted ?? []]
    ) {
      conflicts.delete(p);
      left.delete(p);
      localOnly.delete(p);
    }
    for (const p of r.leftBehind.conflicts) {
      conflicts.add(p);
      left.delete(p);
    }
    for (const l of r.leftBehind.left) if (!conflicts.has(l.path)) left.set(l.path, l);
    for (const l of r.leftBehind.localOnly ?? []) localOnly.set(l.path, l);
  }
  return {
    conflicts: [...conflicts],
    left: [...left.values()],
    ...(localOnly.size ? { localOnly: [...localOnly.values()] } : {}),
  };
}
