/**
 * The companion shards of a v1 index: written only over the version read
 * before the meta, and brought up to date from the index object when
 * another commit wrote one meanwhile.
 */
import assert from "node:assert/strict";
import { InMemoryStore, seedPeerBucket } from "../../packages/testing/mod.ts";
import { shardKey, shardOf } from "./bucket_layout.ts";
import { updateIndex } from "./remote_index.ts";

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
