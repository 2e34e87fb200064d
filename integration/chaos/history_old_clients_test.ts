/**
 * The history generator's moves beside old clients (which record no object
 * version and write the index back without a lock): their writes of a
 * refused run's bytes, and their read-modify-writes of the index and pulls
 * that drop entries, each inserted leaving the other operations as they
 * were.
 *
 * @module
 */
import assert from "node:assert/strict";
import { formatHistory, formatOp, generateHistory, parseHistory } from "./history.ts";
import { insertedAtStart } from "./chaos_kit.ts";
import { INSERTS_OFF } from "./shares_off.ts";

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
