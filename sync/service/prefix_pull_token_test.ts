/**
 * A pull of some prefixes reads the whole v2 index but takes in only what
 * lies under them: the shard versions it read are not the index the cache
 * reflects, and a commit made after it must not take them for it.
 */
import assert from "node:assert/strict";
import { clone, put, read, updateAnswerLost, v2Store } from "./clone_kit.ts";

for (const touched of [true, false]) {
  Deno.test(
    `a peer's file whose shard landed without its meta bump, read by a pull of other prefixes here, is fetched by the next whole pull after a commit ${
      touched ? "into that shard" : "into another shard"
    }`,
    async () => {
      const store = await v2Store();
      const a = await clone(store, "a");
      const b = await clone(store, "b");
      await put(a, "notes/shared.txt", "one");
      await a.pushChanged();
      await b.pullChanged();
      assert.equal(await read(b, "notes/shared.txt"), "one");
      // The peer's new file: its shard lands, its meta bump is cut off.
      await updateAnswerLost(store, a, "config/settings.yaml", "peer's");
      // Here, a pull of the data alone (a run's) reads the index under the
      // same meta, that shard included, and takes in nothing outside data/.
      await b.pullChanged({ prefixes: ["data/"] });
      assert.equal(await read(b, "config/settings.yaml"), undefined);
      // This cache's own commit bumps the meta, publishing the peer's shard write.
      await put(b, touched ? "notes/shared.txt" : "data/shell/cmd/m0/out/1/raw", "b's");
      const pushed = await b.pushChanged();
      assert.deepEqual(pushed.conflicts, []);
      await b.pullChanged();
      assert.equal(
        await read(b, "config/settings.yaml"),
        "peer's",
        "the peer's published file is fetched, not passed over as already reflected",
      );
    },
  );
}
