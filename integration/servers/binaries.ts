/**
 * Test server binaries: where the installed ones are, and what happens when
 * one is missing (its tests are ignored with a notice printed once per test
 * run, or, with `SLUICE_REQUIRE_SERVERS=1`, they fail with the command that
 * installs it).
 *
 * @module
 */

/** The cache folder outside the repository where test servers are installed. */
export function cacheDir(): string {
  const explicit = Deno.env.get("SLUICE_SERVER_CACHE");
  if (explicit) return explicit;
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? "/tmp";
  return `${home}/.cache/sluice`;
}

/** True when `SLUICE_REQUIRE_SERVERS=1`: a missing server fails the tests instead of skipping them. */
export function requireServers(): boolean {
  return Deno.env.get("SLUICE_REQUIRE_SERVERS") === "1";
}

/** Where a server binary is, or why it is not there. */
export interface ServerBinary {
  /** Short name, e.g. `minio`. */
  readonly name: string;
  /** Absolute path of the executable, or `null` when not found. */
  readonly path: string | null;
  /** What to run to get it. */
  readonly installHint: string;
}

/**
 * Finds a server binary: the environment variable `envVar` when set, else
 * `<cache>/bin/<fileName>`. Synchronous, so that `Deno.test({ ignore })` can
 * use it at registration time.
 *
 * @example
 * ```ts
 * import { locateBinary } from "./common.ts";
 * const minio = locateBinary("minio", "SLUICE_MINIO_BIN", "minio", "bash .ci/install_minio.sh");
 * console.log(minio.path ?? "not installed");
 * ```
 */
export function locateBinary(
  name: string,
  envVar: string,
  fileName: string,
  installHint: string,
): ServerBinary {
  const candidate = Deno.env.get(envVar) || `${cacheDir()}/bin/${fileName}`;
  try {
    const st = Deno.statSync(candidate);
    if (st.isFile) return { name, path: candidate, installHint };
  } catch {
    // not there
  }
  return { name, path: null, installHint };
}

/** Where {@link announceOnce} keeps its markers, and what counts as one run. */
export interface AnnounceOptions {
  /** Directory of the marker files; default the temporary directory. */
  readonly dir?: string;
  /** Names the run: every test file of one `deno test` shares it; default this process. */
  readonly runId?: string;
  /** Prints the notice; default `console.warn`. */
  readonly print?: (line: string) => void;
  /** The test file asking (its URL); default the isolate's main module, which is the test file. */
  readonly testFile?: string;
  /** Whether a missing server fails instead of ignoring; default {@link requireServers}. */
  readonly requireServers?: boolean;
}

/** Markers older than this are left from earlier runs and are removed. */
const MARKER_MAX_AGE_MS = 24 * 3600_000;

function tempRoot(): string {
  return Deno.env.get("TMPDIR") || Deno.env.get("TMP") || "/tmp";
}

/** Set by `integration/test_run.ts` (the `test` task): names the run, and says a summary follows. */
export const TEST_RUN_ENV = "SLUICE_TEST_RUN";

/** The test runner's process: `deno test` runs every test file in it, so this names the run. */
function defaultRunId(): string {
  const named = Deno.env.get(TEST_RUN_ENV);
  if (named) return named;
  let parent = "";
  try {
    parent = `-${Deno.ppid}`;
  } catch { /* without --allow-sys */ }
  return `${Deno.pid}${parent}`;
}

/**
 * Prints `line` once per test run, however many test files ask: the first
 * one creates a marker file keyed by the run (the test runner's process)
 * and prints; the others find the marker and stay quiet. Returns whether it
 * printed. Markers of runs older than a day are removed on the way.
 *
 * @example
 * ```ts
 * import { announceOnce } from "./common.ts";
 * announceOnce("minio-missing", "minio is not installed: its tests are ignored.");
 * ```
 */
export function announceOnce(key: string, line: string, options: AnnounceOptions = {}): boolean {
  const dir = options.dir ?? tempRoot();
  const prefix = "sluice-notice-";
  const marker = `${dir}/${prefix}${options.runId ?? defaultRunId()}-${key}`;
  try {
    Deno.writeTextFileSync(marker, line, { createNew: true });
  } catch (e) {
    if (e instanceof Deno.errors.AlreadyExists) return false;
    // No marker can be written: print, at worst once per file as before.
  }
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (!entry.name.startsWith(prefix)) continue;
      const path = `${dir}/${entry.name}`;
      const age = Date.now() - (Deno.statSync(path).mtime?.getTime() ?? Date.now());
      if (age > MARKER_MAX_AGE_MS) Deno.removeSync(path);
    }
  } catch { /* tidying is best effort */ }
  (options.print ?? console.warn)(line);
  return true;
}

