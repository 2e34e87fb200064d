/**
 * The companion shards of a v1 index: written only over the version read
 * before the meta, and brought up to date from the index object when
 * another commit wrote one meanwhile.
 */
import assert from "node:assert/strict";
import { InMemoryStore, seedPeerBucket } from "../../packages/testing/mod.ts";
import { UnreachableError } from "../errors.ts";
import { META_KEY, MONOLITH_KEY, shardKey, shardOf } from "./bucket_layout.ts";
import { readIndex, updateIndex } from "./remote_index.ts";
import { migrateToShards } from "./migrate_index.ts";

const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const entry = (v: string) => ({ v, h: "a".repeat(64), s: 1 });
const MINE = "data/aws/ec2/vpc/abc/state/3/raw";
const THEIRS = "data/aws/ec2/vpc/abc/state/4/raw";
const SHARD = shardKey(shardOf(MINE));

/**
 * Two v1 commits of one partition: the first stalls at its companion shard
 * write until the second, whose index write came after it, has read that
 * shard's version and is about to write it; then the first lands, and the
 * second's write (from the newer index) meets a changed shard.
 */
class Interleaved extends InMemoryStore {
  other?: Promise<string>;
  #writes = 0;
  #reached = () => {};
  #release = () => {};
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (args[0] === SHARD) {
      const n = ++this.#writes;
      if (n === 1) {
        const reached = new Promise<void>((r) => (this.#reached = r));
        this.other = updateIndex(this, { set: { [THEIRS]: entry("theirs") }, remove: [] }, retry);
        await reached;
        const r = await super.put(...args);
        this.#release();
        return r;
      }
      if (n === 2) {
        const gate = new Promise<void>((r) => (this.#release = r));
        this.#reached();
        await gate;
      }
    }
    return await super.put(...args);
  }
}

Deno.test("a companion shard another v1 commit wrote meanwhile is brought up to date from the index", async () => {
  const store = new Interleaved();
  await seedPeerBucket(store, { "outputs/aws/create/def-1.yaml": "out" }, { v2: false });
  await updateIndex(store, { set: { [MINE]: entry("mine") }, remove: [] }, retry);
  assert.ok(store.other, "the second commit ran");
  await store.other;
  const shard = JSON.parse(new TextDecoder().decode((await store.get(SHARD)).body));
  assert.deepEqual(Object.keys(shard.entries).sort(), [MINE, THEIRS]);
});

Deno.test("a first commit (no index object yet) writes its shards without reading them; a shard left behind is refreshed from the index", async () => {
  const store = new InMemoryStore();
  const LEFT = "data/aws/ec2/vpc/old/state/1/raw";
  const left = shardKey(shardOf(LEFT));
  // A shard left behind by hand, with an entry the index no longer has.
  await store.put(
    left,
    new TextEncoder().encode(JSON.stringify({ version: 1, entries: { [LEFT]: {} } })),
    { kind: "create" },
  );
  const other = "data/gcp/vm/web/state/1/raw";
  await updateIndex(
    store,
    { set: { [MINE]: entry("mine"), [LEFT]: entry("left"), [other]: entry("o") }, remove: [] },
    retry,
  );
  const heads = store.log.filter((l) => l.op === "head" && l.key.startsWith("_index/"));
  assert.ok(
    !heads.some((l) => l.key === SHARD || l.key === shardKey(shardOf(other))),
    `no HEAD of a shard the first commit created: ${JSON.stringify(heads)}`,
  );
  const read = async (k: string) =>
    Object.keys(JSON.parse(new TextDecoder().decode((await store.get(k)).body)).entries).sort();
  assert.deepEqual(await read(SHARD), [MINE]);
  assert.deepEqual(await read(shardKey(shardOf(other))), [other]);
  assert.deepEqual(await read(left), [LEFT], "the shard left behind is rewritten from the index");
  const shard = JSON.parse(new TextDecoder().decode((await store.get(left)).body));
  assert.equal(shard.entries[LEFT].sluice.v, "left");
});

/**
 * A first v1 commit that stops after its index write, before its companion
 * shard: meanwhile a peer's commit removes the entry (its partition's shard
 * is then absent and empty, so it has nothing to delete).
 */
class StoppedBeforeShards extends InMemoryStore {
  peer?: Promise<string>;
  #monolithWritten = false;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    const r = await super.put(...args);
    if (args[0] === MONOLITH_KEY && !this.peer) this.#monolithWritten = true;
    return r;
  }
  override async get(...args: Parameters<InMemoryStore["get"]>) {
    if (args[0] === META_KEY && this.#monolithWritten && !this.peer) {
      this.peer = updateIndex(this, { set: {}, remove: [MINE] }, retry);
      await this.peer;
    }
    return await super.get(...args);
  }
}

Deno.test("a companion shard a stopped first commit creates after a peer emptied its partition is brought up to date", async () => {
  const store = new StoppedBeforeShards();
  await updateIndex(store, { set: { [MINE]: entry("mine") }, remove: [] }, retry);
  assert.ok(store.peer, "the peer's commit ran in between");
  await store.peer;
  const monolith = JSON.parse(new TextDecoder().decode((await store.get(MONOLITH_KEY)).body));
  assert.deepEqual(Object.keys(monolith.entries), [], "the peer's removal is in the index object");
  const shard = store.peek(SHARD);
  const named = shard ? Object.keys(JSON.parse(new TextDecoder().decode(shard)).entries) : [];
  assert.deepEqual(named, [], "no shard names the removed entry");
});

/**
 * The first index write lands but its answer is lost; before the commit
 * goes round again, `meanwhile` runs: by default a peer that read the landed
 * index deletes the file and its entry.
 */
class LostAnswer extends InMemoryStore {
  #lost = false;
  constructor(
    readonly meanwhile = async (store: InMemoryStore, landed: string) => {
      await store.delete(MINE);
      await store.put(
        MONOLITH_KEY,
        new TextEncoder().encode(JSON.stringify({ version: 1, entries: {} })),
        { kind: "update", version: landed },
      );
    },
  ) {
    super();
  }
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    const r = await super.put(...args);
    if (args[0] === MONOLITH_KEY && !this.#lost) {
      this.#lost = true;
      await this.meanwhile(this, r.version);
      throw new UnreachableError("memory://lost: the answer was lost");
    }
    return r;
  }
}

Deno.test("a commit whose landed index write lost its answer never puts back an entry a peer removed since", async () => {
  const store = new LostAnswer();
  await store.put(MINE, new TextEncoder().encode("x"), { kind: "create" });
  const once = { retries: 1, minTimeoutMs: 0, maxTimeoutMs: 0 };
  await updateIndex(
    store,
    { set: { [MINE]: entry("mine") }, remove: [], base: { [MINE]: null } },
    once,
  );
  const monolith = JSON.parse(new TextDecoder().decode((await store.get(MONOLITH_KEY)).body));
  assert.deepEqual(Object.keys(monolith.entries), [], "the peer's removal stands");
});

Deno.test("a commit whose landed index write lost its answer, its bucket moved to v2 since, never puts back an entry a peer removed", async () => {
  // Meanwhile the bucket moves to v2, and a v2 commit of the peer removes
  // the entry (and the file): the commit's next round goes to the v2 index.
  const store = new LostAnswer(async (peer) => {
    const quick = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
    await migrateToShards(peer, { retry: quick });
    await updateIndex(peer, { set: {}, remove: [MINE] }, quick);
    await peer.delete(MINE);
  });
  const mine = await store.put(MINE, new TextEncoder().encode("x"), { kind: "create" });
  const once = { retries: 1, minTimeoutMs: 0, maxTimeoutMs: 0 };
  await updateIndex(
    store,
    { set: { [MINE]: entry(mine.version) }, remove: [], base: { [MINE]: null } },
    once,
  );
  const index = await readIndex(store, once);
  assert.ok(index?.version.startsWith("v2:"), "the bucket is on v2");
  assert.equal(index!.entries[MINE], undefined, "the peer's removal stands");
});
