/**
 * The command line's handling of Ctrl-C, SIGTERM and SIGHUP: the first
 * signal of a kind cancels the command cleanly, which then ends with
 * `aborted` (130), never 0; a second one of the same kind exits at once.
 * A signal of another kind does not: `bin/sluice.cjs` passes a SIGINT on as
 * a SIGTERM, and a Ctrl-C reaches this process directly too.
 *
 * @module
 */
import { shellWord } from "../sync/shell_word.ts";

/** The signals the command line answers. */
export const INTERRUPT_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** One of {@link INTERRUPT_SIGNALS}. */
export type InterruptSignal = typeof INTERRUPT_SIGNALS[number];

/** What {@link interruptHandler} acts on: the command's cancellation, and the process's exit. */
export interface InterruptIo {
  /** Cancelled at the first signal. */
  abort: AbortController;
  /** The command's arguments, as typed (named in the way on). */
  argv: readonly string[];
  /** Writes to the standard error at once (before an exit). */
  stderr: (text: string) => void;
  /** Ends the process at once with `code`. */
  exit: (code: number) => void;
}

/**
 * The handler of each signal a process running a command receives: call it
 * with the signal's name.
 *
 * @example
 * ```ts
 * import { interruptHandler } from "./interrupt.ts";
 * const abort = new AbortController();
 * const onSignal = interruptHandler({
 *   abort,
 *   argv: ["push"],
 *   stderr: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
 *   exit: (code) => Deno.exit(code),
 * });
 * onSignal("SIGINT"); // abort.signal.aborted is now true
 * ```
 */
export function interruptHandler(io: InterruptIo): (signal: InterruptSignal) => void {
  const seen = new Set<InterruptSignal>();
  return (signal) => {
    if (seen.has(signal)) {
      const again = `sluice ${io.argv.map(shellWord).join(" ")}`;
      try {
        io.stderr(
          `error[aborted]: Stopped at once by a second interrupt, without the clean-up the first one began. What the command committed stays committed; the rest is left as a crash leaves it, which the next run takes up: run \`${again}\` again (\`sluice status\` shows where the cache stands).\n`,
        );
      } catch { /* a closed standard error: exit all the same */ }
      io.exit(130);
      return;
    }
    seen.add(signal);
    io.abort.abort();
  };
}
