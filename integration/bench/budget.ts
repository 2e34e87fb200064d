/**
 * `--only budget`: incident 000's budget: one write per new data version,
 * and the conditional-write probe at most once per endpoint per process (not
 * at all with a fresh cached result).
 *
 * Prints `createOnlyBudget`.
 *
 * @module
 */
import { createSluice } from "../../sluice.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import { type BenchSection, identity, tempDir } from "./helpers.ts";

async function createOnlyBudget() {
  const conditional = new ConditionalWrites();
  const store = new InMemoryStore();
  const svc = await createSluice({
    cacheDir: await tempDir("sluice-bench-budget-"),
    store,
    identity,
    conditional,
  });
  const requestsPerVersion: number[] = [];
  for (let n = 1; n <= 5; n++) {
    const path = `data/t/m/d/${n}/raw`;
    await Deno.mkdir(`${svc.cacheDir}/data/t/m/d/${n}`, { recursive: true });
    await Deno.writeTextFile(`${svc.cacheDir}/${path}`, `v${n}`);
    await svc.markDirty({ relPath: path });
    store.resetLog();
    await svc.pushChanged();
    requestsPerVersion.push(store.log.filter((r) => r.key === path).length);
  }
  const probesFirstProcess = conditional.stats.probeRuns;
  // A second "process" (a new registry) on the same cache dir: the cached probe result is fresh.
  const second = new ConditionalWrites();
  const svc2 = await createSluice({ cacheDir: svc.cacheDir, store, identity, conditional: second });
  await Deno.mkdir(`${svc2.cacheDir}/data/t/m/d/6`, { recursive: true });
  await Deno.writeTextFile(`${svc2.cacheDir}/data/t/m/d/6/raw`, "v6");
  await svc2.markDirty({ relPath: "data/t/m/d/6/raw" });
  await svc2.pushChanged();
  return {
    requestsPerNewVersion: requestsPerVersion,
    probeRunsFirstProcess: probesFirstProcess,
    probeRunsSecondProcessWithFreshCache: second.stats.probeRuns,
    goal:
      "1 request per new version; probe <= 1 per endpoint per process, 0 with a fresh cached result",
  };
}

/** The section. */
export const section: BenchSection = {
  async run() {
    return { createOnlyBudget: await createOnlyBudget() };
  },
};
