/**
 * One bucket, Sluice and other clients of the shared layout: fixture buckets
 * in both index versions pull completely, every Sluice write is visible to a
 * reader written from the layout's rules, and a peer's later write is pulled.
 */
import assert from "node:assert/strict";
import { createSyncService, type SyncService } from "../service/service.ts";
import {
  FakeClock,
  InMemoryStore,
  peerCommitSeq,
  peerPush,
  peerReadIndex,
  seedPeerBucket,
} from "../../packages/testing/mod.ts";
import { COVERED, INDEX_KEY, readIndex, updateIndex } from "./remote_index.ts";
import { sha256Hex } from "../hash.ts";
import { META_KEY, shardKey, UNPARTITIONED } from "./bucket_layout.ts";
import { WRITER_METADATA } from "./writer_id.ts";

const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function clone(store: InMemoryStore, name: string): Promise<SyncService> {
  return await createSyncService({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-layout-${name}-` }),
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: new FakeClock(),
    config: quick,
  });
}

async function write(svc: SyncService, path: string, text: string) {
  const file = `${svc.cacheDir}/${path}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(file, text);
  await svc.markDirty({ relPath: path });
}

const read = (svc: SyncService, path: string) => Deno.readTextFile(`${svc.cacheDir}/${path}`);

const FILES = {
  "data/aws/ec2/vpc/abc/state/1/raw": "vpc one",
  "data/aws/ec2/vpc/abc/state/1/metadata.yaml": "v: 1",
  "data/aws/ec2/vpc/abc/state/latest": "1",
  "workflow-runs/w1/workflow-run-r1.yaml": "run",
  "outputs/aws/create/def-1.yaml": "out",
  ".catalog-export.json": "[]",
};

for (const v2 of [false, true]) {
  const kind = v2 ? "v2 (shards)" : "v1 (one index object)";

  Deno.test(`a ${kind} bucket written by another client pulls completely`, async () => {
    const store = new InMemoryStore();
    await seedPeerBucket(store, FILES, { v2 });
    const a = await clone(store, "a");
    const r = await a.pullChanged();
    assert.deepEqual(r.fetched.sort(), Object.keys(FILES).sort());
    for (const [p, text] of Object.entries(FILES)) assert.equal(await read(a, p), text);
    // And again: nothing changed, nothing fetched.
    assert.deepEqual((await a.pullChanged()).fetched, []);
  });

  Deno.test(`${kind}: every Sluice write is visible to the other client's reader`, async () => {
    const store = new InMemoryStore();
    await seedPeerBucket(store, FILES, { v2 });
    const before = await peerCommitSeq(store);
    const monolithBefore = (await store.head(INDEX_KEY))?.version;
    const a = await clone(store, "a");
    await a.pullChanged();
    await write(a, "data/aws/ec2/vpc/abc/state/2/raw", "vpc two");
    await write(a, "data/aws/ec2/vpc/abc/state/latest", "2");
    await write(a, "workflow-runs/w2/workflow-run-r2.yaml", "run 2");
    await a.pushChanged();
    const seen = await peerReadIndex(store);
    for (const p of [...Object.keys(FILES), "data/aws/ec2/vpc/abc/state/2/raw"]) {
      assert.ok(seen[p], `${p} is in the other client's view`);
    }
    assert.equal(seen["data/aws/ec2/vpc/abc/state/latest"].size, 1);
    assert.equal(
      seen["data/aws/ec2/vpc/abc/state/2/raw"].sha256,
      await sha256Hex(new TextEncoder().encode("vpc two")),
    );
    if (v2) {
      // The other client's fast path compares commitSeq: it must move (by
      // two here: a shard this push created is listed before the marker's).
      assert.equal(await peerCommitSeq(store), (before ?? 0) + 2);
    } else {
      // ... or the index object's version.
      assert.notEqual((await store.head(INDEX_KEY))?.version, monolithBefore);
    }
  });

  Deno.test(`${kind}: a file the other client overwrites later is pulled again`, async () => {
    const store = new InMemoryStore();
    await seedPeerBucket(store, FILES, { v2 });
    const a = await clone(store, "a");
    await write(a, "outputs/aws/create/def-2.yaml", "sluice wrote this");
    await a.pushChanged();
    await a.pullChanged();
    await peerPush(store, { "outputs/aws/create/def-2.yaml": "peer rewrote it" });
    const r = await a.pullChanged();
    assert.deepEqual(r.fetched, ["outputs/aws/create/def-2.yaml"]);
    assert.equal(await read(a, "outputs/aws/create/def-2.yaml"), "peer rewrote it");
  });
}

Deno.test("v2: paths with no partition are indexed in the unpartitioned shard, listed in the meta", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, FILES, { v2: true });
  const a = await clone(store, "a");
  await write(a, "config/vaults/v1.yaml", "vault: 1");
  await a.pushChanged();
  assert.ok(store.peekText(shardKey(UNPARTITIONED))?.includes("config/vaults/v1.yaml"));
  assert.ok(JSON.parse(store.peekText(META_KEY)!).partitions.includes(UNPARTITIONED));
  assert.ok((await peerReadIndex(store))["config/vaults/v1.yaml"]);
  // A peer's push rewrites the meta without that shard: Sluice still reads it.
  await peerPush(store, { "logs/l.txt": "log" });
  const b = await clone(store, "b");
  const r = await b.pullChanged();
  assert.ok(r.fetched.includes("config/vaults/v1.yaml"));
  assert.ok(r.fetched.includes("logs/l.txt"));
});

