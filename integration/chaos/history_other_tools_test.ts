/**
 * The history generator's moves by another tool, which honours no lock and
 * writes no index: its first writes (before any move's block and any
 * index), its deletions, and its versions published at a run's number, with
 * what such a publication does to the run.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  foreignObjects,
  formatHistory,
  formatOp,
  generateHistory,
  type GenerateOptions,
  type History,
  locklessObjects,
  type Op,
  parseHistory,
} from "./history.ts";
import { runHistory } from "./workload.ts";
import { generateBoth } from "./chaos_kit.ts";

Deno.test("history: another tool's writes start some v1 histories without old clients, the other operations as they were", () => {
  let inserted = 0;
  let followed = 0;
  let moves = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const { h, added } = generateBoth(seed, { foreignShare: undefined });
    if (added.length === 0) continue;
    inserted++;
    assert.ok(!h.v2 && !h.oldClients, "only into a bucket no index names anything in yet");
    assert.deepEqual(h.ops.slice(0, added.length), added, "at the start");
    const foreign = added.filter((o) => o.kind === "foreign");
    assert.ok(foreign.length >= 1 && foreign.length <= 3);
    assert.ok(added.slice(0, foreign.length).every((o) => o.kind === "foreign"), "first");
    let rest = added.slice(foreign.length);
    for (const o of foreign) {
      assert.match(formatOp(o), /another tool puts .* \(no lock, no index\)/);
    }
    // A move cut off by a crash, and run again by another clone.
    if (rest[0]?.kind === "migrate") {
      moves++;
      assert.deepEqual(rest.slice(0, 5).map((o) => o.kind), [
        "migrate",
        "tick",
        "crash",
        "wait",
        "migrate",
      ]);
      const [a, , crash, , b] = rest as Extract<Op, { clone: number }>[];
      assert.equal(crash.clone, a.clone);
      assert.ok(h.clones === 1 || b.clone !== a.clone);
      rest = rest.slice(5);
    }
    for (const o of rest) {
      followed++;
      assert.ok(o.kind === "run" || (o.kind === "edit" && o.how === "push"));
    }
  }
  assert.ok(moves > 5, `${moves} moves cut off`);
  assert.ok(inserted > 20 && inserted < 90, `${inserted} of 300`);
  assert.ok(followed > 0);
});

/** Every move inserted into a generated history, by the share that brings it in. */
const MOVE_SHARES = [
  "stallShare",
  "reshapeShare",
  "vanishShare",
  "unwrittenShare",
  "sharedCacheShare",
  "copyShare",
  "ownLostShare",
  "ownWithdrawnShare",
  "markerRaceShare",
  "locklessShare",
  "tornLogShare",
  "damagedLogShare",
  "damagedOpenShare",
  "saveCrashShare",
  "logFailShare",
  "setAsideFlakyShare",
  "blipShare",
  "theirsBlockedShare",
  "theirsUnderShare",
  "putBackLostShare",
  "takeBackBlipShare",
  "putBackAnswerShare",
  "saveGapShare",
  "droppedEditShare",
  "rollbackPastShare",
  "lostRaceShare",
  "shardCutShare",
  "checkedWindowShare",
  "republishedShare",
  "markerTakenBackShare",
  "cutTakeBackShare",
  "markerGapShare",
  "cutPushShare",
  "sharedConflictShare",
  "committedDeletedShare",
  "oldTakeBackShare",
  "sameBytesLookShare",
  "theirsReopenShare",
] as const;

/** The place of the first operation that is not another tool's write before which one comes. */
function misplacedBeforeForeign(h: History): number | undefined {
  const last = h.ops.findLastIndex((o) => o.kind === "foreign");
  const at = h.ops.slice(0, last + 1).findIndex((o) => o.kind !== "foreign");
  return at < 0 ? undefined : at;
}

Deno.test("history: no move's block comes before another tool's first writes, which come before any index, for every move alone and all together", () => {
  const all = Object.fromEntries(MOVE_SHARES.map((k) => [k, 1]));
  const cases: [string, GenerateOptions][] = [
    ...MOVE_SHARES.map((k): [string, GenerateOptions] => [k, { [k]: 1 }]),
    ["every move", all],
    // Seed 196300468's own-lost block went first, and the own-withdrawn
    // block after it, both before the other tool's writes.
    ["every move, a first index from the first push", { ...all, indexFirstShare: 1 }],
    ["copies and second processes", { copyShare: 1, sharedCacheShare: 1 }],
  ];
  for (const [name, options] of cases) {
    let foreign = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const h = generateHistory(seed, { ...options, foreignShare: 1, oldShare: 0 });
      if (!h.ops.some((o) => o.kind === "foreign")) continue;
      foreign++;
      const at = misplacedBeforeForeign(h);
      assert.equal(
        at,
        undefined,
        `${name}, seed ${seed}: ${at === undefined ? "" : formatOp(h.ops[at])}`,
      );
    }
    assert.ok(foreign > 50, `${name}: ${foreign} of 150 histories with another tool's writes`);
  }
  const found = generateHistory(196300468, { copyShare: 1, sharedCacheShare: 1 });
  assert.ok(found.ops.some((o) => o.kind === "foreign"));
  assert.equal(misplacedBeforeForeign(found), undefined, formatHistory(found));
});

