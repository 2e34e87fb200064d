/**
 * Two processes over one cache: a change made here to a file another
 * process marked, while that process's push of it is under way (its bytes
 * read, its commit still to come), is left out by a walk here; that
 * process's commit then clears its mark, and the change is published by
 * no one.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { FakeClock, hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { ConditionalWrites } from "../transfer/conditional.ts";
import type { ObjectStore } from "../ports.ts";
import { quick } from "./clone_kit.ts";
import { pushLeftBehind } from "./push_result.ts";

const V = "shared/dir";

Deno.test("a change here under another process's mark, made while its push is under way, is published or told as left behind", async () => {
  const store = new InMemoryStore();
  const cacheDir = await Deno.makeTempDir({ prefix: "sluice-two-" });
  let hold: Promise<void> | null = null;
  let release = () => {};
  let reached = () => {};
  const atCommit = new Promise<void>((r) => reached = r);
  const otherStore = hookedStore(store, {
    before: async (key) => {
      if (key.startsWith(`${V}/`) || hold === null) return;
      reached();
      await hold;
    },
  });
  const open = (pid: number, s: ObjectStore) =>
    createSluice({
      cacheDir,
      store: s,
      ownersInProcess: true,
      identity: { holder: `p${pid}@host`, hostname: "host", pid },
      clock: new FakeClock(),
      config: quick,
      conditional: new ConditionalWrites(),
    });
  const main = await open(1, store);
  const other = await open(2, otherStore);
  await other.markDirty({ relPath: V });
  await Deno.mkdir(`${cacheDir}/${V}`, { recursive: true });
  await Deno.writeTextFile(`${cacheDir}/${V}/raw`, "other's run\n");
  hold = new Promise((r) => release = r);
  const pushing = other.pushChanged();
  await atCommit; // the other's data uploaded, its commit held
  // The user here edits the file and pushes with a walk.
  await Deno.writeTextFile(`${cacheDir}/${V}/raw`, "edited here, later\n");
  await main.markDirty();
  const walked = await main.pushChanged();
  release();
  await pushing;
  // Published by one of the two, or told as left behind by a later push
  // (a walk here looks again): never a clean run over an edit no one holds.
  const again = await main.pushChanged();
  const again2 = await other.pushChanged();
  const told = [again, again2].some((r) =>
    pushLeftBehind(r).left.some((l) => l.path === `${V}/raw`)
  );
  assert.ok(
    store.peekText(`${V}/raw`) === "edited here, later\n" || told,
    `the edit here was neither published nor told (walk: ${JSON.stringify(walked.skipped)}; ` +
      `later pushes: ${JSON.stringify([again, again2])})`,
  );
});
