/**
 * The main job (`deno task demo`): two clones sync through the gate pipeline
 * on the embedded default store (a local directory in a temp folder), then
 * each incident is replayed with its gate off (the loss shown) and on (no
 * loss).
 *
 * @module
 */
import { createSluice } from "../sluice.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { writeAndMark } from "../packages/testing/mod.ts";
import type { SyncService } from "../sync/service.ts";
import type { ObjectStore } from "../sync/ports.ts";
import { replays } from "./incidents.ts";

const say = (s = "") => console.log(s);

/** A clone: its own cache dir and identity over a shared store. */
export async function makeClone(
  store: ObjectStore,
  name: string,
  disable: readonly string[] = [],
): Promise<SyncService> {
  const svc = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-demo-${name}-` }),
    store,
    identity: { holder: `${name}@demo`, hostname: `${name}-host`, pid: name.charCodeAt(0) },
    disable,
    config: { retry: { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 50 } },
  });
  svc.events.on("gate", (g) => {
    if (g.gate !== "path-classifier") say(`    [${name}] ${g.gate}: ${g.message}`);
  });
  svc.events.on("warning", (w) => say(`    [${name}] warning ${w.code}: ${w.message}`));
  return svc;
}

/** Writes a cache file and marks it dirty. */
export const put: (svc: SyncService, path: string, text: string) => Promise<void> = writeAndMark;

async function tour() {
  const root = await Deno.makeTempDir({ prefix: "sluice-demo-store-" });
  const store = new FsStore({ root });
  say(`Store: ${store.endpoint} (the embedded default: a local directory)`);
  const a = await makeClone(store, "alice");
  const b = await makeClone(store, "bob");
  say("\nPipeline order:");
  for (const line of [...a.describe().push, ...a.describe().write]) say(`  ${line}`);

  say("\n1. alice writes a data version, its latest marker and a log, then pushes");
  await put(a, "data/shell/cmd/m1/stdout/1/raw", "hello from alice\n");
  await put(a, "data/shell/cmd/m1/stdout/latest", "1");
  await put(a, "logs/run-1.log", "ok\n");
  say("  status before the push:");
  for (const e of await a.status()) {
    say(`    ${e.path}  class=${e.class}  gates=${e.handledBy.join(",") || "-"}`);
  }
  const r = await a.pushChanged();
  say(`  pushed ${r.uploaded.length} file(s), ${r.bytes} bytes`);

  say("\n2. bob pulls");
  const p = await b.pullChanged();
  say(`  fetched ${p.fetched.join(", ")}`);
  say(`  bob reads: ${await Deno.readTextFile(`${b.cacheDir}/data/shell/cmd/m1/stdout/1/raw`)}`);

  say("3. a zero-diff pull costs one request; a zero-diff push none");
  const again = await b.pullChanged();
  say(`  unchanged=${again.unchanged}`);
}

if (import.meta.main) {
  say("Sluice demo\n===========\n");
  await tour();
  let failed = 0;
  for (const replay of replays) {
    say(`\n${replay.title}\n${"-".repeat(replay.title.length)}`);
    for (const gatesOn of [false, true]) {
      say(`  gate ${gatesOn ? "ON" : "OFF"}:`);
      const outcome = await replay.run(gatesOn);
      say(`  => ${outcome.lost ? "LOSS" : "no loss"}: ${outcome.summary}`);
      if (gatesOn && outcome.lost) failed++;
      if (!gatesOn && !outcome.lost) failed++;
    }
  }
  say(
    failed === 0
      ? "\nEvery incident loses data with its gate off and none with it on."
      : `\n${failed} replay(s) did not behave as expected.`,
  );
  if (failed > 0) Deno.exit(1);
}