Deno.test("history: another tool's deletion of a shared file (or a run's raw output) is inserted into some histories without old clients, the other operations as they were", () => {
  let inserted = 0;
  let runs = 0;
  let writers = 0;
  let rewrites = 0;
  let blinds = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const { h, ids } = generateBoth(seed, { vanishShare: undefined });
    const added = h.ops.filter((o) => !ids.has(o.id) && o.id > Math.max(...ids));
    const at = h.ops.findIndex((o) => o.kind === "vanish");
    if (at < 0) continue;
    inserted++;
    assert.ok(!h.oldClients && h.clones > 1);
    // In a share of them, the other clone writes the file before its first
    // pull, its push cut off after the upload, then deletes it and pushes.
    const writesFirst = h.ops[at + 1]?.kind === "flaky";
    if (writesFirst) {
      const [flaky, write, del] = h.ops.slice(at + 1, at + 4) as Extract<Op, { clone: number }>[];
      assert.deepEqual(
        { ...flaky, id: 0 },
        { id: 0, kind: "flaky", call: "get", count: 6, afterEffect: false },
      );
      assert.equal(write.kind, "edit");
      assert.equal(del.kind, "delete");
      assert.equal(del.clone, write.clone);
      writers++;
    }
    const block = writesFirst
      ? [...h.ops.slice(at - 2, at + 1), h.ops[at + 2], ...h.ops.slice(at + 4, at + 31)]
      : h.ops.slice(at - 2, at - 2 + 29);
    const [edit, , vanish, sync, ...rest] = block as Extract<Op, { clone: number }>[];
    const gone = vanish as unknown as Extract<Op, { kind: "vanish" }>;
    assert.equal(gone.kind, "vanish");
    if (gone.run === undefined) {
      assert.equal(edit.kind, "edit");
      assert.equal(gone.file, (edit as { file?: number }).file);
    } else {
      // Or a run's raw output, that run's.
      assert.equal(edit.kind, "run");
      assert.equal(gone.run, edit.id);
      runs++;
    }
    assert.match(
      formatOp(vanish as unknown as Op),
      gone.rewrite
        ? /another client publishes the raw output of run #\d+ again with other bytes/
        : gone.blind
        ? /an older client's push deletes the raw output of run #\d+, object and index entry/
        : /another tool deletes .* \(no lock, no index\)/,
    );
    if (gone.blind) {
      assert.notEqual(gone.run, undefined, "only a run's output is deleted blind");
      assert.ok(!gone.rewrite);
      blinds++;
    }
    if (gone.rewrite) {
      assert.notEqual(gone.run, undefined, "only a run's output is published again");
      rewrites++;
    }
    assert.equal(sync.kind, writesFirst ? "edit" : "sync");
    assert.notEqual(sync.clone, edit.clone, "a clone that has not pulled the edit");
    const waits = rest.slice(0, 24).filter((o) => (o as unknown as Op).kind === "wait");
    const ms = waits.reduce((n, o) => n + (o as unknown as { ms: number }).ms, 0);
    assert.ok(ms > 15 * 60_000, "past the grace after which a pull removes the entry");
    assert.deepEqual(
      rest[24],
      { id: rest[24].id, kind: "sync", clone: sync.clone },
      "then it pulls again",
    );
    assert.ok(added.length >= 28);
  }
  assert.ok(inserted > 20 && inserted < 90, `${inserted} of 300`);
  assert.ok(runs > 5 && runs < inserted * 0.7, `${runs} of ${inserted}`);
  assert.ok(writers > 3 && writers < inserted * 0.6, `${writers} of ${inserted}`);
  assert.ok(rewrites > 0 && rewrites < runs, `${rewrites} rewrites of ${runs} runs' outputs`);
  assert.ok(blinds > 0 && blinds + rewrites < runs, `${blinds} blind deletions of ${runs}`);
});

