/**
 * The reasons a push gives for a write it holds back beside a synced shape
 * of one name it does not delete (`holdBackReshapes`): what they say of the
 * datastore comes from this cache's record of what it synced, which is all
 * the push knows there (the store may hold that copy, or only an upload of
 * that name no index names yet).
 */
import assert from "node:assert/strict";
import type { PlanEntry } from "../context.ts";
import type { SyncState } from "./state.ts";
import { holdBackReshapes } from "./shape_holds.ts";

/** The parts of the sync state `holdBackReshapes` reads: `synced` names what this cache synced. */
function stateOf(synced: readonly string[]): SyncState {
  const record = { hash: "h", version: "v1", size: 1 };
  return {
    syncedCount: synced.length,
    synced: (p: string) => synced.includes(p) ? record : undefined,
    conflicts: { has: () => false },
  } as unknown as SyncState;
}

const put = (path: string): PlanEntry => ({ path, action: "put", handledBy: [] });

Deno.test("a file under a synced file's name held back: the reason tells the file as this cache's record of it, not as what the datastore holds", () => {
  const e = put("notes/a/x.txt");
  assert.deepEqual(holdBackReshapes([e], stateOf(["notes/a"]), []), ["notes/a/x.txt"]);
  assert.equal(e.keepDirty, true);
  const reason = e.reason ?? "";
  assert.doesNotMatch(reason, /beside it on the datastore/);
  assert.match(
    reason,
    /this cache last synced notes\/a as a file \(replaced here by a directory of that name\), and this push does not delete it/,
  );
  assert.match(
    reason,
    /the datastore may hold that file still, or only an upload of that name that no index names yet/,
  );
  assert.match(reason, /Push notes\/a by its name \(`sluice push notes\/a`\)/);
});

Deno.test("a file in place of a synced directory held back: the reason tells the directory's files as this cache's record of them", () => {
  const e = put("notes/a");
  assert.deepEqual(holdBackReshapes([e], stateOf([]), ["notes/a/x.txt"]), []);
  assert.deepEqual(holdBackReshapes([e], stateOf(["notes/a/x.txt"]), ["notes/a/x.txt"]), [
    "notes/a",
  ]);
  const reason = e.reason ?? "";
  assert.doesNotMatch(reason, /beside it on the datastore/);
  assert.match(
    reason,
    /this cache last synced files under a directory notes\/a \(notes\/a\/x\.txt among them\), and this push does not delete them/,
  );
  assert.match(
    reason,
    /the datastore may hold those files still, or only uploads of those names that no index names yet/,
  );
});