Deno.test("entries without a hash (a listing-built index) pull by size and stay pulled", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, FILES, { noHash: true });
  const a = await clone(store, "a");
  assert.equal((await a.pullChanged()).fetched.length, Object.keys(FILES).length);
  store.resetLog();
  await peerPush(store, { "logs/new.txt": "n" });
  const r = await a.pullChanged();
  assert.deepEqual(r.fetched, ["logs/new.txt"]);
});

Deno.test("the layout's own objects are never pushed from, or pulled into, a cache", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, FILES);
  const a = await clone(store, "a");
  await a.pullChanged();
  // A stale local copy of the index (as another client keeps one) and its sidecar.
  await Deno.writeTextFile(`${a.cacheDir}/.datastore-index.json`, '{"version":1,"entries":{}}');
  await Deno.writeTextFile(`${a.cacheDir}/.datastore-sync-state.json`, "{}");
  await a.markDirty();
  await a.pushChanged();
  const index = JSON.parse(store.peekText(INDEX_KEY)!);
  assert.equal(Object.keys(index.entries).length, Object.keys(FILES).length);
  assert.equal(store.peekText(".datastore-sync-state.json"), undefined);
});

Deno.test("v2: a one-file push reads and writes only its own shard and the meta", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, FILES, { v2: true });
  const a = await clone(store, "a");
  await write(a, "data/aws/ec2/vpc/xyz/state/1/raw", "x");
  store.resetLog();
  await a.pushChanged();
  assert.deepEqual(store.log.map((r) => [r.op, r.key]), [
    ["put", "data/aws/ec2/vpc/xyz/state/1/raw"],
    ["get", META_KEY],
    ["get", shardKey("data--aws--ec2--vpc--xyz")],
    ["put", shardKey("data--aws--ec2--vpc--xyz")],
    ["put", META_KEY],
  ]);
});

Deno.test("v2: concurrent pushes of different models both commit; commitSeq counts both", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, FILES, { v2: true, commitSeq: 5 });
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await write(a, "data/t/m1/d/1/raw", "a's");
  await write(b, "data/t/m2/d/1/raw", "b's");
  await Promise.all([a.pushChanged(), b.pushChanged()]);
  assert.equal(await peerCommitSeq(store), 7);
  const seen = await peerReadIndex(store);
  assert.ok(seen["data/t/m1/d/1/raw"] && seen["data/t/m2/d/1/raw"]);
});

