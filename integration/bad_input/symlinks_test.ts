/**
 * Bad input, symlinks inside the cache: a pull never writes through a link
 * nor over one, a push never uploads what a link points to. See `sandbox.ts` for the sandbox
 * every test runs in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { leftBehindError } from "../../sync/left_behind.ts";
import { pullLeftBehind } from "../../sync/service/pull.ts";
import { pushLeftBehind } from "../../sync/service/push.ts";
import { clone, pushPaths, put, refused, sandbox, warnings } from "./sandbox.ts";

Deno.test("symlinks: a pull never writes through a symlinked directory or a symlinked file, and leaves both as they are", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, `${sb.root}/peer`);
  await put(a.cacheDir, "outputs/o.txt", "from the peer");
  await put(a.cacheDir, "leaf/secret.txt", "from the peer, too");
  await pushPaths(a, "outputs/o.txt", "leaf/secret.txt");

  // A directory of the cache is a link out of it: the path under it is left out, the rest pulled.
  const w = warnings();
  const b = await clone(store, sb.cacheDir, { name: "b", events: w.events });
  await Deno.symlink("../sentinel", `${sb.cacheDir}/outputs`);
  const r = await b.pullChanged();
  assert.deepEqual(r.links, ["outputs/o.txt"]);
  assert.deepEqual(r.fetched, ["leaf/secret.txt"]);
  const skipped = w.list.filter((x) => x.code === "path_skipped");
  assert.deepEqual(skipped.map((x) => x.path), ["outputs/o.txt"]);
  assert.match(skipped[0].message, /symbolic link/);
  assert.match(skipped[0].message, /replace the link with a real file or directory/);
  assert.equal(leftBehindError("pull", pullLeftBehind(r))?.code, "sync_incomplete");
  assert.equal(await Deno.readLink(`${sb.cacheDir}/outputs`), "../sentinel", "the link is kept");
  await sb.unchanged();

  // A file of the cache is a link out of it: the pull leaves the link as it is, and its target.
  const sb2 = await sandbox();
  const c = await clone(store, sb2.cacheDir, { name: "c" });
  await Deno.mkdir(`${sb2.cacheDir}/leaf`, { recursive: true });
  await Deno.symlink("../../sentinel/secret.txt", `${sb2.cacheDir}/leaf/secret.txt`);
  const rc = await c.pullChanged();
  assert.deepEqual(rc.links, ["leaf/secret.txt"]);
  assert.deepEqual(rc.fetched, ["outputs/o.txt"]);
  assert.equal(
    await Deno.readLink(`${sb2.cacheDir}/leaf/secret.txt`),
    "../../sentinel/secret.txt",
    "the link is kept",
  );
  await sb2.unchanged();
});

Deno.test("symlinks: a dirty path that is a link, or lies under one, is skipped and kept dirty; its remote copy is kept", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const w = warnings();
  const a = await clone(store, sb.cacheDir, { events: w.events });
  await put(sb.cacheDir, "outputs/o.txt", "synced file");
  await put(sb.cacheDir, "linked/l.txt", "synced too");
  await pushPaths(a, "outputs/o.txt", "linked/l.txt");

  // The user swaps the file and the directory for links out of the cache.
  await Deno.remove(`${sb.cacheDir}/outputs/o.txt`);
  await Deno.symlink("../../sentinel/secret.txt", `${sb.cacheDir}/outputs/o.txt`);
  await Deno.remove(`${sb.cacheDir}/linked`, { recursive: true });
  await Deno.symlink("../sentinel/nested", `${sb.cacheDir}/linked`);
  const r = await pushPaths(a, "outputs/o.txt", "linked/l.txt");

  assert.deepEqual(r.deleted, [], "a link is not a deletion");
  assert.deepEqual(r.uploaded, []);
  assert.deepEqual(r.skipped.map((s) => [s.path, s.keepDirty]), [
    ["linked/l.txt", true],
    ["outputs/o.txt", true],
  ]);
  assert.equal(store.peekText("outputs/o.txt"), "synced file", "the remote copy is kept");
  assert.equal(store.peekText("linked/l.txt"), "synced too");
  const skipped = w.list.filter((x) => x.code === "path_skipped");
  assert.deepEqual(skipped.map((x) => x.path).sort(), ["linked/l.txt", "outputs/o.txt"]);
  for (const s of skipped) {
    assert.match(s.message, /symbolic link/);
    assert.match(s.message, /replace the link with a real (file|directory)/);
  }
  assert.deepEqual(a.state.dirtyPaths(), ["linked/l.txt", "outputs/o.txt"], "kept dirty");
  assert.deepEqual(r.localOnly, [], "a named link is reported as kept dirty, not twice");
  await sb.unchanged();

  // Once the link is replaced by a real file, the next push uploads it.
  await Deno.remove(`${sb.cacheDir}/outputs/o.txt`);
  await put(sb.cacheDir, "outputs/o.txt", "real again");
  const again = await a.pushChanged();
  assert.deepEqual(again.uploaded, ["outputs/o.txt"]);
  assert.equal(store.peekText("outputs/o.txt"), "real again");
});

Deno.test("symlinks: a walk skips links with a warning and uploads nothing they point to", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const w = warnings();
  const a = await clone(store, sb.cacheDir, { events: w.events });
  await put(sb.cacheDir, "outputs/real.txt", "real");
  await Deno.symlink("../../sentinel/secret.txt", `${sb.cacheDir}/outputs/file-link`);
  await Deno.symlink("../../sentinel", `${sb.cacheDir}/outputs/dir-link`);
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["outputs/real.txt"]);
  assert.deepEqual(
    w.list.filter((x) => x.code === "path_skipped").map((x) => x.path).sort(),
    ["outputs/dir-link", "outputs/file-link"],
  );
  assert.deepEqual(
    r.localOnly.map((x) => x.path).sort(),
    ["outputs/dir-link", "outputs/file-link"],
    "a link the walk left out is in the result, so the push is not a clean one",
  );
  const left = leftBehindError("push", pushLeftBehind(r));
  assert.equal(left?.code, "sync_incomplete");
  assert.equal(left?.exitCode, 2);
  assert.match(left!.message, /stay local only.*outputs\/dir-link/);
  const secret = await Deno.readTextFile(`${sb.sentinel}/secret.txt`);
  for (const k of store.keys()) assert.notEqual(store.peekText(k), secret, k);
  assert.equal(a.state.bulkPending(), false);
  await sb.unchanged();
});

Deno.test("symlinks: a symlinked state directory is refused before any state is written", async () => {
  const sb = await sandbox();
  await Deno.mkdir(sb.cacheDir);
  await Deno.symlink("../sentinel/state", `${sb.cacheDir}/.sluice`);
  await refused(
    clone(new InMemoryStore(), sb.cacheDir),
    "unsafe_path",
    /Refused the path "\.sluice": the cache's state directory is a symbolic link/,
    /move the directory it points to into the cache in its place/,
  );
  await sb.unchanged();
});
