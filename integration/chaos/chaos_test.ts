/**
 * The chaos checker in CI: a bounded number of seeded histories over the
 * in-memory store must keep every invariant; the same history must give the
 * same outcome twice; and with a gate removed the checker must see the loss
 * that gate prevents (which proves the checks are real). `deno task chaos`
 * runs as many seeds as asked.
 *
 * @module
 */
import assert from "node:assert/strict";
import { sha256HexSync } from "../../sync/hash.ts";
import pMap from "p-map";
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
  SHARED_FILES,
} from "./history.ts";
import { checkOutside, type Invariant, plantSentinel } from "./invariants.ts";
import { parseChaosArgs } from "./main.ts";
import { SimScheduler } from "./scheduler.ts";
import { shrinkHistory } from "./shrink.ts";
import { commitCrashPoint } from "./clone_setup.ts";
import { LocalChanges } from "./local_changes.ts";
import { memoryTarget } from "./target.ts";
import { chaosTarget, gcsChaosTarget, minioChaosTarget, type ServerTarget } from "./servers.ts";
import { type HistoryResult, runHistory, type WorkloadOptions } from "./workload.ts";
import { CREATE_ONLY_WRITER } from "../../middleware/create_only_writer.ts";
import { LOCKFILE_GUARD } from "../../middleware/lockfile_guard.ts";
import { REFUSED_RUN_ERASER } from "../../middleware/refused_run_eraser.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import type { ObjectStore } from "../../sync/ports.ts";

/** Seeds every `deno task test` runs (the long runs are `deno task chaos --seeds N`). */
const CI_SEEDS = 40;

/** Seeds of the CI range that break an invariant through a known open bug (none now). */
const KNOWN_FAILING: ReadonlySet<number> = new Set();

/** The shares of the moves added last, all off: histories drawn without them stay as they were. */
const LATEST_OFF = {
  droppedDeletionShare: 0,
  theirsBlockedShare: 0,
  theirsUnderShare: 0,
  putBackLostShare: 0,
  lockfileRaceShare: 0,
  lostMarkerWindowShare: 0,
  underMarkerShare: 0,
  takeBackBlipShare: 0,
  putBackAnswerShare: 0,
  saveGapShare: 0,
  droppedEditShare: 0,
  rollbackPastShare: 0,
  lostRaceShare: 0,
  shardCutShare: 0,
  checkedWindowShare: 0,
  republishedShare: 0,
  markerTakenBackShare: 0,
  cutTakeBackShare: 0,
  markerGapShare: 0,
  cutPushShare: 0,
} as const;

function describe(results: readonly HistoryResult[]): string {
  return results.map((r) =>
    `${formatHistory(r.history)}\n${
      r.violations.map((v) => `  ${v.invariant}: ${v.message}`).join("\n")
    }\nreproduce and shrink: deno task chaos --seed ${r.history.seed}`
  ).join("\n\n");
}

/** The first seed from 1 whose history breaks `invariant` with `disable`d gates. */
async function firstBreaking(
  invariant: Invariant,
  options: WorkloadOptions,
  maxSeeds: number,
  generate: GenerateOptions = {},
): Promise<HistoryResult | undefined> {
  for (let seed = 1; seed <= maxSeeds; seed++) {
    const r = await runHistory(generateHistory(seed, generate), options);
    if (r.violations.some((v) => v.invariant === invariant)) return r;
  }
  return undefined;
}

Deno.test(`chaos: ${CI_SEEDS} seeded histories keep I1-I8`, async () => {
  const failing: HistoryResult[] = [];
  let strays = 0;
  let histories = 0;
  const core = { runs: 0, acknowledged: 0, refused: 0 };
  const seeds = Array.from({ length: CI_SEEDS }, (_, i) => i + 1).filter((s) =>
    !KNOWN_FAILING.has(s)
  );
  await pMap(seeds, async (seed) => {
    const r = await runHistory(generateHistory(seed));
    histories++;
    strays += r.stats.strays;
    core.runs += r.stats.coreRuns;
    core.acknowledged += r.stats.coreAcknowledged;
    core.refused += r.stats.coreRefused;
    if (r.violations.length > 0) failing.push(r);
  }, { concurrency: 4 });
  assert.equal(histories, seeds.length);
  // Core-driven clones are mixed in, and their runs both land and get refused.
  assert.ok(core.acknowledged > 0 && core.refused > 0, JSON.stringify(core));
  assert.equal(
    failing.length,
    0,
    describe(failing.sort((a, b) => a.history.seed - b.history.seed)),
  );
  assert.equal(strays, 0, "store calls made outside a unit's turn: the run was not deterministic");
});

Deno.test("chaos: a history gives the same outcome every time it runs", async () => {
  // 215000041 takes a version back (its withdrawal note told apart by a random `n`).
  for (const seed of [2, 3, 5, 215000041]) {
    const h = generateHistory(seed);
    const [a, b] = [await runHistory(h), await runHistory(h)];
    assert.ok(a.fingerprint.length > 0);
    assert.equal(a.fingerprint, b.fingerprint, `seed ${seed} ran differently twice`);
  }
});

Deno.test("chaos: with create-only-writer off an acknowledged version is lost (I1), and shrinking keeps it", async () => {
  const options = { disable: [CREATE_ONLY_WRITER] };
  // The histories this search was tuned on (the `copy`, checked-delete, own-withdrawn, set-aside, log-fail, blip, theirs-shape, dropped-deletion, lockfile-race and lost-marker-window moves came later).
  const found = await firstBreaking("I1", options, 400, {
    copyShare: 0,
    checkedDeleteShare: 0,
    ownWithdrawnShare: 0,
    setAsideFlakyShare: 0,
    logFailShare: 0,
    blipShare: 0,
    theirsShapeShare: 0,
    ...LATEST_OFF,
  });
  assert.ok(found, "no history lost an acknowledged write with the create-only writer off");
  const on = await runHistory(found.history);
  assert.ok(!on.violations.some((v) => v.invariant === "I1"), describe([on]));
  const fails = async (h: History) =>
    (await runHistory(h, options)).violations.map((v) => v.invariant);
  const shrunk = await shrinkHistory(found.history, "I1", fails, { maxRuns: 30 });
  assert.ok(shrunk.history.ops.length < found.history.ops.length);
  assert.ok((await fails(shrunk.history)).includes("I1"));
});

Deno.test("chaos: with refused-run-eraser off a refused run's bytes surface (I2)", async () => {
  const found = await firstBreaking("I2", { disable: [REFUSED_RUN_ERASER] }, 200);
  assert.ok(found, "no refused run surfaced with the eraser off");
  const on = await runHistory(found.history);
  assert.ok(!on.violations.some((v) => v.invariant === "I2"), describe([on]));
});

Deno.test("chaos: with lockfile-guard off a peer's lockfile entry is erased (I3)", async () => {
  // Aimed at the loss: walk pushes and lockfile transactions, several times as often.
  const aim = { weights: { bulk: 12, lockfile: 20 } };
  const found = await firstBreaking("I3", { disable: [LOCKFILE_GUARD] }, 300, aim);
  assert.ok(found, "no lockfile entry was lost with the guard off");
  const on = await runHistory(found.history);
  assert.ok(!on.violations.some((v) => v.invariant === "I3"), describe([on]));
});

/**
 * Found by the checker (seed 2888 of the long run, shrunk by hand to four
 * operations): a run's push uploads its version files, the store goes
 * unreachable, the third-party lock then reads as absent, so the push is
 * refused with model_lock_lost; the eraser cannot delete the uploads and
 * journals them ("the next push deletes them"). But a push whose plan is
 * empty returns before the push pipeline runs (sync/service/service.ts), so the
 * refused-run-eraser never sees its journal and the refused bytes stay on the
 * store for good (never indexed, so no clone pulls them; but the version key
 * is taken, so every later write of that version fails with version_exists).
 * Fixed in sync/service/service.ts: the push pipeline runs for an empty plan too
 * (unless it is a dry run), so the eraser completes its journal.
 */