Deno.test("v1: deleting a partition's last file removes its companion shard and meta listing", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  await write(a, "data/t/m/d/1/raw", "one");
  await write(a, "logs/l.txt", "log");
  await a.pushChanged();
  assert.ok(store.peekText(shardKey("data--t--m")));
  await Deno.remove(`${a.cacheDir}/data/t/m/d/1/raw`);
  await a.markDirty({ relPath: "data/t/m/d/1/raw" });
  await a.pushChanged();
  assert.equal(store.peekText(shardKey("data--t--m")), undefined);
  assert.deepEqual(JSON.parse(store.peekText(META_KEY)!).partitions, ["logs"]);
});

Deno.test("a commit never puts back an entry a peer has since committed over its write", async () => {
  const store = new InMemoryStore();
  const retry = quick.retry;
  const P = "config/s.yaml";
  const entry = (v: string) => ({ v, h: "a".repeat(64), s: 1 });
  // A peer created the file (its late commit comes below), another resolved over it and
  // committed: the store and the index both name the resolver's version.
  const created = store.seed(P, "created");
  const resolved = store.seed(P, "resolved");
  await updateIndex(store, { set: { [P]: entry(resolved.version) }, remove: [] }, retry);
  // The creator's commit arrives late: its version is gone from the store, so it must not win.
  await updateIndex(store, {
    set: { [P]: entry(created.version) },
    remove: [],
    base: { [P]: null },
  }, retry);
  assert.equal((await readIndex(store, retry))?.entries[P].v, resolved.version);
  // A late delete conditional on the created version leaves the live entry too.
  await updateIndex(store, { set: {}, remove: [P], base: { [P]: created.version } }, retry);
  assert.equal((await readIndex(store, retry))?.entries[P].v, resolved.version);
  // A write over an uncommitted object the index never named still commits: the store holds it.
  const over = store.seed(P, "over the resolved one");
  await updateIndex(store, {
    set: { [P]: entry(over.version) },
    remove: [],
    base: { [P]: "v-uncommitted" },
  }, retry);
  assert.equal((await readIndex(store, retry))?.entries[P].v, over.version);
});

Deno.test("a landed commit reports the index it was applied to and whether all of it applied (v1 and v2)", async () => {
  for (const v2 of [false, true]) {
    const store = new InMemoryStore();
    await seedPeerBucket(store, FILES, { v2 });
    const retry = quick.retry;
    const P = "data/t/m/d/1/raw";
    const entry = (v: string) => ({ v, h: "a".repeat(64), s: 1 });
    const seen: [string | null, boolean][] = [];
    const onCommit = (base: string | null, complete: boolean) => seen.push([base, complete]);
    const before = (await readIndex(store, retry))!.version;
    const mine = store.seed(P, "mine");
    const first = await updateIndex(
      store,
      { set: { [P]: entry(mine.version) }, remove: [] },
      retry,
      undefined,
      undefined,
      4,
      Date.now,
      onCommit,
    );
    // A late commit of a write a peer has since replaced (and committed) is left out: not complete.
    const peer = store.seed(P, "peer");
    await updateIndex(store, { set: { [P]: entry(peer.version) }, remove: [] }, retry);
    const after = (await readIndex(store, retry))!.version;
    await updateIndex(
      store,
      { set: { [P]: entry(mine.version) }, remove: [], base: { [P]: null } },
      retry,
      undefined,
      undefined,
      4,
      Date.now,
      onCommit,
    );
    assert.deepEqual(seen, [[before, true], [after, false]], v2 ? "v2" : "v1");
    assert.notEqual(first, before);
  }
});

/**
 * A store where a peer bumps the v2 meta's `commitSeq` just before each of
 * this client's first `bumps` meta writes: a Sluice peer (it marks its bump
 * as Sluice's), or, with `oldClient`, a client of the layout that keeps the
 * meta's other fields as they were.
 */
class MetaRacer extends InMemoryStore {
  metaPuts = 0;
  oldClient = false;
  constructor(readonly bumps: number) {
    super();
  }
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (args[0] === META_KEY && this.metaPuts++ < this.bumps) {
      const cur = JSON.parse(new TextDecoder().decode((await this.get(META_KEY)).body));
      const seq = cur.commitSeq + 1;
      const next = this.oldClient
        ? { ...cur, commitSeq: seq }
        : { ...cur, commitSeq: seq, sluiceSeq: seq };
      await super.put(META_KEY, new TextEncoder().encode(JSON.stringify(next)), {
        kind: "overwrite",
      });
    }
    return await super.put(...args);
  }
}

