import assert from "node:assert/strict";
import { describeConflicts } from "./status.ts";
import { sluice, world } from "./cli_test_kit.ts";
import { createSluice } from "../sluice.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { pushUnderGlobalLock } from "../sync/service/global_lock_push.ts";
import { globalLockKey } from "../sync/locks/model_locks.ts";

Deno.test("status shows the copies a conflict's earlier records set aside, beside mine", () => {
  const lines = describeConflicts([{
    path: "notes/n.txt",
    mine: { location: "notes/n.txt", hash: "a".repeat(64), size: 3 },
    theirs: { version: "v2", hash: "b".repeat(64), size: 2 },
    base: "v1",
    foundBy: "pull",
    at: 1,
    reason: "changed here since the last sync, and on the datastore",
    keptAside: [{
      location: ".sluice/set-aside/2026-01-01T00-00-00-000Z-a1b2c3/notes/n.txt",
      hash: "c".repeat(64),
      size: 5,
    }],
  }]);
  assert.deepEqual(lines.slice(1, 5), [
    "  notes/n.txt: changed here since the last sync, and on the datastore",
    "    mine:   in place (3 B, aaaaaaaaaaaa…)",
    "    set aside earlier: .sluice/set-aside/2026-01-01T00-00-00-000Z-a1b2c3/notes/n.txt (5 B, cccccccccccc…)",
    "    theirs: version v2 (2 B, bbbbbbbbbbbb…)",
  ]);
});

Deno.test("status says a copy recorded in place that was deleted here since is gone, not in place", () => {
  const rec = {
    path: "notes/n.txt",
    mine: { location: "notes/n.txt", hash: "a".repeat(64), size: 3 },
    theirs: { version: "v2", hash: "b".repeat(64), size: 2 },
    base: "v1",
    foundBy: "pull" as const,
    at: 1,
    reason: "changed here since the last sync, and on the datastore",
  };
  assert.equal(
    describeConflicts([rec], (l) => l, () => true)[2],
    "    mine:   in place (3 B, aaaaaaaaaaaa…)",
  );
  assert.equal(
    describeConflicts([rec], (l) => l, () => false)[2],
    "    mine:   was in place, deleted here since (put it back for --mine, or take theirs) (3 B, aaaaaaaaaaaa…)",
  );
});