Deno.test({
  name:
    "chaos: regression: a refused run's pending erasure completes on the next (empty) push (I2)",
  fn: async () => {
    const history: History = {
      seed: 1,
      clones: 2,
      absentOnError: true,
      ops: [
        { id: 0, kind: "run", clone: 0, model: 0, data: 0, workMs: 0 },
        // Re-derived: the index reads of the shared layout moved the refusal
        // (with its pending erasure) to the seventh decision.
        { id: 1, kind: "tick", n: 7, pick: 1 },
        { id: 2, kind: "outage", on: true },
        { id: 3, kind: "tick", n: 10, pick: 2 },
      ],
    };
    const r = await runHistory(history);
    assert.equal(r.stats.refused, 1, "the history no longer reaches the refusal; re-derive it");
    assert.deepEqual(r.violations, [], describe([r]));
  },
});

/**
 * Found by the checker (seed 131 of a 400-seed run, shrunk): a run crashes
 * after writing version 1 locally; a peer publishes version 1; the crashed
 * clone's pull records a conflict on its own unpublished version files, and
 * its pushes held conflicted paths back, so the create-only writer never set
 * them aside and the clone never got the acknowledged version 1 (I1). Fixed
 * in sync/service/push.ts: data versions are not held back by a conflict (their
 * write is create-only), and the set-aside settles the conflict.
 */
Deno.test("chaos: regression: a crashed run's version conflicting with a published one is set aside (I1)", async () => {
  const history = parseHistory(
    '{"seed":131,"clones":2,"absentOnError":true,"ops":[{"id":0,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":1,"kind":"run","clone":1,"model":0,"data":1,"workMs":15000},{"id":2,"kind":"tick","n":2,"pick":687325863},{"id":3,"kind":"tick","n":8,"pick":1582298655},{"id":7,"kind":"crash","clone":1},{"id":9,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":10,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":11,"kind":"tick","n":17,"pick":1313147220}]}',
  );
  const r = await runHistory(history);
  assert.equal(r.stats.crashedRuns, 1, "the history no longer crashes the run; re-derive it");
  assert.deepEqual(r.violations, [], describe([r]));
});

/**
 * Found by I7/I8 (seed 24, shrunk): c2's run writes its latest marker over
 * the committed version, then crashes before the index update; after the
 * restart c2 runs again, and its new marker's compare-and-swap on the
 * version it last synced failed against its own orphaned write, which it
 * recorded as a conflict. Nothing repaired the index: it named a version the
 * store no longer held, so every pull skipped the marker as uncommitted and
 * a fresh clone got none. Fixed in middleware/config_cas_writer.ts: a
 * refused write that meets an object this same cache wrote (its writer id)
 * replaces it with a compare-and-swap on that version.
 */
Deno.test({
  name:
    "chaos: regression: a crashed clone's orphaned marker write is replaced and committed (I7, I8)",
  fn: async () => {
    const history = parseHistory(
      '{"seed":24,"clones":3,"absentOnError":true,"v2":true,"ops":[{"id":18,"kind":"run","clone":1,"model":0,"data":1,"workMs":5000},{"id":20,"kind":"run","clone":2,"model":0,"data":1,"workMs":0},{"id":22,"kind":"breakglass","model":0},{"id":29,"kind":"tick","n":15,"pick":1345044335},{"id":30,"kind":"tick","n":16,"pick":1589925635},{"id":31,"kind":"sync","clone":1},{"id":32,"kind":"tick","n":23,"pick":1687005987},{"id":35,"kind":"crash","clone":2},{"id":37,"kind":"run","clone":2,"model":0,"data":1,"workMs":0}]}',
    );
    const r = await runHistory(history);
    assert.deepEqual(r.violations, [], describe([r]));
  },
});

