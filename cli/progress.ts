/**
 * Progress bars for long pushes and pulls, drawn with `cli-progress` on
 * stdout only when stdout is a terminal and `--json` is off.
 *
 * @module
 */
// @ts-types="./cli_progress.d.ts"
import cliProgress, { type SingleBar } from "cli-progress";
import type { ProgressEvent, SluiceEmitter } from "../sync/events.ts";
import { type CliIo, formatBytes, type Output } from "./output.ts";

/** Receives progress events and draws a bar; `stop` must be called once the operation ends. */
export interface ProgressReporter {
  /** Feeds one progress event. */
  update(p: ProgressEvent): void;
  /** Removes the bar (safe to call twice, and when no bar was drawn); the next update draws a new one. */
  stop(): void;
  /** True once a bar was drawn. */
  readonly drawn: boolean;
}

const NONE: ProgressReporter = { update: () => {}, stop: () => {}, drawn: false };

/**
 * A progress bar on `io.stdout` when `io.isTTY` and not `json`, else a
 * reporter that draws nothing.
 *
 * @example
 * ```ts
 * import { progressReporter } from "./progress.ts";
 * const bar = progressReporter({ stdout: (s) => console.log(s), stderr: () => {} }, false);
 * bar.update({ op: "push", filesDone: 1, filesTotal: 2, bytesDone: 10, bytesTotal: 20 });
 * bar.stop();
 * ```
 */
export function progressReporter(io: CliIo, json: boolean): ProgressReporter {
  if (json || !io.isTTY) return NONE;
  let bar: SingleBar | undefined;
  const stream = {
    isTTY: true,
    columns: io.columns ?? 80,
    write(chunk: string, callback?: () => void): boolean {
      io.stdout(chunk);
      callback?.();
      return true;
    },
  };
  const payload = (p: ProgressEvent) => ({
    op: p.op,
    bytes: `${formatBytes(p.bytesDone)}/${formatBytes(p.bytesTotal)}${
      p.filesFailed ? ` | ${p.filesFailed} failed` : ""
    }`,
  });
  const reporter = {
    drawn: false,
    update(p: ProgressEvent) {
      if (!bar) {
        if (p.filesTotal <= 0) return;
        bar = new cliProgress.SingleBar({
          stream,
          format: "{op} [{bar}] {percentage}% | {value}/{total} files | {bytes}",
          barsize: 30,
          hideCursor: false,
          clearOnComplete: true,
          gracefulExit: false,
        }, cliProgress.Presets.shades_classic);
        bar.start(p.filesTotal, p.filesDone, payload(p));
        reporter.drawn = true;
        return;
      }
      bar.setTotal(p.filesTotal);
      bar.update(p.filesDone, payload(p));
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
  return reporter;
}

/**
 * Runs `op` with a progress bar fed by `events` (see {@link progressReporter}),
 * removing the bar when it ends, however it ends. Each line `out` writes
 * meanwhile (a gate note, a warning) first takes the bar off the screen; the
 * next progress event draws it again below that line.
 */
export async function withProgressBar<T>(
  io: CliIo,
  out: Pick<Output, "json" | "interruptWith">,
  events: SluiceEmitter,
  op: () => Promise<T>,
): Promise<T> {
  const bar = progressReporter(io, out.json);
  const feed = (p: ProgressEvent) => bar.update(p);
  events.on("progress", feed);
  out.interruptWith(() => bar.stop());
  try {
    return await op();
  } finally {
    out.interruptWith(undefined);
    events.off("progress", feed);
    bar.stop();
  }
}
