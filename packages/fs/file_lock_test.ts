import assert from "node:assert/strict";
import { AbortedError, UnreachableError } from "../../sync/errors.ts";
import { FileLocks, procAlive } from "./file_lock.ts";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sluice-lock-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function plant(path: string, body: string, ageMs: number): Promise<void> {
  await Deno.writeTextFile(path, body);
  const t = new Date(Date.now() - ageMs);
  await Deno.utime(path, t, t);
}

function hostname(): string {
  try {
    return Deno.hostname();
  } catch {
    return "";
  }
}

Deno.test("FileLocks: acquire is exclusive and release hands over", () =>
  withDir(async (dir) => {
    const locks = new FileLocks(`${dir}/locks`);
    const first = await locks.acquire("k");
    assert.ok(await first.stillHeld());
    let secondHeld = false;
    const second = locks.acquire("k").then((l) => {
      secondHeld = true;
      return l;
    });
    assert.equal(secondHeld, false);
    await first.release();
    await first.release();
    const l2 = await second;
    assert.ok(await l2.stillHeld());
    assert.equal(await first.stillHeld(), false);
    await l2.release();
    assert.deepEqual(await Array.fromAsync(Deno.readDir(`${dir}/locks`)), []);
  }));

Deno.test("FileLocks: many contenders breaking one stale lock never overlap", () =>
  withDir(async (dir) => {
    await Deno.mkdir(`${dir}/locks`);
    const stores = Array.from({ length: 6 }, () => new FileLocks(`${dir}/locks`, { staleMs: 500 }));
    await plant(stores[0].pathOf("k"), JSON.stringify({ pid: 1, hostname: "elsewhere" }), 5_000);
    let holders = 0;
    let maxHolders = 0;
    await Promise.all(stores.map(async (locks) => {
      for (let i = 0; i < 3; i++) {
        const lock = await locks.acquire("k");
        holders++;
        maxHolders = Math.max(maxHolders, holders);
        await Deno.readTextFile(lock.path);
        holders--;
        await lock.release();
      }
    }));
    assert.equal(maxHolders, 1);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(`${dir}/locks`)), []);
  }));

Deno.test("FileLocks: an old empty lock (writer died before writing) is broken", () =>
  withDir(async (dir) => {
    const locks = new FileLocks(dir, { staleMs: 500, waitMs: 5_000 });
    await plant(locks.pathOf("k"), "", 2_000);
    const lock = await locks.acquire("k");
    assert.ok(await lock.stillHeld());
    await lock.release();
  }));

Deno.test("FileLocks: an old lock of this process that it no longer holds is broken", {
  ignore: hostname() === "",
}, () =>
  withDir(async (dir) => {
    const locks = new FileLocks(dir, { staleMs: 500, waitMs: 5_000 });
    const body = JSON.stringify({ pid: Deno.pid, hostname: hostname(), nonce: "forgotten" });
    await plant(locks.pathOf("k"), body, 2_000);
    const lock = await locks.acquire("k");
    await lock.release();
  }));

/** A liveness check that knows only the given pids, recording what it was asked. */
function fakeProcesses(...alive: number[]) {
  const asked: number[] = [];
  return {
    asked,
    processAlive: (pid: number) => {
      asked.push(pid);
      return Promise.resolve(alive.includes(pid));
    },
  };
}

Deno.test("FileLocks: an old lock of a live process on this host is kept", {
  ignore: hostname() === "",
}, () =>
  withDir(async (dir) => {
    const procs = fakeProcesses(4_000_001);
    const locks = new FileLocks(dir, { staleMs: 500, waitMs: 30, ...procs });
    const body = JSON.stringify({ pid: 4_000_001, hostname: hostname(), nonce: "init" });
    await plant(locks.pathOf("k"), body, 60_000);
    await assert.rejects(locks.acquire("k"), UnreachableError);
    assert.equal(await Deno.readTextFile(locks.pathOf("k")), body);
    assert.ok(procs.asked.includes(4_000_001));
  }));

Deno.test("FileLocks: an old lock of a process of this host that is gone is broken", {
  ignore: hostname() === "",
}, () =>
  withDir(async (dir) => {
    const procs = fakeProcesses();
    const locks = new FileLocks(dir, { staleMs: 500, waitMs: 5_000, ...procs });
    const body = JSON.stringify({ pid: 4_000_002, hostname: hostname(), nonce: "gone" });
    await plant(locks.pathOf("k"), body, 60_000);
    const lock = await locks.acquire("k");
    assert.ok(await lock.stillHeld());
    await lock.release();
    assert.ok(procs.asked.includes(4_000_002));
  }));

Deno.test("procAlive answers false for a pid no process has", async () => {
  assert.equal(await procAlive(4_000_003), false);
});

Deno.test("FileLocks: a lock broken by someone else is no longer held and is not removed", () =>
  withDir(async (dir) => {
    const locks = new FileLocks(dir);
    const lock = await locks.acquire("k");
    await Deno.writeTextFile(lock.path, JSON.stringify({ pid: 7, hostname: "other", nonce: "x" }));
    assert.equal(await lock.stillHeld(), false);
    await lock.release();
    assert.ok((await Deno.readTextFile(lock.path)).includes("other"));
  }));

Deno.test("FileLocks: an aborted signal stops the wait", () =>
  withDir(async (dir) => {
    const locks = new FileLocks(dir);
    const held = await locks.acquire("k");
    await assert.rejects(locks.acquire("k", AbortSignal.abort()), AbortedError);
    const ctl = new AbortController();
    const waiting = locks.acquire("k", ctl.signal);
    ctl.abort();
    await assert.rejects(waiting, AbortedError);
    assert.ok(await held.stillHeld());
    await held.release();
  }));
