/**
 * The `test` task: runs `deno test` over the whole suite (or the arguments
 * given), passing its output through, and closes with one line per missing
 * test server: how many tests were ignored for want of it and the command
 * that installs it. The exit status is the test run's. The tests' temporary
 * directories go under one directory (`TMPDIR`), removed at the end.
 *
 *   deno task test [deno test arguments…]
 *   deno task test:unit [deno test arguments…]   (`--unit`: the in-process tests only)
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import { ignoredSummary, TEST_RUN_ENV } from "./servers/binaries.ts";
import { minioBinary } from "./servers/minio.ts";
import { fakeGcsBinary } from "./servers/fake_gcs.ts";
import { s3rverBinary } from "./servers/s3rver.ts";

/**
 * The unit tests (`deno task test:unit`, `--unit`): in-process, so no
 * subprocesses and no servers; only loopback network.
 */
const UNIT_FLAGS = [
  "test",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--allow-net=127.0.0.1,localhost",
  "--parallel",
];

/** Where the unit tests live. */
const UNIT_DIRS = ["sync", "middleware", "packages", "examples", "cli"];

/** The permissions and flags of the whole suite: the unit tests' and the servers' (subprocesses). */
const FLAGS = [...UNIT_FLAGS, "--allow-run", "--allow-ffi"];

// deno-lint-ignore no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Counts ignored tests per test file URL in the runner's output lines: a
 * file is named by a `./file => ` prefix (parallel runs) or by the last
 * `running N tests from ./file` line.
 *
 * @example
 * ```ts
 * import { IgnoredCounter } from "./test_run.ts";
 * const c = new IgnoredCounter("/repo");
 * c.line("./a_test.ts => needs minio ... ignored (0ms)");
 * c.counts.get("file:///repo/a_test.ts"); // 1
 * ```
 */
export class IgnoredCounter {
  readonly counts = new Map<string, number>();
  #current = "";
  constructor(private readonly cwd: string) {}

  line(raw: string): void {
    const text = raw.replace(ANSI, "");
    const running = /^running \d+ tests? from (\S+)/.exec(text);
    if (running) this.#current = running[1];
    if (!/ \.\.\. ignored \([^)]*\)$/.test(text.trimEnd())) return;
    const file = /^(\.\/\S+) => /.exec(text)?.[1] ?? this.#current;
    if (!file) return;
    const url = pathToFileURL(`${this.cwd}/${file.replace(/^\.\//, "")}`).href;
    this.counts.set(url, (this.counts.get(url) ?? 0) + 1);
  }
}

if (import.meta.main) {
  const runId = `run-${crypto.randomUUID()}`;
  // Every temporary directory of the run (caches, stores, servers' data)
  // goes under one directory, removed when the run ends.
  const tmp = await Deno.makeTempDir({ prefix: "sluice-test-run-" });
  const unit = Deno.args[0] === "--unit";
  const given = unit ? Deno.args.slice(1) : Deno.args;
  const args = unit ? [...UNIT_FLAGS, ...(given.length ? given : UNIT_DIRS)] : [...FLAGS, ...given];
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: { [TEST_RUN_ENV]: runId, TMPDIR: tmp },
    stdin: "inherit",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const counter = new IgnoredCounter(Deno.cwd());
  let rest = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    await Deno.stdout.write(chunk);
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop() ?? "";
    for (const l of lines) counter.line(l);
  }
  counter.line(rest);
  const { code } = await child.status;
  await Deno.remove(tmp, { recursive: true }).catch((e) =>
    console.warn(`could not remove the test run's temporary directory ${tmp}: ${e}`)
  );
  const servers = [minioBinary, fakeGcsBinary, s3rverBinary];
  for (const line of ignoredSummary(servers, counter.counts, { runId })) console.warn(line);
  Deno.exit(code);
}
