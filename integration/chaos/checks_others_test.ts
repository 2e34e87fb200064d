import assert from "node:assert/strict";
import { sha256Hex } from "../../sync/hash.ts";
import { WRITER_METADATA } from "../../sync/transfer/writer_id.ts";
import { GroundTruth } from "./invariants.ts";

const enc = (t: string) => new TextEncoder().encode(t);
const RAW = "data/shell/cmd/m1/out/1/raw";

/** A step of the history before the deletion: an acknowledged run, or a clone's cache replaced by a copy. */
type Step = { run: number; clone: number; bytes: string } | { replaced: number };

/**
 * I19 after an older client's blind push aimed at the `raw` output of the
 * history's run #1 deleted `deleted`, held then by `holders`, `steps`
 * before it; neither the store nor any clone holds those bytes after the
 * final sync. The invariants it found.
 */
async function blindDeletion(steps: Step[], deleted: string, holders: number[]): Promise<string[]> {
  const truth = new GroundTruth();
  const dir = await Deno.makeTempDir();
  try {
    for (const s of steps) {
      if ("replaced" in s) {
        truth.cacheReplaced(s.replaced);
        continue;
      }
      truth.runs.push({
        op: s.run,
        clone: s.clone,
        model: "m1",
        token: `t${s.run}`,
        files: [{ path: RAW, bytes: enc(s.bytes) }],
        outcome: "success",
      });
    }
    await truth.vanished(9, RAW, enc(deleted), "v", holders, 0, false, "v", false, 1);
    await truth.checkVanished(() => Promise.resolve(undefined), [dir, dir, dir], []);
    return truth.violations.map((v) => v.invariant);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("I19: a blind deletion of a run's output is spared once the cache that created those bytes was given up, and only then", async () => {
  const one = { run: 1, clone: 2, bytes: "one" };
  // Run #1's bytes, pulled by c1, its clone c2's cache replaced by a copy
  // (seed 218500189): c1 follows the deletion, as documented.
  assert.deepEqual(await blindDeletion([one, { replaced: 2 }], "one", [1]), []);
  // The cache kept: I19 holds it to keep them.
  assert.deepEqual(await blindDeletion([one], "one", [1, 2]), ["I19"]);
  // c2's new cache numbered that version again (run #3, other bytes), and
  // the blind push aimed at run #1's output deleted run #3's: the cache
  // that created those bytes is there, and must keep them.
  const three = { run: 3, clone: 2, bytes: "three" };
  assert.deepEqual(await blindDeletion([one, { replaced: 2 }, three], "three", [2]), ["I19"]);
  // The same bytes written at that version again by a deterministic run of
  // a cache never given up (c2's new one, or another clone's): not spared.
  const again = { run: 4, clone: 2, bytes: "one" };
  assert.deepEqual(await blindDeletion([one, { replaced: 2 }, again], "one", [2]), ["I19"]);
  const other = { run: 5, clone: 0, bytes: "one" };
  assert.deepEqual(await blindDeletion([one, other, { replaced: 2 }], "one", [0]), ["I19"]);
});

/**
 * I18 after the final sync over another tool's `latest` marker ("1") a
 * clone's run moved on ("2", named by the index), where `after` then
 * wrote "1" again (a resolution's write whose index update never came):
 * the invariants it found.
 */
async function markerWrittenAgain(
  after: { version: string; metadata?: Record<string, string> } | undefined,
): Promise<string[]> {
  const truth = new GroundTruth();
  const path = "data/shell/cmd/m1/out/latest";
  truth.foreign.push({ op: 41, path, text: "1", own: false, version: "v1" });
  const head = after ?? { version: "v1" };
  const entries = { [path]: { h: await sha256Hex(enc("2")) } };
  await truth.checkForeign(
    entries,
    () => Promise.resolve(enc("1")),
    [],
    () => false,
    () => Promise.resolve(head),
  );
  return truth.violations.map((v) => v.invariant);
}

Deno.test("I18: bytes equal to another tool's written again at its path by a writer are not the tool's object", async () => {
  // The tool's own object, still there, named with other bytes: a loss.
  assert.deepEqual(await markerWrittenAgain(undefined), ["I18"]);
  // Written over since by a Sluice writer with the same bytes (seed
  // 228900022): that writer's own uncommitted write, not the tool's.
  assert.deepEqual(
    await markerWrittenAgain({ version: "v26", metadata: { [WRITER_METADATA]: "w2" } }),
    [],
  );
  // On a store whose versions are ETags the version alone says nothing;
  // the writer's id does.
  assert.deepEqual(
    await markerWrittenAgain({ version: "v1", metadata: { [WRITER_METADATA]: "w2" } }),
    [],
  );
  // Another version with no writer's id (another tool's write): not the tool's first object either.
  assert.deepEqual(await markerWrittenAgain({ version: "v9" }), []);
});
