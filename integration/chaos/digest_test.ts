import assert from "node:assert/strict";
import { differingSeeds, type SeedDigest, seedDigest } from "./digest.ts";
import { emptyStats } from "./stats.ts";
import { generateHistory } from "./history.ts";
import { runHistory } from "./workload.ts";

Deno.test("digest: counts in another order give the same digest; another count does not", () => {
  const history = generateHistory(1);
  const a = emptyStats();
  a.outcomes = { success: 2, crashed: 1 };
  const b = emptyStats();
  b.outcomes = { crashed: 1, success: 2 };
  const da = seedDigest({ history, stats: a, fingerprint: "x" });
  assert.deepEqual(da, seedDigest({ history, stats: b, fingerprint: "x" }));
  b.storeCalls = 1;
  const db = seedDigest({ history, stats: b, fingerprint: "x" });
  assert.notEqual(db.stats, da.stats);
  assert.equal(db.calls, 1);
  assert.notEqual(seedDigest({ history, stats: a, fingerprint: "y" }).fingerprint, da.fingerprint);
});

Deno.test("digest: differingSeeds names the seeds whose digests differ or are missing", () => {
  const d = (seed: number, calls: number): SeedDigest => ({
    seed,
    calls,
    decisions: 0,
    stats: "",
    fingerprint: "",
  });
  assert.deepEqual(differingSeeds([d(1, 1), d(2, 2), d(3, 3)], [d(3, 3), d(2, 5), d(1, 1)]), [2]);
  assert.deepEqual(differingSeeds([d(1, 1)], [d(1, 1), d(4, 0)]), [4]);
});

Deno.test("digest: a history runs the same alone, again, and beside other histories in flight", async () => {
  const seeds = [2, 3, 5];
  const alone = [];
  for (const seed of seeds) alone.push(seedDigest(await runHistory(generateHistory(seed))));
  // Again, all at once: whatever one history holds, another must not see.
  const together = await Promise.all(
    seeds.map(async (seed) => seedDigest(await runHistory(generateHistory(seed)))),
  );
  assert.deepEqual(differingSeeds(alone, together), []);
});
