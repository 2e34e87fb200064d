/**
 * The move to v2: complete for old and new readers, never repeated over a
 * v2 bucket, and no v1 commit lost when one lands during the move.
 */
import assert from "node:assert/strict";
import {
  InMemoryStore,
  peerCommitSeq,
  peerReadIndex,
  seedPeerBucket,
} from "../../packages/testing/mod.ts";
import {
  META_KEY,
  metaBody,
  MONOLITH_KEY,
  monolithBody,
  shardKey,
  shardOf,
} from "./bucket_layout.ts";
import { migrateToShards } from "./migrate_index.ts";
import { UnreachableError } from "../errors.ts";
import { PutModes } from "../ports.ts";
import { readIndex, updateIndex } from "./remote_index.ts";
import { WRITER_METADATA } from "./writer_id.ts";

const retry = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };
const FILES = {
  "data/aws/ec2/vpc/abc/state/1/raw": "vpc one",
  "data/aws/ec2/vpc/abc/state/latest": "1",
  "outputs/aws/create/def-1.yaml": "out",
  "config/upstream_extensions.json": "{}",
};
const entry = (v: string) => ({ v, h: "a".repeat(64), s: 1 });

Deno.test("a v1 bucket moves to v2: an old client's reader and Sluice see every entry; a second run changes nothing", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, FILES, { v2: false });
  const r = await migrateToShards(store, { retry });
  assert.equal(r.migrated, true);
  assert.equal(r.commitSeq, 1);
  assert.equal(r.entries, 4);
  assert.deepEqual(r.partitions, [...r.partitions].sort());
  assert.deepEqual(Object.keys(await peerReadIndex(store)).sort(), Object.keys(FILES).sort());
  const index = await readIndex(store, retry);
  assert.ok(index?.version.startsWith("v2:"));
  assert.deepEqual(Object.keys(index!.entries).sort(), Object.keys(FILES).sort());

  await updateIndex(store, { set: { "data/t/m/d/1/raw": entry("x") }, remove: [] }, retry);
  assert.equal(await peerCommitSeq(store), 2);
  const again = await migrateToShards(store, { retry });
  assert.equal(again.migrated, false);
  assert.equal(again.commitSeq, 2, "commitSeq is never reset");
  assert.ok((await peerReadIndex(store))["data/t/m/d/1/raw"]);
});

/**
 * A store where a v1 commit (with its companion shard) lands after the move
 * read the v1 index and before it writes that shard, which the move then
 * writes from its older read.
 */
class RacingV1Writer extends InMemoryStore {
  armed = false;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (this.armed && args[0] === shardKey("data--aws--ec2--vpc--abc")) {
      this.armed = false;
      // As a commit does: the object first, then its index entry.
      const late = await super.put(LATE, new TextEncoder().encode("late"), { kind: "create" });
      await updateIndex(this, { set: { [LATE]: entry(late.version) }, remove: [] }, retry);
    }
    return await super.put(...args);
  }
}
const LATE = "data/aws/ec2/vpc/abc/state/2/raw";

Deno.test("a v1 commit landing during the move is applied to the shards", async () => {
  const store = new RacingV1Writer();
  await seedPeerBucket(store, FILES, { v2: false });
  // A v1 commit of Sluice's writes the v1 meta, which the racing one then leaves unchanged.
  await updateIndex(
    store,
    { set: { "data/aws/ec2/vpc/abc/state/3/raw": entry("x") }, remove: [] },
    retry,
  );
  store.armed = true;
  await migrateToShards(store, { retry });
  assert.equal(store.armed, false, "the commit raced the move");
  assert.ok((await peerReadIndex(store))[LATE], "the late commit is in v2");
});

Deno.test("a bucket without a v1 index gets a meta listing the shards it holds", async () => {
  const store = new InMemoryStore();
  await store.put(shardKey("data--t--m"), new TextEncoder().encode('{"version":1,"entries":{}}'), {
    kind: "overwrite",
  });
  const r = await migrateToShards(store, { retry });
  assert.deepEqual(r.partitions, ["data--t--m"]);
  assert.equal(r.commitSeq, 1);
});

/** True for a put of a v2 meta. */
function isV2Meta([key, body]: Parameters<InMemoryStore["put"]>): boolean {
  return key === META_KEY && body instanceof Uint8Array &&
    new TextDecoder().decode(body).includes('"version":2');
}

/**
 * A store where a v1 commit creates the index object (and nothing else)
 * after the move found none, just before the move writes its v2 meta: its
 * entry as Sluice writes it, or (`oldClient`) as old clients write theirs,
 * with no object version and a SHA-256.
 */
