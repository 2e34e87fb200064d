/**
 * `deno task bench`: prints JSON figures. Speed and memory goals are checked
 * here, never by timed assertions in tests.
 *
 *   deno task bench [--only <section>[,<section>…]] [--rounds 5] [--files 10000]
 *                   [--walk 100000] [--large-mb 200] [--ext-files 1000]
 *                   [--pipeline-files 2000] [--pipeline-small 200]
 *                   [--onefile-sizes 10000,100000] [--onefile-per-model 100]
 *                   [--onefile-rounds 3] [--cold-files 1000,10000] [--bare-concurrency 32]
 *                   [--writers 1,4,16,32] [--writer-ms 10000] [--layout v1|v2]
 *                   [--settings 1,4,8,16,32,64] [--sweep-files 1000] [--sweep-rounds 3]
 *                   [--backends minio,gcs] (cold and concurrency) [--cold-large-backends minio]
 *                   [--cold-rounds 5] [--cold-large-rounds 3]
 *   deno task bench --help
 *
 * Sections (`--only`; every one, in this order, without it):
 *
 * - `core`: a push of `--files` files through the pipeline against a bare
 *   loop of puts (InMemoryStore, FsStore); requests per push (`core.ts`);
 * - `walk`: a bulk markDirty walk over `--walk` unchanged files in a fresh
 *   process, and one-file pushes in that cache (`walk.ts`);
 * - `large`: one `--large-mb` MB file pushed and pulled, time and RSS
 *   (`large.ts`);
 * - `budget`: requests per new data version, probes per process (`budget.ts`);
 * - `minio`: 1 000 files across 50 models on MinIO (`minio.ts`);
 * - `extension`: the swamp extension adapter against Sluice's own API on
 *   MinIO (`extension_section.ts`, `extension.ts`);
 * - `pipeline`: the pipeline's own cost per file on InMemoryStore, against a
 *   bare loop of create puts, split into the cache layer's checks and reads
 *   and what the pipeline adds beyond them (`pipeline.ts`);
 * - `onefile`: a one-file push and a zero-diff pull from a fresh process into
 *   buckets of `--onefile-sizes` files, v1 and v2 index layouts, on MinIO
 *   (`onefile.ts`);
 * - `cold`: cold push and pull of `--cold-files` files on MinIO and
 *   fake-gcs-server against a bare loop of conditional puts / gets, wall and
 *   client CPU (`cold.ts`);
 * - `writers`: N writer processes pushing their own models into one MinIO
 *   bucket: commits per second, p50/p99 latency, index retries (`writers.ts`);
 * - `concurrency`: a sweep of `config.concurrency` for a cold push and pull on
 *   MinIO and fake-gcs-server (`concurrency.ts`).
 *
 * The output starts with `machine` (`machine.ts`): cores, load average at
 * the start and the end, and the temporary directory the caches are made in,
 * its filesystem and what one directory costs to make there. Set `TMPDIR`
 * to measure elsewhere (`TMPDIR=/dev/shm` for tmpfs).
 *
 * With more than one section selected, each runs in a process of its own
 * (`main.ts --only <name>` with the same arguments), so that no section
 * measures in a process another section has filled.
 *
 * A section is a module `<name>.ts` exporting `section` (a `BenchSection`,
 * see `helpers.ts`); adding one is one line in {@link SECTIONS}. A section
 * that measures in a fresh process runs `main.ts --child <name> --arg <json>`
 * (`runChild` in `helpers.ts`), which calls its `child`.
 *
 * @module
 */
import process from "node:process";
import { BenchArgs, type BenchSection, GOALS, removeTemps, runMain } from "./helpers.ts";
import { machineFacts } from "./machine.ts";

/** Every section, in the order they run. */
const SECTIONS = {
  core: () => import("./core.ts"),
  walk: () => import("./walk.ts"),
  large: () => import("./large.ts"),
  budget: () => import("./budget.ts"),
  minio: () => import("./minio.ts"),
  extension: () => import("./extension_section.ts"),
  pipeline: () => import("./pipeline.ts"),
  onefile: () => import("./onefile.ts"),
  cold: () => import("./cold.ts"),
  writers: () => import("./writers.ts"),
  concurrency: () => import("./concurrency.ts"),
} satisfies Record<string, () => Promise<{ section: BenchSection }>>;

