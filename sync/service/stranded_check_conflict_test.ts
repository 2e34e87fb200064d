/**
 * A check of an earlier push's upload held back for an open conflict at its
 * path is reported. This cache's new file, whose commit landed with its
 * answer lost, is deleted here and pushed by name while a peer commits an
 * edit of it: the deletion is kept as a conflict (mine: the deletion), its
 * mark dirty. The peer then replaces the file by a directory of its name; a
 * pull here brings the file under it. The next push plans only the check of
 * the earlier upload at the name, which waits on the conflict: the mark
 * stays dirty, and the push must name the conflict (or the path, left out
 * with a reason), never answer as a clean push.
 */
import assert from "node:assert/strict";
import { InMemoryStore, writeCacheFile } from "../../packages/testing/mod.ts";
import { clone, createAnswerLost, put, read } from "./clone_kit.ts";
import { pushLeftBehind } from "./push_result.ts";

const PATH = "notes/shared-1.md";
const UNDER = `${PATH}/part-26.md`;

Deno.test("a push whose only entry is a held check of an earlier push's upload at a path with an open conflict names that conflict", async () => {
  const base = new InMemoryStore();
  const b = await clone(base, "b");
  // The peer's edit lands in the window of this cache's deletion of its own upload.
  let own = "";
  let armed = false;
  const store = new Proxy(base, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop !== "delete") return value.bind(target);
      return async (...args: unknown[]) => {
        const o = args[1] as { ifVersion?: string } | undefined;
        if (armed && args[0] === PATH && o?.ifVersion === own) {
          armed = false;
          await b.pullChanged();
          await put(b, PATH, "the peer's edit");
          await b.pushChanged();
        }
        return await value.apply(target, args);
      };
    },
  }) as InMemoryStore;
  const a = await clone(store, "a");
  own = await createAnswerLost(base, a, PATH, "a's file");
  await b.pullChanged();
  assert.equal(await read(b, PATH), "a's file", "the peer synced the own write");

  // (2) Deleted here and pushed by name: the peer's edit is met, a conflict.
  await Deno.remove(`${a.cacheDir}/${PATH}`);
  armed = true;
  const deleted = await a.pushChanged({ only: [PATH] });
  assert.ok(!armed, "the peer pushed its edit during the deletion");
  assert.deepEqual(deleted.conflicts, [PATH], JSON.stringify(deleted));
  assert.deepEqual(a.conflicts().map((c) => [c.path, c.mine]), [[PATH, null]]);
  assert.ok(a.state.snapshot().paths.has(PATH), "the deletion's mark stays");

  // (3) The peer replaces the file by a directory of its name.
  await Deno.remove(`${b.cacheDir}/${PATH}`);
  await writeCacheFile(b.cacheDir, UNDER, "a part");
  await b.markDirty({ relPath: PATH });
  await b.pushChanged();

  // (4) This cache's sync: the pull brings the file under the directory, and
  // the push holds the check at the name for the open conflict.
  await a.pullChanged();
  assert.equal(await read(a, UNDER), "a part");
  assert.deepEqual(a.conflicts().map((c) => c.path), [PATH], "the conflict is still open");
  const pushed = await a.pushChanged();
  assert.ok(a.state.snapshot().paths.has(PATH), "the mark stays dirty");
  const left = pushLeftBehind(pushed);
  assert.ok(
    left.conflicts.includes(PATH) || left.left.some((l) => l.path === PATH),
    `the push kept ${PATH} dirty with an open conflict and reported ${JSON.stringify(pushed)}`,
  );
  assert.ok(pushed.conflicts.includes(PATH), JSON.stringify(pushed));
  const skipped = pushed.skipped.find((s) => s.path === PATH);
  assert.ok(skipped?.keepDirty && skipped.reason, JSON.stringify(pushed.skipped));
});