class FirstV1Commit extends InMemoryStore {
  armed = true;
  constructor(readonly oldClient = false) {
    super();
  }
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (this.armed && isV2Meta(args)) {
      this.armed = false;
      const late = await super.put(LATE, new TextEncoder().encode("first"), { kind: "create" });
      const at = new Date(0).toISOString();
      const body = this.oldClient
        ? new TextEncoder().encode(JSON.stringify({
          version: 1,
          lastUpdated: at,
          entries: {
            [LATE]: { key: LATE, size: late.size, lastModified: at, sha256: "b".repeat(64) },
          },
        }))
        : monolithBody({ [LATE]: entry(late.version) }, at);
      await super.put(MONOLITH_KEY, body, { kind: "create" });
    }
    return await super.put(...args);
  }
}

Deno.test("a v1 commit that creates the index object during the move of an index-less bucket is in v2", async () => {
  const store = new FirstV1Commit();
  const r = await migrateToShards(store, { retry });
  assert.equal(store.armed, false, "the commit raced the move");
  assert.equal(r.migrated, true);
  assert.ok((await peerReadIndex(store))[LATE], "the first commit is in v2");
  assert.ok((await readIndex(store, retry))?.entries[LATE]);
});

Deno.test("a move of a bucket with no index names the objects another tool put there", async () => {
  const store = new InMemoryStore();
  store.seed("data/t/m/out/1/raw", "another tool's output");
  store.seed("notes/readme.md", "a copy by hand");
  let told = 0;
  const r = await migrateToShards(store, {
    retry,
    discovery: {
      find: (own) => {
        assert.equal(own.size, 0);
        return Promise.resolve({
          "data/t/m/out/1/raw": { v: "~21@x", h: "", s: 21 },
          "notes/readme.md": { v: "~14@x", h: "", s: 14 },
        });
      },
      landed: (n) => void (told = n),
    },
  });
  assert.equal(r.migrated, true);
  assert.equal(r.entries, 2);
  assert.equal(told, 2, "told how many it named");
  const entries = (await readIndex(store, retry))?.entries ?? {};
  assert.deepEqual(Object.keys(entries).sort(), ["data/t/m/out/1/raw", "notes/readme.md"]);
  assert.ok((await peerReadIndex(store))["notes/readme.md"], "old clients' readers see it too");
});

/** A store whose next put of `fail` fails as unreachable. */
class FailsOnePut extends InMemoryStore {
  fail: string | null = null;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (args[0] === this.fail) {
      this.fail = null;
      throw new UnreachableError("the connection dropped");
    }
    return await super.put(...args);
  }
}

/**
 * A bucket holding two objects of another tool and no index, whose move to
 * v2 was cut off after the shard of one of them (the other's failed).
 */
async function cutOffMove(): Promise<FailsOnePut> {
  const store = new FailsOnePut();
  store.seed("notes/readme.md", "a copy by hand");
  store.seed("data/t/m/out/1/raw", "another tool's output");
  store.fail = shardKey(shardOf("notes/readme.md"));
  await assert.rejects(migrateToShards(store, { retry, concurrency: 1 }), UnreachableError);
  assert.ok(store.peek(shardKey(shardOf("data/t/m/out/1/raw"))), "one shard was left");
  return store;
}

Deno.test("a move of a bucket with no index, cut off after some of its shards, names everything when run again", async () => {
  const store = await cutOffMove();
  const r = await migrateToShards(store, { retry, concurrency: 1 });
  assert.equal(r.migrated, true);
  const entries = (await readIndex(store, retry))?.entries ?? {};
  assert.deepEqual(Object.keys(entries).sort(), ["data/t/m/out/1/raw", "notes/readme.md"]);
});

Deno.test("a move run again after another tool rewrote an object the cut-off move had named names it as it is now", async () => {
  const store = await cutOffMove();
  store.seed("data/t/m/out/1/raw", "another tool's output, rewritten longer");
  await migrateToShards(store, { retry, concurrency: 1 });
  const entries = (await readIndex(store, retry))?.entries ?? {};
  assert.equal(entries["data/t/m/out/1/raw"].s, "another tool's output, rewritten longer".length);
});

Deno.test("a shard no reader can read, in a bucket with no index object, fails the move at once", async () => {
  const store = new InMemoryStore();
  store.seed("notes/readme.md", "a copy by hand");
  store.seed(shardKey("data--t--m"), '{"version":9,"entries":{}}');
  const err = await migrateToShards(store, { retry }).catch((e) => e);
  assert.notEqual(err?.code, "push_failed", String(err));
  assert.match(String(err?.message), /_index\/data--t--m\.json/);
  assert.ok(store.count("put") <= 1, `${store.count("put")} puts: no round after round of marks`);
});

Deno.test("without a discovery given, the move lists the bucket itself", async () => {
  const store = new InMemoryStore();
  store.seed("notes/readme.md", "a copy by hand");
  store.seed("notes/ours.md", "a Sluice write not committed", { [WRITER_METADATA]: "w1" });
  const r = await migrateToShards(store, { retry });
  assert.equal(r.entries, 1);
  const entries = (await readIndex(store, retry))?.entries ?? {};
  assert.deepEqual(
    Object.keys(entries),
    ["notes/readme.md"],
    "a Sluice write waits for its commit",
  );
});

