import assert from "node:assert/strict";
import { identityOf, sameIdentity } from "./file_identity.ts";

Deno.test("a file's identity changes with an edit in place, a save by rename, and a deletion", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-identity-" });
  const f = `${dir}/a.txt`;
  assert.ok(sameIdentity(null, null), "nothing there, both times");
  await Deno.writeTextFile(f, "one");
  const seen = identityOf(Deno.lstatSync(f));
  assert.equal(seen?.kind, "file");
  assert.ok(sameIdentity(seen, Deno.lstatSync(f)), "unchanged");
  assert.ok(!sameIdentity(null, Deno.lstatSync(f)), "a file made where there was none");
  // Same size, mtime set back: the ctime still moves.
  const before = Deno.lstatSync(f);
  await Deno.writeTextFile(f, "two");
  Deno.utimeSync(f, before.atime!, before.mtime!);
  const after = Deno.lstatSync(f);
  if (after.ctime?.getTime() !== before.ctime?.getTime()) {
    assert.ok(!sameIdentity(seen, after), "an edit in place, mtime kept");
  }
  // Saved by rename (as editors do): another inode.
  await Deno.writeTextFile(`${dir}/b.tmp`, "two");
  await Deno.rename(`${dir}/b.tmp`, f);
  assert.ok(!sameIdentity(identityOf(after), Deno.lstatSync(f)), "saved by rename");
  await Deno.remove(f);
  assert.ok(!sameIdentity(seen, null), "deleted");
  await Deno.symlink(`${dir}/elsewhere`, f);
  assert.equal(identityOf(Deno.lstatSync(f))?.kind, "link");
  await Deno.remove(dir, { recursive: true });
});
