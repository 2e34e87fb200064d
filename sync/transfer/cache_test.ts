import assert from "node:assert/strict";
import {
  LINK_REFUSED,
  LocalCache,
  setAsideSource,
  STATE_DIR,
  unwritable,
  walkFiles,
} from "./cache.ts";
import { isBodySource } from "./body.ts";
import { PathBlockedError, SluiceError, UnsafePathError } from "../errors.ts";
import { sha256HexSync } from "../hash.ts";
import type { MetadataOps } from "./metadata_pace.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => b === null ? null : new TextDecoder().decode(b);

/** Both ways of making directories and small files (see metadata_pace.ts): each test of writes runs with each. */
const CALLS = ["sync", "async"] as const;

async function tempCache(calls: MetadataOps = "auto"): Promise<
  { dir: string; cache: LocalCache; [Symbol.asyncDispose](): Promise<void> }
> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-cache-test-" });
  return {
    dir,
    cache: new LocalCache(`${dir}/`, () => Date.UTC(2026, 0, 2, 3, 4, 5), { mode: calls }),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const x of chunks) c.enqueue(enc(x));
      c.close();
    },
  });
}

/** Every name under `dir`, recursively, cache-relative. */
async function namesUnder(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(rel ? `${dir}/${rel}` : dir)) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    out.push(r);
    if (e.isDirectory) out.push(...await namesUnder(dir, r));
  }
  return out.sort();
}

for (const calls of CALLS) {
  Deno.test(`write makes parent directories; read, stat, exists and isDirectory see the file (${calls} calls)`, async () => {
    await using t = await tempCache(calls);
    assert.equal(t.cache.dir, t.dir);
    await t.cache.write("a/b/c.txt", enc("hello"));
    assert.equal(dec(await t.cache.read("a/b/c.txt")), "hello");
    assert.equal((await t.cache.stat("a/b/c.txt"))?.size, 5);
    assert.equal(t.cache.exists("a/b/c.txt"), true);
    assert.equal(t.cache.isDirectory("a/b"), true);
    assert.equal(t.cache.isDirectory("a/b/c.txt"), false);
    // Absent, or a directory: no file.
    assert.equal(await t.cache.read("a/nope"), null);
    assert.equal(await t.cache.read("a/b"), null);
    assert.equal(await t.cache.stat("a/nope"), null);
    assert.equal(t.cache.exists("a/nope"), false);
    assert.deepEqual(await namesUnder(t.dir), ["a", "a/b", "a/b/c.txt"], "no temp file left");
  });
}

type Stat = { size: number; mtimeMs: number; ctimeMs?: number };

/**
 * A write's own stat against the file's: the same size and mtime; its
 * ctime is the written file's before the rename into place, given to the
 * second, which the rename may move into the next.
 */
function assertWrittenStat(written: Stat | void, st: Stat | null, path: string): void {
  assert.ok(written && st, path);
  assert.equal(written.size, st.size, path);
  assert.equal(written.mtimeMs, st.mtimeMs, path);
  const moved = (st.ctimeMs ?? 0) - (written.ctimeMs ?? 0);
  assert.ok(moved === 0 || moved === 1000, `${path}: ctime moved by ${moved} ms`);
}

Deno.test("unsafe paths are refused before any file is touched", async () => {
  await using t = await tempCache();
  for (const p of ["../x", "/etc/passwd", "a//b", ""]) {
    await assert.rejects(t.cache.write(p, enc("x")), UnsafePathError, p);
    await assert.rejects(t.cache.read(p), UnsafePathError, p);
  }
  assert.deepEqual(await namesUnder(t.dir), []);
});