Deno.test("history: what another tool puts, by path", () => {
  assert.deepEqual(foreignObjects({ id: 7, kind: "foreign", what: "file" }), [
    { path: "imports/foreign-op7.txt", text: "another tool, op 7\n" },
  ]);
  assert.deepEqual(
    foreignObjects({ id: 7, kind: "foreign", what: "shared", file: 3 }).map((o) => o.path),
    [
      "notes/shared-0.md",
    ],
  );
  const version = {
    id: 8,
    kind: "foreign",
    what: "version",
    model: 1,
    data: 0,
    version: 2,
  } as const;
  assert.deepEqual(foreignObjects(version).map((o) => o.path), [
    "data/shell/cmd/m1/out/2/raw",
    "data/shell/cmd/m1/out/2/metadata.yaml",
  ]);
  assert.deepEqual(foreignObjects({ ...version, marker: true }).at(-1), {
    path: "data/shell/cmd/m1/out/latest",
    text: "2",
  });
});

Deno.test("history: another tool's publications at a run's number, honouring no lock, follow runs, from a generator of their own, the other operations as they were", () => {
  let inserted = 0;
  let writes = 0;
  let structural = 0;
  let unindexed = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const { h, ids, added } = generateBoth(seed, { locklessShare: undefined });
    if (added.length === 0) continue;
    inserted++;
    assert.ok(!h.oldClients, "not beside old clients");
    for (const [i, o] of h.ops.entries()) {
      if (ids.has(o.id)) continue;
      if (o.kind === "sibling") {
        // Right after the publication, over the cache of that run's clone, a core-driven one.
        const before = h.ops[i - 1] as Extract<Op, { kind: "lockless" }>;
        assert.equal(before.kind, "lockless");
        const run = h.ops.find((r) => r.id === before.run) as Extract<Op, { kind: "run" }>;
        assert.equal(o.how, "structural");
        assert.equal(o.clone, run.clone);
        assert.notEqual(h.kinds?.[run.clone] ?? "api", "api");
        assert.ok(run.workMs >= 15_000);
        structural++;
        continue;
      }
      assert.equal(o.kind, "lockless");
      writes++;
      // Right after the run it aims at.
      const run = h.ops[i - 1];
      assert.ok(run.kind === "run" && run.id === o.run);
      if (!o.indexed) unindexed++;
      assert.ok(o.indexed || !o.marker, "a marker only with index entries");
      assert.match(
        formatOp(o),
        /another tool publishes its own version at run #\d+'s number while the run holds its lock/,
      );
    }
    assert.deepEqual(parseHistory(JSON.stringify(h)), h);
  }
  assert.ok(inserted > 10 && inserted < 50, `${inserted} of 300`);
  assert.ok(writes >= inserted && unindexed > 0 && unindexed < writes, `${unindexed} of ${writes}`);
  assert.ok(structural > 0, `${structural} structural commands`);
  assert.deepEqual(
    locklessObjects(
      { id: 9, kind: "lockless", run: 3, pick: 0, indexed: true, marker: true },
      "data/shell/cmd/m0/out",
      2,
    ).map((o) => o.path),
    [
      "data/shell/cmd/m0/out/2/raw",
      "data/shell/cmd/m0/out/2/metadata.yaml",
      "data/shell/cmd/m0/out/latest",
    ],
  );
});

Deno.test("chaos: another tool's version published at a run's number while the run holds its lock, written and not flushed, lands; the run is refused (version_exists), never acknowledged over it", async () => {
  const ops = (indexed: boolean, kinds: string) =>
    `{"seed":172000001,"clones":2,"kinds":${kinds},"ops":[{"id":20,"kind":"run","clone":1,"model":0,"data":0,"workMs":15000},{"id":39,"kind":"lockless","run":20,"pick":857984399,"indexed":${indexed}${
      indexed ? ',"marker":true' : ""
    }},{"id":40,"kind":"sibling","clone":1,"how":"structural","workMs":3000},{"id":41,"kind":"run","clone":0,"model":0,"data":0,"workMs":0}]}`;
  for (const indexed of [true, false]) {
    for (const kinds of ['["core","core"]', '["api","core-single-phase"]']) {
      const r = await runHistory(parseHistory(ops(indexed, kinds)));
      assert.deepEqual(r.violations.map((v) => `${v.invariant}: ${v.message}`), [], kinds);
      assert.equal(r.stats.locklessWrites, 1, `indexed ${indexed}, ${kinds}`);
      assert.equal(r.stats.locklessIndexed, indexed ? 1 : 0);
      assert.equal(r.stats.outcomes.version_exists, 1, "the run whose number the other tool took");
    }
  }
  // In generated histories too.
  const generated = await runHistory(
    generateHistory(172000001, { locklessShare: 1, sharedCacheShare: 1, structuralShare: 1 }),
  );
  assert.deepEqual(generated.violations, []);
  assert.ok(generated.stats.locklessWrites > 0);
  assert.equal(generated.stats.locklessHistories, 1);
});