Deno.test("a v1 commit that creates the index object during the move of a bucket the move found objects in: both are in v2", async () => {
  const store = new FirstV1Commit();
  store.seed("notes/readme.md", "a copy by hand");
  const r = await migrateToShards(store, { retry });
  assert.equal(store.armed, false, "the commit raced the move");
  assert.equal(r.migrated, true);
  const entries = (await readIndex(store, retry))?.entries ?? {};
  assert.ok(entries[LATE], "the old client's commit is in v2");
  assert.ok(entries["notes/readme.md"], "the object the move found stays named");
});

for (const found of [false, true]) {
  Deno.test(`an old client's first commit during the move of a bucket with no index is in v2${found ? ", beside what the move found" : ""}`, async () => {
    const store = new FirstV1Commit(true);
    if (found) store.seed("notes/readme.md", "a copy by hand");
    await migrateToShards(store, { retry });
    assert.equal(store.armed, false, "the commit raced the move");
    const entries = (await readIndex(store, retry))?.entries ?? {};
    assert.ok(entries[LATE], "the old client's commit is carried into v2");
    assert.equal(entries[LATE].h, "b".repeat(64));
    if (found) assert.ok(entries["notes/readme.md"]);
    assert.ok((await peerReadIndex(store))[LATE], "old clients' readers see it too");
  });
}

/**
 * A store where the move to v2 of a bucket without an index lands between a
 * v1 commit's read of the meta (none yet) and its write of the v1 meta.
 */
class MoveBeforeCompanionMeta extends InMemoryStore {
  armed = true;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (this.armed && args[0] === META_KEY) {
      this.armed = false;
      const v2 = { version: 2 as const, partitions: [], commitSeq: 1, raw: {} };
      await super.put(META_KEY, metaBody(v2), { kind: "create" });
    }
    return await super.put(...args);
  }
}

Deno.test("a v1 commit whose meta write a move to v2 refused applies itself to the v2 index", async () => {
  const store = new MoveBeforeCompanionMeta();
  await updateIndex(store, { set: { [LATE]: entry("mine") }, remove: [] }, retry);
  assert.equal(store.armed, false, "the move raced the commit");
  const index = await readIndex(store, retry);
  assert.ok(index?.version.startsWith("v2:"));
  assert.equal(index!.entries[LATE]?.v, "mine");
  assert.ok((await peerReadIndex(store))[LATE]);
});

/**
 * A store where an old client's v1 commit of LATE lands after the move read
 * the index object, and, once the move's meta is written, a v2 writer deletes
 * LATE (object and entry) before the move's catch-up runs.
 */
class DeletedBeforeCatchUp extends InMemoryStore {
  armed = true;
  /** With `outside`, LATE's object is deleted outside Sluice (no index update) instead. */
  constructor(readonly outside = false) {
    super();
  }
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (!this.armed || !isV2Meta(args)) return await super.put(...args);
    this.armed = false;
    const late = await super.put(LATE, new TextEncoder().encode("late"), { kind: "create" });
    const entries = (await readIndex(this, retry))?.entries ?? {};
    entries[LATE] = entry(late.version);
    if (this.outside) {
      // A second racing write, whose object stays.
      const other = await super.put(OTHER, new TextEncoder().encode("other"), { kind: "create" });
      entries[OTHER] = entry(other.version);
    }
    await super.put(MONOLITH_KEY, monolithBody(entries, new Date(0).toISOString()), {
      kind: "overwrite",
    });
    const meta = await super.put(...args);
    await super.delete(LATE);
    if (!this.outside) await updateIndex(this, { set: {}, remove: [LATE] }, retry);
    return meta;
  }
}

Deno.test("the move's catch-up never puts back an entry a later v2 commit removed", async () => {
  const store = new DeletedBeforeCatchUp();
  await seedPeerBucket(store, FILES, { v2: false });
  await migrateToShards(store, { retry });
  assert.equal(store.armed, false, "the commits raced the move");
  const index = await readIndex(store, retry);
  assert.ok(index?.version.startsWith("v2:"));
  assert.equal(index!.entries[LATE], undefined, "the deleted object is not named");
  assert.ok(index!.entries["outputs/aws/create/def-1.yaml"], "the rest is there");
});

const OTHER = "data/aws/ec2/vpc/abc/state/5/raw";

Deno.test("racing v1 commits carried into v2 by the move's catch-up: one whose object another tool deleted is told to the caller, and not named", async () => {
  for (const fails of [false, true]) {
    const store = new DeletedBeforeCatchUp(true);
    await seedPeerBucket(store, FILES, { v2: false });
    const told: string[] = [];
    const moved = migrateToShards(store, {
      retry,
      onUnnamed: (lost) => {
        told.push(...lost.map(([p]) => p));
        return fails
          ? Promise.reject(new Error("the record could not be written"))
          : Promise.resolve();
      },
    });
    if (fails) await assert.rejects(moved, /could not be written/);
    else await moved;
    assert.equal(store.armed, false, "the commits and the deletion raced the move");
    assert.deepEqual(told, [LATE], "its writer took it for published: recorded as lost");
    const index = await readIndex(store, retry);
    assert.equal(index!.entries[LATE], undefined, "a gone object is not named");
    assert.ok(index!.entries[OTHER], `the other racing write is in v2 (telling failed: ${fails})`);
  }
});

