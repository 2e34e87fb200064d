import assert from "node:assert/strict";
import { checkedToken, racyWindowMs, settledAt, settledMtime, UNCHECKED } from "./synced_time.ts";
import { createSluice } from "../../sluice.ts";
import { FakeClock, InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";

Deno.test("an mtime is kept once older than its filesystem's tick (2 s where timestamps are even seconds)", () => {
  assert.equal(racyWindowMs(1_001), 1_000);
  assert.equal(racyWindowMs(4_000), 2_000);
  assert.equal(settledAt(10_000, 11_999), undefined);
  assert.equal(settledAt(10_000, 12_000), 10_000);
  assert.equal(settledAt(10_500, 10_000), undefined, "an mtime in the future");
  assert.equal(settledAt(undefined, 10_000), undefined);
  const fresh = { hash: "h", version: "v", size: 1, mtimeMs: Date.now() };
  assert.equal(settledMtime(fresh).mtimeMs, undefined);
  const old = { ...fresh, mtimeMs: Date.now() - 60_000 };
  assert.equal(settledMtime(old).mtimeMs, old.mtimeMs);
});

Deno.test("a token taken from this cache's own commit is marked, and read without its mark", () => {
  assert.equal(checkedToken(`t1${UNCHECKED}`), "t1");
  assert.equal(checkedToken("t1"), "t1");
  assert.equal(checkedToken(undefined), undefined);
});

Deno.test("a service judges mtimes settled by the filesystem clock it is given", async () => {
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const [fileClock, kept] of [[() => 0, false], [Date.now, true]] as const) {
    const cacheDir = await Deno.makeTempDir({ prefix: "sluice-file-clock-" });
    try {
      const svc = await createSluice({
        cacheDir,
        store: new InMemoryStore(),
        identity: { holder: "a@host", hostname: "host", pid: 1 },
        clock: new FakeClock(),
        fileClock,
      });
      // Pushed: judged at the push's read.
      await writeCacheFile(cacheDir, "pushed.txt", "one");
      await Deno.utime(`${cacheDir}/pushed.txt`, hourAgo, hourAgo);
      await svc.markDirty({ relPath: "pushed.txt" });
      await svc.pushChanged();
      assert.equal(svc.state.synced("pushed.txt")?.mtimeMs !== undefined, kept, "at its push");
      // Touched, the same bytes: a walk hashes it and records its mtime once settled.
      const earlier = new Date(hourAgo.getTime() - 60_000);
      await Deno.utime(`${cacheDir}/pushed.txt`, earlier, earlier);
      await svc.markDirty();
      await svc.pushChanged();
      assert.equal(
        svc.state.synced("pushed.txt")?.mtimeMs,
        kept ? earlier.getTime() : undefined,
        "at a walk",
      );
      svc.state.exit();
    } finally {
      await Deno.remove(cacheDir, { recursive: true });
    }
  }
});
