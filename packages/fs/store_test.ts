import assert from "node:assert/strict";
import {
  AbortedError,
  AlreadyExistsError,
  NotFoundError,
  PreconditionFailedError,
  UnreachableError,
  UnsafePathError,
} from "../../sync/errors.ts";
import { PutModes } from "../../sync/ports.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { FakeClock } from "../testing/fake_clock.ts";
import { storeContract } from "../testing/store_contract.ts";
import { FileLocks } from "./file_lock.ts";
import { CorruptObjectError } from "./object_file.ts";
import { FsStore } from "./store.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

storeContract("FsStore", async () => {
  const root = await Deno.makeTempDir({ prefix: "sluice-fs-" });
  return {
    store: new FsStore({ root }),
    cleanup: () => Deno.remove(root, { recursive: true }),
  };
});

async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "sluice-fs-" });
  try {
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function lockPath(root: string, key: string): Promise<string> {
  return new FileLocks(`${root}/locks`).pathOf(await sha256Hex(enc(key)));
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
}

Deno.test("FsStore: two instances on one root see each other's writes", () =>
  withRoot(async (root) => {
    const a = new FsStore({ root });
    const b = new FsStore({ root: `${root}/` });
    assert.equal(a.endpoint, b.endpoint);
    const v1 = await a.put("m/latest", enc("1"), PutModes.create);
    const seen = await b.get("m/latest");
    assert.equal(dec(seen.body), "1");
    assert.equal(seen.version, v1.version);
    const v2 = await b.put("m/latest", enc("2"), PutModes.update(v1.version));
    await assert.rejects(
      a.put("m/latest", enc("x"), PutModes.update(v1.version)),
      PreconditionFailedError,
    );
    assert.equal((await a.head("m/latest"))?.version, v2.version);
    const listed = (await Array.fromAsync(a.list("m/"))).flat().map((i) => i.key);
    assert.deepEqual(listed, ["m/latest"]);
    await a.delete("m/latest", { ifVersion: v2.version });
    assert.equal(await b.head("m/latest"), null);
  }));

Deno.test("FsStore: racing creates through two instances have exactly one winner", () =>
  withRoot(async (root) => {
    const stores = [new FsStore({ root }), new FsStore({ root })];
    const results = await Promise.allSettled(
      Array.from(
        { length: 12 },
        (_, i) => stores[i % 2].put("data/t/m/d/1/raw", enc(`writer ${i}`), PutModes.create),
      ),
    );
    const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
    assert.equal(won.length, 1);
    for (const r of results) {
      if (r.status === "rejected") {
        assert.ok(r.reason instanceof AlreadyExistsError, String(r.reason));
      }
    }
    const got = await stores[1].get("data/t/m/d/1/raw");
    assert.equal(dec(got.body), `writer ${won[0]}`);
    assert.deepEqual(await entries(`${root}/tmp`), []);
  }));

Deno.test("FsStore: compare-and-swap through two instances loses no increment", () =>
  withRoot(async (root) => {
    const stores = [new FsStore({ root }), new FsStore({ root })];
    await stores[0].put("counter", enc("0"), PutModes.create);
    const writer = async (i: number) => {
      const store = stores[i % 2];
      for (let n = 0; n < 10; n++) {
        for (;;) {
          const cur = await store.get("counter");
          try {
            await store.put(
              "counter",
              enc(String(Number(dec(cur.body)) + 1)),
              PutModes.update(cur.version),
            );
            break;
          } catch (e) {
            if (!(e instanceof PreconditionFailedError)) throw e;
          }
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(writer));
    assert.equal(dec((await stores[1].get("counter")).body), "40");
    assert.deepEqual(await entries(`${root}/locks`), []);
  }));

Deno.test("FsStore: unsafe keys are refused before touching the disk", () =>
  withRoot(async (root) => {
    const store = new FsStore({ root });
    for (const key of ["", "../escape", "/abs", "a//b", "a/./b", "a\\b", "x/..", "nul\0"]) {
      await assert.rejects(store.put(key, enc("x"), PutModes.overwrite), UnsafePathError, key);
      await assert.rejects(store.get(key), UnsafePathError);
      await assert.rejects(store.head(key), UnsafePathError);
      await assert.rejects(store.delete(key), UnsafePathError);
    }
    await assert.rejects(Array.fromAsync(store.list("../x/")), UnsafePathError);
    assert.deepEqual(await entries(root), []);
  }));

Deno.test("FsStore: a key and keys beneath it cannot coexist; deletes prune empty directories", () =>
  withRoot(async (root) => {
    const store = new FsStore({ root });
    await store.put("a", enc("file"), PutModes.create);
    await assert.rejects(store.put("a/b", enc("x"), PutModes.create), UnsafePathError);
    await assert.rejects(store.put("a/b", enc("x"), PutModes.overwrite), UnsafePathError);
    assert.equal(await store.head("a/b"), null);
    await assert.rejects(store.get("a/b"), NotFoundError);
    await store.delete("a");
    await store.put("a/b/c", enc("deep"), PutModes.create);
    await assert.rejects(store.put("a", enc("x"), PutModes.create), UnsafePathError);
    await assert.rejects(store.put("a/b", enc("x"), PutModes.overwrite), UnsafePathError);
    assert.equal(await store.head("a"), null);
    // A key whose name is a directory of other keys holds no object: absent, not an outage.
    await assert.rejects(store.get("a"), NotFoundError);
    await assert.rejects(store.get("a/b"), NotFoundError);
    await assert.rejects(store.getStream("a"), NotFoundError);
    await store.delete("a/b/c");
    assert.deepEqual(await entries(`${root}/objects`), []);
    await store.put("a", enc("file again"), PutModes.create);
    assert.equal(dec((await store.get("a")).body), "file again");
  }));

Deno.test("FsStore: layout, endpoint and recorded last-modified time", () =>
  withRoot(async (root) => {
    const clock = new FakeClock(1_700_000_000_000);
    const store = new FsStore({ root, clock });
    assert.equal(store.endpoint, `file://${root}`);
    const info = await store.put("x/y.json", enc("{}"), PutModes.create, { metadata: { k: "v" } });
    assert.equal(info.lastModified, 1_700_000_000_000);
    const raw = dec(await Deno.readFile(`${root}/objects/x/y.json`));
    assert.ok(raw.startsWith("SLUICE-OBJECT/1 {"), raw);
    assert.ok(raw.endsWith("\n{}"), raw);
    assert.ok(raw.includes(info.version));
    clock.set(1_700_000_005_000);
    const next = await store.put("x/y.json", enc("[]"), PutModes.overwrite);
    assert.equal(next.lastModified, 1_700_000_005_000);
    assert.deepEqual((await store.head("x/y.json"))?.metadata, {});
    assert.deepEqual(await entries(`${root}/tmp`), []);
  }));

Deno.test("FsStore: list yields global key order across directories", () =>
  withRoot(async (root) => {
    const store = new FsStore({ root, pageSize: 2 });
    const keys = ["a-c", "a/b", "a/b-c", "a.d/x", "ab", "b"];
    for (const k of keys) await store.put(k, enc(k), PutModes.create);
    const pages = await Array.fromAsync(store.list(""));
    assert.deepEqual(pages.map((p) => p.length), [2, 2, 2]);
    assert.deepEqual(pages.flat().map((i) => i.key), [...keys].sort());
    const partial = (await Array.fromAsync(store.list("a/b"))).flat().map((i) => i.key);
    assert.deepEqual(partial, ["a/b", "a/b-c"]);
  }));

Deno.test("FsStore: a foreign or damaged file under objects/ is reported, not served", () =>
  withRoot(async (root) => {
    const store = new FsStore({ root });
    await Deno.mkdir(`${root}/objects`, { recursive: true });
    await Deno.writeTextFile(`${root}/objects/stray.txt`, "not an object");
    await assert.rejects(store.get("stray.txt"), CorruptObjectError);
    await assert.rejects(store.head("stray.txt"), CorruptObjectError);
    const ok = await store.put("good", enc("abc"), PutModes.create);
    const path = `${root}/objects/good`;
    const bytes = await Deno.readFile(path);
    await Deno.writeFile(path, bytes.subarray(0, bytes.length - 1));
    await assert.rejects(store.get("good"), CorruptObjectError);
    await assert.rejects(store.head("good"), CorruptObjectError);
    assert.ok(ok.version);
  }));

Deno.test("FsStore: a stale lock left by a vanished writer is broken", () =>
  withRoot(async (root) => {
    const store = new FsStore({ root, staleLockMs: 1_000 });
    const v1 = await store.put("k", enc("1"), PutModes.create);
    const lock = await lockPath(root, "k");
    await Deno.mkdir(`${root}/locks`, { recursive: true });
    await Deno.writeTextFile(
      lock,
      JSON.stringify({ pid: 4242, hostname: "gone.example", nonce: "n" }),
    );
    const old = new Date(Date.now() - 60_000);
    await Deno.utime(lock, old, old);
    await store.put("k", enc("2"), PutModes.update(v1.version));
    assert.equal(dec((await store.get("k")).body), "2");
    assert.deepEqual(await entries(`${root}/locks`), []);
  }));

Deno.test("FsStore: a fresh lock is waited for; the wait times out or aborts and writes nothing", () =>
  withRoot(async (root) => {
    const store = new FsStore({ root, lockWaitMs: 30 });
    const v1 = await store.put("k", enc("1"), PutModes.create);
    const lock = await lockPath(root, "k");
    await Deno.mkdir(`${root}/locks`, { recursive: true });
    await Deno.writeTextFile(
      lock,
      JSON.stringify({ pid: 4242, hostname: "peer.example", nonce: "n" }),
    );
    await assert.rejects(store.put("k", enc("2"), PutModes.update(v1.version)), UnreachableError);
    await assert.rejects(store.delete("k", { ifVersion: v1.version }), UnreachableError);
    const ctl = new AbortController();
    const slow = new FsStore({ root, lockWaitMs: 60_000 });
    const pending = slow.put("k", enc("3"), PutModes.overwrite, { signal: ctl.signal });
    ctl.abort();
    await assert.rejects(pending, AbortedError);
    assert.equal(dec((await store.get("k")).body), "1");
    assert.ok((await Deno.readTextFile(lock)).includes("peer.example"));
    assert.deepEqual(await entries(`${root}/tmp`), []);
  }));

Deno.test("FsStore: a streamed put aborted while its body streams writes nothing, in every mode", async () => {
  const store = new FsStore({ root: await Deno.makeTempDir({ prefix: "sluice-fs-abort-" }) });
  for (const mode of [PutModes.create, PutModes.overwrite]) {
    const controller = new AbortController();
    // A source that aborts the put after its first chunk, then goes on.
    const source = {
      size: 3 * 1024,
      stream: () => {
        let sent = 0;
        return new ReadableStream<Uint8Array>({
          pull(c) {
            if (sent === 1024) controller.abort();
            if (sent >= 3 * 1024) return c.close();
            c.enqueue(new Uint8Array(1024).fill(sent / 1024));
            sent += 1024;
          },
        });
      },
    };
    const key = `aborted-${mode.kind}`;
    await assert.rejects(store.put(key, source, mode, { signal: controller.signal }), AbortedError);
    assert.equal(await store.head(key), null);
  }
  const left = [...Deno.readDirSync(`${store.root}/tmp`)].map((e) => e.name);
  assert.deepEqual(left, [], "temp files left behind");
});
