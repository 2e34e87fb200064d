/**
 * Sluice's warnings where the tool's user sees them. The library never
 * writes to the console; the tool prints no datastore events. So an
 * extension entry passes a line writer (standard error), and every warning
 * of the datastore's locks and services is written there as one line,
 * `[<type>] warning[<code>]: <message>`, as the existing extensions print
 * theirs. The same line is written once per process, and at most
 * {@link WARNINGS_SHOWN_PER_CODE} of one code, then one line saying the
 * rest are not shown (a push of thousands of files must not bury the
 * command's own output).
 *
 * @module
 */
import type { WarningEvent } from "../../sync/events.ts";

/** Lines written per warning code and process before the rest are only counted. */
export const WARNINGS_SHOWN_PER_CODE = 20;

/**
 * A `warning` listener writing each warning of datastore `type` through `write`.
 *
 * @example
 * ```ts
 * import { warningPrinter } from "./warnings.ts";
 * const print = warningPrinter("@sluice/s3-datastore", (line) => console.log(line));
 * print({ code: "store_retry", message: "Retrying." });
 * // [@sluice/s3-datastore] warning[store_retry]: Retrying.
 * ```
 */
export function warningPrinter(
  type: string,
  write: (line: string) => void,
): (w: WarningEvent) => void {
  const shown = new Map<string, number>();
  const written = new Set<string>();
  return (w) => {
    const line = `[${type}] warning[${w.code}]: ${w.message}`;
    if (written.has(line)) return;
    const n = shown.get(w.code) ?? 0;
    shown.set(w.code, n + 1);
    if (n < WARNINGS_SHOWN_PER_CODE) {
      written.add(line);
      write(line);
    } else if (n === WARNINGS_SHOWN_PER_CODE) {
      write(
        `[${type}] warning[${w.code}]: more ${w.code} warnings follow in this process and are not shown; the Sluice command line (\`npx sluice status\` on the cache) lists what is left open.`,
      );
    }
  };
}
