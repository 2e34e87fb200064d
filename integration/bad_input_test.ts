/**
 * Bad input: every case ends in a clear error (or, where the input is only
 * skipped, a warning) with a stable code, and in every case nothing is lost
 * and nothing is written outside the cache.
 *
 * Each test runs in a sandbox: a temp dir holding the cache and a sentinel
 * directory beside it. Symlinks and escaping keys aim at the sentinel, and
 * the sandbox checks that everything outside the cache (names, bytes and
 * mtimes) is exactly as it was.
 *
 * Covered: malformed lock bodies and bodies missing fields; remote keys that
 * escape the cache (`..`, absolute, backslash, NUL, lone surrogate, very
 * long); symlinks inside the cache; truncated, padded and corrupted downloads
 * and a corrupted remote index; empty and large files; unusual, refused and
 * non-UTF-8 file names; corrupted and unreadable sync state files; config
 * with wrong types.
 *
 * In-process: InMemoryStore and FsStore in temp dirs, no servers. The
 * non-UTF-8 test creates its file names through libc (FFI) and is ignored
 * when `--allow-ffi` is not granted.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { resolve as resolvePath } from "node:path";
import { createSluice } from "../sluice.ts";
import { ConditionalWrites, PROBE_STATE_FILE } from "../sync/conditional.ts";
import { ConfigError, type ErrorCode, EXIT_CODES, SluiceError } from "../sync/errors.ts";
import { createEmitter, type SluiceEmitter, type WarningEvent } from "../sync/events.ts";
import { ERASURE_JOURNAL } from "../middleware/erasure.ts";
import { bodyBytes, isBodySource } from "../sync/body.ts";
import { randomId } from "../sync/hash.ts";
import { PENDING_LOCKFILE_STATE } from "../sync/lockfile_txn.ts";
import { acquireModelLocks, releaseLock } from "../sync/model_locks.ts";
import type {
  CallOptions,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
} from "../sync/ports.ts";
import { INDEX_KEY } from "../sync/remote_index.ts";
import { createSyncService, type SyncService } from "../sync/service.ts";
import { FakeClock, InMemoryStore } from "../packages/testing/mod.ts";
import { FsStore } from "../packages/fs/mod.ts";

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

/** Temp dirs made by this file, removed when it finishes (the large-file test writes ~100 MB). */
const temps: string[] = [];
globalThis.addEventListener("unload", () => {
  for (const t of temps) {
    try {
      Deno.removeSync(t, { recursive: true });
    } catch { /* already gone */ }
  }
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  temps.push(dir);
  return dir;
}
const enc = (s: string) => new TextEncoder().encode(s);
const hex = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/**
 * A temp dir with the cache (`cache/`), room for a peer clone's cache
 * (`peer/`) and a sentinel dir beside them that must never change.
 */
interface Sandbox {
  readonly root: string;
  readonly cacheDir: string;
  readonly sentinel: string;
  /** Fails unless everything outside the cache is exactly as it was when the sandbox was made. */
  unchanged(): Promise<void>;
}

async function snapshotOutside(root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (dir: string, rel: string) => {
    for await (const e of Deno.readDir(dir)) {
      if (!rel && (e.name === "cache" || e.name === "peer")) continue; // the clones' caches
      const r = rel ? `${rel}/${e.name}` : e.name;
      const p = `${dir}/${e.name}`;
      const st = await Deno.lstat(p);
      if (st.isSymlink) out.push(`${r} -> ${await Deno.readLink(p)}`);
      else if (st.isDirectory) {
        out.push(`${r}/ ${st.mtime?.getTime()}`);
        await visit(p, r);
      } else out.push(`${r} ${st.size} ${hex(await Deno.readFile(p))} ${st.mtime?.getTime()}`);
    }
  };
  await visit(root, "");
  return out.sort();
}

async function sandbox(): Promise<Sandbox> {
  const root = await tempDir("sluice-bad-input-");
  const sentinel = `${root}/sentinel`;
  await Deno.mkdir(`${sentinel}/nested`, { recursive: true });
  await Deno.mkdir(`${sentinel}/state`);
  await Deno.writeTextFile(
    `${sentinel}/secret.txt`,
    "outside the cache: never read, never written",
  );
  await Deno.writeTextFile(`${sentinel}/nested/deep.txt`, "also outside the cache");
  const before = await snapshotOutside(root);
  return {
    root,
    cacheDir: `${root}/cache`,
    sentinel,
    unchanged: async () =>
      assert.deepEqual(
        await snapshotOutside(root),
        before,
        "something outside the cache was written",
      ),
  };
}

interface CloneOptions {
  readonly name?: string;
  /** Overrides the streaming threshold (default 8 MiB). */
  readonly streamThresholdBytes?: number;
  readonly clock?: FakeClock;
  readonly events?: SluiceEmitter;
}

/** A clone with the default gates, fast retries and its own probe registry. */
async function clone(
  store: ObjectStore,
  cacheDir: string,
  options: CloneOptions = {},
): Promise<SyncService> {
  const name = options.name ?? "a";
  return await createSluice({
    cacheDir,
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: options.clock ?? new FakeClock(),
    events: options.events,
    config: options.streamThresholdBytes === undefined
      ? quick
      : { ...quick, streamThresholdBytes: options.streamThresholdBytes },
    conditional: new ConditionalWrites(),
  });
}

/** An emitter and the warnings it receives (pass `events` before the service is created). */
function warnings(): { events: SluiceEmitter; list: WarningEvent[]; codes(): string[] } {
  const events = createEmitter();
  const list: WarningEvent[] = [];
  events.on("warning", (w) => list.push(w));
  return { events, list, codes: () => list.map((w) => w.code) };
}

async function put(dir: string, path: string, body: string | Uint8Array): Promise<void> {
  const file = `${dir}/${path}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  if (typeof body === "string") await Deno.writeTextFile(file, body);
  else await Deno.writeFile(file, body);
}

const read = (dir: string, path: string) => Deno.readTextFile(`${dir}/${path}`);

/** Pushes `paths` (marked dirty first) from a clone. */
async function pushPaths(svc: SyncService, ...paths: string[]) {
  await svc.markDirty({ relPaths: paths });
  return await svc.pushChanged();
}

/**
 * Awaits `p` and checks it failed with a SluiceError of `code` (and its exit
 * code) whose message says what happened (`happened`) and what to do (`todo`).
 */
async function refused(
  p: Promise<unknown>,
  code: ErrorCode,
  happened: RegExp,
  todo: RegExp,
): Promise<SluiceError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  assert.ok(err !== undefined, `expected an error with code ${code}, but it succeeded`);
  assert.ok(err instanceof SluiceError, `expected a SluiceError (${code}), got ${err}`);
  assert.equal(err.code, code, err.message);
  assert.equal(err.exitCode, EXIT_CODES[code]);
  assert.match(err.message, happened);
  assert.match(err.message, todo);
  return err;
}

/** Every file under the cache (cache-relative), not following links. */
async function cacheFiles(cacheDir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(rel ? `${cacheDir}/${rel}` : cacheDir)) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) out.push(...await cacheFiles(cacheDir, r));
    else out.push(r);
  }
  return out.sort();
}

/** An index entry for `body` at `version`. */
/** An index entry as Sluice writes it in the layout's index object. */
const entry = (version: string, body: Uint8Array) => ({
  key: "",
  size: body.length,
  sha256: hex(body),
  sluice: { v: version, h: hex(body) },
});

// ---------------------------------------------------------------------------
// Lock bodies
// ---------------------------------------------------------------------------

Deno.test("lock bodies: malformed or incomplete bodies are lock_read_failed, never taken as free", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const sb = await sandbox();
  const svc = await clone(store, sb.cacheDir, { clock });
  const full: Record<string, unknown> = {
    holder: "b@host",
    hostname: "host",
    pid: 2,
    acquiredAt: new Date(clock.now()).toISOString(),
    ttlMs: 30_000,
    nonce: "n1",
  };
  const json = (o: unknown) => enc(JSON.stringify(o));
  const without = (field: string) =>
    json(Object.fromEntries(Object.entries(full).filter(([k]) => k !== field)));
  const bodies: [string, Uint8Array, RegExp][] = [
    ["empty", enc(""), /not JSON/],
    ["cut short", enc('{"holder": "b@ho'), /not JSON/],
    ["null", enc("null"), /missing or invalid holder/],
    ["an array", enc("[]"), /missing or invalid holder/],
    ["a number", enc("42"), /missing or invalid holder/],
    ["a string", enc('"b@host"'), /missing or invalid holder/],
    ...Object.keys(full).map((f): [string, Uint8Array, RegExp] => [
      `missing ${f}`,
      without(f),
      new RegExp(`missing or invalid [a-zA-Z, ]*\\b${f}\\b`),
    ]),
    ["pid as a string", json({ ...full, pid: "2" }), /invalid pid/],
    ["ttlMs as a string", json({ ...full, ttlMs: "30000" }), /invalid ttlMs/],
    ["ttlMs zero", json({ ...full, ttlMs: 0 }), /invalid ttlMs/],
    ["ttlMs negative", json({ ...full, ttlMs: -5 }), /invalid ttlMs/],
    ["an empty holder", json({ ...full, holder: "" }), /invalid holder/],
    ["an empty nonce", json({ ...full, nonce: "" }), /invalid nonce/],
    ["acquiredAt a number", json({ ...full, acquiredAt: 5 }), /invalid acquiredAt/],
    ["non-UTF-8 bytes", new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x80]), /not JSON/],
    ["1 MiB of junk", enc("x".repeat(1 << 20)), /not JSON/],
  ];
  for (const [what, body, detail] of bodies) {
    store.seed(".datastore.lock", body);
    const lock = svc.lockBackend!.createLock(".datastore.lock", svc.identity);
    const err = await refused(
      lock.inspect(),
      "lock_read_failed",
      /Could not read lock \.datastore\.lock: malformed lock body/,
      /Run the command again/,
    );
    assert.match(err.message, detail, what);
    assert.ok(err.message.length < 600, `${what}: the message quotes only a short preview`);
    // Nothing lost: the unreadable lock object is left exactly as it was.
    assert.deepEqual(store.peek(".datastore.lock"), body, what);
  }
  // The breakglass cannot read a nonce either: it refuses rather than guess.
  await refused(
    releaseLock(svc, { force: true }),
    "lock_read_failed",
    /malformed lock body/,
    /Run the command again/,
  );
  // A run waiting for the global lock refuses too: unreadable is never "absent, go ahead".
  await refused(
    acquireModelLocks(svc, ["t/m1"]),
    "lock_read_failed",
    /malformed lock body/,
    /Run the command again/,
  );
  assert.deepEqual(store.keys("data/"), [], "no model lock was taken");
  assert.ok(store.peek(".datastore.lock"));
  await sb.unchanged();
});

Deno.test("lock bodies: a model lock corrupted during a run refuses its push; the run's data stays in the cache and dirty", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const sb = await sandbox();
  const svc = await clone(store, sb.cacheDir, { clock });
  const set = await acquireModelLocks(svc, ["t/m1"]);
  const raw = "data/t/m1/d/1/raw";
  await put(sb.cacheDir, raw, "run output");
  await svc.markDirty({ relPath: raw });
  store.seed("data/t/m1/.lock", '{"holder": "a@ho'); // a foreign writer mangled the lock
  const err = await refused(
    set.push(["data/t/m1/d/1"]),
    "lock_read_failed",
    /Could not read lock data\/t\/m1\/\.lock: malformed lock body .*nothing was pushed/,
    /Run the command again/,
  );
  assert.equal(err.retryable, true);
  assert.deepEqual(store.keys("data/t/m1/d"), [], "nothing was pushed");
  assert.equal(await read(sb.cacheDir, raw), "run output", "the run's data is kept");
  assert.ok(svc.state.dirtyPaths().includes(raw), "and stays dirty");
  await set.release(); // never throws
  assert.equal(store.peekText("data/t/m1/.lock"), '{"holder": "a@ho', "not deleted as if ours");
  await sb.unchanged();
});

Deno.test("lock bodies: a corrupted lock holds off acquire until it goes stale, then is taken over with a warning", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  const sb = await sandbox();
  const w = warnings();
  const svc = await clone(store, sb.cacheDir, { clock, events: w.events });
  const key = "data/t/m1/.lock";
  store.seed(key, "garbage");
  const lock = svc.lockBackend!.createLock(key, svc.identity, { maxWaitMs: 0 });
  await refused(
    lock.acquire(),
    "lock_timeout",
    /waiting for lock data\/t\/m1\/\.lock, held by an unreadable lock: malformed lock body "garbage"/,
    /Run the command again later/,
  );
  assert.equal(store.peekText(key), "garbage", "a live unreadable lock is not removed");
  clock.set(clock.now() + 60_000); // not renewed for twice the (acquirer's) TTL
  await lock.acquire();
  assert.ok(w.codes().includes("lock_stale_stolen"), w.codes().join());
  assert.equal((await lock.inspect())?.holder, "a@host");
  await lock.release();
  await sb.unchanged();
});

// ---------------------------------------------------------------------------
// Remote keys
// ---------------------------------------------------------------------------

Deno.test("remote keys: an index listing a key that escapes the cache is refused before anything is written", async () => {
  const id = randomId(4);
  const cases: [string, (sb: Sandbox) => string][] = [
    ["a '..' segment", () => `../escaped-${id}.txt`],
    ["'..' after a directory", () => `outputs/../../escaped-${id}.txt`],
    ["an absolute path", (sb) => `${sb.sentinel}/abs-${id}.txt`],
    ["a backslash", () => `outputs\\..\\..\\escaped-${id}.txt`],
    ["a NUL", () => `outputs/evil\0.txt`],
    ["a control character", () => `outputs/evil\n.txt`],
    ["a lone surrogate", () => `outputs/bad-\ud800.txt`],
    ["a very long key", () => `outputs/${"x/".repeat(600)}f.txt`],
    ["a very long segment", () => `outputs/${"y".repeat(300)}.txt`],
    ["a drive letter", () => `C:/escaped-${id}.txt`],
    ["an empty key", () => ""],
    ["an empty segment", () => "outputs//x.txt"],
    ["a '.' segment", () => "./outputs/x.txt"],
  ];
  for (const [what, make] of cases) {
    const sb = await sandbox();
    const bad = make(sb);
    const store = new InMemoryStore();
    const ok = enc("a fine file");
    const evil = enc("bytes that must land nowhere");
    const okInfo = store.seed("ok/first.txt", ok);
    const badInfo = store.seed(bad, evil);
    store.seed(
      INDEX_KEY,
      JSON.stringify({
        version: 1,
        entries: { "ok/first.txt": entry(okInfo.version, ok), [bad]: entry(badInfo.version, evil) },
      }),
    );
    const b = await clone(store, sb.cacheDir, { name: "b" });
    await put(sb.cacheDir, "keep/mine.txt", "local work");
    await b.markDirty({ relPath: "keep/mine.txt" });
    const before = await cacheFiles(sb.cacheDir);
    await refused(
      b.pullChanged(),
      "unsafe_path",
      /the remote index \(\.datastore-index\.json\) lists 1 key\(s\) that are not safe cache paths.*nothing was written/,
      /Remove those entries/,
    );
    assert.deepEqual(await cacheFiles(sb.cacheDir), before, `${what}: nothing was written`);
    assert.equal(await read(sb.cacheDir, "keep/mine.txt"), "local work", what);
    assert.deepEqual(b.state.dirtyPaths(), ["keep/mine.txt"], what);
    const target = resolvePath(sb.cacheDir, bad.replaceAll("\0", ""));
    if (target !== sb.cacheDir && !target.startsWith(`${sb.cacheDir}/`)) {
      assert.equal(await Deno.lstat(target).catch(() => null), null, `${what}: ${target}`);
    }
    await sb.unchanged();
  }
});

Deno.test("remote keys: sync state paths listed by the index are never pulled over the cache's state", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const ok = enc("fine");
  const junk = enc("{ not a manifest");
  const v = (k: string, b: Uint8Array) => entry(store.seed(k, b).version, b);
  store.seed(
    INDEX_KEY,
    JSON.stringify({
      version: 1,
      entries: {
        "ok.txt": v("ok.txt", ok),
        ".sluice/manifest.json": v(".sluice/manifest.json", junk),
        ".sluice/dirty.log": v(".sluice/dirty.log", junk),
        ".sluice/manifest.log": v(".sluice/manifest.log", junk),
      },
    }),
  );
  const b = await clone(store, sb.cacheDir, { name: "b" });
  await put(sb.cacheDir, "mine.txt", "local work");
  await b.markDirty({ relPath: "mine.txt" });
  const dirtyLog = await read(sb.cacheDir, ".sluice/dirty.log");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.fetched, ["ok.txt"]);
  assert.equal(await read(sb.cacheDir, ".sluice/dirty.log"), dirtyLog);
  assert.equal(JSON.parse(await read(sb.cacheDir, ".sluice/manifest.json")).format, 1);
  const again = await clone(store, sb.cacheDir, { name: "b" });
  assert.deepEqual(again.state.dirtyPaths(), ["mine.txt"], "the dirty mark survived");
  await sb.unchanged();
});

Deno.test("remote keys: markDirty refuses unsafe paths and marks nothing", async () => {
  const sb = await sandbox();
  const svc = await clone(new InMemoryStore(), sb.cacheDir);
  await put(sb.cacheDir, "ok.txt", "x");
  for (const bad of ["../x", "/etc/passwd", "a\\b", "a\0b", "a//b", "", "x".repeat(2000)]) {
    await refused(
      svc.markDirty({ relPath: bad }),
      "unsafe_path",
      /Refused the path .*: it (is|has|contains)/,
      /Nothing was written for it/,
    );
    await refused(
      svc.markDirty({ relPaths: ["ok.txt", bad] }),
      "unsafe_path",
      /Refused the path/,
      /Nothing was written for it/,
    );
  }
  assert.deepEqual(svc.state.dirtyPaths(), [], "the batch with a bad path marked nothing");
  await sb.unchanged();
});

// ---------------------------------------------------------------------------
// Symlinks inside the cache
// ---------------------------------------------------------------------------

Deno.test("symlinks: a pull never writes through a symlinked directory or a symlinked file", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, `${sb.root}/peer`);
  await put(a.cacheDir, "outputs/o.txt", "from the peer");
  await put(a.cacheDir, "leaf/secret.txt", "from the peer, too");
  await pushPaths(a, "outputs/o.txt", "leaf/secret.txt");

  // A directory of the cache is a link out of it.
  const b = await clone(store, sb.cacheDir, { name: "b" });
  await Deno.symlink("../sentinel", `${sb.cacheDir}/outputs`);
  await refused(
    b.pullChanged(),
    "unsafe_path",
    /Refused the path "outputs\/o\.txt": outputs is a symbolic link/,
    /replace the link with a real file or directory, then run the sync again/,
  );
  assert.equal(await Deno.readLink(`${sb.cacheDir}/outputs`), "../sentinel", "the link is kept");
  await sb.unchanged();

  // A file of the cache is a link out of it: the pull replaces the link, never its target.
  const sb2 = await sandbox();
  const c = await clone(store, sb2.cacheDir, { name: "c" });
  await Deno.mkdir(`${sb2.cacheDir}/leaf`, { recursive: true });
  await Deno.symlink("../../sentinel/secret.txt", `${sb2.cacheDir}/leaf/secret.txt`);
  await c.pullChanged();
  assert.equal(await read(sb2.cacheDir, "leaf/secret.txt"), "from the peer, too");
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

// ---------------------------------------------------------------------------
// Downloads
// ---------------------------------------------------------------------------

/** A store whose downloads (not the index) pass through `tamper` while it is set. */
class TamperingStore implements ObjectStore {
  readonly endpoint: string;
  tamper: ((body: Uint8Array) => Uint8Array) | null = null;
  constructor(readonly inner: InMemoryStore) {
    this.endpoint = inner.endpoint;
  }
  async get(key: string, options?: CallOptions): Promise<GetResult> {
    const r = await this.inner.get(key, options);
    return this.tamper && key !== INDEX_KEY ? { ...r, body: this.tamper(r.body) } : r;
  }
  /** The inner store's stream, tampered with while `tamper` is set, re-sent in chunks of 4 bytes. */
  async getStream(key: string, options?: CallOptions): Promise<GetStreamResult> {
    const { body: stream, ...info } = await this.inner.getStream(key, options);
    if (!this.tamper || key === INDEX_KEY) return { ...info, body: stream };
    const body = this.tamper(await bodyBytes({ size: info.size, stream: () => stream }));
    let off = 0;
    return {
      ...info,
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (off >= body.length) return controller.close();
          controller.enqueue(body.slice(off, off + 4));
          off += 4;
        },
      }),
    };
  }
  head(key: string, options?: CallOptions): Promise<ObjectInfo | null> {
    return this.inner.head(key, options);
  }
  put(key: string, body: PutBody, mode: PutMode, options?: PutOptions): Promise<ObjectInfo> {
    return this.inner.put(key, body, mode, options);
  }
  delete(key: string, options?: DeleteOptions): Promise<void> {
    return this.inner.delete(key, options);
  }
  list(prefix: string, options?: ListOptions): AsyncIterable<readonly ObjectInfo[]> {
    return this.inner.list(prefix, options);
  }
}

for (const mode of ["whole", "streamed"] as const) {
  Deno.test(`downloads (${mode}): truncated, padded or corrupted bodies are corrupt_download; the cached copy and its manifest entry are kept`, async () => {
    // "streamed": every object is above the threshold, so the pull reads it through getStream.
    const streamThresholdBytes = mode === "streamed" ? 1 : undefined;
    const sb = await sandbox();
    const inner = new InMemoryStore();
    const wire = new TamperingStore(inner);
    const a = await clone(inner, `${sb.root}/peer`);
    const b = await clone(wire, sb.cacheDir, { name: "b", streamThresholdBytes });
    await put(a.cacheDir, "outputs/o.txt", "version one of the file");
    await pushPaths(a, "outputs/o.txt");
    await b.pullChanged();
    const v1 = b.state.synced("outputs/o.txt");
    await put(a.cacheDir, "outputs/o.txt", "version two of the file");
    await pushPaths(a, "outputs/o.txt");

    const tampers: [string, (b: Uint8Array) => Uint8Array, RegExp][] = [
      ["truncated", (x) => x.subarray(0, x.length - 5), /size 18, expected 23/],
      ["padded", (x) => Uint8Array.from([...x, 0, 0]), /size (25|more than 23), expected 23/],
      ["empty", () => new Uint8Array(0), /size 0, expected 23/],
      ["one byte flipped", (x) => x.map((c, i) => (i === 3 ? c ^ 1 : c)), /SHA-256 [0-9a-f]+…/],
    ];
    for (const [what, tamper, detail] of tampers) {
      wire.tamper = tamper;
      const err = await refused(
        b.pullChanged(),
        "corrupt_download",
        /The download of outputs\/o\.txt does not match the remote index/,
        /the cached copy was kept\. Run the pull again/,
      );
      assert.match(err.message, detail, what);
      assert.equal(err.retryable, true);
      assert.equal(await read(sb.cacheDir, "outputs/o.txt"), "version one of the file", what);
      assert.deepEqual(b.state.synced("outputs/o.txt"), v1, `${what}: manifest unchanged`);
      assert.deepEqual(b.state.dirtyPaths(), []);
    }
    wire.tamper = null;
    assert.deepEqual((await b.pullChanged()).fetched, ["outputs/o.txt"]);
    assert.equal(await read(sb.cacheDir, "outputs/o.txt"), "version two of the file");
    assert.equal(
      inner.streamedGets > 0,
      mode === "streamed",
      "the read path was not the one meant",
    );
    await sb.unchanged();
  });
}

Deno.test("downloads: a corrupted remote index is corrupt_download for pull and push; nothing is lost and the index is not overwritten", async () => {
  const badIndexes: [string, Uint8Array][] = [
    ["garbage", new Uint8Array([0xff, 0x00, 0x7b, 0x22])],
    ["unknown version", enc(JSON.stringify({ version: 7, entries: {} }))],
    ["entries not an object", enc(JSON.stringify({ version: 1, entries: [1, 2] }))],
    ["an entry not an object", enc(JSON.stringify({ version: 1, entries: { "a.txt": "junk" } }))],
    [
      "an entry with a size as a string",
      enc(JSON.stringify({ version: 1, entries: { "a.txt": { key: "a.txt", size: "9" } } })),
    ],
  ];
  for (const [what, body] of badIndexes) {
    const sb = await sandbox();
    const store = new InMemoryStore();
    const a = await clone(store, sb.cacheDir);
    await put(sb.cacheDir, "synced.txt", "synced");
    await pushPaths(a, "synced.txt");
    store.seed(INDEX_KEY, body);
    await put(sb.cacheDir, "synced.txt", "edited locally");
    await put(sb.cacheDir, "new.txt", "new locally");
    await a.markDirty({ relPaths: ["synced.txt", "new.txt"] });
    const pattern =
      /The remote index object \.datastore-index\.json is unreadable \(.+\)\. Nothing was changed locally/;
    const todo = /restore \.datastore-index\.json from a backup or an earlier object version/;
    await refused(a.pullChanged(), "corrupt_download", pattern, todo);
    await refused(a.pushChanged(), "corrupt_download", pattern, todo);
    assert.deepEqual(store.peek(INDEX_KEY), body, `${what}: the index is not overwritten`);
    assert.equal(await read(sb.cacheDir, "synced.txt"), "edited locally", what);
    assert.equal(await read(sb.cacheDir, "new.txt"), "new locally", what);
    assert.deepEqual(a.state.dirtyPaths(), ["new.txt", "synced.txt"], `${what}: still dirty`);
    await sb.unchanged();
  }
});

// ---------------------------------------------------------------------------
// Empty and large files
// ---------------------------------------------------------------------------

Deno.test("files: empty files round-trip and are never taken for deletions", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, sb.cacheDir);
  const b = await clone(store, `${sb.root}/peer`, { name: "b" });
  await put(sb.cacheDir, "outputs/empty.txt", "");
  await put(sb.cacheDir, "outputs/was-full.txt", "content");
  await pushPaths(a, "outputs/empty.txt", "outputs/was-full.txt");
  assert.equal(store.peek("outputs/empty.txt")?.length, 0);
  await put(sb.cacheDir, "outputs/was-full.txt", "");
  await put(sb.cacheDir, "outputs/walked-empty.txt", "");
  await a.markDirty({ relPath: "outputs/was-full.txt" });
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded.sort(), ["outputs/walked-empty.txt", "outputs/was-full.txt"]);
  assert.deepEqual(r.deleted, []);
  assert.equal(store.peek("outputs/was-full.txt")?.length, 0, "emptied, not deleted");
  const pulled = await b.pullChanged();
  assert.deepEqual(pulled.fetched.sort(), [
    "outputs/empty.txt",
    "outputs/walked-empty.txt",
    "outputs/was-full.txt",
  ]);
  for (const p of pulled.fetched) assert.equal((await Deno.stat(`${b.cacheDir}/${p}`)).size, 0);
  await a.markDirty();
  assert.deepEqual((await a.pushChanged()).uploaded, [], "no churn");
  await sb.unchanged();
});

// Large files. A file above `streamThresholdBytes` (8 MiB by default) is
// pushed as a BodySource and pulled through getStream, in 1 MiB chunks, and
// checked against its hash on both sides. Memory is measured by the
// benchmark (`deno task bench --only large`), not here: this test checks that
// the file goes through the streaming path and arrives intact.
Deno.test("files: a 32 MiB file is streamed both ways through FsStore and arrives intact", async () => {
  const sb = await sandbox();
  const fs = new FsStore({
    root: await tempDir("sluice-bad-input-store-"),
  });
  const seen = { streamedPuts: 0, wholePuts: 0, streamedGets: 0, wholeGets: 0 };
  const store: ObjectStore = {
    endpoint: fs.endpoint,
    get: (k, o) => {
      if (k === "big.bin") seen.wholeGets++;
      return fs.get(k, o);
    },
    getStream: (k, o) => {
      if (k === "big.bin") seen.streamedGets++;
      return fs.getStream(k, o);
    },
    head: (k, o) => fs.head(k, o),
    put: (k, body, m, o) => {
      if (k === "big.bin") isBodySource(body) ? seen.streamedPuts++ : seen.wholePuts++;
      return fs.put(k, body, m, o);
    },
    delete: (k, o) => fs.delete(k, o),
    list: (p, o) => fs.list(p, o),
  };
  const a = await clone(store, sb.cacheDir);
  const b = await clone(store, `${sb.root}/peer`, { name: "b" });
  const size = 32 * 1024 * 1024;
  const file = await Deno.open(`${sb.cacheDir}/big.bin`, { write: true, create: true });
  const chunk = new Uint8Array(1 << 20);
  const h = createHash("sha256");
  for (let off = 0; off < size; off += chunk.length) {
    for (let i = 0; i < chunk.length; i += 65536) {
      crypto.getRandomValues(chunk.subarray(i, i + 65536));
    }
    h.update(chunk);
    let n = 0;
    while (n < chunk.length) n += await file.write(chunk.subarray(n));
  }
  file.close();
  const expected = h.digest("hex");
  const progress: number[] = [];
  a.events.on("progress", (p) => progress.push(p.bytesTotal));
  await a.markDirty();
  const r = await a.pushChanged();
  assert.deepEqual(r.uploaded, ["big.bin"]);
  assert.equal(r.bytes, size);
  assert.equal(progress.at(-1), size);
  assert.equal(a.state.synced("big.bin")?.hash, expected);
  assert.deepEqual((await b.pullChanged()).fetched, ["big.bin"]);
  assert.equal(hex(await Deno.readFile(`${b.cacheDir}/big.bin`)), expected);
  assert.deepEqual(seen, { streamedPuts: 1, wholePuts: 0, streamedGets: 1, wholeGets: 0 });
  await a.markDirty();
  assert.deepEqual((await a.pushChanged()).uploaded, [], "an unchanged large file is not re-sent");
  await sb.unchanged();
});

// ---------------------------------------------------------------------------
// File names
// ---------------------------------------------------------------------------

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
    assert.equal(a.state.bulkPending(), false, "the walk completed");
    assert.deepEqual(store.keys("outputs/"), ["outputs/fine.txt"]);
    assert.equal(c.symbols.access(badFile, 0), 0, "the oddly named file is still there");
    assert.equal(c.symbols.access(inDir, 0), 0);
    await sb.unchanged();
  },
});

// ---------------------------------------------------------------------------
// Sync state files
// ---------------------------------------------------------------------------

Deno.test("state: a corrupted dirty set turns into a walk; no local change is lost, even across a pull", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, `${sb.root}/peer`);
  const b = await clone(store, sb.cacheDir, { name: "b" });
  await put(a.cacheDir, "outputs/o.txt", "v1");
  await pushPaths(a, "outputs/o.txt");
  await b.pullChanged();
  // b edits and marks; then its dirty set is damaged (the mark is lost) ...
  await put(sb.cacheDir, "outputs/o.txt", "b's edit");
  await put(sb.cacheDir, "outputs/p.txt", "b's new file");
  await b.markDirty({ relPaths: ["outputs/o.txt", "outputs/p.txt"] });
  await Deno.writeFile(
    `${sb.cacheDir}/.sluice/dirty.log`,
    Uint8Array.from([0xff, 0xfe, 0x00, ...enc("garbage\n")]),
  );
  // ... while the peer publishes a newer copy of the same file.
  await put(a.cacheDir, "outputs/o.txt", "a's v2");
  await pushPaths(a, "outputs/o.txt");

  const w = warnings();
  const b2 = await clone(store, sb.cacheDir, { name: "b", events: w.events });
  assert.deepEqual(w.codes(), ["state_unreadable"]);
  assert.match(w.list[0].message, /dirty set has an unreadable line: walking everything/);
  const pulled = await b2.pullChanged();
  assert.deepEqual(
    pulled.conflicts,
    ["outputs/o.txt"],
    "the local edit is a conflict, not overwritten",
  );
  assert.equal(await read(sb.cacheDir, "outputs/o.txt"), "b's edit");
  // The push publishes the new file and leaves the conflict to its resolution.
  const pushed = await b2.pushChanged();
  assert.deepEqual(pushed.uploaded.sort(), ["outputs/p.txt"]);
  assert.deepEqual(pushed.conflicts, ["outputs/o.txt"]);
  assert.equal(store.peekText("outputs/o.txt"), "a's v2", "the peer's copy is not overwritten");
  assert.equal(store.peekText("outputs/p.txt"), "b's new file");
  // Keeping mine publishes b's edit over the version b has now seen.
  await b2.resolveConflict("outputs/o.txt", "mine");
  assert.equal(store.peekText("outputs/o.txt"), "b's edit");
  await b2.pushChanged();
  assert.equal(b2.state.bulkPending(), false);
  assert.equal(await read(sb.cacheDir, ".sluice/dirty.log"), "", "compacted clean");
  await sb.unchanged();
});

Deno.test("state: a dirty set torn mid-append turns into a walk that pushes the torn mark's file", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, sb.cacheDir);
  await put(sb.cacheDir, "x.txt", "x");
  await put(sb.cacheDir, "y.txt", "y");
  await Deno.mkdir(`${sb.cacheDir}/.sluice`);
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/dirty.log`, '"x.txt"\n"y.t');
  const w = warnings();
  const a2 = await clone(store, a.cacheDir, { events: w.events });
  assert.deepEqual(w.codes(), ["state_unreadable"]);
  assert.deepEqual((await a2.pushChanged()).uploaded.sort(), ["x.txt", "y.txt"]);
  await sb.unchanged();
});

