/**
 * The `sluice` command line: {@link run} parses arguments with commander,
 * runs one command against injected output writers and environment, and
 * returns the exit code (the error's `exitCode` on failure, 64 for usage
 * errors). `main.ts` wires it to the process.
 *
 * @module
 */
import { Command, CommanderError } from "commander";
import config from "../deno.json" with { type: "json" };
import { errorReport, Output, USAGE_EXIT_CODE } from "./output.ts";
import type { CliIo } from "./output.ts";
import type { RunState } from "./command_kit.ts";
import { probeCommand } from "./probe.ts";
import { pullCommand } from "./pull_command.ts";
import { pushCommand } from "./push_command.ts";
import { statusCommand } from "./status_command.ts";
import { lockCommand, lockfileCommand } from "./lock_commands.ts";
import { resolveCommand } from "./conflict_commands.ts";
import { theirsCommand } from "./theirs_command.ts";
import { heldCommand } from "./held_command.ts";
import { bucketCommand } from "./bucket_commands.ts";
import { indexCommand } from "./index_commands.ts";
import { STORE_ENV } from "./session.ts";

export type { CliIo } from "./output.ts";

const HELP_AFTER = `
Store URLs:
  file:///abs/dir  file://./rel/dir                     a local directory (the embedded default)
  s3://bucket/prefix?endpoint=URL&region=R              S3 or an S3-compatible endpoint
     (also path-style=true|false, checksums=when_supported|when_required,
      conditional-delete=native|verify|emulate; credentials from AWS_* variables)
  gs://bucket/prefix?endpoint=URL&project=P             Google Cloud Storage or an emulator
  on s3:// and gs://, timeout=<ms> bounds each request attempt (default 30000) and
  retries=<n> the attempts after a failed one (default 3): how long an endpoint that
  does not answer can hold a command
The store defaults to $${STORE_ENV}, else the store the cache was last used with.

Exit codes: 0 success, 2 a push or pull left files for a later run (sync_incomplete),
3 unresolved conflicts left (conflicts_left), 64 usage, and per error code otherwise (1 model_lock_lost and
version_exists, 69 unreachable and conditional_writes_unsupported, 75 lock_timeout and
push_failed, 78 invalid_config, …); --json prints the code with the message.`;

/** Applies output, exit and help settings to a command and all its subcommands. */
function configure(cmd: Command, io: CliIo): void {
  cmd
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => io.stderr(s),
      // There is no dry run of a push: an unknown option of it (a --dry-run,
      // say) names the status, its preview.
      outputError: (s, write) =>
        write(
          `error[usage]: ${s.replace(/^error:\s*/i, "")}${
            cmd.name() === "push" && /unknown option/.test(s)
              ? "(`sluice status` shows what a push would do, without pushing)\n"
              : ""
          }`,
        ),
      getOutHelpWidth: () => io.columns ?? 80,
      getErrHelpWidth: () => io.columns ?? 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .exitOverride()
    .showHelpAfterError(
      // A command group names its commands (a mistyped one may resemble none).
      cmd.parent && cmd.commands.length > 0
        ? `(\`sluice ${cmd.name()}\` takes one of: ${
          cmd.commands.map((c) => c.name()).join(", ")
        }; add --help for usage)`
        : "(add --help for usage)",
    );
  for (const sub of cmd.commands) configure(sub, io);
}

/**
 * Builds the `sluice` program; actions record their exit code in `state`.
 *
 * @example
 * ```ts
 * import { buildProgram } from "./commands.ts";
 * const program = buildProgram({ stdout: () => {}, stderr: () => {} }, { code: 0 });
 * console.log(program.commands.map((c) => c.name()));
 * ```
 */
export function buildProgram(io: CliIo, state: RunState): Command {
  const program = new Command("sluice")
    .description("Safe many-writer sync of a datastore cache to S3, GCS or a local directory.")
    .version(config.version, "-V, --version")
    .addHelpText("after", HELP_AFTER);
  program.addCommand(probeCommand(io, state));
  program.addCommand(pushCommand(io, state));
  program.addCommand(pullCommand(io, state));
  program.addCommand(statusCommand(io, state));
  program.addCommand(resolveCommand(io, state));
  program.addCommand(theirsCommand(io, state));
  program.addCommand(heldCommand(io, state));
  program.addCommand(lockCommand(io, state));
  program.addCommand(lockfileCommand(io, state));
  program.addCommand(bucketCommand(io, state));
  program.addCommand(indexCommand(io, state));
  configure(program, io);
  return program;
}

/**
 * Runs the command line with `args` (without the program name) and returns
 * its exit code. Output goes only to `io.stdout` / `io.stderr`; nothing
 * touches the process, so tests call it in-process.
 *
 * @example
 * ```ts
 * import { run } from "./commands.ts";
 * let text = "";
 * const code = await run(["--help"], { stdout: (s) => (text += s), stderr: () => {} });
 * console.log(code, text.includes("push")); // 0 true
 * ```
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  const state: RunState = { code: 0 };
  const program = buildProgram({ ...io, argv: args }, state);
  try {
    await program.parseAsync(args, { from: "user" });
    return state.code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version exit 0; commander already printed anything else as error[usage].
      if (e.exitCode === 0) return 0;
      if (e.code === "commander.help") {
        // A command group run without its command: commander printed the
        // group's help alone; say what was wrong, with the usage code.
        const group = ["sluice", ...args.filter((a) => !a.startsWith("-"))].join(" ");
        io.stderr(
          `error[usage]: ${group} needs a command: name one of those listed above; nothing was done.\n`,
        );
        return USAGE_EXIT_CODE;
      }
      if (args.includes("--json")) {
        const error = {
          code: "usage",
          message: e.message.replace(/^error:\s*/i, ""),
          exitCode: USAGE_EXIT_CODE,
        };
        io.stdout(
          `${
            JSON.stringify({ ok: false, command: commandNamed(program, args), error }, null, 2)
          }\n`,
        );
      }
      return USAGE_EXIT_CODE;
    }
    const out = new Output(io, { json: args.includes("--json") });
    return out.fail(commandNamed(program, args), errorReport(e));
  }
}

/**
 * The command `args` name, as its output names it (`push`, `lock list`):
 * the first word that is no option where it names a command, then the
 * subcommand the next one names (the program and its command groups take
 * no option with a value); `sluice` when it names none (an unknown
 * command, or options only): never an option or a mistyped word.
 */
function commandNamed(program: Command, args: readonly string[]): string {
  const names: string[] = [];
  let at = program;
  for (const word of args) {
    if (word.startsWith("-")) continue;
    const sub = at.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub === undefined) break;
    names.push(sub.name());
    if (sub.commands.length === 0) break;
    at = sub;
  }
  return names.length > 0 ? names.join(" ") : "sluice";
}
