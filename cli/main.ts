/**
 * The `sluice` entry point: `deno run -A cli/main.ts <command> …` (or
 * `deno task sluice <command> …`). It only wires the process (arguments,
 * standard streams, environment, Ctrl-C, exit code) to {@link run}.
 *
 * @module
 */
import { run } from "./commands.ts";
import { streamWriter } from "./output.ts";
import { INTERRUPT_SIGNALS, interruptHandler } from "./interrupt.ts";

export { run } from "./commands.ts";
export type { CliIo } from "./commands.ts";

/** The directory of the project's `deno.json`, where `deno task` runs its tasks. */
const PROJECT_ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

if (import.meta.main) {
  const abort = new AbortController();
  // The first Ctrl-C (or SIGTERM, SIGHUP) cancels the command cleanly; a
  // second one of the same kind exits at once (see interrupt.ts).
  const onSignal = interruptHandler({
    abort,
    argv: Deno.args,
    stderr: (text) => {
      const bytes = new TextEncoder().encode(text);
      for (let n = 0; n < bytes.length;) n += Deno.stderr.writeSync(bytes.subarray(n));
    },
    exit: (code) => Deno.exit(code),
  });
  const listeners = INTERRUPT_SIGNALS.map((s) => {
    const onInterrupt = () => onSignal(s);
    Deno.addSignalListener(s, onInterrupt);
    return [s, onInterrupt] as const;
  });
  let env: Record<string, string> = {};
  try {
    env = Deno.env.toObject();
  } catch { /* without --allow-env: no environment */ }
  const code = await run(Deno.args, {
    // `deno task sluice` runs in the project's directory: relative paths are
    // then the user's, from where the task was started (`INIT_CWD`). Run
    // from anywhere else, the working directory is the user's own.
    ...(env.INIT_CWD && Deno.cwd() === PROJECT_ROOT ? { cwd: env.INIT_CWD } : {}),
    stdout: streamWriter(Deno.stdout),
    stderr: streamWriter(Deno.stderr),
    env,
    isTTY: Deno.stdout.isTerminal(),
    columns: Deno.stdout.isTerminal() ? Deno.consoleSize().columns : undefined,
    signal: abort.signal,
  });
  for (const [s, onInterrupt] of listeners) Deno.removeSignalListener(s, onInterrupt);
  Deno.exit(code);
}