Deno.test("chaos: an edit whose bytes the store already held (a marker repeating a peer's number) counts as published (I6)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const enc = new TextEncoder();
    const store = new Map([["data/m/d/latest", enc.encode("1")]]);
    const changes = new LocalChanges((k) => Promise.resolve(store.get(k)));
    await changes.record(
      { op: 1, clone: 0, path: "data/m/d/latest", how: "marker" },
      enc.encode("1"),
    );
    await changes.record(
      { op: 2, clone: 0, path: "data/m/d/other", how: "marker" },
      enc.encode("1"),
    );
    // A peer then moved the marker on, and a pull brought its bytes here.
    await Deno.mkdir(`${dir}/data/m/d`, { recursive: true });
    await Deno.writeTextFile(`${dir}/data/m/d/latest`, "2");
    await Deno.writeTextFile(`${dir}/data/m/d/other`, "2");
    const found = await changes.check(0, dir, 3);
    assert.equal(found.length, 1, "only the edit the store never held is lost");
    assert.match(found[0].message, /data\/m\/d\/other \(op #2, marker\) was lost/);
    // Bytes the index names while another writer's object waits uncommitted there count too.
    const named = new LocalChanges(
      (k) => Promise.resolve(k === "data/m/d/latest" ? enc.encode("2") : undefined),
      (k) => Promise.resolve(k === "data/m/d/latest" ? sha256HexSync(enc.encode("1")) : undefined),
    );
    await named.record(
      { op: 1, clone: 0, path: "data/m/d/latest", how: "marker" },
      enc.encode("1"),
    );
    assert.deepEqual(await named.check(0, dir, 3), []);
    // A deletion of a file a peer had already deleted in the store is published too (a
    // file created there again later is that peer's change, and comes back).
    await named.record({ op: 2, clone: 0, path: "data/m/d/other", how: "hand" }, null);
    assert.deepEqual(await named.check(0, dir, 3), []);
    const blindDelete = new LocalChanges();
    await blindDelete.record({ op: 2, clone: 0, path: "data/m/d/other", how: "hand" }, null);
    assert.equal((await blindDelete.check(0, dir, 3)).length, 1);
    // Without a reader (as before), the first is reported too.
    const blind = new LocalChanges();
    await blind.record(
      { op: 1, clone: 0, path: "data/m/d/latest", how: "marker" },
      enc.encode("1"),
    );
    assert.equal((await blind.check(0, dir, 3)).length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chaos: a local edit a pull overwrites is reported (I6); a published or set-aside one is not", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const changes = new LocalChanges();
    const enc = new TextEncoder();
    const edit = (op: number, path: string) =>
      changes.record({ op, clone: 0, path, how: "hand" }, enc.encode(`edit ${op}`));
    await edit(1, "notes/lost.md");
    await edit(2, "notes/published.md");
    await edit(3, "notes/aside.md");
    await changes.observedPut("notes/published.md", enc.encode("edit 2"));
    await Deno.mkdir(`${dir}/.sluice/set-aside/x/notes`, { recursive: true });
    await Deno.writeTextFile(`${dir}/.sluice/set-aside/x/notes/aside.md`, "edit 3");
    await Deno.mkdir(`${dir}/notes`);
    await Deno.writeTextFile(`${dir}/notes/lost.md`, "a peer's copy");
    const found = await changes.check(0, dir, 7);
    assert.deepEqual(found.map((v) => [v.invariant, v.afterOp]), [["I6", 7]]);
    assert.match(found[0].message, /notes\/lost\.md \(op #1, hand\) was lost/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chaos: an armed crash hits between a commit-step write and the index update", () => {
  assert.equal(commitCrashPoint("put data/shell/cmd/m0/out/latest (update)"), "write");
  assert.equal(commitCrashPoint("delete notes/shared-1.md"), "write");
  assert.equal(commitCrashPoint("put notes/shared-0.md (create)"), "write");
  assert.equal(commitCrashPoint("put data/shell/cmd/m0/out/3/raw (create)"), undefined);
  // The index update's first call, whichever index object it is on: the v1
  // index, the meta, or (a v2 meta this cache saw last) a shard.
  assert.equal(commitCrashPoint("get _index/_meta.json"), "index");
  assert.equal(commitCrashPoint("head .datastore-index.json"), "index");
  assert.equal(commitCrashPoint("get .datastore-index.json"), "index");
  assert.equal(commitCrashPoint("get _index/_unpartitioned.json"), "index");
  assert.equal(commitCrashPoint("get _index/data--shell--cmd--m0.json"), "index");
  assert.equal(commitCrashPoint("put _index/data--shell--cmd--m0.json (update)"), "index");
  assert.equal(commitCrashPoint("put _index/_meta.json (update)"), "index");
  // Not the index: locks, the store's records, the data and its markers read back.
  assert.equal(commitCrashPoint("get .datastore.lock"), undefined);
  assert.equal(commitCrashPoint("put data/shell/cmd/m0/.lock (create)"), undefined);
  assert.equal(commitCrashPoint("get _control/.sluice/clock"), undefined);
  assert.equal(commitCrashPoint("head notes/shared-0.md"), undefined);
  assert.equal(commitCrashPoint("get data/shell/cmd/m0/out/latest"), undefined);
  assert.equal(commitCrashPoint("list "), undefined);
});

/**
 * A clone that synced a v2 bucket holds the meta it saw: its next commit
 * reads the shards it touches first and the meta only after writing them.
 * The armed crash still hits before the index update (on that first shard
 * read), for a run committed in one phase or in two and for a pushed edit,
 * as on a v1 bucket and on a v2 one whose meta the clone has not seen.
 */
Deno.test("chaos: an armed crash hits before the index update with a v2 meta held, on v1 and v2 alike", async () => {
  const cases: [string, string, string][] = [
    ['"v2":true,"kinds":["core","api"]', "run", "get _index/data--shell--cmd--m0.json"],
    [
      '"v2":true,"kinds":["core-single-phase","api"]',
      "run",
      "get _index/data--shell--cmd--m0.json",
    ],
    ['"v2":true', "run", "get _index/data--shell--cmd--m0.json"],
    ['"v2":true', "edit", "get _index/_unpartitioned.json"],
    ['"v2":true', "unsynced edit", "get _index/_meta.json"],
    ['"kinds":["core","api"]', "run", "get _index/_meta.json"],
    ["", "edit", "get _index/_meta.json"],
  ];
  for (const [bucket, what, on] of cases) {
    const move = what === "run"
      ? '{"id":2,"kind":"run","clone":0,"model":0,"data":0,"workMs":0}'
      : '{"id":2,"kind":"edit","clone":0,"file":3,"how":"push"}';
    const sync = what === "unsynced edit" ? "" : '{"id":0,"kind":"sync","clone":0},';
    const history = parseHistory(
      `{"seed":1,"clones":2,${bucket ? `${bucket},` : ""}"ops":[${sync}` +
        `{"id":1,"kind":"crash","clone":0,"at":"commit"},${move},` +
        '{"id":3,"kind":"tick","n":60,"pick":1}]}',
    );
    const lines: string[] = [];
    const r = await runHistory(history, { trace: (line) => lines.push(line) });
    const label = `${bucket || "v1"}, ${what}`;
    assert.deepEqual(r.violations, [], describe([r]));
    assert.equal(r.stats.commitCrashes, 1, `${label}: ${lines.join("\n")}`);
    const crash = lines.find((l) => l.includes("crashes between a commit write"));
    assert.ok(crash?.endsWith(` on ${on})`), `${label}: ${crash}`);
  }
});

Deno.test("chaos: a command past its fake-time budget is a hang (I4)", async () => {
  const history: History = {
    seed: 1,
    clones: 2,
    ops: [{ id: 0, kind: "run", clone: 0, model: 0, data: 0, workMs: 45_000 }],
  };
  const r = await runHistory(history, { commandBudgetMs: 10_000 });
  assert.ok(
    r.violations.some((v) => v.invariant === "I4" && /did not end within 10000 ms/.test(v.message)),
    describe([r]),
  );
});

Deno.test("chaos: a store call that never returns is a hang (I4)", async () => {
  const history: History = {
    seed: 1,
    clones: 2,
    ops: [{ id: 0, kind: "run", clone: 0, model: 0, data: 0, workMs: 0 }],
  };
  const r = await runHistory(history, {
    realTimeoutMs: 50,
    target: async (env) => {
      const t = await memoryTarget(env);
      const inner = t.store;
      const store: ObjectStore = {
        endpoint: inner.endpoint,
        get: (key, o) => key === ".datastore.lock" ? new Promise(() => {}) : inner.get(key, o),
        head: (key, o) => inner.head(key, o),
        put: (key, body, mode, o) => inner.put(key, body, mode, o),
        delete: (key, o) => inner.delete(key, o),
        list: (prefix, o) => inner.list(prefix, o),
      };
      return { ...t, store };
    },
  });
  assert.ok(
    r.violations.some((v) => v.invariant === "I4" && /within 50 ms of real time/.test(v.message)),
    describe([r]),
  );
});

Deno.test("chaos: a file written beside the cache dirs is reported (I5)", async () => {
  const root = await Deno.makeTempDir();
  try {
    await plantSentinel(root);
    await Deno.mkdir(`${root}/c0`);
    assert.deepEqual(await checkOutside(root, ["c0"]), []);
    await Deno.writeTextFile(`${root}/c0.tmp`, "x");
    await Deno.writeTextFile(`${root}/outside/other`, "y");
    const found = await checkOutside(root, ["c0"]);
    assert.equal(found.length, 2);
    assert.ok(found.every((v) => v.invariant === "I5"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("scheduler: one unit at a time, in the order the ticks choose; a crash freezes it", async () => {
  const order: string[] = [];
  const run = async (r2: number) => {
    const sched = new SimScheduler();
    const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
    for (const name of ["a", "b"]) {
      sched.spawn(name, name, async () => {
        await store.head(`${name}1`);
        order.push(`${name}1`);
        await store.head(`${name}2`);
        order.push(`${name}2`);
      });
    }
    await sched.startReady();
    return { sched, step: () => sched.step(1, r2) };
  };
  let { step } = await run(0);
  while (await step());
  assert.deepEqual(order, ["a1", "b1", "a2", "b2"]);
  order.length = 0;
  ({ step } = await run(0.99));
  while (await step());
  assert.deepEqual(order, ["b1", "b2", "a1", "a2"]);

  order.length = 0;
  const { sched, step: first } = await run(0);
  await first();
  sched.freeze("a");
  while (await sched.step(1, 0));
  assert.deepEqual(order, ["a1", "b1", "b2"]);
  assert.equal(sched.active().length, 0);
});

Deno.test("scheduler: a sleeping unit wakes only when fake time reaches it; a crash drops its timers", async () => {
  const sched = new SimScheduler({ start: 0 });
  const woke: string[] = [];
  for (const name of ["x", "y"]) {
    sched.spawn(name, name, async () => {
      await sched.clock.sleep(1_000);
      woke.push(name);
    });
  }
  let beats = 0;
  sched.spawn("z", "z", async () => {
    sched.clock.setTimeout(() => beats++, 500);
    await sched.clock.sleep(5_000);
  });
  await sched.startReady();
  sched.freeze("y");
  await sched.advanceBy(999);
  assert.deepEqual(woke, []);
  assert.equal(beats, 1);
  await sched.advanceBy(1);
  assert.deepEqual(woke, ["x"]);
  sched.freeze("z");
  await sched.advanceBy(10_000);
  assert.equal(sched.pendingTimers, 0);
});

/** The shares of the moves inserted after the drawn ones (reshapes aside), all off. */
const INSERTS_OFF = {
  locklessShare: 0,
  foreignShare: 0,
  vanishShare: 0,
  unwrittenShare: 0,
  sharedCacheShare: 0,
  copyShare: 0,
  markerRaceShare: 0,
  ownLostShare: 0,
  ownWithdrawnShare: 0,
  setAsideFlakyShare: 0,
  blipShare: 0,
  tornLogShare: 0,
  damagedLogShare: 0,
  damagedOpenShare: 0,
  saveCrashShare: 0,
  oldWindowShare: 0,
  logFailShare: 0,
  theirsShapeShare: 0,
  ...LATEST_OFF,
} as const;

/**
 * The history of `seed` with `on` over `base`, once checked that the
 * operations of the history without it are all there, in order, as they
 * were; with the history without, their ids, and the operations added.
 */
function generateBoth(seed: number, on: GenerateOptions, base: GenerateOptions = INSERTS_OFF) {
  const without = generateHistory(seed, base);
  const h = generateHistory(seed, { ...base, ...on });
  const ids = new Set(without.ops.map((o) => o.id));
  assert.deepEqual(h.ops.filter((o) => ids.has(o.id)), without.ops);
  return { without, h, ids, added: h.ops.filter((o) => !ids.has(o.id)) };
}

/**
 * A move inserted at the start from a generator of its own, over seeds 1 to
 * `seeds`: the other operations as they were (`generateBoth`), nothing added
 * to a history `leftOut` holds for, and in the others the added operations
 * first, handed to `check` with those of them that are not ticks. Returns how many
 * histories got the move.
 */
function insertedAtStart(
  on: GenerateOptions,
  leftOut: (h: History) => boolean,
  check: (inserted: { h: History; steps: Op[]; added: Op[] }) => void,
  { seeds = 200, base = INSERTS_OFF }: { seeds?: number; base?: GenerateOptions } = {},
): number {
  let inserted = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const { h, added } = generateBoth(seed, on, base);
    if (leftOut(h)) {
      assert.deepEqual(added, []);
      continue;
    }
    inserted++;
    assert.deepEqual(h.ops.slice(0, added.length), added, "at the start");
    check({ h, steps: added.filter((o) => o.kind !== "tick"), added });
  }
  return inserted;
}

Deno.test("history: a marker moved back and pushed is raced by another clone's moved forward, the other operations as they were", () => {
  let raced = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const { h, ids } = generateBoth(seed, { markerRaceShare: 1 });
    for (const [i, o] of h.ops.entries()) {
      if (ids.has(o.id)) continue;
      const before = h.ops[i - 1];
      assert.ok(o.kind === "marker" && before.kind === "marker" && before.back);
      assert.ok(!o.back && o.how === "push" && o.clone !== before.clone);
      assert.deepEqual([o.model, o.data], [before.model, before.data]);
      raced++;
    }
  }
  assert.ok(raced > 5, `${raced} races in 300 histories`);
});

Deno.test("history: a file created with its commit's answer lost, then made a directory and its push cut off, is inserted from a generator of its own, the other operations as they were", () => {
  let inserted = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const { added } = generateBoth(seed, { ownLostShare: 1 });
    if (added.length === 0) continue;
    inserted++;
    assert.deepEqual(added.map((o) => o.kind), ["crash", "edit", "crash", "reshape"]);
    const [answer, edit, commit, reshape] = added;
    assert.ok(answer.kind === "crash" && answer.at === "answer" && answer.queued);
    assert.ok(commit.kind === "crash" && commit.at === "commit" && commit.queued);
    assert.ok(edit.kind === "edit" && reshape.kind === "reshape" && edit.file === reshape.file);
    assert.ok(new Set(added.map((o) => "clone" in o ? o.clone : -1)).size === 1, "one clone");
  }
  assert.equal(inserted, 200, "every history with ops gets the block");
});

Deno.test("history: another process's write ahead cut off part way is aimed after a peer's edit and the clone's sync, the other operations as they were", () => {
  let inserted = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const { h, ids } = generateBoth(seed, { tornLogShare: 1 });
    const at = h.ops.findIndex((o) => o.kind === "torn");
    assert.ok(at > 0);
    inserted++;
    const torn = h.ops[at] as Extract<Op, { kind: "torn" }>;
    // Right after the clone's sync (whose download it is aimed at), a peer's edit pushed before.
    assert.deepEqual(h.ops[at - 1], { id: torn.id - 1, kind: "sync", clone: torn.clone });
    if (h.clones > 1) {
      const edit = h.ops[at - 3];
      assert.equal(edit.kind, "edit");
      assert.notEqual((edit as { clone: number }).clone, torn.clone);
    }
    assert.match(formatOp(torn), /another process over its cache, its disk full/);
    assert.equal(h.ops.filter((o) => !ids.has(o.id)).every((o) => o.id > Math.max(...ids)), true);
  }
  assert.equal(inserted, 200);
  assert.ok(generateHistory(1, INSERTS_OFF).ops.every((o) => o.kind !== "torn"));
});

Deno.test("history: a line of a clone's manifest log damaged on disk follows the clone's sync, aimed at the record of a file edited before it, the other operations as they were", () => {
  let inserted = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const { h, ids } = generateBoth(seed, { damagedLogShare: 1 });
    const at = h.ops.findIndex((o) => o.kind === "damaged");
    assert.ok(at > 0);
    inserted++;
    const damaged = h.ops[at] as Extract<Op, { kind: "damaged" }>;
    // After the clone's sync (and its tick), or its user's deletion by hand of the aimed file.
    const before = h.ops[at - 1];
    if (before.kind === "delete") {
      assert.deepEqual(before, {
        id: damaged.id - 1,
        kind: "delete",
        clone: damaged.clone,
        file: damaged.file,
        how: "hand",
      });
    }
    const sync = h.ops[at - (before.kind === "delete" ? 3 : 2)];
    assert.deepEqual(sync, { id: sync.id, kind: "sync", clone: damaged.clone });
    // The file aimed at was edited before the sync, by the clone or a peer.
    const edits = h.ops.slice(0, at).filter((o) => !ids.has(o.id) && o.kind === "edit");
    assert.ok(edits.some((o) => (o as { file: number }).file === damaged.file));
    // Then the restarted process syncs.
    assert.deepEqual(h.ops[at + 1], { id: damaged.id + 1, kind: "sync", clone: damaged.clone });
    assert.match(formatOp(damaged), /a damaged disk block/);
    assert.equal(h.ops.filter((o) => !ids.has(o.id)).every((o) => o.id > Math.max(...ids)), true);
  }
  assert.equal(inserted, 200);
  assert.ok(generateHistory(1, INSERTS_OFF).ops.every((o) => o.kind !== "damaged"));
});

Deno.test("history: a line of a clone's manifest log damaged while its process stays open comes from a share of its own, followed by that process's next sync, the other operations as they were", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const { h } = generateBoth(seed, { damagedOpenShare: 1 });
    const damaged = h.ops.filter((o) => o.kind === "damaged");
    assert.equal(damaged.length, 1);
    const op = damaged[0] as Extract<Op, { kind: "damaged" }>;
    assert.equal(op.open, true);
    const at = h.ops.indexOf(op);
    assert.deepEqual(h.ops[at + 1], { id: op.id + 1, kind: "sync", clone: op.clone });
    assert.match(formatOp(op), /another process writes a line ahead after it/);
    // The restarting move is drawn apart: its histories stay as they were.
    const restart = generateHistory(seed, { ...INSERTS_OFF, damagedLogShare: 1 });
    const both = generateHistory(seed, { ...INSERTS_OFF, damagedLogShare: 1, damagedOpenShare: 1 });
    const restartIds = new Set(restart.ops.map((o) => o.id));
    assert.deepEqual(both.ops.filter((o) => restartIds.has(o.id)), restart.ops);
  }
  assert.ok(generateHistory(1, INSERTS_OFF).ops.every((o) => o.kind !== "damaged"));
});

Deno.test("history: a process restarted on a damaged manifest log armed to die inside its next base's save comes from a share of its own, followed by its sync, the other operations as they were", () => {
  const how = new Set<string>();
  for (let seed = 1; seed <= 200; seed++) {
    const { h } = generateBoth(seed, { saveCrashShare: 1 });
    const damaged = h.ops.filter((o) => o.kind === "damaged") as Extract<Op, { kind: "damaged" }>[];
    assert.equal(damaged.length, 1);
    const op = damaged[0];
    assert.ok(op.dies === "log" || op.dies === "nolog");
    assert.equal(op.open, undefined);
    how.add(op.dies);
    const at = h.ops.indexOf(op);
    assert.deepEqual(h.ops[at + 1], { id: op.id + 1, kind: "sync", clone: op.clone });
    assert.match(formatOp(op), /dies inside the save its next sync makes/);
  }
  assert.deepEqual([...how].sort(), ["log", "nolog"]);
});

Deno.test("history: a process restarted on a damaged manifest log whose replacement of the log after its next base fails comes from a share of its own, followed by its own edit's push and its sync, the other operations as they were", () => {
  let armed = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const { h } = generateBoth(seed, { logFailShare: 1 });
    const damaged = h.ops.filter((o) => o.kind === "damaged") as Extract<Op, { kind: "damaged" }>[];
    assert.equal(damaged.length, 1);
    const op = damaged[0];
    assert.equal(op.replaceFails, true);
    assert.equal(op.dies, undefined);
    assert.equal(op.open, undefined);
    const at = h.ops.indexOf(op);
    const edit = h.ops[at + 1];
    assert.ok(edit.kind === "edit" && edit.clone === op.clone && edit.how === "push");
    assert.equal(h.ops[at + 2].kind, "tick");
    assert.deepEqual(h.ops[at + 3], { id: h.ops[at + 3].id, kind: "sync", clone: op.clone });
    assert.match(formatOp(op), /its replacement of the log after a base its save writes fails/);
    armed++;
  }
  assert.equal(armed, 200);
  assert.ok(generateHistory(1, INSERTS_OFF).ops.every((o) => o.kind !== "damaged"));
});

Deno.test("history: reshapes are inserted from a generator of their own, the other operations as they were", () => {
  let inserted = 0;
  for (let seed = 1; seed <= 200; seed++) {
    // The share left unset draws reshapes at its default.
    const { h, added } = generateBoth(seed, { reshapeShare: undefined }, {
      ...INSERTS_OFF,
      reshapeShare: 0,
    });
    assert.ok(added.every((o) => ["reshape", "edit", "sync"].includes(o.kind)));
    assert.equal(added.length > 0, h.ops.some((o) => o.kind === "reshape"));
    if (added.length > 0) inserted++;
    for (const o of h.ops) {
      if (o.kind === "reshape") {
        assert.match(formatOp(o), /notes\/shared-\d\.(md|lock) file <-> directory/);
      }
    }
  }
  assert.ok(inserted > 20 && inserted < 70, `${inserted} of 200`);
});

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

Deno.test("history: generated from the seed alone, printed, and parsed back", () => {
  const h = generateHistory(11);
  assert.deepEqual(generateHistory(11), h);
  assert.ok(h.clones >= 2 && h.clones <= 5);
  assert.deepEqual(parseHistory(JSON.stringify(h)), h);
  assert.match(formatHistory(h), /^seed 11, \d clones/);
  assert.throws(() =>
    parseHistory('{"seed":1,"clones":2,"ops":[{"id":0,"kind":"run","clone":7}]}')
  );
  const mixed = generateHistory(5);
  assert.deepEqual(mixed.kinds, ["api", "core-single-phase", "api", "core-single-phase"]);
  assert.deepEqual(parseHistory(JSON.stringify(mixed)), mixed);
  assert.match(formatHistory(mixed), /clients c0 api c1 core-single-phase c2 api/);
  assert.throws(
    () => parseHistory('{"seed":1,"clones":2,"kinds":["api","swamp"],"ops":[]}'),
    /client kinds/,
  );
});

Deno.test("command line: seeds, store, gates", async () => {
  const a = parseChaosArgs([
    "--seeds",
    "25",
    "--store=memory",
    "--disable",
    "lock-fence,create-only-writer",
  ]);
  assert.equal(a.seeds, 25);
  assert.deepEqual(a.disable, ["lock-fence", "create-only-writer"]);
  assert.equal(parseChaosArgs(["--seed", "9"]).seeds, 1);
  assert.throws(() => parseChaosArgs(["--seeds", "0"]), /integer >= 1/);
  assert.throws(() => parseChaosArgs(["--bogus"]), /unknown argument/);
  // A mistyped gate must not pass for a gate that prevents nothing.
  assert.throws(
    () => parseChaosArgs(["--disable", "overwrite-cass"]),
    /--disable takes gate names \(.*overwrite-cas.*\), got overwrite-cass/,
  );
  assert.deepEqual(parseChaosArgs(["--disable", "global-lock"]).disable, ["global-lock"]);
  // A weighting aimed at one kind of loss, as a hunt uses.
  const aimed = parseChaosArgs(["--weights", "migrate=8,run=25", "--stall-share", "1"]);
  assert.deepEqual(aimed.generate, { weights: { migrate: 8, run: 25 }, stallShare: 1 });
  assert.deepEqual(parseChaosArgs([]).generate, {});
  assert.throws(() => parseChaosArgs(["--weights", "migrat=8"]), /kind=n pairs/);
  assert.throws(() => parseChaosArgs(["--stall-share", "2"]), /from 0 to 1/);
  const memory = chaosTarget("memory");
  assert.equal(memory.kind, "memory");
  await memory.stop();
  assert.throws(() => chaosTarget("s4"), /unknown store/);
});

/** Seeds each real server runs in `deno task test` (the long runs: `deno task chaos --store minio --seeds N`). */
const SERVER_SEEDS = 6;

for (const make of [minioChaosTarget, gcsChaosTarget]) {
  const probe = make();
  Deno.test({
    name: `chaos over ${probe.kind} through the fault proxy: ${SERVER_SEEDS} histories keep I1-I8`,
    ignore: probe.missing,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const target: ServerTarget = make();
      const failing: HistoryResult[] = [];
      let strays = 0;
      try {
        for (let seed = 1; seed <= SERVER_SEEDS; seed++) {
          const r = await runHistory(generateHistory(seed, { maxOps: 25 }), {
            target: target.factory,
          });
          strays += r.stats.strays;
          if (r.violations.length > 0) failing.push(r);
        }
      } finally {
        await target.stop();
      }
      assert.equal(failing.length, 0, describe(failing));
      assert.equal(strays, 0);
    },
  });
}

