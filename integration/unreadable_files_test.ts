/**
 * Files and directories the user may not read, as a real user meets them:
 * the command line runs as an unprivileged user (`nobody` through `setpriv`
 * when the suite runs as root, which every permission lets through) against
 * a `file://` store. A push leaves each unreadable path out, says so
 * (`path_skipped`, exit 2), publishes the rest, and never takes such a path
 * for a deletion; `status` still answers; once readable, the next push
 * publishes it.
 */
import assert from "node:assert/strict";
import { FsStore } from "../packages/fs/mod.ts";
import { NOBODY, runCli, writeUnder } from "./cli_process.ts";

const asRoot = Deno.uid() === 0;

/** Runs the command line as an unprivileged user (as root: nobody). */
const cli = (base: string, args: string[]) => runCli(base, args, { asNobody: true });
const write = writeUnder;

/** Hands the tree to the unprivileged user (a no-op when not root). */
async function handOver(dir: string) {
  if (!asRoot) return;
  await Deno.chown(dir, NOBODY, NOBODY);
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory) await handOver(p);
    else await Deno.chown(p, NOBODY, NOBODY);
  }
}

Deno.test("unreadable files and directories are left out and said, never deleted remotely; the rest is pushed", async () => {
  // Not under the suite's private temporary directory: the other user must reach it.
  const base = await Deno.makeTempDir({ dir: "/tmp", prefix: "sluice-unreadable-" });
  try {
    await Deno.chmod(base, 0o755);
    const cache = `${base}/cache`;
    const storeDir = `${base}/store`;
    const url = `file://${storeDir}`;
    const files = [
      "notes/a.txt",
      "notes/b.txt",
      "secret/c.txt",
      "secret/d.txt",
      "secret/sub/e.txt",
    ];
    for (const f of files) await write(cache, f, `${f} v1\n`);
    await handOver(base);
    const first = await cli(base, ["push", "--init", "--cache", cache, "--store", url]);
    assert.equal(first.code, 0, first.err);

    await write(cache, "notes/a.txt", "a v2\n");
    await write(cache, "notes/b.txt", "b v2\n");
    await Deno.chmod(`${cache}/notes/b.txt`, 0o000);
    await Deno.chmod(`${cache}/secret`, 0o000);

    const pushed = await cli(base, ["push", "--cache", cache, "--json"]);
    assert.equal(pushed.code, 2, pushed.err);
    assert.match(
      pushed.err,
      /warning\[path_skipped\]: Skipped notes\/b\.txt: it cannot be read \(permission denied\)/,
    );
    assert.match(pushed.err, /warning\[path_skipped\]: Skipped secret: it cannot be read/);
    const doc = JSON.parse(pushed.out);
    assert.deepEqual(doc.uploaded, ["notes/a.txt"]);
    assert.deepEqual(doc.deleted, []);
    assert.deepEqual(doc.localDeletions, [], "an unreadable directory's files are not deletions");
    assert.equal(doc.outcome.code, "sync_incomplete");

    // Named, the unreadable file stays dirty and is said again; nothing is deleted.
    const named = await cli(base, [
      "push",
      "notes/b.txt",
      "secret/c.txt",
      "secret/sub",
      "--cache",
      cache,
    ]);
    assert.equal(named.code, 2, named.err);
    const status = await cli(base, ["status", "--cache", cache]);
    assert.notEqual(status.code, 70, status.err);
    assert.match(status.out, /notes\/b\.txt/);

    const store = new FsStore({ root: storeDir });
    const text = async (k: string) => new TextDecoder().decode((await store.get(k)).body);
    assert.equal(await text("notes/a.txt"), "a v2\n");
    assert.equal(
      await text("notes/b.txt"),
      "notes/b.txt v1\n",
      "the remote copy is left as it was",
    );
    assert.equal(await text("secret/c.txt"), "secret/c.txt v1\n");
    assert.equal(await text("secret/d.txt"), "secret/d.txt v1\n");
    assert.equal(await text("secret/sub/e.txt"), "secret/sub/e.txt v1\n");

    // Readable again: the next push publishes it.
    await Deno.chmod(`${cache}/notes/b.txt`, 0o644);
    await Deno.chmod(`${cache}/secret`, 0o755);
    const again = await cli(base, ["push", "--cache", cache]);
    assert.equal(again.code, 0, again.err);
    assert.equal(await text("notes/b.txt"), "b v2\n");
  } finally {
    await Deno.chmod(`${base}/cache/secret`, 0o755).catch(() => {});
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a directory that may be listed but not searched, the cache or its state directory unreadable: said and refused, never internal", async () => {
  if (!asRoot && Deno.uid() === 0) return;
  const base = await Deno.makeTempDir({ dir: "/tmp", prefix: "sluice-unsearchable-" });
  const cache = `${base}/cache`;
  try {
    await Deno.chmod(base, 0o755);
    const url = `file://${base}/store`;
    await write(cache, "locked/notes.txt", "1\n");
    await write(cache, "open/todo.txt", "1\n");
    await handOver(base);
    assert.equal((await cli(base, ["push", "--init", "--cache", cache, "--store", url])).code, 0);
    await write(cache, "open/todo.txt", "2\n");
    if (asRoot) await Deno.chown(`${cache}/open/todo.txt`, NOBODY, NOBODY);

    // Listed, not searched: its synced file is neither read nor taken for a deletion.
    await Deno.chmod(`${cache}/locked`, 0o600);
    const status = await cli(base, ["status", "--cache", cache]);
    assert.notEqual(status.code, 70, status.err);
    assert.match(status.out, /locked/);
    const pushed = await cli(base, ["push", "--cache", cache, "--json"]);
    assert.equal(pushed.code, 2, pushed.err);
    assert.match(pushed.err, /warning\[path_skipped\]: Skipped locked/);
    const doc = JSON.parse(pushed.out);
    assert.deepEqual(doc.uploaded, ["open/todo.txt"]);
    assert.deepEqual(doc.deleted, []);
    await Deno.chmod(`${cache}/locked`, 0o755);

    // The state directory, then the cache itself: nothing is taken for missing state.
    for (
      const [dir, mode, says] of [
        [`${cache}/.sluice`, 0o000, /may not read the cache's sync state directory/],
        [`${cache}/.sluice`, 0o600, /may not read the cache's sync state directory/],
        [cache, 0o000, /may not look inside the cache directory/],
        [`${cache}/.sluice/cli-store.json`, 0o000, /may not read the cache's sync state file/],
        [`${cache}/.sluice/manifest.json`, 0o000, /may not read the cache's sync state file/],
      ] as const
    ) {
      await Deno.chmod(dir, mode);
      for (const cmd of ["status", "push", "pull"]) {
        const r = await cli(base, [cmd, "--cache", cache]);
        assert.equal(r.code, 77, `${dir} ${mode.toString(8)} ${cmd}: ${r.err}`);
        assert.match(r.err, /^error\[path_unreadable\]: /m);
        assert.match(r.err, says);
        assert.doesNotMatch(r.err, /state_unreadable|no recorded store/);
      }
      await Deno.chmod(dir, dir.endsWith(".json") ? 0o644 : 0o755);
    }
  } finally {
    for (const d of [cache, `${cache}/.sluice`, `${cache}/locked`]) {
      await Deno.chmod(d, 0o755).catch(() => {});
    }
    await Deno.remove(base, { recursive: true });
  }
});
