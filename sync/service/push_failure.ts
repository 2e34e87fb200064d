/**
 * The error a push throws when some of its writes failed: one kind of
 * failure keeps its code, several make a `push_failed` naming the first.
 *
 * @module
 */
import { SluiceError, VersionConflictError } from "../errors.ts";
import type { PlanEntry } from "../context.ts";

/**
 * The error of a push whose `failures` failed, with `heldBack` commit-step
 * writes (markers, index files) held back because of them.
 *
 * @example
 * ```ts
 * import { pushFailure } from "./push_failure.ts";
 * console.log(pushFailure([{ entry: { path: "a" } as never, error: new Error("x") }], 0).message);
 * ```
 */
export function pushFailure(
  failures: { entry: PlanEntry; error: unknown }[],
  heldBack: number,
  committed?: number,
): Error {
  // What else the push did: a failure of some files is not one of all.
  const others = committed === undefined
    ? ""
    : committed > 0
    ? ` The push's other ${committed} file(s) were pushed and committed.`
    : " Nothing else of this push was committed.";
  const conflicts = failures.filter((f) => f.error instanceof VersionConflictError);
  if (conflicts.length > 0) {
    const keys = conflicts.flatMap((f) => (f.error as VersionConflictError).keys);
    const aside = conflicts.flatMap((f) => (f.error as VersionConflictError).setAsideTo);
    const kinds = new Set(conflicts.map((f) => (f.error as VersionConflictError).ownEarlier));
    const own = kinds.size === 1 ? [...kinds][0] ?? "mixed" : "mixed";
    const shown = conflicts.flatMap((f) => (f.error as VersionConflictError).setAsideShown);
    const unindexed = conflicts.every((f) => (f.error as VersionConflictError).unindexed);
    const ahead = conflicts.flatMap((f) => (f.error as VersionConflictError).keptAhead);
    const e = new VersionConflictError(keys, aside, own, shown, unindexed, ahead);
    e.message += others;
    return e;
  }
  const codes = new Set(failures.map((f) => f.error instanceof SluiceError ? f.error.code : ""));
  if (failures[0].error instanceof SluiceError && codes.size === 1 && !codes.has("")) {
    // One kind of failure: keep its code and exit code, and say what else was done.
    const e = failures[0].error;
    const more = failures.length > 1
      ? ` ${failures.length - 1} more file(s) failed the same way.`
      : "";
    e.message += `${more}${others}`;
    return e;
  }
  const first = failures[0].error;
  return new SluiceError(
    "push_failed",
    `${failures.length} file(s) could not be pushed (first: ${failures[0].entry.path}: ${
      first instanceof Error ? first.message : String(first)
    }).${
      heldBack ? ` ${heldBack} marker/index file(s) were held back.` : ""
    } Every file that failed stays dirty in the cache; run the push again.${others}`,
    {
      cause: first,
      retryable: failures.every((f) => f.error instanceof SluiceError && f.error.retryable),
    },
  );
}