Deno.test("state: a corrupted manifest turns into a walk; no local change is lost", async () => {
  const manifests: [string, string, string][] = [
    ["garbage", "manifest.json", "{ not json"],
    ["an unknown format", "manifest.json", JSON.stringify({ format: 9, entries: {} })],
    ["entries null", "manifest.json", JSON.stringify({ format: 1, entries: null })],
    [
      "an entry with a numeric hash",
      "manifest.json",
      JSON.stringify({ format: 1, entries: { "o.txt": { h: 1, v: "v" } } }),
    ],
    // The log of changes since the base: a damaged line that is not the last.
    ["a garbage log line", "manifest.log", 'garbage\n{"g":0,"p":"o.txt"}\n'],
    ["a log line newer than its base", "manifest.log", '{"g":7,"p":"o.txt"}\n'],
    [
      "a log entry with a numeric hash",
      "manifest.log",
      '{"g":0,"p":"o.txt","e":{"h":1,"v":"v"}}\n',
    ],
  ];
  for (const [what, file, text] of manifests) {
    const sb = await sandbox();
    const store = new InMemoryStore();
    const a = await clone(store, sb.cacheDir);
    const peer = await clone(store, `${sb.root}/peer`, { name: "peer" });
    await put(sb.cacheDir, "o.txt", "o");
    await put(sb.cacheDir, "p.txt", "p");
    await put(sb.cacheDir, "q.txt", "q");
    await pushPaths(a, "o.txt", "p.txt", "q.txt");
    await put(sb.cacheDir, "p.txt", "p edited");
    await a.markDirty({ relPath: "p.txt" });
    // The peer publishes newer copies: p.txt (edited here too) and q.txt (stale here).
    await peer.pullChanged();
    await put(peer.cacheDir, "p.txt", "peer's p");
    await put(peer.cacheDir, "q.txt", "peer's q");
    await pushPaths(peer, "p.txt", "q.txt");
    await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${file}`, text);

    const w = warnings();
    const a2 = await clone(store, sb.cacheDir, { events: w.events });
    assert.deepEqual(w.codes(), ["state_unreadable"], what);
    assert.match(w.list[0].message, /synced manifest unreadable .*walking everything/, what);
    const pulled = await a2.pullChanged();
    // The dirty edit is kept as a conflict. Without a manifest entry an unchanged file
    // cannot be told from a stale one: an identical o.txt is recorded as synced; the
    // stale q.txt is set aside (kept, never pushed back over the peer's), the peer's copy
    // is fetched, and the set-aside copy is a conflict too.
    assert.deepEqual(
      pulled.conflicts.sort(),
      ["p.txt", "q.txt"],
      `${what}: the dirty edit is kept`,
    );
    assert.deepEqual(pulled.fetched.sort(), ["q.txt"], what);
    assert.equal(pulled.setAside.length, 1, what);
    assert.equal(await read(sb.cacheDir, pulled.setAside[0]), "q", what);
    assert.equal(await read(sb.cacheDir, "p.txt"), "p edited", what);
    assert.equal(await read(sb.cacheDir, "q.txt"), "peer's q", what);
    const pushed = await a2.pushChanged();
    assert.deepEqual(pushed.uploaded, [], `${what}: conflicts wait for their resolution`);
    assert.equal(store.peekText("p.txt"), "peer's p", what);
    await a2.resolveConflict("p.txt", "mine");
    await a2.resolveConflict("q.txt", "theirs");
    await a2.pushChanged();
    assert.equal(store.peekText("p.txt"), "p edited", what);
    assert.equal(store.peekText("o.txt"), "o", what);
    assert.equal(store.peekText("q.txt"), "peer's q", what);
    assert.deepEqual(a2.state.dirtyPaths(), [], what);
    assert.equal(JSON.parse(await read(sb.cacheDir, ".sluice/manifest.json")).format, 1, what);
    await sb.unchanged();
  }
});

Deno.test("state: an unreadable state file warns on open; writing it fails with a coded error and loses nothing", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, sb.cacheDir);
  await put(sb.cacheDir, "o.txt", "v1");
  await pushPaths(a, "o.txt");
  await put(sb.cacheDir, "o.txt", "v2");
  // The dirty set is replaced by something that cannot be read as a file.
  await Deno.remove(`${sb.cacheDir}/.sluice/dirty.log`);
  await Deno.mkdir(`${sb.cacheDir}/.sluice/dirty.log`);

  const w = warnings();
  const a2 = await clone(store, sb.cacheDir, { events: w.events });
  assert.deepEqual(w.codes(), ["state_unreadable"]);
  assert.match(w.list[0].message, /dirty set unreadable .*walking everything/);
  const state = /Could not write the sync state file .*\.sluice\/dirty\.log/;
  const todo = /mark everything dirty .* and push/;
  await refused(a2.markDirty({ relPath: "o.txt" }), "internal", state, todo);
  await refused(a2.pushChanged(), "internal", state, todo);
  assert.equal(store.peekText("o.txt"), "v2", "the walk's upload landed");
  assert.equal(await read(sb.cacheDir, "o.txt"), "v2");

  // After the file is repaired, a fresh start has nothing left to push.
  await Deno.remove(`${sb.cacheDir}/.sluice/dirty.log`);
  const a3 = await clone(store, sb.cacheDir);
  await a3.markDirty();
  assert.deepEqual((await a3.pushChanged()).uploaded, []);
  await sb.unchanged();
});

Deno.test("state: a corrupted erasure journal fails pushes closed; corrupted probe and lockfile caches are tolerated", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const a = await clone(store, sb.cacheDir);
  await put(sb.cacheDir, "o.txt", "o");
  await Deno.mkdir(`${sb.cacheDir}/.sluice`, { recursive: true });
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${ERASURE_JOURNAL}`, "{ torn");
  await a.markDirty({ relPath: "o.txt" });
  await refused(
    a.pushChanged(),
    "internal",
    /The sync state file .*erasure.* is corrupted/,
    /run the command again/,
  );
  assert.deepEqual(store.keys("o"), [], "nothing was pushed");
  assert.deepEqual(a.state.dirtyPaths(), ["o.txt"]);
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${ERASURE_JOURNAL}`, '{"format": 7}');
  await refused(
    a.pushChanged(),
    "internal",
    /erasure journal .* is malformed\. Nothing was pushed/,
    /run the sync again/,
  );
  assert.deepEqual(a.state.dirtyPaths(), ["o.txt"]);

  await Deno.remove(`${sb.cacheDir}/.sluice/${ERASURE_JOURNAL}`);
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${PROBE_STATE_FILE}`, "\u0000junk");
  await Deno.writeTextFile(`${sb.cacheDir}/.sluice/${PENDING_LOCKFILE_STATE}`, "[[[");
  const a2 = await clone(store, sb.cacheDir);
  assert.deepEqual((await a2.pushChanged()).uploaded, ["o.txt"]);
  assert.deepEqual(a2.state.dirtyPaths(), []);
  await sb.unchanged();
});

