/**
 * A step run inside a pull's window: just after the pull of `svc` looks at
 * what the other processes over its cache marked, and before it plans.
 *
 * @module
 */
import type { SyncService } from "./service.ts";

/**
 * `svc`'s next look at what the other processes over its cache marked runs
 * `during` once, after the look and before its answer is used; `ran` says
 * whether it has. `passed` looks are let by first: a pull looks twice, before
 * it reads the index and after it (pass 1 for the look just before it plans).
 */
export function duringMarksRead(
  svc: SyncService,
  during: () => Promise<void>,
  passed = 0,
): { ran: () => boolean } {
  const marked = svc.state.markedElsewhere.bind(svc.state);
  let pending: (() => Promise<void>) | undefined = during;
  let toPass = passed;
  svc.state.markedElsewhere = async () => {
    const seen = await marked();
    if (toPass-- > 0) return seen;
    const now = pending;
    pending = undefined;
    await now?.();
    return seen;
  };
  return { ran: () => pending === undefined };
}
