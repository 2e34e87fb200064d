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

Deno.test("I6: a deletion undone at a path whose latest synced record a damaged manifest log line held is spared, at that path alone; an edit lost there is not", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const changes = new LocalChanges();
    await changes.record({ op: 1, clone: 0, path: "notes/a.md", how: "hand" }, null);
    await changes.record({ op: 2, clone: 0, path: "notes/b.md", how: "hand" }, null);
    await changes.record({ op: 3, clone: 0, path: "notes/c.md", how: "hand" }, enc("mine"));
    // A pull fetched all three again (c with a peer's bytes).
    await Deno.mkdir(`${dir}/notes`);
    for (const p of ["a", "b", "c"]) await Deno.writeTextFile(`${dir}/notes/${p}.md`, "theirs");
    const lost = (path: string) => path === "notes/a.md" || path === "notes/c.md";
    const found = await changes.check(0, dir, 4, lost);
    assert.deepEqual(found.map((v) => v.invariant), ["I6", "I6"]);
    assert.match(found[0].message, /notes\/b\.md \(op #2, hand\) was undone/);
    assert.match(found[1].message, /notes\/c\.md \(op #3, hand\) was lost/);
    assert.equal((await changes.check(0, dir, 4)).length, 3, "without it, none is spared");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("I6: a deletion made while the index named no entry and the store held a peer's new upload there is in effect; the synced bytes with no entry, or no index read, are not", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = "notes/shared-0.md";
    const synced = enc("op 31: edited by c0");
    const upload = enc("op 19: edited by c1");
    // What the store holds at the path, and what the index names there
    // (undefined: no entry; null: no index could be read).
    let object: Uint8Array | undefined = upload;
    let named: string | null | undefined = undefined;
    const changes = () =>
      new LocalChanges(
        () => Promise.resolve(object),
        () => Promise.resolve(named),
      );
    // The file comes back with the peer's bytes once its commit came.
    await Deno.mkdir(`${dir}/notes`);
    await Deno.writeFile(`${dir}/${path}`, upload);
    const hash = await sha256Hex(synced);
    // A peer's deletion committed, another's creation uploaded, not yet committed.
    const inEffect = changes();
    await inEffect.record({ op: 23, clone: 3, path, how: "hand" }, null, hash);
    assert.deepEqual(await inEffect.check(3, dir, 24), []);
    // The store still holds the bytes the clone synced (an entry dropped by another client).
    object = synced;
    const dropped = changes();
    await dropped.record({ op: 23, clone: 3, path, how: "hand" }, null, hash);
    assert.equal((await dropped.check(3, dir, 24)).length, 1);
    // No index could be read.
    object = upload;
    named = null;
    const unread = changes();
    await unread.record({ op: 23, clone: 3, path, how: "hand" }, null, hash);
    assert.equal((await unread.check(3, dir, 24)).length, 1);
    // The index names the synced version still (the peer's deletion not committed).
    named = hash;
    const stillNamed = changes();
    await stillNamed.record({ op: 23, clone: 3, path, how: "hand" }, null, hash);
    assert.match((await stillNamed.check(3, dir, 24))[0]?.message ?? "", /was undone/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("chaos: a write under a directory its clone's resolve --theirs set aside afterwards is set aside by that choice; one after it, another clone's, or one not under it is not", async () => {
  const changes = new LocalChanges();
  const under = { op: 1, clone: 0, path: "notes/s.md/part-1.md", how: "under" };
  await changes.record(under, new Uint8Array([1]));
  await changes.record({ ...under, clone: 1 }, new Uint8Array([2]));
  await changes.record({ ...under, path: "notes/s.md.other/part-1.md" }, new Uint8Array([3]));
  changes.tookTheirsAside(0, "notes/s.md");
  await changes.record({ ...under, op: 2, path: "notes/s.md/part-2.md" }, new Uint8Array([4]));
  const [mine, peer, beside, later] = changes.edits;
  assert.equal(changes.setAsideAbove(0, mine.path, mine.seq), true);
  assert.equal(changes.setAsideAbove(1, peer.path, peer.seq), false);
  assert.equal(changes.setAsideAbove(0, beside.path, beside.seq), false);
  assert.equal(changes.setAsideAbove(0, later.path, later.seq), false);
});
