import assert from "node:assert/strict";
import { sha256Hex } from "../../sync/hash.ts";
import { LocalChanges } from "./local_changes.ts";

const enc = (t: string) => new TextEncoder().encode(t);

Deno.test("replacedOwn: a clone's own write it replaced since (a directory in its place), and no other", async () => {
  const changes = new LocalChanges();
  const path = "notes/shared-0.md";
  const mine = enc("op 44: edited by c4");
  const h = await sha256Hex(mine);
  await changes.record({ op: 44, clone: 4, path, how: "push" }, mine);
  // Still its user's choice there: not replaced.
  assert.equal(changes.replacedOwn(4, path, h), false);
  // Another clone that never wrote those bytes, another path, other bytes: no.
  changes.replaced(0, path);
  assert.equal(changes.replacedOwn(0, path, h), false);
  // Its user replaces the file by a directory of its name (never synced
  // here: its own change, replaced by choice).
  changes.replaced(4, path);
  await changes.record({ op: 45, clone: 4, path: `${path}/part-45.md`, how: "reshape" }, enc("x"));
  assert.equal(changes.replacedOwn(4, path, h), true);
  assert.equal(changes.replacedOwn(4, "notes/shared-1.md", h), false);
  assert.equal(changes.replacedOwn(4, path, await sha256Hex(enc("other"))), false);
  // A later edit replaces it too.
  const other = new LocalChanges();
  await other.record({ op: 1, clone: 2, path, how: "hand" }, mine);
  await other.record({ op: 2, clone: 2, path, how: "hand" }, enc("op 2"));
  assert.equal(other.replacedOwn(2, path, h), true);
  assert.equal(other.replacedOwn(2, path, await sha256Hex(enc("op 2"))), false);
});
