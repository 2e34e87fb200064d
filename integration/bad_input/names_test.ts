/**
 * Bad input, file names: unusual names round-trip; refused and non-UTF-8 names
 * are skipped by a walk, never block it. The non-UTF-8 test creates its file
 * names through libc (FFI) and is ignored when `--allow-ffi` is not granted.
 * See `sandbox.ts` for the sandbox every test runs in.
 *
 * @module
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { FsStore } from "../../packages/fs/mod.ts";
import { pushLeftBehind } from "../../sync/service/push.ts";
import {
  clone,
  enc,
  pushPaths,
  put,
  read,
  refused,
  sandbox,
  tempDir,
  warnings,
} from "./sandbox.ts";

const UNUSUAL_NAMES = [
  "__proto__",
  "constructor",
  "outputs/__proto__",
  "outputs/with space.txt",
  "outputs/tab?star*.txt",
  "outputs/ünïcödé/名前.txt",
  "outputs/emoji-😀.txt",
  "outputs/percent%41%2F%2e%2e.txt",
  "outputs/#hash&amp;+plus=eq;semi.txt",
  "outputs/-leading-dash",
  "outputs/.hidden",
  `outputs/quote"s'.txt`,
  "outputs/trailing.dot.",
  "outputs/colon:name.txt",
  "outputs/Case.txt",
  "outputs/case.txt",
  "outputs/caf\u00e9-nfc.txt",
  "outputs/cafe\u0301-nfd.txt",
  "outputs/replacement-\ufffd-char.txt",
  "outputs/...",
  "outputs/..dots../x.txt",
  `outputs/${"n".repeat(255)}`,
  `outputs/${"é".repeat(127)}`,
];

for (const kind of ["InMemoryStore", "FsStore"] as const) {
  Deno.test(`names: unusual names round-trip through ${kind} without churn`, async () => {
    const sb = await sandbox();
    const store = kind === "FsStore"
      ? new FsStore({ root: await tempDir("sluice-bad-input-store-") })
      : new InMemoryStore();
    const a = await clone(store, sb.cacheDir);
    const b = await clone(store, `${sb.root}/peer`, { name: "b" });
    for (const [i, n] of UNUSUAL_NAMES.entries()) await put(sb.cacheDir, n, `content ${i}`);
    await a.markDirty();
    const r = await a.pushChanged();
    assert.deepEqual(r.uploaded.sort(), [...UNUSUAL_NAMES].sort());
    const pulled = await b.pullChanged();
    assert.deepEqual(pulled.fetched.sort(), [...UNUSUAL_NAMES].sort());
    for (const [i, n] of UNUSUAL_NAMES.entries()) {
      assert.equal(await read(b.cacheDir, n), `content ${i}`, n);
    }
    await a.markDirty();
    assert.deepEqual((await a.pushChanged()).uploaded, [], "names are stable: no churn");
    await b.markDirty();
    assert.deepEqual((await b.pushChanged()).uploaded, []);
    // Deleting them carries over as well (also "constructor", an Object.prototype member).
    for (const n of UNUSUAL_NAMES) await Deno.remove(`${a.cacheDir}/${n}`);
    assert.deepEqual(
      (await pushPaths(a, ...UNUSUAL_NAMES)).deleted.sort(),
      [...UNUSUAL_NAMES].sort(),
    );
    assert.deepEqual((await b.pullChanged()).removed.sort(), [...UNUSUAL_NAMES].sort());
    for (const n of UNUSUAL_NAMES) {
      assert.equal(await Deno.lstat(`${b.cacheDir}/${n}`).catch(() => null), null, n);
    }
    await sb.unchanged();
  });
}

Deno.test("names: names Sluice refuses (control characters, backslash) are skipped by a walk, never block it", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const w = warnings();
  const a = await clone(store, sb.cacheDir, { events: w.events });
  const refusedNames = [
    "outputs/new\nline.txt",
    "outputs/tab\there.txt",
    "outputs/back\\slash.txt",
  ];
  for (const n of refusedNames) await put(sb.cacheDir, n, "kept locally");
  await put(sb.cacheDir, "outputs/fine.txt", "fine");
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["outputs/fine.txt"]);
  const skipped = w.list.filter((x) => x.code === "path_skipped");
  assert.deepEqual(skipped.map((x) => x.path).sort(), [...refusedNames].sort());
  for (const s of skipped) assert.match(s.message, /rename it/);
  assert.deepEqual(
    r.localOnly.map((x) => x.path).sort(),
    [...refusedNames].sort(),
    "the result names each file left local only, so the push is not taken for a clean one",
  );
  assert.equal(pushLeftBehind(r).localOnly?.length, refusedNames.length);
  for (const n of refusedNames) assert.equal(await read(sb.cacheDir, n), "kept locally");
  assert.equal(a.state.bulkPending(), false, "the walk completed");
  assert.deepEqual(store.keys("outputs/"), ["outputs/fine.txt"]);
  await refused(
    a.markDirty({ relPath: refusedNames[0] }),
    "unsafe_path",
    /it contains a control character/,
    /Nothing was written for it/,
  );
  await sb.unchanged();
});

/** libc through FFI: the only in-process way to make a file name that is not UTF-8. */
function openLibc() {
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
  const candidates = Deno.build.os === "darwin"
    ? ["/usr/lib/libSystem.B.dylib"]
    : Deno.build.os === "linux"
    ? ["libc.so.6", "libc.so"]
    : [];
  for (const path of candidates) {
    try {
      return Deno.dlopen(path, {
        creat: { parameters: ["buffer", "u32"], result: "i32" },
        mkdir: { parameters: ["buffer", "u32"], result: "i32" },
        close: { parameters: ["i32"], result: "i32" },
        access: { parameters: ["buffer", "i32"], result: "i32" },
      });
    } catch {
      // try the next name
    }
  }
  return null;
}