Deno.test("v2: a meta write refused after the shards landed is published by the peer's later bump (two meta writes at most)", async () => {
  const retry = quick.retry;
  const entry = (v: string) => ({ v, h: "a".repeat(64), s: 1 });
  const P = "data/aws/ec2/vpc/abc/state/2/raw"; // its shard is listed already
  const store = new MetaRacer(0);
  await seedPeerBucket(store, FILES, { v2: true });
  const seq = await peerCommitSeq(store);
  (store as { bumps: number }).bumps = 2;
  store.metaPuts = 0;
  const token = await updateIndex(store, { set: { [P]: entry("v9") }, remove: [] }, retry);
  assert.equal(token, COVERED);
  assert.equal(store.metaPuts, 2, "the first write and one after reading the meta again");
  assert.equal(await peerCommitSeq(store), seq! + 2, "the peer's two bumps, none of this client's");
  assert.ok((await peerReadIndex(store))[P], "an old client sees the change");

  // Not by an old client's bump: it takes that bump for the index it read,
  // and would skip this change on it, so this client bumps once more.
  store.oldClient = true;
  store.metaPuts = 0;
  const P2 = "data/aws/ec2/vpc/abc/state/4/raw";
  const before = await peerCommitSeq(store);
  const t1 = await updateIndex(store, { set: { [P2]: entry("v10") }, remove: [] }, retry);
  assert.notEqual(t1, COVERED);
  assert.equal(store.metaPuts, 3, "a third write, after the old client's second bump");
  assert.equal(
    await peerCommitSeq(store),
    before! + 3,
    "the old client's two bumps, then this one's",
  );
  store.oldClient = false;

  // A change needing a partition the meta does not list writes the meta itself.
  const Q = "data/t/new/d/1/raw";
  store.metaPuts = 0;
  const t2 = await updateIndex(store, { set: { [Q]: entry("v1") }, remove: [] }, retry);
  assert.notEqual(t2, COVERED);
  assert.equal(store.metaPuts, 3);
  assert.ok((await peerReadIndex(store))[Q]);

  // So does one that created a shard the meta lists: a peer that emptied and
  // deleted it may be about to drop it from the meta.
  const R = "data/aws/ec2/vpc/abc/state/3/raw";
  await store.delete(shardKey("data--aws--ec2--vpc--abc"));
  store.metaPuts = 0;
  assert.notEqual(
    await updateIndex(store, { set: { [R]: entry("v3") }, remove: [] }, retry),
    COVERED,
  );
  assert.equal(store.metaPuts, 3);
});

/**
 * A store where, right before a writer's meta write for a shard it just
 * created, a peer removes that shard's only entry: the peer deletes the
 * emptied shard and drops it from the meta first.
 */
class EmptiedBeforeMeta extends InMemoryStore {
  armed = false;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (this.armed && args[0] === META_KEY) {
      this.armed = false;
      await updateIndex(this, { set: {}, remove: ["notes/a.txt"] }, quick.retry);
    }
    return await super.put(...args);
  }
}

Deno.test("v2: a meta write retried after a peer emptied a shard this commit created never lists a missing shard", async () => {
  const store = new EmptiedBeforeMeta();
  const v2 = { version: 2, partitions: [], commitSeq: 0 };
  await store.put(META_KEY, new TextEncoder().encode(JSON.stringify(v2)), { kind: "create" });
  store.armed = true;
  await updateIndex(
    store,
    { set: { "notes/a.txt": { v: "v1", h: "a".repeat(64), s: 1 } }, remove: [] },
    quick.retry,
  );
  assert.equal(store.armed, false, "the peer raced the commit");
  const meta = JSON.parse(store.peekText(META_KEY)!);
  for (const p of meta.partitions) {
    assert.ok(await store.head(shardKey(p)), `the meta lists ${p}, which is missing`);
  }
  const index = await readIndex(store, quick.retry);
  assert.equal(index?.entries["notes/a.txt"], undefined, "the peer's removal stands");
});