for (const calls of CALLS) {
  Deno.test(`a link in the cache is never followed: reads, writes and stats refuse it, exists counts it (${calls} calls)`, async () => {
    await using t = await tempCache(calls);
    const outside = await Deno.makeTempDir({ prefix: "sluice-cache-outside-" });
    try {
      await Deno.writeTextFile(`${outside}/secret`, "outside");
      await Deno.symlink(outside, `${t.dir}/dirlink`);
      await Deno.symlink(`${outside}/secret`, `${t.dir}/filelink`);
      for (const p of ["dirlink/secret", "filelink"]) {
        await assert.rejects(t.cache.read(p), (e) => {
          assert.ok(e instanceof UnsafePathError);
          assert.ok(e.message.includes(LINK_REFUSED), e.message);
          return true;
        });
        await assert.rejects(t.cache.stat(p), UnsafePathError);
        assert.equal(t.cache.exists(p), true, `${p} is never taken for a deletion`);
      }
      await assert.rejects(t.cache.write("dirlink/new", enc("x")), UnsafePathError);
      assert.deepEqual(await namesUnder(outside), ["secret"]);
      assert.equal(await Deno.readTextFile(`${outside}/secret`), "outside");
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
}

Deno.test("a link deep on a path is refused, whether it leads out of the cache or inside it; a cache under a link is used", async () => {
  await using t = await tempCache();
  const outside = await Deno.makeTempDir({ prefix: "sluice-cache-outside-" });
  try {
    await Deno.mkdir(`${outside}/c`);
    await Deno.writeTextFile(`${outside}/c/secret`, "outside");
    await Deno.mkdir(`${t.dir}/a/real/c`, { recursive: true });
    await Deno.writeTextFile(`${t.dir}/a/real/c/f`, "inside");
    await Deno.symlink(outside, `${t.dir}/a/out`);
    await Deno.symlink("real", `${t.dir}/a/in`);
    for (const p of ["a/out/c/secret", "a/in/c/f"]) {
      await assert.rejects(t.cache.stat(p), (e) => {
        assert.ok(e instanceof UnsafePathError, String(e));
        assert.match(e.message, /a\/(out|in) is a symbolic link/);
        return true;
      }, p);
      await assert.rejects(t.cache.read(p), UnsafePathError, p);
    }
    assert.equal(dec(await t.cache.read("a/real/c/f")), "inside");
    // The cache directory itself may be reached through a link.
    const via = `${outside}/via`;
    await Deno.symlink(t.dir, via);
    const linked = new LocalCache(via);
    assert.equal(dec(await linked.read("a/real/c/f")), "inside");
    await assert.rejects(linked.read("a/in/c/f"), UnsafePathError);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

for (const calls of CALLS) {
  Deno.test(`a directory a write checked or made is checked again after resetChecks: a link put in its place is refused (${calls} calls)`, async () => {
    await using t = await tempCache(calls);
    const outside = await Deno.makeTempDir({ prefix: "sluice-cache-outside-" });
    try {
      const written = await t.cache.writeWithStat("a/b/x", enc("one"));
      assertWrittenStat(written, await t.cache.stat("a/b/x"), "a/b/x");
      await Deno.remove(`${t.dir}/a/b`, { recursive: true });
      await Deno.symlink(outside, `${t.dir}/a/b`);
      t.cache.resetChecks();
      await assert.rejects(t.cache.write("a/b/y", enc("two")), UnsafePathError);
      // A link found inside a directory made since the last reset is refused too.
      await t.cache.write("n/x", enc("three"));
      await Deno.symlink(outside, `${t.dir}/n/sub`);
      await assert.rejects(t.cache.write("n/sub/f", enc("four")), (e) => {
        assert.ok(e instanceof UnsafePathError);
        assert.ok(e.message.includes("n/sub is a symbolic link"), e.message);
        return true;
      });
      assert.deepEqual(await namesUnder(outside), []);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
}

for (const calls of CALLS) {
  Deno.test(`a write under a file is a path blocked, at every depth, and leaves no temp file (${calls} calls)`, async () => {
    await using t = await tempCache(calls);
    await t.cache.write("f", enc("file"));
    for (const path of ["f/x", "f/y/z"]) {
      await assert.rejects(t.cache.write(path, enc("x")), (e) => {
        assert.ok(e instanceof PathBlockedError, String(e));
        assert.ok(e.cause instanceof Deno.errors.NotADirectory, String(e.cause));
        assert.equal(e.path, path);
        return true;
      });
    }
    await t.cache.write("d/e", enc("x"));
    await assert.rejects(t.cache.write("d/e/big", new Uint8Array(100 * 1024)));
    assert.deepEqual(await namesUnder(t.dir), ["d", "d/e", "f"]);
  });
}

Deno.test("a streamed write under a file is a path blocked, at every depth, and leaves no temp file", async () => {
  await using t = await tempCache("sync");
  await t.cache.write("f", enc("file"));
  for (const path of ["f/x", "f/y/z"]) {
    await assert.rejects(t.cache.writeStream(path, streamOf("x"), { size: 1 }), (e) => {
      assert.ok(e instanceof PathBlockedError, String(e));
      assert.ok(e.cause instanceof Deno.errors.NotADirectory, String(e.cause));
      assert.equal(e.path, path);
      return true;
    });
  }
  assert.deepEqual(await namesUnder(t.dir), ["f"]);
});

Deno.test("readForPush reads small files whole and streams large ones, with the same hash", async () => {
  await using t = await tempCache();
  const body = "x".repeat(1000);
  await t.cache.write("f", enc(body));
  const whole = await t.cache.readForPush("f", 1000);
  assert.ok(whole && !isBodySource(whole.body));
  assert.equal(whole.hash, sha256HexSync(enc(body)));
  assert.equal(whole.size, 1000);
  const streamed = await t.cache.readForPush("f", 999);
  assert.ok(streamed && isBodySource(streamed.body));
  assert.equal(streamed.hash, whole.hash);
  assert.equal(streamed.body.size, 1000);
  assert.deepEqual(await t.cache.hashFile("f"), { hash: whole.hash, size: 1000 });
  assert.equal(await t.cache.readForPush("nope", 10), null);
  assert.equal(await t.cache.hashFile("nope"), null);
});

Deno.test("writeStream places the file only when size and hash match; otherwise the old copy stays", async () => {
  await using t = await tempCache();
  await t.cache.write("d/f", enc("old"));
  const good = sha256HexSync(enc("new bytes"));
  const seen: number[] = [];
  const got = await t.cache.writeStream("d/f", streamOf("new ", "bytes"), {
    size: 9,
    sha256: good,
  }, (n) => seen.push(n));
  assert.equal(got, good);
  assert.deepEqual(seen, [4, 9]);
  assert.equal(dec(await t.cache.read("d/f")), "new bytes");

  const bad: [ReadableStream<Uint8Array>, { size: number; sha256?: string }, RegExp][] = [
    [streamOf("short"), { size: 9 }, /size 5, expected 9/],
    [streamOf("far too long"), { size: 9 }, /size more than 9, expected 9/],
    [streamOf("new bytez"), { size: 9, sha256: good }, /SHA-256 [0-9a-f]{12}…, expected/],
  ];
  for (const [stream, expect, detail] of bad) {
    await assert.rejects(t.cache.writeStream("d/f", stream, expect), (e) => {
      assert.ok(e instanceof SluiceError);
      assert.equal(e.code, "corrupt_download");
      assert.equal(e.retryable, true);
      assert.match(e.message, detail);
      return true;
    });
  }
  let pulls = 0;
  const broken = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulls++ === 0) c.enqueue(enc("new"));
      else c.error(new Error("reset"));
    },
  });
  await assert.rejects(t.cache.writeStream("d/f", broken, { size: 9 }), (e) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, "unreachable");
    assert.match(e.message, /broke off after 3 bytes \(reset\)/);
    return true;
  });
  assert.equal(dec(await t.cache.read("d/f")), "new bytes");
  // The state directory keeps the (empty) directory of the downloads' records: no temp file.
  assert.deepEqual(
    (await namesUnder(t.dir)).filter((n) => n !== ".sluice" && !n.startsWith(".sluice/")),
    ["d", "d/f"],
    "no temp file left",
  );
  assert.deepEqual(await namesUnder(`${t.dir}/.sluice/downloads`), [], "no record left");
});

Deno.test("remove deletes files and directories and ignores absent paths; listFiles walks a directory", async () => {
  await using t = await tempCache();
  await t.cache.write("a/1", enc("1"));
  await t.cache.write("a/b/2", enc("2"));
  await t.cache.write("c", enc("3"));
  assert.deepEqual(await t.cache.listFiles("a/"), ["a/1", "a/b/2"]);
  assert.deepEqual(await t.cache.listFiles(""), ["a/1", "a/b/2", "c"]);
  await t.cache.remove("a/b/");
  await t.cache.remove("nope");
  assert.deepEqual(await t.cache.listFiles(""), ["a/1", "c"]);
});

Deno.test("setAside moves the file under the state directory with a reason beside it", async () => {
  await using t = await tempCache();
  await t.cache.write("notes/n.txt", enc("mine"));
  const target = await t.cache.setAside("notes/n.txt", "theirs taken");
  assert.match(
    target,
    /^\.sluice\/set-aside\/2026-01-02T03-04-05-000Z-[0-9a-f]{6}\/notes\/n\.txt$/,
  );
  assert.equal(t.cache.exists("notes/n.txt"), false);
  assert.equal(await Deno.readTextFile(`${t.dir}/${target}`), "mine");
  const reason = JSON.parse(
    await Deno.readTextFile(`${t.dir}/${target.slice(0, -"notes/n.txt".length)}REASON.json`),
  );
  assert.deepEqual(reason, {
    path: "notes/n.txt",
    reason: "theirs taken",
    at: Date.UTC(2026, 0, 2, 3, 4, 5),
  });
  // With the code of what set it aside, recorded too; and the source path back from the location.
  await t.cache.write("notes/n.txt", enc("again"));
  const coded = await t.cache.setAside("notes/n.txt", "clash", "version_exists");
  assert.equal(setAsideSource(coded), "notes/n.txt");
  const recorded = JSON.parse(
    await Deno.readTextFile(`${t.dir}/${coded.slice(0, -"notes/n.txt".length)}REASON.json`),
  );
  assert.equal(recorded.code, "version_exists");
});

Deno.test("putBack moves a set-aside copy back only where nothing is at its path, never over anything there", async () => {
  await using t = await tempCache();
  const aside = async (body: string) => {
    t.cache.resetChecks(); // the test removes directories the cache made
    await t.cache.write("notes/n.txt", enc(body));
    return await t.cache.setAside("notes/n.txt", "test");
  };
  // Nothing there: moved back, and its set-aside directory (REASON.json) is gone.
  const first = await aside("mine");
  assert.equal(t.cache.putBack(first), true);
  assert.equal(dec(await t.cache.read("notes/n.txt")), "mine");
  await assert.rejects(Deno.lstat(`${t.dir}/${first.slice(0, -"/notes/n.txt".length)}`));
  // Its directory removed meanwhile: made again, as a write makes it.
  const second = await aside("mine");
  await Deno.remove(`${t.dir}/notes`);
  assert.equal(t.cache.putBack(second), true);
  assert.equal(dec(await t.cache.read("notes/n.txt")), "mine");
  // A file, a directory, a file in the way, a link in the way: each kept, the copy stays set aside.
  const blockers: [string, () => Promise<void>][] = [
    ["a file", () => Deno.writeTextFile(`${t.dir}/notes/n.txt`, "theirs")],
    ["a directory", () => Deno.mkdir(`${t.dir}/notes/n.txt`)],
    ["a file in the way", async () => {
      await Deno.remove(`${t.dir}/notes`);
      await Deno.writeTextFile(`${t.dir}/notes`, "in the way");
    }],
    ["a link in the way", async () => {
      await Deno.remove(`${t.dir}/notes`);
      await Deno.mkdir(`${t.dir}/elsewhere`, { recursive: true });
      await Deno.symlink(`${t.dir}/elsewhere`, `${t.dir}/notes`);
    }],
  ];
  for (const [what, block] of blockers) {
    await Deno.remove(`${t.dir}/notes`, { recursive: true }).catch(() => {});
    await Deno.remove(`${t.dir}/elsewhere`, { recursive: true }).catch(() => {});
    const location = await aside("mine");
    await block();
    assert.equal(t.cache.putBack(location), false, what);
    assert.equal(await Deno.readTextFile(`${t.dir}/${location}`), "mine", what);
  }
  assert.deepEqual(
    [...Deno.readDirSync(`${t.dir}/elsewhere`)],
    [],
    "nothing written through the link",
  );
});

Deno.test("state files round-trip as JSON; a corrupted one is a coded error naming the file", async () => {
  await using t = await tempCache();
  assert.equal(await t.cache.readState("s.json"), null);
  await t.cache.writeState("s.json", { a: [1, 2] });
  assert.deepEqual(await t.cache.readState("s.json"), { a: [1, 2] });
  await Deno.writeTextFile(`${t.dir}/${STATE_DIR}/s.json`, "{torn");
  await assert.rejects(t.cache.readState("s.json"), (e) => {
    assert.ok(e instanceof SluiceError);
    assert.equal(e.code, "internal");
    assert.match(e.message, /sync state file .*s\.json is corrupted.*Nothing was changed/);
    return true;
  });
});

Deno.test("walkFiles yields regular files in name order, skipping the state directory and links", async () => {
  await using t = await tempCache();
  await t.cache.write("b/2", enc("22"));
  await t.cache.write("a", enc("1"));
  await t.cache.writeState("x.json", {});
  await Deno.symlink(`${t.dir}/a`, `${t.dir}/link`);
  const skipped: string[] = [];
  const files = [];
  for await (const f of walkFiles(t.dir, "", (p, why) => skipped.push(`${p}: ${why}`))) {
    files.push([f.path, f.size]);
  }
  assert.deepEqual(files, [["a", 1], ["b/2", 2]]);
  assert.equal(skipped.length, 1);
  assert.match(skipped[0], /^link: it is a symbolic link/);
  assert.deepEqual(await Array.fromAsync(walkFiles(t.dir, "nope")), []);
});

Deno.test("async calls: writes into the same new directories at once all land, and one under a file fails with its own path", async () => {
  await using t = await tempCache("async");
  await t.cache.write("f", enc("file"));
  const paths = Array.from({ length: 40 }, (_, i) => `m/${i % 4}/v${i % 2}/raw${i}`);
  const results = await Promise.allSettled([
    ...paths.map((p) => t.cache.writeWithStat(p, enc(p))),
    t.cache.write("f/x/y", enc("under a file")),
  ]);
  for (const [i, p] of paths.entries()) {
    const r = results[i];
    assert.equal(r.status, "fulfilled", p);
    assertWrittenStat(r.value, await t.cache.stat(p), p);
    assert.equal(dec(await t.cache.read(p)), p);
  }
  const failed = results[paths.length];
  assert.equal(failed.status, "rejected");
  assert.ok(failed.reason instanceof PathBlockedError, String(failed.reason));
  assert.ok(failed.reason.cause instanceof Deno.errors.NotADirectory, String(failed.reason.cause));
  assert.ok(String(failed.reason).includes("f/x"), String(failed.reason));
  assert.equal((await namesUnder(t.dir)).filter((n) => n.endsWith(".tmp")).length, 0);
});

Deno.test("auto calls: a cache whose small writes are slow makes the rest of the run's writes asynchronously; resetChecks starts over", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-cache-test-" });
  try {
    // A clock on which every write takes 1 ms: slow.
    let t = 0;
    const cache = new LocalCache(dir, Date.now, { minWrites: 3, now: () => t++ });
    assert.equal(cache.writeCalls, "sync");
    for (let i = 0; i < 3; i++) await cache.write(`a/${i}/raw`, enc(`${i}`));
    assert.equal(cache.writeCalls, "async");
    await cache.write("a/3/raw", enc("3"));
    assert.equal(cache.writeCalls, "async");
    for (let i = 0; i < 4; i++) assert.equal(dec(await cache.read(`a/${i}/raw`)), `${i}`);
    cache.resetChecks();
    assert.equal(cache.writeCalls, "sync");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a write the filesystem refuses is cache_unwritable, saying what was kept and what to do; other errors pass as they are", () => {
  const refused = unwritable("/c", "data/x", new Deno.errors.PermissionDenied("EACCES: open"));
  assert.ok(refused instanceof SluiceError);
  assert.equal(refused.code, "cache_unwritable");
  assert.equal(refused.exitCode, 73);
  assert.match(refused.message, /Could not write data\/x into the cache at \/c: permission denied/);
  assert.match(refused.message, /Files written before it were kept/);
  assert.match(refused.message, /Make the cache directory writable/);
  const rofs = unwritable("/c", "x", Object.assign(new Error("read-only"), { code: "EROFS" }));
  assert.match((rofs as Error).message, /the filesystem is read-only/);
  const other = new Deno.errors.NotFound("gone");
  assert.equal(unwritable("/c", "x", other), other);
});

Deno.test("a write that finds the disk full is cache_unwritable, saying so and that space must be freed, and leaves no temp file", async () => {
  await using t = await tempCache("sync");
  const full = () =>
    Object.assign(new Error("No space left on device (os error 28): writefile 'x'"), {
      code: "ENOSPC",
    });
  const write = Deno.writeFileSync;
  Deno.writeFileSync = (() => {
    throw full();
  }) as typeof Deno.writeFileSync;
  let thrown: unknown;
  try {
    await t.cache.write("data/x", enc("bytes"));
  } catch (e) {
    thrown = e;
  } finally {
    Deno.writeFileSync = write;
  }
  assert.ok(thrown instanceof SluiceError, String(thrown));
  assert.equal(thrown.code, "cache_unwritable");
  assert.equal(thrown.exitCode, 73);
  assert.match(thrown.message, /Could not write data\/x into the cache at .*: no space is left/);
  assert.match(thrown.message, /Files written before it were kept/);
  assert.match(thrown.message, /[Ff]ree space on the disk/);
  assert.doesNotMatch(thrown.message, /permission denied/);
  const left = [];
  for await (const e of Deno.readDir(`${t.dir}/data`)) left.push(e.name);
  assert.deepEqual(left, []);
  const quota = unwritable("/c", "x", Object.assign(new Error("quota"), { code: "EDQUOT" }));
  assert.ok(quota instanceof SluiceError);
  assert.equal(quota.code, "cache_unwritable");
  assert.match(quota.message, /quota/);
});

Deno.test("a write or a streamed write over a cache file keeps its permission bits (read-only, executable)", async () => {
  await using t = await tempCache();
  const file = (p: string) => `${t.dir}/${p}`;
  await t.cache.write("d/ro", enc("old"));
  await t.cache.write("d/x", enc("old"));
  await Deno.chmod(file("d/ro"), 0o444);
  await Deno.chmod(file("d/x"), 0o755);
  await t.cache.write("d/ro", enc("new"));
  await t.cache.writeStream("d/x", streamOf("new ", "bytes"), {
    size: 9,
    sha256: sha256HexSync(enc("new bytes")),
  });
  assert.equal(await Deno.readTextFile(file("d/ro")), "new");
  assert.equal((await Deno.lstat(file("d/ro"))).mode! & 0o777, 0o444);
  assert.equal(await Deno.readTextFile(file("d/x")), "new bytes");
  assert.equal((await Deno.lstat(file("d/x"))).mode! & 0o777, 0o755);
});

Deno.test("keepDirectory makes an empty directory where nothing is, and nothing where a file, a directory or a link is", async () => {
  await using t = await tempCache();
  assert.equal(t.cache.keepDirectory("data/t/m/d/3"), true);
  assert.deepEqual(await namesUnder(t.dir), [
    "data",
    "data/t",
    "data/t/m",
    "data/t/m/d",
    "data/t/m/d/3",
  ]);
  assert.equal(t.cache.keepDirectory("data/t/m/d/3"), false, "a directory already there");
  await t.cache.write("data/t/m/d/4", enc("a file"));
  assert.equal(t.cache.keepDirectory("data/t/m/d/4"), false);
  assert.equal(dec(await t.cache.read("data/t/m/d/4")), "a file");
  await Deno.symlink("/tmp", `${t.dir}/data/t/m/link`);
  assert.equal(t.cache.keepDirectory("data/t/m/link/5"), false, "never made under a link");
  assert.throws(() => Deno.lstatSync("/tmp/5"));
});
