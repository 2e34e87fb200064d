/**
 * What a finished push, pull, resolve or status left behind, as every
 * command reports it, and what to run for an open conflict.
 *
 * @module
 */
import type { SyncIncompleteError } from "../sync/left_behind.ts";
import type { Output } from "./output.ts";

/**
 * What a finished push or pull left behind, as the command reports it: a
 * `warning[<code>]` line and the JSON `outcome`; the exit code is the
 * error's (`conflicts_left` 3, `sync_incomplete` 2), 0 when clean.
 */
export function outcomeOf(
  out: Output,
  left: SyncIncompleteError | null,
): { outcome: { code: string; exitCode: number; message?: string }; exitCode: number } {
  if (!left) return { outcome: { code: "ok", exitCode: 0 }, exitCode: 0 };
  out.warn({ code: left.code, message: left.message });
  return {
    outcome: { code: left.code, exitCode: left.exitCode, message: left.message },
    exitCode: left.exitCode,
  };
}

/** What to run for an open conflict: a push again would only find it again. */
export const RESOLVE_HINT =
  "Each conflict stays until resolved: run `sluice status` to see both versions, then `sluice resolve <path> --mine|--theirs|--merged`.";
