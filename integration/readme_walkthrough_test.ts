/**
 * The README's walkthrough ("Your first sync against MinIO") runs as
 * written: the commands of its ```` ```sh walkthrough ```` blocks are taken
 * from README.md verbatim and run one by one in one bash session, from the
 * repository root, against the MinIO binary the install script builds. Only
 * the variables the README itself reads are set: `WALK` (a temporary
 * directory), `MINIO_PORT` (a free loopback port) and `SLUICE_MINIO_BIN`.
 * Each command must exit 0, and the file pulled into the second cache must
 * equal the one pushed from the first.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { freePort, makeTempDir, missingBinaryError, removeTempDir } from "./servers/common.ts";
import { ignoreMinio, minioBinary } from "./servers/minio.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * The commands of every fenced block whose info string is `sh walkthrough`,
 * in order: one per line, blank lines and `#` comment lines left out.
 */
export function walkthroughCommands(markdown: string): string[] {
  const commands: string[] = [];
  let inside = false;
  for (const line of markdown.split("\n")) {
    if (!inside && /^```sh walkthrough\s*$/.test(line)) inside = true;
    else if (inside && /^```\s*$/.test(line)) inside = false;
    else if (inside && line.trim() !== "" && !line.trim().startsWith("#")) commands.push(line);
  }
  return commands;
}

Deno.test("walkthroughCommands takes exactly the marked blocks", () => {
  const md =
    "```sh\nnpm ci\n```\n```sh walkthrough\necho a\n\n# note\necho b\n```\n```ts\nx\n```\n";
  assert.deepEqual(walkthroughCommands(md), ["echo a", "echo b"]);
});

/** Runs `commands` in one bash session; returns each command's exit status (until one fails). */
async function runInBash(
  commands: readonly string[],
  env: Record<string, string>,
): Promise<{ statuses: number[]; output: string }> {
  const script = commands.map((c, i) =>
    `${c}\n__rc=$?; echo "::walkthrough ${i} $__rc" >&2; [ "$__rc" -eq 0 ] || exit "$__rc"`
  ).join("\n");
  const out = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd: ROOT,
    env,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(240_000),
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  const statuses = [...stderr.matchAll(/^::walkthrough (\d+) (\d+)$/gm)].map((m) => Number(m[2]));
  return { statuses, output: `${stdout}\n${stderr}` };
}

Deno.test({
  name: "README: the walkthrough 'Your first sync against MinIO' runs as written",
  ignore: ignoreMinio,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    if (!minioBinary.path) throw missingBinaryError(minioBinary);
    const commands = walkthroughCommands(await Deno.readTextFile(`${ROOT}README.md`));
    assert.ok(commands.some((c) => c.startsWith("npx sluice push --init")), "a push");
    assert.ok(commands.some((c) => c.startsWith("npx sluice pull --init")), "a pull");
    const walk = await makeTempDir("walkthrough");
    const env: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? walk,
      WALK: walk,
      MINIO_PORT: String(freePort()),
      SLUICE_MINIO_BIN: minioBinary.path,
    };
    try {
      const { statuses, output } = await runInBash(commands, env);
      assert.equal(statuses.length, commands.length, `not every command ran:\n${output}`);
      statuses.forEach((rc, i) => assert.equal(rc, 0, `${commands[i]} exited ${rc}:\n${output}`));
      const pushed = await Deno.readTextFile(`${walk}/alice/notes/hello.txt`);
      assert.equal(await Deno.readTextFile(`${walk}/bob/notes/hello.txt`), pushed);
      assert.match(output, /hello from alice/);
    } finally {
      const pid = Number(await Deno.readTextFile(`${walk}/minio.pid`).catch(() => "0"));
      if (pid > 0) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* already stopped by the walkthrough */ }
      }
      await removeTempDir(walk);
    }
  },
});