/**
 * A store where a v1 commit of LATE (its object, then the index object)
 * lands after the move read the index object, its writer gone before its
 * answer, and LATE's object is deleted right after the catch-up checked
 * that the store holds it, before the catch-up's shard write: its writer,
 * back, read the v2 index (which names nothing there until the catch-up
 * lands) and deleted its upload as its own, unnamed (a file made a
 * directory of its name since).
 */
class DeletedInCatchUp extends InMemoryStore {
  armed = true;
  #checked = false;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (!this.armed || !isV2Meta(args)) return await super.put(...args);
    this.armed = false;
    const late = await super.put(LATE, new TextEncoder().encode("late"), { kind: "create" });
    const entries = (await readIndex(this, retry))?.entries ?? {};
    entries[LATE] = entry(late.version);
    await super.put(MONOLITH_KEY, monolithBody(entries, new Date(0).toISOString()), {
      kind: "overwrite",
    });
    this.#checked = true;
    return await super.put(...args);
  }
  override async head(...args: Parameters<InMemoryStore["head"]>) {
    const held = await super.head(...args);
    if (this.#checked && args[0] === LATE && held) {
      this.#checked = false;
      await super.delete(LATE);
    }
    return held;
  }
}

Deno.test("the move's catch-up never leaves an entry naming a racing v1 commit's object deleted after its check", async () => {
  const store = new DeletedInCatchUp();
  await seedPeerBucket(store, FILES, { v2: false });
  const told: string[] = [];
  await migrateToShards(store, {
    retry,
    onUnnamed: (lost) => {
      told.push(...lost.map(([p]) => p));
      return Promise.resolve();
    },
  });
  assert.equal(store.armed, false, "the commit raced the move");
  assert.equal(await store.head(LATE), null, "deleted after the catch-up's check");
  const index = await readIndex(store, retry);
  assert.ok(index?.version.startsWith("v2:"));
  assert.equal(index!.entries[LATE], undefined, "the deleted object is not named");
  assert.deepEqual(told, [LATE], "its writer may have taken it for published: recorded as lost");
  assert.ok(index!.entries["outputs/aws/create/def-1.yaml"], "the rest is there");
});

/**
 * Seeds a v1 bucket in `store`, uploads MINE, arms the store and commits
 * MINE (create-only); returns what the commit told its caller.
 */
async function commitMine(
  store: InMemoryStore & { armed: boolean },
  checkCreates: boolean,
): Promise<{ complete: boolean; foreign: [string, unknown][] } | undefined> {
  await seedPeerBucket(store, FILES, { v2: false });
  const mine = (await store.put(MINE, new TextEncoder().encode("x"), PutModes.create)).version;
  store.armed = true;
  let told: { complete: boolean; foreign: [string, unknown][] } | undefined;
  await updateIndex(
    store,
    { set: { [MINE]: entry(mine) }, remove: [], base: { [MINE]: null }, checkCreates },
    retry,
    undefined,
    undefined,
    4,
    Date.now,
    (_base, complete, foreign) => void (told = { complete, foreign: [...foreign] }),
  );
  return told;
}

/**
 * A v1 commit of MINE stalled before its companion shard while the move ran
 * and another tool deleted MINE's object: the v2 index cannot name it, and
 * its writer is told so (`foreign`, deleted), not that it was published.
 */
Deno.test("a v1 commit carried into v2 whose object another tool deleted is not taken as published", async () => {
  const store = new StalledThen((s) => s.delete(MINE));
  const told = await commitMine(store, false);
  assert.equal(store.armed, false, "the move and the deletion raced the companion write");
  assert.deepEqual(told, { complete: false, foreign: [[MINE, null]] });
});

/**
 * A store where the whole move runs between a v1 commit's read of the index
 * object and its write, and another tool deletes MINE's object just after
 * that write: the write is refused (the move wrote the index object again),
 * and the commit, read again, is a v2 commit.
 */
class MoveThenDelete extends InMemoryStore {
  armed = false;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (!this.armed || args[0] !== MONOLITH_KEY) return await super.put(...args);
    this.armed = false;
    await migrateToShards(this, { retry });
    try {
      // Refused: the move wrote the index object again (see below).
      return await super.put(...args);
    } finally {
      await this.delete(MINE);
    }
  }
}

for (const checkCreates of [false, true]) {
  Deno.test(`a write carried into v2 by its own commit, its object deleted by another tool, is not taken as published${checkCreates ? " (beside old clients)" : ""}`, async () => {
    const store = new MoveThenDelete();
    const told = await commitMine(store, checkCreates);
    assert.equal(store.armed, false, "the move ran inside the commit");
    assert.deepEqual(told, { complete: false, foreign: [[MINE, null]] });
    assert.equal((await readIndex(store, retry))?.entries[MINE], undefined);
  });
}

