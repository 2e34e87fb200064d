import assert from "node:assert/strict";
import { pullConflictWarning } from "./pull_warnings.ts";

const THEIRS = { v: "v7", h: "a".repeat(64), s: 3 };

Deno.test("pull_conflict of a copy set aside says why it differs, never that it changed here since a sync", () => {
  const w = pullConflictWarning(
    "notes/n.txt",
    { location: ".sluice/set-aside/x/notes/n.txt", hash: "b".repeat(64), size: 2 },
    THEIRS,
    true,
    "a local copy this cache never synced differed from the datastore's",
  );
  assert.match(w.message, /differs here: a local copy this cache never synced differed/);
  assert.doesNotMatch(w.message, /is also changed here/);
  assert.match(
    w.message,
    /set aside in \.sluice\/set-aside\/x\/notes\/n\.txt and the datastore's copy taken/,
  );
});

Deno.test("pull_conflict of a copy kept in place, or a deletion here, says it changed here", () => {
  const kept = pullConflictWarning(
    "notes/n.txt",
    { location: "notes/n.txt", hash: "b".repeat(64), size: 2 },
    THEIRS,
    false,
    "changed here since the last sync, and on the datastore",
  );
  assert.match(kept.message, /is also changed here/);
  const deleted = pullConflictWarning("notes/n.txt", null, THEIRS, false);
  assert.match(deleted.message, /is also deleted here/);
});