Deno.test("chaos: a command's budget counts the latency of its own store calls, not of others' released meanwhile", async () => {
  const sched = new SimScheduler({ start: 0 });
  sched.latencyMs = 1_000;
  const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
  let busyOwn = -1;
  let quietOwn = -1;
  // A command of 10 calls beside one of 2: the scheduler releases the 12
  // calls one at a time, so both see most of 12 s pass.
  const busy = sched.spawn("busy", "c0.0", async () => {
    for (let i = 0; i < 10; i++) await store.head(`b${i}`);
    busyOwn = sched.ownTime(busy);
  });
  const quiet = sched.spawn("quiet", "c1.0", async () => {
    for (let i = 0; i < 2; i++) await store.head(`q${i}`);
    quietOwn = sched.ownTime(quiet);
  });
  await sched.startReady();
  while (await sched.stepInOrder());
  assert.equal(sched.now(), 12_000);
  assert.equal(busyOwn, 10_000);
  assert.equal(quietOwn, 2_000);
});

Deno.test("chaos: the time a stopped process stood still is taken out of its command's budget once", async () => {
  const sched = new SimScheduler({ start: 0 });
  sched.latencyMs = 1_000;
  const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
  let own = -1;
  const stalled = sched.spawn("stalled", "c0.0", async () => {
    for (let i = 0; i < 3; i++) await store.head(`s${i}`);
    own = sched.ownTime(stalled);
  });
  sched.spawn("other", "c1.0", async () => {
    for (let i = 0; i < 4; i++) await store.head(`o${i}`);
  });
  await sched.startReady();
  sched.stop("c0.0");
  // Only the other process's calls go while c0 stands still.
  while (await sched.stepInOrder());
  sched.resume("c0.0");
  while (await sched.stepInOrder());
  assert.equal(sched.now(), 7_000);
  assert.equal(own, 3_000);
});

