/**
 * On a v2 bucket, one clone deletes the last entry of a shard (the shard is
 * written empty, then dropped from the meta) while another adds an entry to
 * that shard: whichever meta bump comes last, the added entry stays listed.
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore, type PutHook } from "../../packages/testing/mod.ts";
import { clone, put, quick, read } from "../service/clone_kit.ts";
import { migrateToShards } from "./migrate_index.ts";
import { META_KEY } from "./bucket_layout.ts";

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => open = r);
  return { open, opened };
}

/** a and b synced on a v2 bucket where `logs/a.txt` is alone in its shard. */
type Hooks = { before?: PutHook; after?: PutHook };

async function world(hooks: { a?: Hooks; b?: Hooks }) {
  const store = new InMemoryStore();
  const a = await clone(hookedStore(store, hooks.a ?? {}), "a");
  const b = await clone(hookedStore(store, hooks.b ?? {}), "b");
  await put(a, "logs/a.txt", "a");
  await put(a, "notes/n.txt", "n");
  await a.pushChanged();
  await migrateToShards(store, { retry: quick.retry });
  await a.pullChanged();
  const c = await clone(store, "c");
  await put(c, "notes/c.txt", "c");
  await c.pushChanged(); // a's remembered meta is stale now
  await b.pullChanged();
  await Deno.remove(`${b.cacheDir}/logs/a.txt`);
  await b.markDirty({ relPath: "logs/a.txt" });
  await put(a, "logs/b.txt", "b");
  return { store, a, b };
}

async function assertReaches(store: InMemoryStore, path: string, text: string) {
  const fresh = await clone(store, "fresh");
  await fresh.pullChanged();
  assert.equal(await read(fresh, path), text, `a fresh clone gets ${path}`);
}

Deno.test("an entry added to a shard a peer emptied is not taken as published by the peer's bump that drops it", async () => {
  let armed = false;
  const bAtMeta = gate();
  const releaseB = gate();
  const bBumped = gate();
  let aMetaPuts = 0;
  const { store, a, b } = await world({
    a: {
      before: async (key) => {
        // a's first meta write is refused (its meta is stale); before its
        // second, b's bump (dropping the emptied shard) lands.
        if (armed && key === META_KEY && ++aMetaPuts === 2) {
          releaseB.open();
          await bBumped.opened;
        }
      },
    },
    b: {
      before: async (key) => {
        if (armed && key === META_KEY) {
          bAtMeta.open();
          await releaseB.opened;
        }
      },
      after: (key) => {
        if (armed && key === META_KEY) bBumped.open();
      },
    },
  });
  armed = true;
  const pb = b.pushChanged();
  await bAtMeta.opened;
  const ra = await a.pushChanged();
  await pb;
  armed = false;
  assert.deepEqual(ra.uploaded, ["logs/b.txt"]);
  await assertReaches(store, "logs/b.txt", "b");
});

Deno.test("an emptied shard is not dropped from the meta once a peer's commit wrote into it", async () => {
  let armed = false;
  const bAtMeta = gate();
  const aDone = gate();
  const { store, a, b } = await world({
    b: {
      before: async (key) => {
        // b emptied the shard; before its meta bump, a commits into it.
        if (armed && key === META_KEY) {
          armed = false;
          bAtMeta.open();
          await aDone.opened;
        }
      },
    },
  });
  armed = true;
  const pb = b.pushChanged();
  await bAtMeta.opened;
  const ra = await a.pushChanged();
  aDone.open();
  const rb = await pb;
  assert.deepEqual(ra.uploaded, ["logs/b.txt"]);
  assert.deepEqual(rb.deleted, ["logs/a.txt"]);
  await assertReaches(store, "logs/b.txt", "b");
});
