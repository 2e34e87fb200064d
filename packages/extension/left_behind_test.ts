import assert from "node:assert/strict";
import { emptyPushResult, type PushResult } from "../../sync/service/push.ts";
import type { PullResult } from "../../sync/service/pull.ts";
import { cliNext, cliStoreUrl, pullOutcome, pushOutcome, storeRecordOf } from "./left_behind.ts";
import { parseStoreUrl, storeIdentity } from "../../cli/store_url.ts";

const SOLO = { cacheDir: "/home/u/.swamp/repos/r1", storeUrl: "s3://b/p" };

Deno.test("left behind: the store URL carries the endpoint, region or project, and the namespace", () => {
  assert.equal(
    cliStoreUrl("s3://b/p", { endpoint: "http://127.0.0.1:9000", region: "us-east-1" }, ""),
    "s3://b/p?endpoint=http://127.0.0.1:9000&region=us-east-1",
  );
  assert.equal(cliStoreUrl("s3://b", {}, "prod"), "s3://b/prod");
  assert.equal(
    cliStoreUrl("s3://b", { endpoint: "http://h:1", forcePathStyle: false }, ""),
    "s3://b?endpoint=http://h:1&path-style=false",
  );
  assert.equal(
    cliStoreUrl("gs://b/p", { apiEndpoint: "http://127.0.0.1:4443", projectId: "x" }, "ns"),
    "gs://b/p/ns?endpoint=http://127.0.0.1:4443&project=x",
  );
});

Deno.test("left behind: the command names the cache and the store, quoted for a shell", () => {
  assert.match(
    cliNext(SOLO),
    /`npx sluice status --cache \/home\/u\/\.swamp\/repos\/r1 --store s3:\/\/b\/p`/,
  );
  const spaced = cliNext({
    cacheDir: "/tmp/my cache",
    storeUrl: "s3://b/p?a=1&b=2",
  });
  assert.match(spaced, /--cache '\/tmp\/my cache' --store 's3:\/\/b\/p\?a=1&b=2'`/);
});

Deno.test("left behind: a push with a conflict warns conflicts_left, naming the path and the command", () => {
  const r: PushResult = {
    ...emptyPushResult(),
    uploaded: ["data/a"],
    conflicts: ["config/app.yaml"],
    skipped: [{ path: "config/app.yaml", reason: "conflict", keepDirty: true }],
  };
  const said = pushOutcome(r, SOLO);
  assert.deepEqual(said.map((w) => w.code), ["conflicts_left"]);
  assert.match(said[0].message, /config\/app\.yaml.*npx sluice status --cache/s);
});

Deno.test("left behind: a push that kept a file for a later run is sync_incomplete", () => {
  const r: PushResult = {
    ...emptyPushResult(),
    skipped: [{
      path: "files/x",
      reason: "another writer's push has not committed it yet",
      keepDirty: true,
    }],
  };
  assert.deepEqual(pushOutcome(r, SOLO).map((w) => w.code), ["sync_incomplete"]);
  const linked: PushResult = { ...emptyPushResult(), localOnly: [{ path: "l", reason: "a link" }] };
  assert.deepEqual(pushOutcome(linked, SOLO).map((w) => w.code), ["sync_incomplete"]);
});

Deno.test("left behind: local deletions a bulk push kept warn local_deletions_kept", () => {
  const r: PushResult = { ...emptyPushResult(), localDeletions: ["data/t/m/old/1/raw"] };
  const said = pushOutcome(r, SOLO);
  assert.deepEqual(said.map((w) => w.code), ["local_deletions_kept"]);
  assert.match(said[0].message, /data\/t\/m\/old\/1\/raw.*--restore-deleted.*npx sluice status/s);
});

Deno.test("left behind: a local deletion a directory of its name now stands at is told to move the directory away before the restore", async () => {
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-left-behind-" });
  try {
    await Deno.mkdir(`${cacheDir}/notes/a`, { recursive: true });
    await Deno.writeTextFile(`${cacheDir}/notes/a/part.md`, "a directory's file");
    const target = { cacheDir, storeUrl: "s3://b/p" };
    const one = pushOutcome({ ...emptyPushResult(), localDeletions: ["notes/a"] }, target);
    assert.deepEqual(one.map((w) => w.code), ["local_deletions_kept"]);
    assert.doesNotMatch(one[0].message, /copies back, run `sluice pull --restore-deleted`/);
    assert.match(
      one[0].message,
      /each has a directory of its name here now, .*move the directory away first, then run `sluice pull --restore-deleted`/,
    );
    const some = pushOutcome(
      { ...emptyPushResult(), localDeletions: ["notes/a", "notes/b"] },
      target,
    );
    assert.match(
      some[0].message,
      /run `sluice pull --restore-deleted`, after moving away the directory of its name now at 1 of them \(notes\/a\)/,
    );
    // A file deleted here with nothing at its name: the plain advice.
    const plain = pushOutcome({ ...emptyPushResult(), localDeletions: ["notes/b"] }, target);
    assert.match(plain[0].message, /copies back, run `sluice pull --restore-deleted`/);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("left behind: a clean push or pull says nothing", () => {
  assert.deepEqual(pushOutcome({ ...emptyPushResult(), uploaded: ["a"] }, SOLO), []);
  const pulled = {
    fetched: ["a"],
    conflicts: [],
    uncommitted: [],
    unreadable: [],
    dropped: [],
  } as unknown as PullResult;
  assert.equal(pullOutcome(pulled, SOLO), null);
});

Deno.test("left behind: a pull that found a conflict warns conflicts_left", () => {
  const pulled = {
    fetched: [],
    conflicts: ["config/app.yaml"],
    uncommitted: [],
    unreadable: [],
    dropped: [],
  } as unknown as PullResult;
  const w = pullOutcome(pulled, SOLO);
  assert.equal(w?.code, "conflicts_left");
  assert.match(w!.message, /The pull finished but left work behind.*config\/app\.yaml/s);
});

Deno.test("left behind: the store a cache records is the one the command line takes for its URL, whatever the prefix holds", () => {
  for (const prefix of ["", "team", "team/ds", "team#1", "a%20b", "q?x", "a b+c"]) {
    for (const ns of ["", "prod"]) {
      const path = prefix ? `s3://my-bucket/${prefix}` : "s3://my-bucket";
      const url = cliStoreUrl(path, { endpoint: "http://127.0.0.1:9000" }, ns);
      const record = storeRecordOf({ cacheDir: "/c", storeUrl: url })!;
      const spec = parseStoreUrl(record.url);
      assert.equal(storeIdentity(spec), record.identity, `${prefix} ${ns}`);
      const want = [prefix, ns].filter(Boolean).join("/");
      assert.equal(spec.kind === "s3" && spec.prefix, want, `${prefix} ${ns}`);
    }
  }
});