Deno.test("chaos: time passing while the scheduler holds a command's store call back is not the command's, its own waits are", async () => {
  const sched = new SimScheduler({ start: 0 });
  sched.latencyMs = 1_000;
  const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
  let own = -1;
  const unit = sched.spawn("held", "c0.0", async () => {
    await store.head("a");
    await sched.clock.sleep(5_000);
    await store.head("b");
    own = sched.ownTime(unit);
  });
  await sched.startReady();
  // A `wait` of the history while its first call is parked: 80 s pass, the call still held.
  await sched.advanceBy(80_000);
  assert.equal(sched.ownTime(unit), 0);
  while (await sched.stepInOrder());
  // Its two calls' latency and its own 5 s sleep.
  assert.equal(sched.now(), 87_000);
  assert.equal(own, 7_000);
});

Deno.test("history: second processes over a clone's cache are inserted from a generator of their own, the other operations as they were", () => {
  let inserted = 0;
  for (let seed = 1; seed <= 200; seed++) {
    // The share left unset draws second processes at its default.
    const { h, added } = generateBoth(seed, { sharedCacheShare: undefined }, {
      sharedCacheShare: 0,
      copyShare: 0,
      markerRaceShare: 0,
      locklessShare: 0,
      tornLogShare: 0,
      damagedLogShare: 0,
      damagedOpenShare: 0,
      saveCrashShare: 0,
      logFailShare: 0,
      ownWithdrawnShare: 0,
      setAsideFlakyShare: 0,
      blipShare: 0,
      theirsShapeShare: 0,
      ...LATEST_OFF,
    });
    if (added.length === 0) continue;
    inserted++;
    for (const [i, o] of h.ops.entries()) {
      if (o.kind !== "sibling") continue;
      // Followed at once by the clone's own run or sync, then scheduling.
      const [next, tick] = h.ops.slice(i + 1, i + 3);
      assert.ok(next.kind === "run" || next.kind === "sync");
      assert.equal((next as { clone: number }).clone, o.clone);
      assert.equal(tick.kind, "tick");
      assert.match(formatOp(o), /a second process over its cache/);
    }
  }
  assert.ok(inserted > 5 && inserted < 45, `${inserted} of 200`);
});

