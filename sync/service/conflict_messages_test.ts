import assert from "node:assert/strict";
import { ADOPT_HINT, adoptedMessage, describeVersion, resolveHint } from "./conflict_messages.ts";

Deno.test("conflict messages: versions as a user reads them, and the commands named quote a path a shell would split", () => {
  assert.equal(describeVersion("v3"), "version v3");
  assert.match(describeVersion("~abc"), /another client's entry/);
  assert.equal(resolveHint("a b.txt"), "sluice resolve 'a b.txt' --mine|--theirs|--merged");
  assert.match(ADOPT_HINT("notes/a.txt"), /sluice push --adopt-uncommitted notes\/a\.txt/);
  assert.equal(ADOPT_HINT("x", "index"), "an index file is never adopted");
  const m = adoptedMessage("notes/a.txt", "v3", "w-1");
  assert.match(m, /version v3, writer w-1/);
  assert.match(m, /sluice resolve notes\/a\.txt/);
  assert.match(adoptedMessage("notes/a.txt", "v3"), /writer unknown/);
});