/**
 * A store where a v1 commit of Sluice's (one that leaves the shard list, so
 * the v1 meta's body, as it was) lands right after the move read the index
 * object, and the move then stops for good once its v2 meta is written,
 * before its catch-up: a crash.
 */
class CrashBeforeCatchUp extends InMemoryStore {
  armed = false;
  crashed = false;
  #v2Written = false;
  override async get(...args: Parameters<InMemoryStore["get"]>) {
    if (args[0] === MONOLITH_KEY && this.#v2Written) {
      this.crashed = true;
      throw new Error("the process stopped");
    }
    const got = await super.get(...args);
    if (this.armed && args[0] === MONOLITH_KEY) {
      this.armed = false;
      await updateIndex(this, { set: { [LATE]: entry("racing") }, remove: [] }, retry);
    }
    return got;
  }
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    const r = await super.put(...args);
    if (isV2Meta(args)) this.#v2Written = true;
    return r;
  }
}

Deno.test("a v1 commit that leaves the meta as it was is in v2 even when the move stops before its catch-up", async () => {
  const store = new CrashBeforeCatchUp();
  await seedPeerBucket(store, FILES, { v2: false });
  // Sluice's own v1 commit first, so that the meta already lists every shard.
  await updateIndex(
    store,
    { set: { "data/aws/ec2/vpc/abc/state/3/raw": entry("x") }, remove: [] },
    retry,
  );
  store.armed = true;
  await migrateToShards(store, { retry }).catch(() => {});
  assert.equal(store.armed, false, "the commit raced the move");
  assert.ok(store.crashed, "the move stopped before its catch-up");
  const index = await readIndex(store, retry);
  assert.ok(index?.version.startsWith("v2:"), "the bucket is on v2");
  assert.equal(index!.entries[LATE]?.v, "racing", "the racing commit is in v2");
  assert.ok((await peerReadIndex(store))[LATE]);
});

const CONFIG = "config/upstream_extensions.json";

/**
 * A store where, once the move wrote the shard of unpartitioned files, a
 * Sluice v1 commit removes the only such file: the move starts over from an
 * index without it.
 */
class RemovedAfterShardWrite extends InMemoryStore {
  armed = false;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    const r = await super.put(...args);
    if (this.armed && args[0] === shardKey("_unpartitioned")) {
      this.armed = false;
      await updateIndex(this, { set: {}, remove: [CONFIG] }, retry);
    }
    return r;
  }
}

Deno.test("a shard an earlier attempt of the move wrote is not left behind when the index no longer has its partition", async () => {
  const store = new RemovedAfterShardWrite();
  await seedPeerBucket(store, FILES, { v2: false });
  store.armed = true;
  await migrateToShards(store, { retry });
  assert.equal(store.armed, false, "the commit raced the move");
  const index = await readIndex(store, retry);
  assert.ok(index?.version.startsWith("v2:"));
  assert.equal(index!.entries[CONFIG], undefined, "the removed file is not named");
  assert.equal(await store.head(shardKey("_unpartitioned")), null, "the stale shard is gone");
});

/**
 * A store where a move to v2 has marked the v1 meta and read an index
 * without LATE; when a v1 commit of LATE writes its first companion shard,
 * the move's v2 meta lands (on the marked version), and that shard write
 * fails (an outage).
 */
class MoveLandsDuringCompanions extends InMemoryStore {
  armed = false;
  markVersion = "";
  moved = false;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    const [key] = args;
    if (this.armed && key.startsWith("_index/") && key !== META_KEY) {
      this.armed = false;
      const v2 = { version: 2 as const, partitions: [], commitSeq: 1, raw: {} };
      try {
        await super.put(META_KEY, metaBody(v2), { kind: "update", version: this.markVersion });
        this.moved = true;
      } catch { /* refused: the commit rewrote the meta first */ }
      throw new UnreachableError("cut off");
    }
    return await super.put(...args);
  }
}

Deno.test("a v1 commit that finds the move's mark is never left out of v2, even when its companion shards fail", async () => {
  const store = new MoveLandsDuringCompanions();
  const mark = { version: 1 as const, partitions: [], movingToV2: "a-move" };
  store.markVersion = (await store.put(META_KEY, metaBody(mark), { kind: "create" })).version;
  store.armed = true;
  const committed = await updateIndex(store, { set: { [LATE]: entry("x") }, remove: [] }, retry)
    .then(() => true, () => false);
  assert.equal(store.armed, false, "the move raced the commit");
  const index = await readIndex(store, retry);
  assert.ok(
    !committed || index?.entries[LATE],
    `the commit reported success, the move ${
      store.moved ? "landed" : "was refused"
    }, and the index (${index?.version}) lacks it`,
  );
});

const MINE = "data/aws/ec2/vpc/abc/state/3/raw";
const THEIRS = "data/aws/ec2/vpc/abc/state/4/raw";