type Name = keyof typeof SECTIONS;

function named(name: string): Name {
  if (Object.hasOwn(SECTIONS, name)) return name as Name;
  throw new Error(
    `No bench section "${name}"; known: ${Object.keys(SECTIONS).join(", ")}.`,
  );
}

const USAGE = `usage: deno task bench [--only <section>[,<section>…]] [--rounds 5] [--files 10000]
                       [--walk 100000] [--large-mb 200] [--ext-files 1000]
                       [--pipeline-files 2000] [--pipeline-small 200]
                       [--onefile-sizes 10000,100000] [--onefile-per-model 100]
                       [--onefile-rounds 3] [--cold-files 1000,10000] [--bare-concurrency 32]
                       [--cold-rounds 5] [--cold-large-rounds 3] [--cold-large-backends minio]
                       [--writers 1,4,16,32] [--writer-ms 10000] [--layout v1|v2]
                       [--settings 1,4,8,16,32,64] [--sweep-files 1000] [--sweep-rounds 3]
                       [--backends minio,gcs]
sections, in the order they run without --only: ${Object.keys(SECTIONS).join(", ")}
(what each measures: integration/bench/main.ts and the README's performance section)`;

if (Deno.args.includes("--help") || Deno.args.includes("-h")) {
  console.log(USAGE);
  Deno.exit(0);
}
let args: BenchArgs;
try {
  args = new BenchArgs(Deno.args);
} catch (e) {
  // A mistyped flag is a usage error, said before anything is measured.
  console.error(`${(e as Error).message}\n${USAGE}`);
  Deno.exit(64);
}
const childOf = args.get("child");
if (childOf !== undefined) {
  const { section } = await SECTIONS[named(childOf)]();
  if (!section.child) throw new Error(`The bench section "${childOf}" has no child part.`);
  try {
    console.log(JSON.stringify(await section.child(JSON.parse(args.get("arg") ?? "null"))));
  } finally {
    await removeTemps();
  }
  Deno.exit(0);
}
let only: Name[];
try {
  only = args.get("only")?.split(",").map(named) ?? (Object.keys(SECTIONS) as Name[]);
} catch (e) {
  // A mistyped section is a usage error, said in a line, not a stack trace.
  console.error(`${(e as Error).message} Run \`deno task bench --only <section>[,<section>…]\`.`);
  Deno.exit(64);
}

/** Runs one section in a process of its own (`--only <name>`, the other arguments as given). */
async function inOwnProcess(name: Name): Promise<Record<string, unknown>> {
  const rest: string[] = [];
  for (let i = 0; i < Deno.args.length; i += 2) {
    if (Deno.args[i] !== "--only") rest.push(...Deno.args.slice(i, i + 2));
  }
  const { text, code } = await runMain([...rest, "--only", name]);
  if (code !== 0) process.exitCode = 1;
  try {
    const { goals: _, machine: _machine, ...figures } = JSON.parse(text);
    return figures;
  } catch {
    return { [name]: { failed: `its process exited with code ${code} and printed no figures` } };
  }
}

const out: Record<string, unknown> = {};
// Printed first: the machine at the start (the load average again at the end).
const atStart = machineFacts();
out.machine = atStart;
try {
  for (const name of Object.keys(SECTIONS) as Name[]) {
    if (!only.includes(name)) continue;
    if (only.length > 1) {
      Object.assign(out, await inOwnProcess(name));
      continue;
    }
    const { section } = await SECTIONS[name]();
    try {
      Object.assign(out, await section.run(args));
    } catch (e) {
      // One failing section never loses the figures of the others.
      out[name] = { failed: e instanceof Error ? e.message : String(e) };
      process.exitCode = 1;
    }
  }
  out.machine = {
    ...atStart,
    loadAverageAtEnd: Deno.loadavg().map((l) => Math.round(l * 100) / 100),
  };
  out.goals = GOALS;
  console.log(JSON.stringify(out, null, 2));
} finally {
  await removeTemps();
}
