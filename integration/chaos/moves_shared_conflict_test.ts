/**
 * The shared-conflict move: where it inserts its block, which clones it
 * takes, and what the block does, in order.
 */
import assert from "node:assert/strict";
import type { ClientKind, Op } from "./history_ops.ts";
import { assertNothingInserted, forEachBlock, WITHOUT_API_PAIR } from "./moves_kit.ts";
import { insertSharedConflict, PAIRS } from "./moves_shared_conflict.ts";

Deno.test("shared-conflict: nothing with one clone, with no clone driven through the API, or outside its share", () => {
  assertNothingInserted(
    WITHOUT_API_PAIR,
    (ops, [kinds, share], rng) => insertSharedConflict(ops, kinds, rng, share),
  );
});

Deno.test("shared-conflict: a conflict of one file at the API clone, a newer version of theirs, then the clone's own process and a second one over its cache, mostly aimed, then a resolution and a sync", () => {
  const kinds: ClientKind[] = ["core", "api", "api"];
  const pairs = new Set<string>();
  let synced = 0;
  let aims = 0;
  let others = 0;
  forEachBlock((ops, rng) => insertSharedConflict(ops, kinds, rng, 1), (block) => {
    const steps = block.filter((o) => o.kind !== "tick");
    if (steps.some((o) => "atPull" in o || "handBefore" in o)) return; // see the tests below
    others++;
    const edits = steps.filter((o) => o.kind === "edit") as Extract<Op, { kind: "edit" }>[];
    const clone = edits.find((e) => e.how === "hand")!.clone;
    assert.equal(kinds[clone], "api", "the clone is driven through the API");
    const peer = edits[0].clone;
    assert.notEqual(peer, clone);
    assert.equal(new Set(edits.map((e) => e.file)).size, 1, "one shared file");
    assert.deepEqual(
      edits.map((e) => [e.clone, e.how]),
      [[peer, "push"], [clone, "hand"], [peer, "push"], [peer, "push"]],
    );
    assert.ok(steps.every((o) => o.kind === "edit" || ("clone" in o && o.clone === clone)));
    // The clone synced the peer's first edit before its own, or never.
    const head = steps.indexOf(edits[1]);
    if (head === 2) synced++;
    else assert.equal(head, 1);
    const rest = steps.slice(head);
    assert.deepEqual(
      [...rest.slice(0, 4), ...rest.slice(6)].map((o) => o.kind),
      ["edit", "edit", "sync", "edit", "resolve", "sync"],
    );
    assert.ok(rest.slice(6).every((o) => !("second" in o)), "the last two the clone's own");
    // The second process's command: aimed, set before the own one; else after it.
    const [first, then] = rest.slice(4, 6) as Extract<Op, { kind: "sync" | "resolve" }>[];
    const aimed = first.second === true;
    const [second, own] = aimed ? [first, then] : [then, first];
    assert.ok(second.second && !own.second);
    assert.equal(second.aimed, aimed ? true : undefined);
    if (aimed) aims++;
    pairs.add(`${own.kind} ${second.kind}`);
    // Interleaved by the tick right after them.
    assert.equal(block[block.indexOf(then) + 1].kind, "tick");
  });
  assert.deepEqual(pairs, new Set(PAIRS.map(([a, b]) => `${a} ${b}`)), "every pair drawn");
  assert.ok(synced > 0 && synced < others, "synced first in some histories only");
  assert.ok(aims > others / 2 && aims < others, "aimed in most histories");
});

