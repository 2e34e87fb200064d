/**
 * What the command line prints: results for people (stdout), warnings and
 * errors (stderr, `warning[<code>]: …`, `error[<code>]: …`), and one JSON
 * document per command on stdout with `--json`.
 *
 * @module
 */
import { SluiceError } from "../sync/errors.ts";
import type { GateEvent, WarningEvent } from "../sync/events.ts";
import type { OpenedStore, OpenStoreOptions, StoreSpec } from "./store_url.ts";

/** The command line's window on the world, injected so tests run it in-process. */
export interface CliIo {
  /** Writes to standard output (no newline is added). */
  stdout(s: string): void;
  /** Writes to standard error (no newline is added). */
  stderr(s: string): void;
  /** Environment (`SLUICE_STORE`, `USER`, `AWS_*`); default none. */
  env?: Readonly<Record<string, string>>;
  /** True when stdout is a terminal: progress bars are drawn only then (and never with `--json`). */
  isTTY?: boolean;
  /** Terminal width for progress bars. */
  columns?: number;
  /** Directory relative paths resolve against; default the process's cwd. */
  cwd?: string;
  /** Cancels the running command (Ctrl-C); it then exits with the `aborted` code. */
  signal?: AbortSignal;
  /** The arguments the command was run with (after `sluice`), for hints that repeat it. */
  argv?: readonly string[];
  /** Opens the store a command works with; default `openStore` of `store_url.ts` (tests pass a faulty one). */
  openStore?: (spec: StoreSpec, options: OpenStoreOptions) => OpenedStore;
}

export { shellWord } from "../sync/shell_word.ts";
import { shellWord } from "../sync/shell_word.ts";

/** A `sluice` command (as a message names it) that opens a cache, and so takes `--cache`. */
const OPENS_A_CACHE =
  /^sluice (push|pull|status|resolve|theirs|lock (list|inspect|release)|lockfile (add|remove|retry|repair)|index migrate)(\s|$)/;

/**
 * `text` with `args` (e.g. `["--cache", "/data/c"]`) added to every command
 * it names in backquotes that opens a cache and does not name one already
 * (`--cache`): the next step a message names then acts on the cache the
 * command was run with, not on the default `./.sluice-cache`. Nothing
 * changes without `args`.
 *
 * @example
 * ```ts
 * import { namingTheCache } from "./output.ts";
 * namingTheCache("Run `sluice status`.", ["--cache", "/c"]); // "Run `sluice status --cache /c`."
 * ```
 */
export function namingTheCache(text: string, args: readonly string[]): string {
  if (args.length === 0) return text;
  const extra = args.map(shellWord).join(" ");
  return text.replace(
    /`(sluice [^`]*)`/g,
    (whole, cmd: string) =>
      OPENS_A_CACHE.test(cmd) && !/(^|\s)--cache(\s|=|$)/.test(cmd) && !cmd.includes(" | ")
        ? `\`${cmd} ${extra}\``
        : whole,
  );
}

/**
 * `text` with each `<store-url>` placeholder (in a command a message names
 * to run next, e.g. `sluice bucket create <store-url>`) given the store
 * this command used, as one shell word; unchanged without one.
 *
 * @example
 * ```ts
 * import { namingTheStore } from "./output.ts";
 * namingTheStore("create it (`sluice bucket create <store-url>`)", "s3://b/p"); // "… create s3://b/p`)"
 * ```
 */
export function namingTheStore(text: string, url: string | undefined): string {
  return url === undefined ? text : text.replaceAll("<store-url>", shellWord(url));
}

/** A failure as printed and as returned in `--json` output. */
export interface ErrorReport {
  /** The error code (`usage` for usage errors). */
  readonly code: string;
  /** What happened and what to run next. */
  readonly message: string;
  /** The process exit code. */
  readonly exitCode: number;
}

/** Exit code of command-line usage errors (sysexits EX_USAGE). */
export const USAGE_EXIT_CODE = 64;

