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
  const explicit = Deno.env.get("SLUICE_CACHE");
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
}

/** Markers older than this are left from earlier runs and are removed. */
const MARKER_MAX_AGE_MS = 24 * 3600_000;

function tempRoot(): string {
  return Deno.env.get("TMPDIR") || Deno.env.get("TMP") || "/tmp";
}

/** The test runner's process: `deno test` runs every test file in it, so this names the run. */
function defaultRunId(): string {
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
export function missingBinaryNotice(binary: ServerBinary): string {
  return `[integration] ${binary.name} is not installed: the tests that need it are ignored (counted in the "ignored" total of the summary). Install it with \`${binary.installHint}\` (see "Running the tests" in the README), or set SLUICE_REQUIRE_SERVERS=1 to make a missing server fail the run.`;
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
  if (requireServers()) return false;
  announceOnce(`${binary.name}-missing`, missingBinaryNotice(binary), options);
  return true;
}

/** Throws the "missing server" error used when servers are required. */
export function missingBinaryError(binary: ServerBinary): Error {
  return new Error(
    `${binary.name} is required (SLUICE_REQUIRE_SERVERS=1) but was not found; run \`${binary.installHint}\` first.`,
  );
}