Deno.test("status says a deletion here written again since is in place now, not deleted", () => {
  const rec = {
    path: "notes/m.txt",
    mine: null,
    theirs: { version: "v2", hash: "b".repeat(64), size: 2 },
    base: "v1",
    foundBy: "push" as const,
    at: 1,
    reason: "a peer changed it since this cache last synced it",
  };
  assert.equal(
    describeConflicts([rec], (l) => l, () => false)[2],
    "    mine:   deleted here (--merged publishes a file: write the merged file at notes/m.txt first)",
  );
  assert.match(
    describeConflicts([rec], (l) => l, () => true)[2],
    /^ {4}mine: {3}deleted here, and written here again since \(--mine publishes the file now in place/,
  );
});

Deno.test("status shows the class of a deletion here and of a link, as the push's classifier gives it, and what a `-` for gates means", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "config/gone.yaml", "x: 1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await Deno.remove(`${a}/config/gone.yaml`);
  await Deno.mkdir(`${a}/data/aws/ec2/m1/state/1`, { recursive: true });
  await Deno.symlink(`${a}/config`, `${a}/data/aws/ec2/m1/state/1/raw`);
  const doc = (await sluice(["status", "--cache", a, "--json"])).json();
  const dirty = doc.dirty as { path: string; class?: string; handledBy: string[] }[];
  assert.deepEqual(dirty.map((e) => [e.path, e.class, e.handledBy]), [
    ["config/gone.yaml", "config", []],
    ["data/aws/ec2/m1/state/1/raw", "data-version", []],
  ]);
  const human = await sluice(["status", "--cache", a]);
  assert.match(human.out, /^ {2}skip {3}config\/gone\.yaml\s+config\s+- {2}\(deleted here/m);
  assert.match(
    human.out,
    /^ {2}skip {3}data\/aws\/ec2\/m1\/state\/1\/raw\s+data-version\s+- {2}\(/m,
  );
  assert.doesNotMatch(human.out, /\?\s+-/);
  assert.match(
    human.out,
    /^\(A `-` for gates: no gate handles the path, as the push leaves it out before its gates run, for the reason beside it\.\)$/m,
  );
  await w.cleanup();
});

Deno.test("after a push under the global lock timed out, status says to push with the same options, naming --global-lock", async () => {
  const w = await world();
  const a = w.cache("a");
  await w.write(a, "config/app.yaml", "x: 1\n");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  await w.write(a, "config/app.yaml", "x: 2\n");
  const svc = await createSluice({ cacheDir: a, store: new FsStore({ root: w.root }) });
  await svc.markDirty({ relPath: "config/app.yaml" });
  const held = svc.lockBackend!.createLock(globalLockKey(""), {
    holder: "old-client@other",
    hostname: "other",
    pid: 2,
  });
  await held.acquire();
  const short = svc.lockBackend!.createLock(globalLockKey(""), svc.identity, {
    retryDelayMs: 10,
    maxWaitMs: 50,
  });
  await assert.rejects(
    pushUnderGlobalLock(svc, short),
    (e: Error & { code?: string }) => e.code === "lock_timeout",
  );
  await held.release();

  const status = await sluice(["status", "--cache", a]);
  assert.equal(status.code, 0, status.err);
  assert.match(status.out, /^ {2}put {4}config\/app\.yaml /m);
  assert.match(
    status.out,
    /^Run `sluice push --cache \S+` to publish them, with the options you push this cache with \(`sluice push --global-lock --cache \S+` while old swamp clients push to this bucket\)\.$/m,
  );
  await w.cleanup();
});

Deno.test("status says a set-aside copy a conflict names as yours that was deleted since is gone", () => {
  const rec = {
    path: "notes/n.txt",
    mine: { location: ".sluice/set-aside/x/notes/n.txt", hash: "a".repeat(64), size: 3 },
    theirs: { version: "v2", hash: "b".repeat(64), size: 2 },
    base: "v1",
    foundBy: "pull" as const,
    at: 1,
    reason: "a local copy this cache never synced differed from the datastore's",
  };
  assert.equal(
    describeConflicts([rec], (l) => l, () => true, () => false, () => true)[2],
    "    mine:   .sluice/set-aside/x/notes/n.txt (3 B, aaaaaaaaaaaa…)",
  );
  assert.equal(
    describeConflicts([rec], (l) => l, () => true, () => false, () => false)[2],
    "    mine:   .sluice/set-aside/x/notes/n.txt (gone: deleted since; put your copy back at the path for --mine, or take theirs) (3 B, aaaaaaaaaaaa…)",
  );
});

Deno.test("status: with a copy set aside by an earlier resolution of the path, it never says --mine publishes that copy", async () => {
  const w = await world();
  const a = w.cache("a");
  const b = w.cache("b");
  await w.write(a, "notes/n.txt", "1");
  assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
  assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
  // A first conflict, resolved by taking theirs: b's copy is set aside.
  await w.write(a, "notes/n.txt", "a2");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  await w.write(b, "notes/n.txt", "b2");
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  assert.equal((await sluice(["resolve", "notes/n.txt", "--theirs", "--cache", b])).code, 0);
  // A second conflict of the same path, b's copy in place.
  await w.write(a, "notes/n.txt", "a3");
  assert.equal((await sluice(["push", "--cache", a])).code, 0);
  await w.write(b, "notes/n.txt", "b3");
  assert.equal((await sluice(["pull", "--cache", b])).code, 3);
  const status = await sluice(["status", "--cache", b]);
  assert.equal(status.code, 3, status.out);
  assert.doesNotMatch(status.out, /publishes the set-aside copy/);
  // The resolution released the copy it set aside: listed as kept from it, to compare by hand.
  assert.match(status.out, /kept from a conflict resolved since, which no open conflict names/);
  await w.cleanup();
});

Deno.test("status on a data version lost to another writer says to pull until a pull brought theirs, then only to run again", async () => {
  const w = await world();
  try {
    const [a, b] = [w.cache("a"), w.cache("b")];
    const V = "data/shell/cmd/m1/out/2";
    await w.write(a, `${V}/raw`, "from a");
    await w.write(a, `${V}/metadata.yaml`, "version: 2\n");
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    await w.write(b, `${V}/raw`, "from b");
    await w.write(b, `${V}/metadata.yaml`, "version: 2\nfrom: b\n");
    const lost = await sluice(["push", "--cache", b, "--store", w.url]);
    assert.equal(lost.code, 1, lost.err);
    assert.match(lost.err, /version_exists/);
    const before = await sluice(["status", "--cache", b]);
    assert.match(before.out, /run `sluice pull[^`]*` to get the datastore's copies/);
    assert.equal((await sluice(["pull", "--cache", b])).code, 0);
    assert.equal(await Deno.readTextFile(`${b}/${V}/raw`), "from a");
    const after = await sluice(["status", "--cache", b]);
    assert.doesNotMatch(after.out, /run `sluice pull/);
    assert.match(after.out, /the datastore's copies are in the cache now \(a pull brought them\)/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("status on a latest marker conflict says which version each side names", async () => {
  const w = await world();
  try {
    const [a, b] = [w.cache("a"), w.cache("b")];
    const D = "data/shell/cmd/m1/out";
    const version = async (c: string, n: number) => {
      await w.write(c, `${D}/${n}/raw`, `v${n}`);
      await w.write(c, `${D}/${n}/metadata.yaml`, `version: ${n}\n`);
      await w.write(c, `${D}/latest`, `${n}\n`);
    };
    await version(a, 1);
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    assert.equal((await sluice(["pull", "--cache", b, "--store", w.url])).code, 0);
    await version(a, 3);
    assert.equal((await sluice(["push", "--cache", a])).code, 0);
    await version(b, 2);
    // Moved forward on both sides, further there: a conflict.
    assert.equal((await sluice(["push", "--cache", b])).code, 3);
    const st = await sluice(["status", "--cache", b]);
    assert.match(st.out, /data\/shell\/cmd\/m1\/out\/latest: /);
    assert.match(st.out, /mine: {3}in place \(2 B, [0-9a-f]+…?, names version 2\)/);
    assert.match(st.out, /theirs: .*\(2 B, [0-9a-f]+…?, names version 3\)/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("status on a data version lost to an older client's upload no index names: never says a pull gets the datastore's copies", async () => {
  const w = await world();
  try {
    const a = w.cache("a");
    const D = "data/shell/cmd/m1/out";
    await w.write(a, `${D}/1/raw`, "v1");
    await w.write(a, `${D}/1/metadata.yaml`, "version: 1\n");
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    // An older client's run uploaded version 2 (no writer id) and died before its commit.
    const fs = new FsStore({ root: w.root });
    for (const [f, body] of [["raw", "old client"], ["metadata.yaml", "version: 2\n"]]) {
      await fs.put(`${D}/2/${f}`, new TextEncoder().encode(body), { kind: "create" });
    }
    await w.write(a, `${D}/2/raw`, "from a");
    await w.write(a, `${D}/2/metadata.yaml`, "version: 2\nfrom: a\n");
    const lost = await sluice(["push", "--cache", a]);
    assert.equal(lost.code, 1, lost.err);
    assert.match(lost.err, /named by no index yet/);
    // A pull brings nothing of it: no index names it.
    await sluice(["pull", "--cache", a]);
    assert.equal(await Deno.readTextFile(`${a}/${D}/2/raw`).catch(() => null), null);
    const status = await sluice(["status", "--cache", a]);
    assert.match(status.out, /data versions? that already exists?/);
    assert.doesNotMatch(
      status.out,
      /run `sluice pull[^`]*` to get the datastore's copies/,
      "a pull brings no copy an index does not name",
    );
  } finally {
    await w.cleanup();
  }
});

Deno.test("status, with a store given, of a cache whose sync state was removed names the way out of a lost sync state beside push --init", async () => {
  const w = await world();
  try {
    const a = w.cache("a");
    await w.write(a, "notes/old.txt", "one\n");
    assert.equal((await sluice(["push", "--cache", a, "--store", w.url])).code, 0);
    await Deno.remove(`${a}/.sluice`, { recursive: true });
    const r = await sluice(["status", "--cache", a, "--store", w.url]);
    assert.match(r.out, /is no cache yet/);
    assert.match(r.out, /sync state was removed/);
    assert.match(r.out, /sluice pull --init --store \S+ --cache <new dir>/);
  } finally {
    await w.cleanup();
  }
});

Deno.test("status --help says it is a push's preview, what each exit status means, and shows examples", async () => {
  const help = await sluice(["status", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.out, /preview of a push/);
  assert.match(help.out, /0 .*nothing left/i);
  assert.match(help.out, /\b2\b.*sync_incomplete/);
  assert.match(help.out, /\b3\b.*conflicts_left/);
  assert.match(help.out, /\b69\b.*unreachable/);
  assert.match(help.out, /Examples:\n {2}sluice status\n/);
});