/**
 * A command line used wrongly (a missing confirmation flag, a bad argument):
 * printed as `error[usage]` with exit code {@link USAGE_EXIT_CODE}.
 */
export class UsageError extends Error {
  /** A usage error with its message. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * The report of any thrown value: a `SluiceError` keeps its code and exit
 * code; a {@link UsageError} is `usage` (exit 64); anything else is
 * `internal` (exit 70).
 *
 * @example
 * ```ts
 * import { errorReport } from "./output.ts";
 * import { ConfigError } from "../sync/errors.ts";
 * errorReport(new ConfigError("store", "a URL")).exitCode; // 78
 * ```
 */
export function errorReport(e: unknown): ErrorReport {
  if (e instanceof UsageError) {
    return { code: "usage", message: e.message, exitCode: USAGE_EXIT_CODE };
  }
  if (e instanceof SluiceError) return { code: e.code, message: e.message, exitCode: e.exitCode };
  const detail = e instanceof Error ? e.message : String(e);
  return {
    code: "internal",
    message:
      `Unexpected failure: ${detail}. Nothing more was done; local changes stay in the cache. Run the command again; if it keeps failing, report this message.`,
    exitCode: 70,
  };
}

/**
 * A writer of `stream` for the command line: writes each string whole. Once
 * the reader is gone (a closed pipe, as in `sluice status | head`), later
 * output is dropped instead of failing, so that the command still finishes
 * its work and exits with its own code.
 */
export function streamWriter(stream: { writeSync(p: Uint8Array): number }): (s: string) => void {
  const enc = new TextEncoder();
  let gone = false;
  return (s: string) => {
    if (gone) return;
    const bytes = enc.encode(s);
    let off = 0;
    try {
      while (off < bytes.length) off += stream.writeSync(bytes.subarray(off));
    } catch (e) {
      if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
      gone = true;
    }
  };
}

/** C0 control characters and DEL. */
// deno-lint-ignore no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/**
 * One line of human output as a terminal should get it: control characters
 * (a newline, a tab or an escape sequence in a file name) shown as `\n`,
 * `\t`, `\u001b`, so that a name can neither break the line nor drive the
 * terminal. `--json` output carries the names as they are.
 *
 * @example
 * ```ts
 * import { forTerminal } from "./output.ts";
 * forTerminal("notes/a\u001b[2Jb.txt"); // "notes/a\\u001b[2Jb.txt"
 * ```
 */
export function forTerminal(line: string): string {
  return line.replace(
    CONTROL_CHARACTERS,
    (c) =>
      c === "\n"
        ? "\\n"
        : c === "\t"
        ? "\\t"
        : c === "\r"
        ? "\\r"
        : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Gate notes shown per gate before the rest are counted instead (all with `--verbose`). */
export const NOTES_SHOWN_PER_GATE = 10;

/**
 * Warnings of one code shown before the rest are counted instead (all with
 * `--verbose`; `--json` lists them all): a push of 1,500 files changed
 * remotely prints 10 `changed_remotely` paragraphs, not 1,500.
 */
export const WARNINGS_SHOWN_PER_CODE = 10;

/** Paths listed one per line in a command's result before the rest are counted. */
export const PATHS_LISTED = 20;

/**
 * `lines`, but past `limit` of them one line counting the rest instead
 * (`more` words it), so that a result of 10,000 paths stays readable.
 */
export function capped(
  lines: readonly string[],
  more: (n: number) => string,
  limit = PATHS_LISTED,
): string[] {
  return lines.length <= limit
    ? [...lines]
    : [...lines.slice(0, limit), more(lines.length - limit)];
}

/** `1.5 KiB` style sizes. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** `1 file` / `2 files`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/**
 * Output of one command run: human lines or one JSON document, warnings and
 * gate notes collected as they are emitted.
 */
export class Output {
  /** `--json` was given. */
  readonly json: boolean;
  /** `--verbose` was given: every gate note is shown. */
  readonly verbose: boolean;
  /** Warnings emitted during the command. */
  readonly warnings: WarningEvent[] = [];
  /** Gate notes emitted during the command. */
  readonly gates: GateEvent[] = [];
  readonly #io: CliIo;
  /** Notes shown so far, per gate. */
  readonly #shown = new Map<string, number>();
  /** Notes not shown yet counted, per gate (told by the next line said). */
  readonly #hidden = new Map<string, number>();
  /** Warnings shown so far, per code. */
  readonly #warningsShown = new Map<string, number>();
  /** Warnings not shown yet counted, per code (told with the notes). */
  readonly #warningsHidden = new Map<string, number>();
  /** Inside {@link Output.together}: the counts are told at its end, not by each line said. */
  #together = 0;
  /** Called before each line is written: takes a progress bar off the screen. */
  #interrupt: (() => void) | undefined;

  /** Options added to the commands messages name (see {@link namingTheCache}). */
  readonly #cacheArgs: readonly string[];
  /** The store's URL, for the commands messages name (see {@link namingTheStore}). */
  #storeUrl: string | undefined;

  /**
   * Output to `io`, as JSON with `json`. `cacheArgs` (the `--cache` the
   * command was given, when not the default) are added to each command a
   * line, warning or error names to run next on that cache.
   */
  constructor(
    io: CliIo,
    options: { json?: boolean; verbose?: boolean; cacheArgs?: readonly string[] } = {},
  ) {
    this.#io = io;
    this.json = options.json ?? false;
    this.verbose = options.verbose ?? false;
    this.#cacheArgs = options.cacheArgs ?? [];
  }

  /**
   * Has `fn` called before each line this output writes (none when
   * `undefined`): a progress bar removes itself from the screen there, to be
   * drawn again below the line by the next progress event, so that a line
   * written while the bar is drawn neither lands at the end of the bar's line
   * nor is erased when the bar is cleared.
   */
  /**
   * Names `url` (the store this command uses) in each command a later line,
   * warning or error names with a `<store-url>` placeholder.
   */
  usingStore(url: string): void {
    this.#storeUrl = url;
  }

  /** `text` naming this command's cache and store in the commands it names. */
  #naming(text: string): string {
    return namingTheStore(namingTheCache(text, this.#cacheArgs), this.#storeUrl);
  }

  interruptWith(fn: (() => void) | undefined): void {
    this.#interrupt = fn;
  }

  /** A line for people (nothing with `--json`). */
  say(line = ""): void {
    if (this.json) return;
    this.#interrupt?.();
    if (this.#together === 0) this.#tellHidden();
    this.#io.stdout(`${forTerminal(this.#naming(line))}\n`);
  }

  /**
   * Runs `fn`, whose lines (one result per file, as `resolve <dir>` says
   * them) do not each tell the notes and warnings counted so far: they are
   * told once, when `fn` ends, one line per gate or code for the whole run.
   */
  async together<T>(fn: () => Promise<T>): Promise<T> {
    this.#together++;
    try {
      return await fn();
    } finally {
      if (--this.#together === 0) {
        this.#interrupt?.();
        this.#tellHidden();
      }
    }
  }

  /** Tells what is still counted and not told (at the end of a command). */
  finish(): void {
    this.#interrupt?.();
    this.#tellHidden();
  }

  /**
   * One line per gate whose notes were counted rather than shown (stdout,
   * none with `--json`), and one per warning code (stderr).
   */
  #tellHidden(): void {
    this.#tellHiddenWarnings();
    if (this.json) return;
    for (const [gate, n] of this.#hidden) {
      this.#io.stdout(
        `  ${gate}: ${
          plural(n, "more note")
        } like these (\`--verbose\` shows each; \`--json\` lists them)\n`,
      );
    }
    this.#hidden.clear();
  }

  /** One line per warning code whose warnings were counted rather than shown (stderr). */
  #tellHiddenWarnings(): void {
    for (const [code, n] of this.#warningsHidden) {
      this.#io.stderr(
        `… and ${n} more \`${code}\` ${
          n === 1 ? "warning" : "warnings"
        } like these (\`--verbose\` shows each; \`--json\` lists them)\n`,
      );
    }
    this.#warningsHidden.clear();
  }

  /**
   * A warning: on stderr, and collected for `--json`. Past
   * {@link WARNINGS_SHOWN_PER_CODE} of one code (unless `--verbose`) the
   * rest are counted instead, and the count told by the next line said or
   * warning shown, or at the command's end.
   */
  warn(event: WarningEvent): void {
    const w = { ...event, message: this.#naming(event.message) };
    this.warnings.push(w);
    const shown = this.#warningsShown.get(w.code) ?? 0;
    if (!this.verbose && shown >= WARNINGS_SHOWN_PER_CODE) {
      // A summary (a library's "and N more files" of the warnings it gave
      // one by one) counts as the warnings it stands for.
      const n = w.count ?? 1;
      this.#warningsHidden.set(w.code, (this.#warningsHidden.get(w.code) ?? 0) + n);
      return;
    }
    this.#warningsShown.set(w.code, shown + 1);
    this.#interrupt?.();
    // The warnings of another code counted before it are told first, right after the ones shown.
    if (this.#together === 0) this.#tellHiddenWarnings();
    this.#io.stderr(`warning[${w.code}]: ${forTerminal(w.message)}\n`);
  }

  /** What a gate did: shown unless it is routine classification (shown with `--verbose`). */
  gate(g: GateEvent): void {
    this.gates.push(g);
    if (this.json || (!this.verbose && g.gate === "path-classifier")) return;
    const shown = this.#shown.get(g.gate) ?? 0;
    if (this.verbose || shown < NOTES_SHOWN_PER_GATE) {
      this.#shown.set(g.gate, shown + 1);
      this.#interrupt?.();
      this.#io.stdout(`  ${g.gate}: ${forTerminal(g.message)}\n`);
    } else {
      this.#hidden.set(g.gate, (this.#hidden.get(g.gate) ?? 0) + 1);
    }
  }

  /** The command's JSON document (only with `--json`). */
  result(command: string, data: Record<string, unknown>): void {
    if (!this.json) return;
    // `ok` is the exit status being 0: a finished command that left something has an `outcome`.
    const outcome = data.outcome as { exitCode?: number } | undefined;
    const ok = (outcome?.exitCode ?? 0) === 0;
    const doc = {
      ok,
      command,
      ...this.#namingTheCacheIn(data),
      warnings: this.warnings,
      gates: this.gates,
    };
    this.#io.stdout(`${JSON.stringify(doc, null, 2)}\n`);
  }

  /**
   * `data` with the commands its outcome's message and its entries' reasons
   * name given this command's `--cache`, as the text says them (one level
   * down: `outcome.message`, and `reason` of each entry of a list).
   */
  #namingTheCacheIn(data: Record<string, unknown>): Record<string, unknown> {
    if (this.#cacheArgs.length === 0 && this.#storeUrl === undefined) return data;
    const name = (v: unknown): unknown => {
      if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
      const o = v as Record<string, unknown>;
      const out = { ...o };
      for (const k of ["message", "reason"]) {
        if (typeof o[k] === "string") out[k] = this.#naming(o[k] as string);
      }
      return out;
    };
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) out[k] = Array.isArray(v) ? v.map(name) : name(v);
    return out;
  }

  /** Prints a failure (`error[<code>]: …` on stderr, and a JSON document with `--json`); returns its exit code. */
  fail(command: string, given: ErrorReport): number {
    const report = { ...given, message: this.#naming(given.message) };
    this.#interrupt?.();
    this.#tellHidden();
    this.#io.stderr(`error[${report.code}]: ${forTerminal(report.message)}\n`);
    if (this.json) {
      const doc = { ok: false, command, error: report, warnings: this.warnings };
      this.#io.stdout(`${JSON.stringify(doc, null, 2)}\n`);
    }
    return report.exitCode;
  }
}
