import assert from "node:assert/strict";
import { leftBehindError, listPaths, SyncIncompleteError } from "./left_behind.ts";

Deno.test("leftBehindError is null when nothing was left; conflicts win over other leftovers", () => {
  assert.equal(leftBehindError("push", { conflicts: [], left: [] }), null);
  const left = leftBehindError("pull", { conflicts: [], left: [{ path: "a", reason: "busy" }] });
  assert.ok(left instanceof SyncIncompleteError);
  assert.equal(left.code, "sync_incomplete");
  assert.equal(left.exitCode, 2);
  assert.match(
    left.message,
    /a: busy.*Do what the reason beside each says, then run the pull again/,
  );
  // A status lists what a push would leave, not what a pull left: not named for a pull.
  assert.doesNotMatch(left.message, /sluice status/);
  const both = leftBehindError("push", {
    conflicts: ["c1", "c2", "c3", "c4", "c5", "c6", "c7"],
    left: [{ path: "a", reason: "busy" }],
  });
  assert.equal(both?.code, "conflicts_left");
  assert.equal(both?.exitCode, 3);
  assert.match(both!.message, /7 conflict\(s\).*c5 and 2 more/);
  assert.match(both!.message, /sluice resolve <path> --mine\|--theirs\|--merged/);
});

Deno.test("listPaths names the first few paths, then counts the rest", () => {
  assert.equal(listPaths(["a", "b", "c", "d"], 2), "a, b and 2 more");
  assert.equal(listPaths(["a"]), "a");
});

Deno.test("a closing sentence, when given, ends the message (where to run the commands)", () => {
  const e = new SyncIncompleteError("push", { conflicts: ["c"], left: [] }, "Run them on /cache.");
  assert.match(e.message, /sluice resolve <path>.*Run them on \/cache\.$/s);
  assert.deepEqual(e.leftBehind.conflicts, ["c"]);
});

Deno.test("a push that left only the managed lockfile out names the transaction as the way out, not another push", () => {
  const e = new SyncIncompleteError("push", {
    conflicts: [],
    left: [{
      path: "prod/config/upstream_extensions.json",
      reason: "managed lockfile: published only by the lockfile transaction",
    }],
  });
  assert.equal(e.code, "sync_incomplete");
  assert.match(e.message, /The managed lockfile changed here was left out/);
  assert.match(e.message, /`sluice lockfile add <name> '<entry JSON>'`/);
  // A change a lockfile command could not publish is kept pending: its retry is named.
  assert.match(e.message, /`sluice lockfile retry` publishes it/);
  assert.doesNotMatch(e.message, /then the push again/);
});

Deno.test("local deletions: a path a directory of its name now holds is told to be moved away before the restore, not sent to a plain pull --restore-deleted", () => {
  const plain = new SyncIncompleteError("push", { conflicts: [], left: [], localDeletions: ["a"] });
  assert.match(
    plain.message,
    /to take the datastore's copies back, run `sluice pull --restore-deleted`\./,
  );
  const all = new SyncIncompleteError("push", {
    conflicts: [],
    left: [],
    localDeletions: ["foo"],
    directoriesNow: ["foo"],
  });
  assert.doesNotMatch(all.message, /to take the datastore's copies back, run `sluice pull/);
  assert.match(all.message, /each has a directory of its name here now/);
  assert.match(
    all.message,
    /move the directory away first, then run `sluice pull --restore-deleted`/,
  );
  assert.match(all.message, /`sluice push <path>…` naming them/);
  const some = new SyncIncompleteError("pull", {
    conflicts: [],
    left: [],
    localDeletions: ["a", "foo"],
    directoriesNow: ["foo"],
  });
  assert.match(
    some.message,
    /run `sluice pull --restore-deleted`, after moving away the directory of its name now at 1 of them \(foo\)/,
  );
});

Deno.test("local deletions of a data version its marker here names: the message names the marker to move and the push of both, not a push by path", () => {
  const d = "data/t/m/out";
  const held = [`${d}/2/metadata.yaml`, `${d}/2/raw`];
  const under = held.map((path) => ({ path, marker: `${d}/latest`, n: "2" }));
  const all = new SyncIncompleteError("push", {
    conflicts: [],
    left: [],
    localDeletions: held,
    underMarker: under,
  });
  assert.doesNotMatch(all.message, /run `sluice push <path>…` naming them/);
  assert.ok(all.message.includes(`latest marker ${d}/latest names their version (2)`), all.message);
  assert.ok(all.message.includes(`\`sluice push ${d}/2 ${d}/latest\``), all.message);
  assert.match(all.message, /sluice pull --restore-deleted/);
  const some = new SyncIncompleteError("pull", {
    conflicts: [],
    left: [],
    localDeletions: ["notes/a.txt", ...held],
    underMarker: under,
  });
  assert.match(some.message, /run `sluice push <path>…` naming the others/);
  assert.ok(some.message.includes(`\`sluice push ${d}/2 ${d}/latest\``), some.message);
});
