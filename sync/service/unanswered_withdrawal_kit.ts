/**
 * What the tests of a peer's edit meeting this cache's withdrawal of its
 * own unanswered write share: a cache `a` whose store runs a hook once,
 * just after its next index write, beside a peer `b` of the same store; the
 * withdrawal (the file deleted in `a` and the deletion pushed) with the
 * peer's steps run inside it; and what the index and a fresh clone then
 * hold at the path.
 *
 * @module
 */
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { readIndex } from "../transfer/remote_index.ts";
import type { SyncService } from "./service.ts";
import { clone, isIndexKey, quick, read } from "./clone_kit.ts";

/** The path written, withdrawn and edited. */
export const PATH = "config/settings.yaml";

/** `a`, whose store runs the hook set by `afterIndexPut` once, just after its next index write; and `b`. */
export async function hookedPair() {
  const store = new InMemoryStore();
  let onIndexPut: (() => Promise<void>) | undefined;
  const a = await clone(
    hookedStore(store, {
      after: async (key) => {
        if (!isIndexKey(key) || !onIndexPut) return;
        const hook = onIndexPut;
        onIndexPut = undefined;
        await hook();
      },
    }),
    "a",
  );
  const b = await clone(store, "b");
  const afterIndexPut = (hook: () => Promise<void>) => {
    onIndexPut = hook;
  };
  return { store, a, b, afterIndexPut };
}

/**
 * `a` deletes `PATH` and pushes the deletion, `during` run just after that
 * push's index write; what `during` gave, or undefined if it never ran.
 */
export async function withdrawWhile<T>(
  { a, afterIndexPut }: { a: SyncService; afterIndexPut: (hook: () => Promise<void>) => void },
  during: () => Promise<T>,
): Promise<T | undefined> {
  let got: T | undefined;
  afterIndexPut(async () => {
    got = await during();
  });
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  await a.markDirty({ relPath: PATH });
  await a.pushChanged();
  return got;
}

/** The entry the store's index holds for `PATH`. */
export const indexEntry = async (store: InMemoryStore) =>
  (await readIndex(store, quick.retry))?.entries[PATH];

/** What a fresh clone of `store` reads at `PATH` after a pull. */
export async function freshCloneReads(store: InMemoryStore): Promise<string | undefined> {
  const c = await clone(store, "c");
  await c.pullChanged();
  return await read(c, PATH);
}
