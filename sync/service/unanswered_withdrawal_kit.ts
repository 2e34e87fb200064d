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
import { clone, isIndexKey, put, quick, read } from "./clone_kit.ts";

/** The path written, withdrawn and edited. */
export const PATH = "config/settings.yaml";

/** What the index holding no entry for `PATH` after the withdrawal says. */
export const NAMES_NOTHING = "a's deletion is committed: the index names nothing";

/**
 * A step of a test run once, inside a store call: `arm` sets it, and the
 * next `fire` runs it (disarmed first, so a store call it makes does not
 * run it again); a `fire` with none armed does nothing.
 */
export function oneShot(): { arm: (step: () => Promise<void>) => void; fire: () => Promise<void> } {
  let armed: (() => Promise<void>) | undefined;
  return {
    arm: (step) => void (armed = step),
    fire: async () => {
      const step = armed;
      armed = undefined;
      if (step) await step();
    },
  };
}

/** `a`, whose store runs a hook once just after its next index write; `b`; and their steps. */
export async function hookedPair() {
  const store = new InMemoryStore();
  const onIndexPut = oneShot();
  const a = await clone(
    hookedStore(store, {
      after: async (key) => {
        if (isIndexKey(key)) await onIndexPut.fire();
      },
    }),
    "a",
  );
  const b = await clone(store, "b");
  return {
    store,
    a,
    b,
    /**
     * `a` deletes `PATH` and pushes the deletion, `during` run just after
     * that push's index write; what `during` gave, or undefined if it never
     * ran.
     */
    async withdrawWhile<T>(during: () => Promise<T>): Promise<T | undefined> {
      let got: T | undefined;
      onIndexPut.arm(async () => {
        got = await during();
      });
      await Deno.remove(`${a.cacheDir}/${PATH}`);
      await a.markDirty({ relPath: PATH });
      await a.pushChanged();
      return got;
    },
    /** `b` pulls, edits `PATH` and uploads its edit, not committing it. */
    async peerPullsAndUploads() {
      await b.pullChanged();
      await put(b, PATH, "b's edit");
      return await b.preparePush();
    },
    /** The entry the store's index holds for `PATH`. */
    indexEntry: async () => (await readIndex(store, quick.retry))?.entries[PATH],
    /** What a fresh clone of the store reads at `PATH` after a pull. */
    async freshCloneReads(): Promise<string | undefined> {
      const c = await clone(store, "c");
      await c.pullChanged();
      return await read(c, PATH);
    },
  };
}