const libc = openLibc();

Deno.test({
  name: "names: non-UTF-8 names are skipped by a walk with a warning, never block it",
  ignore: libc === null,
  async fn() {
    const c = libc!;
    const sb = await sandbox();
    const store = new InMemoryStore();
    const w = warnings();
    const a = await clone(store, sb.cacheDir, { events: w.events });
    await put(sb.cacheDir, "outputs/fine.txt", "fine");
    const raw = (...parts: (string | number[])[]) =>
      Uint8Array.from([
        ...parts.flatMap((p) => typeof p === "string" ? [...enc(p)] : p),
        0,
      ]);
    const badFile = raw(`${sb.cacheDir}/outputs/bad-`, [0xff], ".bin");
    const badDir = raw(`${sb.cacheDir}/outputs/dir-`, [0xfe]);
    const inDir = raw(`${sb.cacheDir}/outputs/dir-`, [0xfe], "/inner.txt");
    const fd = c.symbols.creat(badFile, 0o644);
    assert.ok(fd >= 0, "creat failed");
    c.symbols.close(fd);
    assert.equal(c.symbols.mkdir(badDir, 0o755), 0);
    const fd2 = c.symbols.creat(inDir, 0o644);
    assert.ok(fd2 >= 0);
    c.symbols.close(fd2);

    await a.markDirty();
    const r = await a.pushChanged();
    assert.deepEqual(r.uploaded, ["outputs/fine.txt"]);
    const skipped = w.list.filter((x) => x.code === "path_skipped");
    assert.equal(skipped.length, 2, JSON.stringify(w.list));
    for (const s of skipped) assert.match(s.message, /not valid UTF-8.*rename it/);
    assert.equal(r.localOnly.length, 2, "each is in the result as left local only");
    assert.equal(a.state.bulkPending(), false, "the walk completed");
    assert.deepEqual(store.keys("outputs/"), ["outputs/fine.txt"]);
    assert.equal(c.symbols.access(badFile, 0), 0, "the oddly named file is still there");
    assert.equal(c.symbols.access(inDir, 0), 0);
    await sb.unchanged();
  },
});
