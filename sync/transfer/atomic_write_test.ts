import assert from "node:assert/strict";
import {
  appendSynced,
  atomicWrite,
  atomicWriteAsync,
  atomicWriteSync,
  fsyncDir,
  isTempFileName,
} from "./atomic_write.ts";
import { LocalChangedError, targetCheck } from "./file_identity.ts";

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("atomicWrite makes the directory, replaces a file whole and leaves no temp file, even for a long name", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const long = "n".repeat(250);
    await atomicWrite(`${dir}/x/${long}`, enc("one"));
    await atomicWrite(`${dir}/x/${long}`, enc("two"), false);
    assert.equal(await Deno.readTextFile(`${dir}/x/${long}`), "two");
    assert.deepEqual(await Array.fromAsync(Deno.readDir(`${dir}/x`), (e) => e.name), [long]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("atomicWrite over a directory fails, removes its temp file and keeps the directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/target/inner`, { recursive: true });
    await assert.rejects(atomicWrite(`${dir}/target`, enc("x")));
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir), (e) => e.name), ["target"]);
    assert.equal((await Deno.stat(`${dir}/target/inner`)).isDirectory, true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("atomicWriteSync replaces a file whole, returns its lstat, and over a directory fails without a temp file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const long = "n".repeat(250);
    atomicWriteSync(`${dir}/${long}`, enc("one"));
    const st = atomicWriteSync(`${dir}/${long}`, enc("three"));
    assert.equal(await Deno.readTextFile(`${dir}/${long}`), "three");
    assert.equal(st.size, 5);
    assert.equal(st.mtime?.getTime(), (await Deno.lstat(`${dir}/${long}`)).mtime?.getTime());
    await Deno.mkdir(`${dir}/target/inner`, { recursive: true });
    assert.throws(() => atomicWriteSync(`${dir}/target`, enc("x")));
    assert.deepEqual((await Array.fromAsync(Deno.readDir(dir), (e) => e.name)).sort(), [
      long,
      "target",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("atomicWriteAsync replaces a file whole, returns its lstat, and over a directory fails without a temp file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const long = "n".repeat(250);
    await atomicWriteAsync(`${dir}/${long}`, enc("one"));
    const st = await atomicWriteAsync(`${dir}/${long}`, enc("three"));
    assert.equal(await Deno.readTextFile(`${dir}/${long}`), "three");
    assert.equal(st.size, 5);
    assert.equal(st.mtime?.getTime(), (await Deno.lstat(`${dir}/${long}`)).mtime?.getTime());
    await Deno.mkdir(`${dir}/target/inner`, { recursive: true });
    await assert.rejects(atomicWriteAsync(`${dir}/target`, enc("x")));
    assert.deepEqual((await Array.fromAsync(Deno.readDir(dir), (e) => e.name)).sort(), [
      long,
      "target",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fsyncDir never throws, also for a directory that does not exist", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await fsyncDir(dir);
    await fsyncDir(`${dir}/absent`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every atomic write keeps the permission bits of the file it replaces, and a new file gets the default", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const writers: [string, (f: string, b: Uint8Array) => unknown][] = [
      ["atomicWrite", (f, b) => atomicWrite(f, b)],
      ["atomicWrite, not durable", (f, b) => atomicWrite(f, b, false)],
      ["atomicWriteSync", atomicWriteSync],
      ["atomicWriteAsync", atomicWriteAsync],
    ];
    for (const [name, write] of writers) {
      for (const mode of [0o444, 0o755, 0o600]) {
        const file = `${dir}/${mode.toString(8)}-${name}`;
        await write(file, enc("one"));
        const fresh = (await Deno.lstat(file)).mode! & 0o777;
        await Deno.chmod(file, mode);
        await write(file, enc("two"));
        assert.equal(await Deno.readTextFile(file), "two", name);
        assert.equal(
          (await Deno.lstat(file)).mode! & 0o777,
          mode,
          `${name} over ${mode.toString(8)}`,
        );
        await Deno.remove(file);
        await write(file, enc("three"));
        assert.equal((await Deno.lstat(file)).mode! & 0o777, fresh, `${name}, a new file`);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (
  const [name, write] of [["atomicWriteSync", atomicWriteSync], [
    "atomicWriteAsync",
    atomicWriteAsync,
  ]] as const
) {
  Deno.test(`${name} with a check that expects nothing: written where nothing is, and never over a file, a link or a dangling link put there`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      const check = targetCheck("x", null);
      assert.equal(check.nothing, true);
      const st = await write(`${dir}/new.txt`, enc("new"), false, check);
      assert.equal(await Deno.readTextFile(`${dir}/new.txt`), "new");
      assert.equal(st.size, 3);
      assert.equal((await Deno.lstat(`${dir}/new.txt`)).nlink, 1, "the temp name is gone");
      await Deno.writeTextFile(`${dir}/file.txt`, "user's");
      await Deno.symlink(`${dir}/nowhere`, `${dir}/link.txt`);
      for (const target of ["file.txt", "link.txt"]) {
        await assert.rejects(
          async () => await write(`${dir}/${target}`, enc("pulled"), false, check),
          LocalChangedError,
        );
      }
      assert.equal(await Deno.readTextFile(`${dir}/file.txt`), "user's");
      assert.ok((await Deno.lstat(`${dir}/link.txt`)).isSymlink);
      // A directory there fails as a rename over it does; it is kept.
      await Deno.mkdir(`${dir}/sub`);
      await assert.rejects(async () => await write(`${dir}/sub`, enc("x"), false, check));
      assert.ok((await Deno.lstat(`${dir}/sub`)).isDirectory);
      const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
      assert.deepEqual(names, ["file.txt", "link.txt", "new.txt", "sub"], "no temp file left");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("the temp files writes leave between their write and their rename are known by name, and only they", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const seen: string[] = [];
    const look = Object.assign((_old: Deno.FileInfo | null) => {
      for (const e of Deno.readDirSync(dir)) seen.push(e.name);
    }, {});
    await atomicWrite(`${dir}/raw`, enc("one"), false, look);
    await atomicWrite(`${dir}/${"n".repeat(250)}`, enc("two"), false, look);
    const temps = seen.filter((n) => n !== "raw" && !n.startsWith("nnn"));
    assert.equal(temps.length, 2, seen.join(", "));
    for (const t of temps) assert.ok(isTempFileName(t), t);
    // The tool's own temp files, and a streamed download's.
    assert.ok(isTempFileName(".0b6f2c1e-8d4a-4e0b-9a51-3c7d2f9e8a10.tmp"));
    assert.ok(isTempFileName("raw.sluice-0123456789ab.tmp"));
    // A user's files, however they are named.
    for (
      const name of [
        "notes.tmp",
        "yarn.lock",
        "raw",
        "backup.tmp.txt",
        "report.v2.tmp",
        "report.20241231.tmp",
        "build.deadbeef1.tmp",
        ".draft.tmp",
        "raw.9f86d0811.tmp",
        ".sluice-notes.tmp",
      ]
    ) {
      assert.ok(!isTempFileName(name), name);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("appendSynced makes the file, appends after what is there, and names the inode written to", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/log`;
  const ino = await appendSynced(file, new TextEncoder().encode("a\n"));
  assert.equal(ino, (await Deno.stat(file)).ino);
  assert.equal(await appendSynced(file, new TextEncoder().encode("b\n")), ino);
  assert.equal(await Deno.readTextFile(file), "a\nb\n");
});
