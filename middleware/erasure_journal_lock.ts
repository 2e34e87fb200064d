/**
 * The erasure journal's lock: every change of the journal, and the
 * completion of the erasure it describes, runs holding it, on the journal as
 * it is on disk then.
 *
 * @module
 */
import {
  type ErasureDeps,
  type ErasureJournal,
  readErasureJournal,
  writeErasureJournal,
} from "./erasure_journal.ts";

/** File name of the lock every process takes around a change of the journal. */
export const ERASURE_LOCK = "erasure.lock";

/** How often a process waiting for the journal's lock looks again, in ms. */
export const ERASURE_LOCK_POLL_MS = 50;

/**
 * Runs `fn` on the journal as it is on disk now, holding the journal's lock
 * ({@link ERASURE_LOCK}, a file lock in the state directory: see
 * `StateAccess.holdLock`) for as long as `fn` runs: two processes over one
 * cache (a run refused in one while the other's push resumes the same
 * erasure) each see what the other wrote, never a copy read before it, so
 * neither writes the other's progress away (a directory moved aside and its
 * kept bytes forgotten, an upload left undeleted). While another process
 * holds it, this one looks again every {@link ERASURE_LOCK_POLL_MS} on
 * `deps.clock` (the other's erasure makes store calls, so it may hold it
 * for as long as those take). A state without such locks runs `fn`
 * unlocked. Never nested: `fn` must not take it again.
 */
export async function withErasureJournal<T>(
  deps: Pick<ErasureDeps, "cache" | "state" | "clock" | "signal">,
  fn: (journal: ErasureJournal) => Promise<T>,
): Promise<T> {
  const sleep = (ms: number) =>
    deps.clock
      ? deps.clock.sleep(ms, deps.signal)
      : new Promise<void>((resolve) => setTimeout(resolve, ms));
  const release = deps.state.holdLock
    ? await deps.state.holdLock(ERASURE_LOCK, () => {
      deps.signal?.throwIfAborted();
      return sleep(ERASURE_LOCK_POLL_MS);
    })
    : () => {};
  try {
    return await fn(await readErasureJournal(deps.cache));
  } finally {
    release();
  }
}

/**
 * Changes the journal as it is on disk now (see {@link withErasureJournal}),
 * writes it, and returns it.
 */
export async function updateErasureJournal(
  deps: Pick<ErasureDeps, "cache" | "state" | "clock" | "signal">,
  change: (journal: ErasureJournal) => void,
): Promise<ErasureJournal> {
  return await withErasureJournal(deps, async (journal) => {
    change(journal);
    await writeErasureJournal(deps.cache, journal);
    return journal;
  });
}
