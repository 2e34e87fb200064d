/**
 * The last moves of a history: off, they insert nothing; on, they are what
 * `generateHistory` inserts after every other operation.
 */
import assert from "node:assert/strict";
import type { ClientKind, History, Op } from "./history_ops.ts";
import type { GenerateOptions } from "./history_options.ts";
import { generateHistory } from "./history.ts";
import { type DrawnSoFar, insertLastBlocks } from "./history_last_blocks.ts";

const LAST_OFF: GenerateOptions = {
  markerTakenBackShare: 0,
  cutTakeBackShare: 0,
  saveGapShare: 0,
  droppedEditShare: 0,
  markerGapShare: 0,
  cutPushShare: 0,
  sharedConflictShare: 0,
  committedDeletedShare: 0,
  theirsReopenShare: 0,
};

function drawnOf(h: History): DrawnSoFar {
  const kinds: ClientKind[] = h.kinds
    ? [...h.kinds]
    : Array.from({ length: h.clones }, () => "api");
  const oldClients = h.oldClients === true;
  const v2 = h.v2 === true;
  return {
    seed: h.seed,
    clones: h.clones,
    kinds,
    oldClients,
    v2,
    republished: h.etag === true && oldClients && !v2,
  };
}

Deno.test("the last moves, all off, leave the operations as they were", () => {
  for (let seed = 1; seed <= 40; seed++) {
    const h = generateHistory(seed, LAST_OFF);
    const ops = structuredClone(h.ops) as Op[];
    insertLastBlocks(ops, drawnOf(h), LAST_OFF);
    assert.deepEqual(ops, h.ops, `seed ${seed}`);
  }
});

Deno.test("the last moves, added to a history drawn without them, give the history drawn with them", () => {
  const shares: GenerateOptions[] = [{}, { committedDeletedShare: 1 }, {
    markerTakenBackShare: 1,
    cutPushShare: 1,
  }];
  let grown = 0;
  for (const on of shares) {
    for (let seed = 1; seed <= 40; seed++) {
      const without = generateHistory(seed, { ...on, ...LAST_OFF });
      const ops = structuredClone(without.ops) as Op[];
      insertLastBlocks(ops, drawnOf(without), on);
      assert.deepEqual(ops, generateHistory(seed, on).ops, `seed ${seed}, ${JSON.stringify(on)}`);
      if (ops.length > without.ops.length) grown++;
    }
  }
  assert.ok(grown > 0, "some history has a last move inserted");
});