Deno.test("shared-conflict: in about half the histories, the clone's own pull meets the conflict planned before the second process's record of it, the user's merge written meanwhile, then a newer version of theirs, a resolution and a sync", () => {
  const kinds: ClientKind[] = ["core", "api", "api"];
  let planned = 0;
  let all = 0;
  const hows = new Set<string>();
  forEachBlock((ops, rng) => insertSharedConflict(ops, kinds, rng, 1), (block) => {
    const steps = block.filter((o) => o.kind !== "tick");
    if (steps.some((o) => "handBefore" in o)) return; // see the test below
    all++;
    if (!steps.some((o) => "atPull" in o)) return;
    planned++;
    const { clone, file } = peerHandPeerPeer(steps, kinds);
    // Never synced here before the conflict: the user's copy is one this cache never synced.
    assert.deepEqual(
      steps.map((o) => o.kind),
      ["edit", "edit", "edit", "sync", "sync", "edit", "resolve", "sync"],
    );
    const [second, own] = steps.slice(3, 5) as Extract<Op, { kind: "sync" }>[];
    assert.deepEqual(
      [second.second, second.aimed, second.atPull, second.handAfter],
      [true, true, true, file],
      "set first, run right after the own pull's take-in, the user's merge after it",
    );
    assert.ok(!own.second && own.clone === clone && second.clone === clone);
    assert.equal(block[block.indexOf(own) + 1].kind, "tick");
    const resolve = steps[6] as Extract<Op, { kind: "resolve" }>;
    assert.ok(!resolve.second && resolve.clone === clone);
    hows.add(resolve.how);
  });
  assert.ok(planned > all / 4 && planned < (all * 3) / 4, `${planned} of ${all}`);
  assert.deepEqual(hows, new Set(["mine", "theirs", "merged"]));
});

Deno.test("shared-conflict: in a share of the histories, the clone's own resolve --theirs meets a conflict a second process over its cache records during its pull or right before its clear, the user's edit written first", () => {
  const kinds: ClientKind[] = ["core", "api", "api"];
  let theirs = 0;
  let all = 0;
  const whens = new Set<string>();
  let after = 0;
  forEachBlock((ops, rng) => insertSharedConflict(ops, kinds, rng, 1), (block) => {
    all++;
    const steps = block.filter((o) => o.kind !== "tick");
    if (!steps.some((o) => "handBefore" in o)) return;
    theirs++;
    const { clone, file } = peerHandPeerPeer(steps, kinds);
    // Synced here before the user's edit: the conflict's copy is in place.
    assert.deepEqual(
      steps.map((o) => o.kind),
      ["edit", "sync", "edit", "edit", "sync", "edit", "sync", "resolve", "resolve", "sync"],
    );
    const second = steps[6] as Extract<Op, { kind: "sync" }>;
    const own = steps[7] as Extract<Op, { kind: "resolve" }>;
    assert.deepEqual(
      [second.clone, second.second, second.aimed, second.handBefore],
      [clone, true, true, file],
    );
    assert.ok((second.afterClear === true) !== (second.atClear === true), "one moment");
    assert.equal(second.atPull, undefined);
    whens.add(second.afterClear ? "after" : "before");
    if (second.handAfter !== undefined) {
      assert.equal(second.handAfter, file);
      after++;
    }
    assert.deepEqual([own.clone, own.second, own.how], [clone, undefined, "theirs"]);
    assert.equal(block[block.indexOf(own) + 1].kind, "tick");
    assert.ok(steps.slice(8).every((o) => "clone" in o && o.clone === clone && !("second" in o)));
  });
  assert.ok(theirs > all / 5 && theirs < (all * 3) / 5, `${theirs} of ${all}`);
  assert.deepEqual(whens, new Set(["after", "before"]));
  assert.ok(after > 0 && after < theirs, "a merge by hand after it in some only");
});

/**
 * The edits of a block on one shared file: a peer's push, the clone's (an
 * API client's) edit by hand, then two more of the peer's pushes.
 */
function peerHandPeerPeer(
  steps: Op[],
  kinds: ClientKind[],
): { clone: number; peer: number; file: number } {
  const edits = steps.filter((o) => o.kind === "edit") as Extract<Op, { kind: "edit" }>[];
  const peer = edits[0].clone;
  const clone = edits[1].clone;
  assert.equal(kinds[clone], "api");
  assert.notEqual(peer, clone);
  const file = edits[0].file;
  assert.ok(edits.every((e) => e.file === file), "one shared file");
  assert.deepEqual(
    edits.map((e) => [e.clone, e.how]),
    [[peer, "push"], [clone, "hand"], [peer, "push"], [peer, "push"]],
  );
  return { clone, peer, file };
}