// ---------------------------------------------------------------------------
// Config
// ---------------------------------------------------------------------------

Deno.test("config: wrong types are invalid_config naming the field, before anything is created", async () => {
  const sb = await sandbox();
  const store = new InMemoryStore();
  const cacheDir = `${sb.root}/cache/not-yet`;
  const identity = { holder: "a@host", hostname: "host", pid: 1 };
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ["concurrency as a string", { config: { concurrency: "8" } }, "config.concurrency", /got "8"/],
    ["concurrency zero", { config: { concurrency: 0 } }, "config.concurrency", /at least 1/],
    ["concurrency fractional", { config: { concurrency: 1.5 } }, "config.concurrency", /whole/],
    ["concurrency NaN", { config: { concurrency: NaN } }, "config.concurrency", /got/],
    [
      "conditionalWrites unknown",
      { config: { conditionalWrites: "sometimes" } },
      "config.conditionalWrites",
      /one of "auto", "required", "off", got "sometimes"/,
    ],
    ["retry as a number", { config: { retry: 3 } }, "config.retry", /got 3/],
    [
      "retries as a string",
      { config: { retry: { retries: "3" } } },
      "config.retry.retries",
      /got "3"/,
    ],
    [
      "retries negative",
      { config: { retry: { retries: -1 } } },
      "config.retry.retries",
      /0 or more/,
    ],
    [
      "classifierRules not a list",
      { config: { classifierRules: "data/**" } },
      "config.classifierRules",
      /a list/,
    ],
    [
      "a classifier rule with an unknown class",
      { config: { classifierRules: [{ pattern: "x/**", class: "precious" }] } },
      "config.classifierRules[0].class",
      /got "precious"/,
    ],
    ["probeTtlMs as text", { config: { probeTtlMs: "1h" } }, "config.probeTtlMs", /got "1h"/],
    ["config not an object", { config: "fast" }, "config", /an object of settings/],
    ["cacheDir empty", { cacheDir: "" }, "cacheDir", /a directory path, got ""/],
    [
      "identity pid as a string",
      { identity: { ...identity, pid: "1" } },
      "identity.pid",
      /got "1"/,
    ],
    [
      "identity holder empty",
      { identity: { ...identity, holder: "" } },
      "identity.holder",
      /got ""/,
    ],
  ];
  for (const [what, override, field, detail] of cases) {
    const options = {
      cacheDir,
      store,
      identity,
      clock: new FakeClock(),
      conditional: new ConditionalWrites(),
      ...override,
    } as unknown as Parameters<typeof createSluice>[0];
    const err = await refused(
      createSluice(options),
      "invalid_config",
      new RegExp(`Invalid configuration at "${field.replace(/[.[\]]/g, "\\$&")}"`),
      /fix the datastore configuration and run the command again/,
    );
    assert.ok(err instanceof ConfigError, what);
    assert.equal(err.field, field, what);
    assert.match(err.message, detail, what);
    assert.equal(await Deno.lstat(cacheDir).catch(() => null), null, `${what}: nothing created`);
  }
  // createSluice builds the lock backend from `cacheDir` and `store` before the service
  // validates them, so these two are checked on the service itself.
  const direct: [Record<string, unknown>, string, RegExp][] = [
    [{ cacheDir: 42 }, "cacheDir", /a directory path, got 42/],
    [{ store: undefined }, "store", /an ObjectStore \(get, head, put, delete, list\)/],
    [{ store: { get: () => null } }, "store", /an ObjectStore/],
  ];
  for (const [override, field, detail] of direct) {
    const options = { cacheDir, store, ...override } as unknown as Parameters<
      typeof createSyncService
    >[0];
    const err = await refused(
      createSyncService(options),
      "invalid_config",
      new RegExp(`Invalid configuration at "${field}"`),
      /run the command again/,
    );
    assert.match(err.message, detail);
    assert.equal(await Deno.lstat(cacheDir).catch(() => null), null);
  }
  // A partial retry policy is completed from the defaults, not left with holes.
  const svc = await createSluice({
    cacheDir,
    store,
    identity,
    clock: new FakeClock(),
    conditional: new ConditionalWrites(),
    config: {
      retry: { retries: 0 } as { retries: number; minTimeoutMs: number; maxTimeoutMs: number },
    },
  });
  assert.equal(svc.config.retry.retries, 0);
  assert.equal(typeof svc.config.retry.maxTimeoutMs, "number");
  await sb.unchanged();
});
