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
 * whether it has.
 */
export function duringMarksRead(
  svc: SyncService,
  during: () => Promise<void>,
): { ran: () => boolean } {
  const marked = svc.state.markedElsewhere.bind(svc.state);
  let pending: (() => Promise<void>) | undefined = during;
  svc.state.markedElsewhere = async () => {
    const seen = await marked();
    const now = pending;
    pending = undefined;
    await now?.();
    return seen;
  };
  return { ran: () => pending === undefined };
}