/**
 * A store where a v1 commit stalls before its companion shard while the
 * move to v2 runs and `then` (a v2 client's commit of the same path) lands.
 */
class StalledThen extends InMemoryStore {
  armed = false;
  constructor(readonly then: (store: InMemoryStore) => Promise<void>) {
    super();
  }
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (this.armed && args[0] === shardKey(shardOf(MINE))) {
      this.armed = false;
      await migrateToShards(this, { retry });
      await this.then(this);
    }
    return await super.put(...args);
  }
}

Deno.test("a v1 commit stalled before its companion shard never writes over a v2 commit made meanwhile", async () => {
  // Meanwhile the whole move to v2 runs, and a v2 commit adds an entry to that shard.
  const store = new StalledThen(async (s) => {
    await updateIndex(s, { set: { [THEIRS]: entry("theirs") }, remove: [] }, retry);
  });
  await seedPeerBucket(store, FILES, { v2: false });
  store.armed = true;
  await updateIndex(store, { set: { [MINE]: entry("mine") }, remove: [] }, retry);
  assert.equal(store.armed, false, "the move and the v2 commit raced the companion write");
  const index = await readIndex(store, retry);
  assert.ok(index?.version.startsWith("v2:"), "the bucket is on v2");
  assert.equal(index!.entries[THEIRS]?.v, "theirs", "the v2 commit made meanwhile is kept");
  assert.equal(index!.entries[MINE]?.v, "mine", "the stalled commit is in v2 too");
});

const ALONE = "data/aws/s3/bucket/xyz/state/1/raw";
const BESIDE = "data/aws/s3/bucket/xyz/state/2/raw";

/**
 * A store where a v1 commit that removes a partition's last entry stalls
 * just before it deletes that partition's shard: meanwhile the move to v2
 * runs and a v2 commit adds another entry to the partition.
 */
class StalledShardDelete extends InMemoryStore {
  armed = false;
  override async delete(...args: Parameters<InMemoryStore["delete"]>) {
    if (this.armed && args[0] === shardKey(shardOf(ALONE))) {
      this.armed = false;
      await migrateToShards(this, { retry });
      await updateIndex(this, { set: { [BESIDE]: entry("theirs") }, remove: [] }, retry);
    }
    return await super.delete(...args);
  }
}

Deno.test("a v1 commit stalled before deleting an emptied shard never deletes a v2 commit's entries", async () => {
  const store = new StalledShardDelete();
  await seedPeerBucket(store, FILES, { v2: false });
  // A v1 commit of Sluice's writes the partition's companion shard.
  await updateIndex(store, { set: { [ALONE]: entry("alone") }, remove: [] }, retry);
  store.armed = true;
  await updateIndex(store, { set: {}, remove: [ALONE] }, retry);
  assert.equal(store.armed, false, "the move and the v2 commit raced the shard delete");
  const index = await readIndex(store, retry);
  assert.ok(index?.version.startsWith("v2:"), "the bucket is on v2");
  assert.equal(index!.entries[BESIDE]?.v, "theirs", "the v2 commit made meanwhile is kept");
  assert.equal(index!.entries[ALONE], undefined, "the stalled removal is in v2 too");
});

Deno.test("a stalled v1 commit carried into v2 never names an object a v2 commit deleted meanwhile", async () => {
  for (const withMeta of [true, false]) {
    let mine = "";
    const store = new StalledThen(async (s) => {
      // A v2 client deletes MINE (object and entry).
      await s.delete(MINE, { ifVersion: mine });
      await updateIndex(s, { set: {}, remove: [MINE], base: { [MINE]: mine } }, retry);
    });
    await seedPeerBucket(store, FILES, { v2: false });
    // With a v1 meta written by an earlier Sluice commit, or none (an old client's bucket).
    if (withMeta) await updateIndex(store, { set: { [BESIDE]: entry("b") }, remove: [] }, retry);
    mine = (await store.put(MINE, new TextEncoder().encode("x"), PutModes.create)).version;
    store.armed = true;
    await updateIndex(
      store,
      { set: { [MINE]: entry(mine) }, remove: [], base: { [MINE]: null } },
      retry,
    );
    assert.equal(store.armed, false, "the move and the deletion raced the companion write");
    const index = await readIndex(store, retry);
    assert.ok(index?.version.startsWith("v2:"));
    assert.equal(
      index!.entries[MINE],
      undefined,
      `the index names a deleted object (meta: ${withMeta})`,
    );
  }
});

