/**
 * A FIFO in the cache, as a real user meets one (made by `mkfifo`, which a
 * unit test may not run): the command line never opens it (a read would wait
 * for a writer forever), never takes it for a deletion of the file it
 * replaced, and says it left it out (`path_skipped`, exit 2). (A socket or a
 * device takes the same way; a unit test may not make a socket either, as
 * it needs net access.) A pull of a
 * change made on the datastore to that path keeps it, as a conflict.
 */
import assert from "node:assert/strict";
import { FsStore } from "../packages/fs/mod.ts";
import { runCli, writeUnder } from "./cli_process.ts";

const cli = (base: string, args: string[]) =>
  runCli(base, args, { denoDir: Deno.env.get("DENO_DIR") ?? undefined });
const write = writeUnder;

async function mkfifo(file: string) {
  const r = await new Deno.Command("mkfifo", { args: [file] }).output();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
}

Deno.test("a FIFO in the cache is left out and said, never read, never a deletion; a change there on the datastore is a conflict", async () => {
  const base = await Deno.makeTempDir({ prefix: "sluice-fifo-" });
  try {
    const cache = `${base}/cache`;
    const other = `${base}/other`;
    const url = `file://${base}/store`;
    await write(cache, "notes/pipe", "a file first\n");
    await write(cache, "notes/plain.txt", "1\n");
    assert.equal((await cli(base, ["push", "--init", "--cache", cache, "--store", url])).code, 0);
    assert.equal((await cli(base, ["pull", "--init", "--cache", other, "--store", url])).code, 0);

    await Deno.remove(`${cache}/notes/pipe`);
    await mkfifo(`${cache}/notes/pipe`);
    await mkfifo(`${cache}/notes/new-pipe`);
    await write(cache, "notes/plain.txt", "2\n");
    const walked = await cli(base, ["push", "--cache", cache, "--json"]);
    assert.equal(walked.code, 2, walked.err);
    assert.match(walked.err, /path_skipped.*notes\/new-pipe: it is not a regular file/);
    const doc = JSON.parse(walked.out);
    assert.deepEqual(doc.uploaded, ["notes/plain.txt"]);
    assert.deepEqual(doc.deleted, []);
    assert.deepEqual(doc.localDeletions, []);

    // Named, or under a directory named: left out and said again, never deleted.
    const named = await cli(base, ["push", "notes/pipe", "--cache", cache, "--json"]);
    assert.equal(named.code, 2, named.err);
    assert.deepEqual(JSON.parse(named.out).deleted, []);
    const dir = await cli(base, ["push", "notes", "--cache", cache, "--json"]);
    assert.equal(dir.code, 2, dir.err);
    assert.deepEqual(JSON.parse(dir.out).deleted, []);
    const store = new FsStore({ root: `${base}/store` });
    const text = async (k: string) => new TextDecoder().decode((await store.get(k)).body);
    assert.equal(await text("notes/pipe"), "a file first\n", "the remote copy is left as it was");
    assert.equal(await store.head("notes/new-pipe"), null);

    // The datastore's copy changes: a pull keeps the FIFO and records the conflict.
    await write(other, "notes/pipe", "edited elsewhere\n");
    assert.equal((await cli(base, ["push", "--cache", other])).code, 0);
    const pulled = await cli(base, ["pull", "--cache", cache]);
    assert.equal(pulled.code, 3, pulled.err);
    assert.ok((await Deno.lstat(`${cache}/notes/pipe`)).isFifo, "the FIFO is kept");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
