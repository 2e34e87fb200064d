/**
 * The history generator: a history from its seed alone, printed and parsed
 * back; and the moves it inserts from generators of their own (marker races,
 * reshapes, lost commit answers, resolutions `--theirs`, put-backs, brief
 * outages, set-asides, take-backs, lockfile races, reused lock objects),
 * each leaving the other operations as they were.
 *
 * @module
 */
import assert from "node:assert/strict";
import { formatHistory, formatOp, generateHistory, parseHistory, SHARED_FILES } from "./history.ts";
import { generateBoth, insertedAtStart } from "./chaos_kit.ts";
import { INSERTS_OFF, LATEST_OFF } from "./shares_off.ts";

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