Deno.test("a stalled v1 removal carried into v2 never removes what a v2 commit created again meanwhile", async () => {
  let created = "";
  const store = new StalledThen(async (s) => {
    created = (await s.put(MINE, new TextEncoder().encode("new"), PutModes.create)).version;
    await updateIndex(
      s,
      { set: { [MINE]: entry(created) }, remove: [], base: { [MINE]: null } },
      retry,
    );
  });
  await seedPeerBucket(store, FILES, { v2: false });
  await updateIndex(store, { set: { [MINE]: entry("old") }, remove: [] }, retry);
  store.armed = true;
  // The object was gone already: a removal with no base, beside another write of the partition.
  await updateIndex(store, { set: { [BESIDE]: entry("b") }, remove: [MINE] }, retry);
  assert.equal(store.armed, false, "the move and the new object raced the companion write");
  const index = await readIndex(store, retry);
  assert.equal(index!.entries[MINE]?.v, created, "the v2 commit's entry is kept");
});

const NEW_MODEL = "data/t/m/d/1/raw";
const OUTPUT = "outputs/aws/create/def-1.yaml";

/**
 * A store where a move stops (its lock taken over) right before its first
 * shard write of `at`: meanwhile a second move runs to its end, and v2
 * commits add an entry to a shard of the move, add a partition and empty
 * another. Then the stopped move goes on. `before` runs first (a v1 commit).
 */
class StoppedMover extends InMemoryStore {
  armed = false;
  at = "";
  before: () => Promise<void> = async () => {};
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    if (this.armed && args[0] === this.at) {
      this.armed = false;
      await this.before();
      assert.equal((await migrateToShards(this, { retry })).migrated, true);
      await updateIndex(
        this,
        { set: { [LATE]: entry("v2-commit"), [NEW_MODEL]: entry("v2-new") }, remove: [OUTPUT] },
        retry,
      );
    }
    return await super.put(...args);
  }
}

Deno.test("a move that stops and goes on after another move never writes over that move or the v2 commits after it", async () => {
  const store = new StoppedMover();
  await seedPeerBucket(store, FILES, { v2: false });
  store.at = shardKey(shardOf(LATE));
  store.armed = true;
  const stale = await migrateToShards(store, { retry, concurrency: 1 });
  assert.equal(store.armed, false, "the second move ran while the first was stopped");
  assert.equal(stale.migrated, false, "the stopped move found the bucket moved");
  const peer = await peerReadIndex(store); // throws on a listed shard that is missing
  const index = await readIndex(store, retry);
  assert.deepEqual(Object.keys(index!.entries).sort(), Object.keys(peer).sort());
  assert.equal(index!.entries[LATE]?.v, "v2-commit", "the v2 commit on a moved shard is kept");
  assert.equal(index!.entries[NEW_MODEL]?.v, "v2-new", "the v2 commit's new partition is kept");
  assert.equal(index!.entries[OUTPUT], undefined, "the emptied partition stays empty");
  assert.equal(await peerCommitSeq(store), 2, "commitSeq is never reset");
});

Deno.test("a shard a stopped move creates under the meta of the move that replaced it is deleted again", async () => {
  const store = new StoppedMover();
  await seedPeerBucket(store, FILES, { v2: false });
  // The stopped move read CONFIG; a v1 commit removes it before the second
  // move reads the index, so only the stopped move has its partition.
  store.before = async () => {
    await updateIndex(store, { set: {}, remove: [CONFIG] }, retry);
  };
  store.at = shardKey(shardOf(CONFIG));
  store.armed = true;
  await migrateToShards(store, { retry, concurrency: 1 });
  assert.equal(store.armed, false, "the second move ran while the first was stopped");
  assert.equal(
    await store.head(shardKey(shardOf(CONFIG))),
    null,
    "no shard names the removed file",
  );
  await updateIndex(store, { set: { [CONFIG + ".2"]: entry("later") }, remove: [] }, retry);
  const peer = await peerReadIndex(store);
  assert.equal(
    peer[CONFIG],
    undefined,
    "a later v2 commit of that partition does not bring it back",
  );
  assert.ok(peer[LATE], "the v2 commit is kept");
});

/** A store where the move's v2 meta write lands and its answer is lost (the retry is then refused). */
class LostMetaAnswer extends InMemoryStore {
  lost = 0;
  override async put(...args: Parameters<InMemoryStore["put"]>) {
    const r = await super.put(...args);
    if (isV2Meta(args) && this.lost === 0) {
      this.lost++;
      throw new UnreachableError("the answer was lost");
    }
    return r;
  }
}

Deno.test("a move whose v2 meta landed with its answer lost keeps the shards it lists and catches up", async () => {
  const store = new LostMetaAnswer();
  await seedPeerBucket(store, FILES, { v2: false });
  const r = await migrateToShards(store, { retry: { ...retry, retries: 1 } });
  assert.equal(store.lost, 1, "the answer was lost once");
  assert.equal(r.migrated, true, "the landed move is reported as a move");
  const peer = await peerReadIndex(store); // throws on a listed shard that is missing
  assert.deepEqual(Object.keys(peer).sort(), Object.keys(FILES).sort());
});