/** The notice printed (once per run) when `binary` is missing. */
export function missingBinaryNotice(binary: ServerBinary, summaryFollows = false): string {
  const counted = summaryFollows
    ? "how many is printed at the end of the run"
    : 'counted in the "ignored" total of the summary';
  return `[integration] ${binary.name} is not installed: the tests that need it are ignored (${counted}). Install it with \`${binary.installHint}\` (see "Running the tests" in the README), or set SLUICE_REQUIRE_SERVERS=1 to make a missing server fail the run.`;
}

/** The file where the tests ignored for a missing `name` are tallied, one line each. */
export function ignoredTallyFile(name: string, options: AnnounceOptions = {}): string {
  return `${options.dir ?? tempRoot()}/sluice-notice-${
    options.runId ?? defaultRunId()
  }-${name}-missing.count`;
}

/**
 * The closing line of a test run when servers are missing: which ones, how
 * many tests the files needing them ignored, and the commands that install
 * them. {@link ignoreWithout} tallies the test files that ignore tests for
 * want of each server; `ignoredByFile` (read from the runner's output) says
 * how many tests each file ignored. The tallies are removed.
 *
 * @example
 * ```ts
 * import { ignoredSummary } from "./binaries.ts";
 * const lines = ignoredSummary([], new Map(), { runId: "none" }); // []
 * ```
 */
export function ignoredSummary(
  binaries: readonly ServerBinary[],
  ignoredByFile: ReadonlyMap<string, number>,
  options: AnnounceOptions = {},
): string[] {
  const missing: ServerBinary[] = [];
  const files = new Set<string>();
  for (const b of binaries) {
    const tally = ignoredTallyFile(b.name, options);
    try {
      const named = Deno.readTextFileSync(tally).split("\n").filter((l) => l !== "");
      Deno.removeSync(tally);
      if (named.length > 0) missing.push(b);
      for (const f of named) files.add(f);
    } catch { /* not missing */ }
  }
  if (missing.length === 0) return [];
  let n = 0;
  for (const f of files) n += ignoredByFile.get(f) ?? 0;
  const names = missing.map((b) => b.name).join(", ");
  const install = missing.map((b) => `\`${b.installHint}\``).join(", ");
  return [
    `[integration] not installed: ${names}. ${n} test${
      n === 1 ? " was" : "s were"
    } ignored in the files that need ${
      missing.length === 1 ? "it" : "them"
    }. Install with ${install}, then run the tests again.`,
  ];
}

/**
 * Whether tests needing `binary` should be ignored. Prints one line per
 * test run (not per test file, see {@link announceOnce}) when a missing
 * binary causes a skip. With `SLUICE_REQUIRE_SERVERS=1` it never ignores:
 * the tests then fail in their setup with the install hint.
 *
 * @example
 * ```ts
 * import { ignoreWithout, locateBinary } from "./common.ts";
 * const minio = locateBinary("minio", "SLUICE_MINIO_BIN", "minio", "bash .ci/install_minio.sh");
 * Deno.test({ name: "needs minio", ignore: ignoreWithout(minio), fn: () => {} });
 * ```
 */
export function ignoreWithout(binary: ServerBinary, options: AnnounceOptions = {}): boolean {
  if (binary.path) return false;
  if (options.requireServers ?? requireServers()) return false;
  const summaryFollows = !!(options.runId ?? Deno.env.get(TEST_RUN_ENV));
  announceOnce(`${binary.name}-missing`, missingBinaryNotice(binary, summaryFollows), options);
  try {
    const file = options.testFile ?? Deno.mainModule;
    Deno.writeTextFileSync(ignoredTallyFile(binary.name, options), `${file}\n`, { append: true });
  } catch { /* the tally is best effort: the summary's ignored total still counts them */ }
  return true;
}

/** Throws the "missing server" error used when servers are required. */
export function missingBinaryError(binary: ServerBinary): Error {
  return new Error(
    `${binary.name} is required (SLUICE_REQUIRE_SERVERS=1) but was not found; run \`${binary.installHint}\` first.`,
  );
}