/**
 * A store where a listed shard is read while its writer, which emptied and
 * deleted it, has yet to drop it from the meta (it does so right after).
 */
class ShardDroppedAfterRead extends InMemoryStore {
  armed = false;
  override async get(...args: Parameters<InMemoryStore["get"]>) {
    const got = super.get(...args);
    if (this.armed && args[0] === shardKey("data--t--m")) {
      this.armed = false;
      await got.catch(() => {});
      const v2 = { version: 2, partitions: [], commitSeq: 2 };
      await super.put(META_KEY, new TextEncoder().encode(JSON.stringify(v2)), {
        kind: "overwrite",
      });
    }
    return await got;
  }
}

Deno.test("v2: a listed shard missing while its writer drops it from the meta is read again, not refused", async () => {
  const store = new ShardDroppedAfterRead();
  const v2 = { version: 2, partitions: ["data--t--m"], commitSeq: 1 };
  await store.put(META_KEY, new TextEncoder().encode(JSON.stringify(v2)), { kind: "create" });
  store.armed = true;
  const index = await readIndex(store, quick.retry);
  assert.equal(store.armed, false, "the writer raced the read");
  assert.deepEqual(index?.entries, {});
  // Listed and still missing after several reads: refused.
  const stuck = new InMemoryStore();
  await stuck.put(META_KEY, new TextEncoder().encode(JSON.stringify(v2)), { kind: "create" });
  await assert.rejects(readIndex(stuck, quick.retry), /missing/);
});

Deno.test("a commit that creates the index with no discovery given still names the objects another tool put there", async () => {
  const store = new InMemoryStore();
  store.seed("notes/readme.md", "copied in by hand");
  store.seed("notes/pending.md", "a Sluice write not committed", { [WRITER_METADATA]: "w1" });
  const put = await store.put("a.txt", new TextEncoder().encode("mine"), { kind: "create" });
  const entry = { v: put.version, h: await sha256Hex(new TextEncoder().encode("mine")), s: 4 };
  await updateIndex(store, { set: { "a.txt": entry }, remove: [] }, quick.retry);
  const entries = (await readIndex(store, quick.retry))?.entries ?? {};
  assert.deepEqual(Object.keys(entries).sort(), ["a.txt", "notes/readme.md"]);
  assert.equal(entries["notes/readme.md"].s, 17);
  // Once there is an index, a commit lists nothing.
  store.seed("notes/later.md", "copied in after the index");
  store.resetLog();
  await updateIndex(store, { set: {}, remove: ["a.txt"] }, quick.retry);
  assert.equal(store.count("list"), 0, "no listing over an existing index");
  assert.deepEqual(Object.keys((await readIndex(store, quick.retry))?.entries ?? {}), [
    "notes/readme.md",
  ]);
});

Deno.test("v2: a shard the meta lists, missing for a read or two (a writer between deleting an emptied shard and its meta), is read again; one missing for good is refused saying both causes", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, FILES, { v2: true });
  const meta = JSON.parse(store.peekText(META_KEY)!);
  const gone = meta.partitions[0];
  const body = store.peek(shardKey(gone))!;
  await store.delete(shardKey(gone));
  // Put back after two reads of the meta (the writer's next request lands).
  let metaReads = 0;
  const pacing = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      if (key !== "get") return value.bind(target);
      return async (k: string, ...rest: unknown[]) => {
        if (k === META_KEY && ++metaReads === 2) {
          await target.put(shardKey(gone), body, { kind: "create" });
        }
        return await value.call(target, k, ...rest);
      };
    },
  });
  const index = await readIndex(pacing, quick.retry);
  assert.deepEqual(Object.keys(index!.entries).sort(), Object.keys(FILES).sort());
  await store.delete(shardKey(gone));
  const err = await readIndex(store, quick.retry).catch((e) => e);
  assert.equal(err.code, "corrupt_download");
  assert.match(err.message, new RegExp(`lists the shard _index/${gone}\\.json, which is missing`));
  assert.match(err.message, /run the command again/);
  assert.match(err.message, /restore _index\/.*\.json from the bucket's versioning or a backup/);
});