Deno.test("a move whose global lock was lost stops (global_lock_lost): before an attempt, or before its v2 meta, which it never writes", async () => {
  for (const lostAfter of [0, 1]) {
    const store = new InMemoryStore();
    await updateIndex(store, { set: { "notes/a.md": entry("a") }, remove: [] }, retry);
    let asked = 0;
    // Lost at once, or once the move has marked the meta and written its shards.
    const lockLost = () => asked++ >= lostAfter;
    const err = await migrateToShards(store, { retry, lockLost }).catch((e) => e);
    assert.equal(err?.code, "global_lock_lost", String(err));
    const index = await readIndex(store, retry);
    assert.ok(
      index?.version.startsWith("v1:"),
      "still v1: the move that holds the lock now does it",
    );
    assert.ok(index?.entries["notes/a.md"]);
    // The move holding the lock now finishes, over any shard the stopped one left.
    const r = await migrateToShards(store, { retry });
    assert.equal(r.migrated, true);
    const moved = await readIndex(store, retry);
    assert.ok(moved?.version.startsWith("v2:"));
    assert.ok(moved?.entries["notes/a.md"]);
  }
});

Deno.test("the move writes the v1 index object again, the same entries in other bytes, so that a clone last synced on v1 leaves its fast path", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, FILES, { v2: false });
  const before = await store.get(MONOLITH_KEY);
  await migrateToShards(store, { retry });
  const after = await store.get(MONOLITH_KEY);
  assert.notEqual(after.version, before.version, "the version an old clone recorded changed");
  assert.notDeepEqual(after.body, before.body, "other bytes: a content-hash ETag changes too");
  const parse = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b));
  assert.deepEqual(parse(after.body), parse(before.body), "the same entries");
  // A second run over the v2 bucket leaves its index as it is, and writes the object again.
  const meta = store.peekText(META_KEY);
  assert.equal((await migrateToShards(store, { retry })).migrated, false);
  assert.equal(store.peekText(META_KEY), meta);
  assert.deepEqual(parse((await store.get(MONOLITH_KEY)).body), parse(before.body));
});

Deno.test("a move cut off after its v2 meta, before its rewrite of the v1 index object, makes that rewrite when run again", async () => {
  const store = new InMemoryStore();
  await seedPeerBucket(store, FILES, { v2: false });
  const before = await store.get(MONOLITH_KEY);
  store.failNext("put", 1, () => new UnreachableError("cut off"), {
    match: (k) => k === MONOLITH_KEY,
  });
  await assert.rejects(migrateToShards(store, { retry }), UnreachableError);
  assert.equal((await store.get(MONOLITH_KEY)).version, before.version, "not rewritten yet");
  assert.equal((await migrateToShards(store, { retry })).migrated, false, "already v2");
  assert.notEqual((await store.get(MONOLITH_KEY)).version, before.version, "rewritten now");
});

Deno.test("the move's rewrite of the v1 index object never writes over a v1 commit that changed it meanwhile", async () => {
  const late = new TextEncoder().encode('{"late": true}');
  let armed = true;
  class Racing extends InMemoryStore {
    override async put(...args: Parameters<InMemoryStore["put"]>) {
      // Right before the rewrite (the catch-up has read the object): another writer changes it.
      if (armed && args[0] === MONOLITH_KEY && args[2].kind === "update") {
        armed = false;
        await super.put(MONOLITH_KEY, late, PutModes.overwrite);
      }
      return await super.put(...args);
    }
  }
  const store = new Racing();
  await seedPeerBucket(store, FILES, { v2: false });
  await migrateToShards(store, { retry });
  assert.equal(armed, false, "the other writer wrote first");
  assert.deepEqual((await store.get(MONOLITH_KEY)).body, late, "left as the other writer wrote it");
});

/**
 * {@link DeletedBeforeCatchUp} (outside), whose look at OTHER once the v2
 * index names it fails: the store is unreachable after the catch-up's commit.
 */
class UnreachableAfterCatchUp extends DeletedBeforeCatchUp {
  constructor() {
    super(true);
  }
  override async head(...args: Parameters<InMemoryStore["head"]>) {
    if (args[0] === OTHER && !this.armed) {
      const named = (await readIndex(this, retry))?.entries[OTHER];
      if (named) throw new UnreachableError("injected failure after the catch-up's commit");
    }
    return await super.head(...args);
  }
}

Deno.test("the move's catch-up tells the racing commits' objects it found gone before its commit even when its look after the commit fails", async () => {
  const store = new UnreachableAfterCatchUp();
  await seedPeerBucket(store, FILES, { v2: false });
  const told: string[] = [];
  const moved = migrateToShards(store, {
    retry,
    onUnnamed: (lost) => {
      told.push(...lost.map(([p]) => p));
      return Promise.resolve();
    },
  });
  await assert.rejects(moved, /injected failure after the catch-up's commit/);
  assert.equal(store.armed, false, "the commits and the deletion raced the move");
  const index = await readIndex(store, retry);
  assert.ok(index?.version.startsWith("v2:"), "the move has finished");
  assert.equal(index!.entries[LATE], undefined, "a gone object is not named");
  assert.deepEqual(told, [LATE], "its writer took it for published: recorded as lost all the same");
});
