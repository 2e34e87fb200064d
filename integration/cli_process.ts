/**
 * The command line run as a separate process, as a user runs it (for the
 * tests that need what a unit test may not do: another user, a FIFO).
 *
 * @module
 */

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The unprivileged user `runCli` switches to with `asNobody` when run as root. */
export const NOBODY = 65534;

/**
 * Runs `sluice <args>` in a clean environment (HOME and the Deno cache
 * under `base`); with `asNobody` and as root, as the unprivileged user
 * through `setpriv`. Returns the exit code, stdout and stderr.
 */
export async function runCli(
  base: string,
  args: string[],
  options: { asNobody?: boolean; denoDir?: string } = {},
): Promise<{ code: number; out: string; err: string }> {
  const deno = Deno.execPath();
  const [cmd, ...pre] = options.asNobody && Deno.uid() === 0
    ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", deno]
    : [deno];
  const r = await new Deno.Command(cmd, {
    args: [...pre, "run", "-A", `${ROOT}/cli/main.ts`, ...args],
    cwd: ROOT,
    env: {
      DENO_DIR: options.denoDir ?? `${base}/deno-dir`,
      HOME: base,
      NO_COLOR: "1",
      DENO_NO_UPDATE_CHECK: "1",
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

/**
 * Runs `sluice <args>` in `cwd` with only `env` (and PATH) in its
 * environment, so that the SDKs see nothing else. Returns the exit code,
 * stdout and stderr.
 */
export async function runCliEnv(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number; out: string; err: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/cli/main.ts`, ...args],
    cwd,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, out: text.decode(out.stdout), err: text.decode(out.stderr) };
}

/** Writes `text` at `base/rel`, making the directories on the way. */
export async function writeUnder(base: string, rel: string, text: string): Promise<void> {
  const file = `${base}/${rel}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(file, text);
}