Deno.test("history: old clients' writes of a refused run's bytes come after a breakglass of a deterministic run's model, on ETag stores only", () => {
  let etag = 0;
  let writes = 0;
  for (let seed = 1; seed <= 300; seed++) {
    const h = generateHistory(seed, { oldShare: 1 });
    if (h.etag) etag++;
    for (const [i, o] of h.ops.entries()) {
      if (o.kind !== "oldsame") continue;
      writes++;
      assert.ok(h.etag && h.oldClients);
      const b = h.ops[i - 1];
      assert.equal(b.kind, "breakglass");
      const run = h.ops.find((r) => r.id === o.run);
      assert.ok(run?.kind === "run" && run.same && run.model === (b as { model: number }).model);
      assert.match(formatOp(o), /writes run #\d+'s bytes at its version's path/);
    }
    assert.ok(!generateHistory(seed, { oldShare: 0 }).etag);
  }
  assert.ok(etag > 100 && etag < 200, `${etag} of 300`);
  assert.ok(writes > 10, `${writes} writes`);
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

Deno.test("history: core-driven processes take one lock object per model again in a share of the histories with a core-driven clone, drawn from a generator of its own", () => {
  let reused = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const without = generateHistory(seed, { reusedLockShare: 0 });
    const h = generateHistory(seed, { reusedLockShare: 1 });
    assert.deepEqual(h.ops, without.ops);
    assert.equal(without.reusedLocks, undefined);
    assert.equal(h.reusedLocks, h.kinds ? true : undefined, "only with a core-driven clone");
    if (!h.reusedLocks) continue;
    reused++;
    assert.equal(parseHistory(JSON.stringify(h)).reusedLocks, true);
    assert.match(formatHistory(h), /take one lock object per model again/);
  }
  assert.ok(reused > 50, `${reused} histories`);
});

Deno.test("history: a new file whose commit answer was lost, deleted and withdrawn while a peer names it again, is inserted at the start from a generator of its own, the other operations as they were", () => {
  const inserted = insertedAtStart(
    { ownWithdrawnShare: 1 },
    (h) => h.clones < 2,
    ({ steps, added }) => {
      const kinds = steps.map((o) => o.kind);
      assert.deepEqual(kinds.slice(0, 6), ["crash", "edit", "sync", "stall", "delete", "sync"]);
      assert.equal(kinds.at(-1), "stall");
      assert.equal(added.at(-1)!.kind, "tick");
      const [answer, edit, , stall, del] = steps;
      assert.ok(answer.kind === "crash" && answer.at === "answer");
      assert.ok(stall.kind === "stall" && stall.on && stall.at === "withdraw");
      assert.ok(edit.kind === "edit" && del.kind === "delete" && edit.file === del.file);
      assert.ok(del.how === "push" && del.clone === edit.clone);
    },
  );
  assert.ok(inserted > 100, `${inserted} histories`);
});

Deno.test("history: a resolution --theirs of a clone's deletion whose file a peer made a directory, pulled here, is inserted at the start from a generator of its own, the other operations as they were", () => {
  const inserted = insertedAtStart({ theirsShapeShare: 1 }, (h) => h.clones < 2, ({ steps }) => {
    assert.deepEqual(
      steps.map((o) => o.kind),
      ["edit", "sync", "edit", "delete", "reshape", "sync", "resolve"],
    );
    const [edit, pulled, peerEdit, del, reshape, sync, resolve] = steps;
    assert.ok(edit.kind === "edit" && peerEdit.kind === "edit" && del.kind === "delete");
    assert.ok(reshape.kind === "reshape" && resolve.kind === "resolve");
    assert.ok(pulled.kind === "sync" && sync.kind === "sync");
    const clone = edit.clone;
    const peer = peerEdit.clone;
    assert.notEqual(clone, peer);
    assert.deepEqual([pulled.clone, del.clone, reshape.clone, sync.clone], [
      peer,
      clone,
      peer,
      clone,
    ]);
    assert.ok([peerEdit.file, del.file, reshape.file].every((f) => f === edit.file));
    assert.ok(SHARED_FILES[edit.file].startsWith("notes/"));
    assert.deepEqual([del.how, reshape.how, resolve.how], ["push", "push", "theirs"]);
    assert.ok(resolve.clone === clone && resolve.pick < 4, "theirs not copied by hand first");
  });
  assert.ok(inserted > 100, `${inserted} histories`);
});

Deno.test("history: its variants, another clone's blocked push of a file of the directory's name or the clone's own file under the directory marked by its name, come just before the resolution, from generators of their own", () => {
  for (const [key, min] of [["theirsBlockedShare", 3], ["theirsUnderShare", 2]] as const) {
    const inserted = insertedAtStart({ [key]: 1 }, (h) => h.clones < min, ({ h, steps }) => {
      assert.deepEqual(
        steps.map((o) => o.kind),
        ["edit", "sync", "edit", "delete", "reshape", "sync", "edit", "resolve"],
      );
      const [edit, , peerEdit, , , , before, resolve] = steps;
      assert.ok(edit.kind === "edit" && peerEdit.kind === "edit" && before.kind === "edit");
      assert.ok(resolve.kind === "resolve" && resolve.clone === edit.clone);
      assert.equal(before.file, edit.file);
      if (key === "theirsBlockedShare") {
        assert.equal(before.how, "push");
        assert.ok(before.clone !== edit.clone && before.clone !== peerEdit.clone);
      } else assert.deepEqual([before.how, before.clone], ["under", edit.clone]);
      assert.deepEqual(parseHistory(JSON.stringify(h)).ops, h.ops);
    });
    assert.ok(inserted > 50, `${key}: ${inserted} histories`);
  }
});

Deno.test("history: a run's version held back for a put-back that may come, written again past the grace with its commit's answer lost and deleted here, is inserted at the start from a generator of its own", () => {
  const inserted = insertedAtStart({ putBackLostShare: 1 }, (h) => h.clones < 2, ({ h, steps }) => {
    assert.deepEqual(
      steps.map((o) => o.kind),
      ["run", "vanish", "sync", "run", "delete", "wait", "sync", "crash", "run", "delete", "sync"],
    );
    const [published, vanish, , lost, cleared, , , crash, again, del] = steps;
    assert.ok(published.kind === "run" && lost.kind === "run" && again.kind === "run");
    assert.ok(vanish.kind === "vanish" && vanish.run === published.id && vanish.whole);
    assert.ok(cleared.kind === "delete" && cleared.run === lost.id && cleared.how === "hand");
    assert.ok(crash.kind === "crash" && crash.at === "answer" && crash.queued);
    assert.ok(del.kind === "delete" && del.run === again.id && del.how === "push");
    assert.notEqual(published.clone, lost.clone);
    assert.deepEqual([again.clone, crash.clone, del.clone], [lost.clone, lost.clone, lost.clone]);
    assert.deepEqual([lost.model, lost.data], [published.model, published.data]);
    assert.deepEqual(parseHistory(JSON.stringify(h)).ops, h.ops);
  });
  assert.ok(inserted > 100, `${inserted} histories`);
});

Deno.test("history: a core-driven clone's run losing its version and a cut-off run's, inside an old client's read-modify-write, is inserted at the start of histories with old clients, from a generator of its own, the other operations as they were", () => {
  const inserted = insertedAtStart(
    { lostMarkerWindowShare: 1 },
    (h) => !h.oldClients || !h.kinds?.includes("core") || h.clones < 2,
    ({ h, steps }) => {
      assert.deepEqual(steps.map((o) => o.kind), [
        "sync",
        "run",
        "crash",
        "run",
        "wait",
        "run",
        "lockless",
        "lockless",
        "oldpush",
      ]);
      const [, first, crash, cut, , run, below, own, old] = steps;
      assert.ok(first.kind === "run" && cut.kind === "run" && run.kind === "run");
      assert.equal(h.kinds![run.clone], "core");
      assert.ok([first, cut].every((r) => r.model === run.model && r.data === run.data));
      assert.ok(crash.kind === "crash" && crash.at === "commit" && crash.queued);
      assert.ok(below.kind === "lockless" && below.below && below.run === run.id && below.indexed);
      assert.ok(own.kind === "lockless" && !own.below && own.run === run.id && own.indexed);
      assert.ok(old.kind === "oldpush" && old.window === run.clone && old.clone !== run.clone);
      assert.match(formatHistory(h), /number less one/);
    },
    { seeds: 300 },
  );
  assert.ok(inserted > 20, `${inserted} histories`);
});

Deno.test("history: brief outages (a push's write or deletion out of reach once) in a share of the histories, drawn from a generator of their own", () => {
  let blips = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const { h, ids, added } = generateBoth(
      seed,
      { blipShare: 1 },
      { blipShare: 0, theirsShapeShare: 0, ...LATEST_OFF },
    );
    assert.ok(added.some((o) => o.kind === "blip"), `seed ${seed}`);
    // Its marked directories (two reshapes marked by name) come in pairs.
    const marks = added.filter((o) => o.kind === "reshape" && o.how === "mark").length;
    assert.equal(marks % 2, 0, `seed ${seed}`);
    // After another tool's first writes, which come before any index.
    const firstAdded = h.ops.findIndex((o) => !ids.has(o.id));
    assert.ok(h.ops.slice(firstAdded).every((o) => o.kind !== "foreign"), `seed ${seed}`);
    assert.deepEqual(parseHistory(JSON.stringify(h)).ops, h.ops);
    assert.match(formatHistory(h), /fails as unreachable, once/);
    // The blip move's own (not a take-back move's, aimed at a marker).
    if (generateHistory(seed).ops.some((o) => o.kind === "blip" && !o.marker)) blips++;
  }
  assert.ok(blips > 5 && blips < 50, `${blips} of 200 by default`);
});

Deno.test("history: index reads fail right after a lost version's set-aside in a share of the histories, drawn from a generator of its own", () => {
  let flaky = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const { h, ids, without } = generateBoth(
      seed,
      { setAsideFlakyShare: 1 },
      { blipShare: 0, theirsShapeShare: 0, ...LATEST_OFF, setAsideFlakyShare: 0 },
    );
    const added = h.ops.filter((o) => !ids.has(o.id)).filter((o) => o.kind !== "tick");
    assert.deepEqual(
      added.map((o) => o.kind),
      h.clones < 2 ? [] : [
        "sync",
        "sync",
        "run",
        "stall",
        "breakglass",
        "flaky",
        "stall",
        "run",
        "run",
        "sync",
        "sync",
      ],
    );
    // After another tool's first writes, which come before any index.
    const firstAdded = h.ops.findIndex((o) => !ids.has(o.id));
    assert.ok(h.ops.slice(firstAdded).every((o) => o.kind !== "foreign"), `seed ${seed}`);
    assert.equal(without.setAsideFlaky, undefined);
    assert.equal(h.setAsideFlaky, true);
    assert.equal(parseHistory(JSON.stringify(h)).setAsideFlaky, true);
    assert.match(formatHistory(h), /index reads fail right after a lost version's set-aside/);
    if (generateHistory(seed).setAsideFlaky) flaky++;
  }
  assert.ok(flaky > 10 && flaky < 80, `${flaky} of 200 by default`);
});

Deno.test("history: an old client's push stopped inside its read-modify-write while a clone withdraws or deletes its own committed write is inserted at the start of histories with old clients, from a generator of its own, the other operations as they were", () => {
  const inserted = insertedAtStart(
    { oldWindowShare: 1 },
    (h) => !h.oldClients || h.clones < 2,
    ({ h, steps, added }) => {
      const kinds = steps.map((o) => o.kind);
      assert.deepEqual(kinds.slice(-5), ["crash", "edit", "wait", "oldpush", "delete"]);
      const [answer, edit, , old, del] = steps.slice(-5);
      assert.ok(answer.kind === "crash" && answer.at === "answer" && answer.queued);
      assert.ok(edit.kind === "edit" && del.kind === "delete" && edit.file === del.file);
      assert.ok(del.how === "push" && del.clone === edit.clone && answer.clone === edit.clone);
      assert.ok(old.kind === "oldpush" && old.window === del.clone && old.clone !== del.clone);
      assert.equal(parseHistory(JSON.stringify(h)).ops[added.indexOf(old)].kind, "oldpush");
      assert.match(formatHistory(h), /stops between its read of the index and its write/);
    },
    { seeds: 300 },
  );
  assert.ok(inserted > 40, `${inserted} histories`);
});

Deno.test("history: a clone's unmarked hand deletion of a file whose entry an old client's pull dropped, pulled and pushed before its peer's pull, is inserted at the start of v1 histories with old clients and three clones or more, from a generator of its own, the other operations as they were", () => {
  const inserted = insertedAtStart(
    { droppedDeletionShare: 1 },
    (h) => h.v2 || h.clones < 3,
    ({ h, steps, added }) => {
      const kinds = steps.map((o) => o.kind);
      const walk = kinds.includes("bulk");
      assert.deepEqual(kinds, [
        "edit",
        "crash",
        "delete",
        "wait",
        "oldpull",
        "edit",
        "sync",
        "delete",
        "sync",
        ...(walk ? ["bulk"] : []),
        "sync",
      ]);
      const [made, crash, gone, , old, edit, fetched, hand, sync] = steps;
      assert.ok(made.kind === "edit" && crash.kind === "crash" && gone.kind === "delete");
      assert.ok(crash.at === "commit" && crash.queued && gone.how === "push");
      assert.ok(
        made.file === gone.file && made.clone === crash.clone && gone.clone === crash.clone,
      );
      assert.ok(old.kind === "oldpull" && old.clone === crash.clone);
      assert.ok(edit.kind === "edit" && edit.how === "push" && edit.file !== gone.file);
      assert.ok(hand.kind === "delete" && hand.how === "hand" && hand.file === edit.file);
      assert.ok(fetched.kind === "sync" && old.window === fetched.clone);
      const last = steps.at(-1)!;
      assert.ok(last.kind === "sync" && last.clone === fetched.clone);
      const clone = edit.clone;
      assert.ok(sync.kind === "sync" && sync.clone === clone && hand.clone === clone);
      assert.equal(new Set([clone, fetched.clone, old.clone]).size, 3);
      // A core-driven clone's sync with an even id, beside old clients, pulls nothing.
      assert.ok(steps.every((o) => o.kind !== "sync" || o.id % 2 === 1));
      assert.equal(parseHistory(JSON.stringify(h)).ops[added.indexOf(old)].kind, "oldpull");
      assert.match(formatHistory(h), /stops between its read of the index and its write/);
    },
    { base: { ...INSERTS_OFF, oldShare: 1 } },
  );
  assert.ok(inserted > 60, `${inserted} histories`);
});

Deno.test("history: a peer's edit of a file whose entry an old client's pull dropped, pushed before any pull of its saw the drop, is inserted at the start of v1 histories with old clients, three clones or more and one driving Sluice itself, from a generator of its own, the other operations as they were", () => {
  const inserted = insertedAtStart(
    { droppedEditShare: 1 },
    (h) => h.v2 === true || h.clones < 3 || !(h.kinds ?? ["api"]).includes("api"),
    ({ h, steps, added }) => {
      assert.deepEqual(steps.map((o) => o.kind), [
        "edit",
        "crash",
        "delete",
        "wait",
        "oldpull",
        "edit",
        "sync",
        "edit",
        "sync",
        "sync",
      ]);
      const [made, crash, gone, , old, edit, fetched, dropped, writer, last] = steps;
      assert.ok(made.kind === "edit" && crash.kind === "crash" && gone.kind === "delete");
      assert.ok(crash.at === "commit" && crash.queued && gone.how === "push");
      assert.ok(made.clone === crash.clone && gone.clone === crash.clone);
      assert.ok(old.kind === "oldpull" && old.clone === crash.clone);
      assert.ok(edit.kind === "edit" && edit.how === "push" && edit.file !== gone.file);
      assert.ok(fetched.kind === "sync" && old.window === fetched.clone);
      assert.equal((h.kinds ?? [])[fetched.clone] ?? "api", "api");
      assert.ok(dropped.kind === "edit" && dropped.how === "push" && dropped.dropped);
      assert.ok(dropped.clone === fetched.clone && dropped.file === edit.file);
      assert.ok(writer.kind === "sync" && writer.clone === edit.clone);
      assert.ok(last.kind === "sync" && last.clone === fetched.clone);
      assert.equal(new Set([edit.clone, fetched.clone, old.clone]).size, 3);
      // A core-driven clone's sync with an even id, beside old clients, pulls nothing.
      assert.ok(steps.every((o) => o.kind !== "sync" || o.id % 2 === 1));
      assert.equal(parseHistory(JSON.stringify(h)).ops[added.indexOf(dropped)].kind, "edit");
      assert.match(formatHistory(h), /over an entry an old client dropped/);
    },
    { base: { ...INSERTS_OFF, oldShare: 1 } },
  );
  assert.ok(inserted > 40, `${inserted} histories`);
});

Deno.test("history: a committed version whose entries an old client's pull dropped, deleted here while its marker names it, is inserted at the start of v1 histories with old clients, from a generator of its own, the other operations as they were", () => {
  const inserted = insertedAtStart(
    { underMarkerShare: 1 },
    (h) => h.v2 === true,
    ({ h, steps, added }) => {
      assert.deepEqual(steps.map((o) => o.kind), [
        "sync",
        "run",
        "edit",
        "crash",
        "delete",
        "wait",
        "oldpull",
        "run",
        "sync",
        "delete",
        "sync",
        "sync",
      ]);
      const [, first, made, crash, gone, , old, second, fetched, del, sync, last] = steps;
      assert.ok(first.kind === "run" && second.kind === "run");
      assert.deepEqual([second.clone, second.model, second.data], [
        first.clone,
        first.model,
        first.data,
      ]);
      assert.ok(made.kind === "edit" && gone.kind === "delete" && crash.kind === "crash");
      assert.ok(crash.at === "commit" && crash.queued && gone.how === "push");
      assert.deepEqual([made.clone, crash.clone, gone.clone], [
        first.clone,
        first.clone,
        first.clone,
      ]);
      assert.ok(fetched.kind === "sync" && fetched.clone !== first.clone);
      assert.ok(old.kind === "oldpull" && old.window === fetched.clone);
      assert.ok(del.kind === "delete" && del.run === second.id && del.committed);
      assert.ok(del.clone === first.clone || del.clone === fetched.clone);
      assert.ok(sync.kind === "sync" && sync.clone === first.clone);
      assert.ok(last.kind === "sync" && last.clone === fetched.clone);
      // A core-driven clone's sync with an even id, beside old clients, pulls nothing.
      assert.ok(steps.every((o) => o.kind !== "sync" || o.id % 2 === 1));
      assert.equal(parseHistory(JSON.stringify(h)).ops[added.indexOf(del)].kind, "delete");
      assert.match(formatHistory(h), /committed version, its marker here naming it/);
    },
    { base: { ...INSERTS_OFF, oldShare: 1 } },
  );
  assert.ok(inserted > 60, `${inserted} histories`);
});

Deno.test("history: a run losing its version and a cut-off run's, a brief outage aimed at its marker take-back (its delete, or its create landing with its answer lost), is inserted at the start from a generator of its own, the other operations as they were", () => {
  for (
    const [key, call] of [["takeBackBlipShare", "delete"], ["putBackAnswerShare", "put"]] as const
  ) {
    const inserted = insertedAtStart({ [key]: 1 }, () => false, ({ h, steps }) => {
      assert.deepEqual(steps.map((o) => o.kind), [
        "sync",
        "run",
        "crash",
        "run",
        "wait",
        "blip",
        "run",
        "lockless",
        "lockless",
        "sync",
        "sync",
      ]);
      const [, first, crash, cut, , blip, run, below, own, sync, again] = steps;
      assert.ok(first.kind === "run" && cut.kind === "run" && run.kind === "run");
      assert.ok([first, cut].every((r) => r.model === run.model && r.data === run.data));
      assert.ok(
        [first, cut, crash, blip, sync, again].every((o) => "clone" in o && o.clone === run.clone),
      );
      assert.ok(crash.kind === "crash" && crash.at === "commit" && crash.queued);
      assert.ok(blip.kind === "blip" && blip.call === call && blip.marker);
      assert.equal(blip.landed === true, call === "put");
      assert.ok(below.kind === "lockless" && below.below && below.run === run.id && below.indexed);
      assert.ok(own.kind === "lockless" && !own.below && own.run === run.id && own.indexed);
      assert.deepEqual(parseHistory(JSON.stringify(h)).ops, h.ops);
      assert.match(formatHistory(h), /of a latest marker/);
    });
    assert.ok(inserted === 200, `${key}: ${inserted} histories`);
  }
});

Deno.test("history: a clone's lockfile change kept pending through an outage, a peer's published, a pull here, then this clone's transaction, is inserted at the start from a generator of its own, the other operations as they were", () => {
  const inserted = insertedAtStart({ lockfileRaceShare: 1 }, (h) => h.clones < 2, ({ steps }) => {
    assert.deepEqual(
      steps.map((o) => o.kind),
      ["lockfile", "outage", "lockfile", "outage", "lockfile", "sync", "lockfile"],
    );
    const [first, on, pending, off, peer, sync, last] = steps;
    assert.ok(on.kind === "outage" && on.on && off.kind === "outage" && !off.on);
    assert.ok(first.kind === "lockfile" && pending.kind === "lockfile" && peer.kind === "lockfile");
    assert.ok(sync.kind === "sync" && last.kind === "lockfile");
    assert.notEqual(peer.clone, first.clone);
    assert.deepEqual([pending.clone, sync.clone, last.clone], [
      first.clone,
      first.clone,
      first.clone,
    ]);
    assert.ok(first.set && pending.set && peer.set, "entries set");
  });
  assert.ok(inserted > 100, `${inserted} histories`);
});
