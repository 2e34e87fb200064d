/**
 * A cache that is only ever pulled (a reader's clone) and the temporary file
 * a pull killed part way left there: a later pull that completes says
 * nothing of it and never removes it, even once it is hours old, as only a
 * push's walk clears such files (`left_temps.ts`). A reader's cache then
 * keeps every partial download a killed pull left, each up to the size of
 * its file, while each pull answers that all is done.
 *
 * A fix needs the pull to find
 * such files without walking the whole cache (a pull with nothing new costs
 * one request), e.g. beside the paths it fetches, or by the owner locks of
 * the processes that wrote them.
 */
import assert from "node:assert/strict";
import { createSluice } from "../../sluice.ts";
import { InMemoryStore, writeAndMark } from "../../packages/testing/mod.ts";
import { LEFT_TEMP_AGE_MS } from "./left_temps.ts";

const LEFT = "notes/big.bin.sluice-d1911a984514.tmp";

Deno.test({
  name:
    "a pull-only cache: a temporary file a killed pull left, hours old, is removed (or told of) by a later pull",
  fn: async () => {
    const store = new InMemoryStore();
    const writer = await createSluice({
      cacheDir: await Deno.makeTempDir({ prefix: "sluice-writer-" }),
      store,
      identity: { holder: "w@host", hostname: "host", pid: 1 },
    });
    await writeAndMark(writer, "notes/big.bin", "v1");
    await writer.pushChanged();

    const readerDir = await Deno.makeTempDir({ prefix: "sluice-reader-" });
    const reader = await createSluice({
      cacheDir: readerDir,
      store,
      identity: { holder: "r@host", hostname: "host", pid: 2 },
    });
    await reader.pullChanged();
    // A pull of the next version killed part way left its download there, two hours ago.
    await Deno.writeTextFile(`${readerDir}/${LEFT}`, "half a dow");
    const hoursAgo = new Date(Date.now() - 2 * LEFT_TEMP_AGE_MS);
    await Deno.utime(`${readerDir}/${LEFT}`, hoursAgo, hoursAgo);
    const warnings: string[] = [];
    reader.events.on("warning", (w) => void warnings.push(w.code));

    await writeAndMark(writer, "notes/big.bin", "v2");
    await writer.pushChanged();
    const r = await reader.pullChanged();
    assert.deepEqual(r.fetched, ["notes/big.bin"]);
    assert.equal(await Deno.readTextFile(`${readerDir}/notes/big.bin`), "v2");
    const left = await Deno.lstat(`${readerDir}/${LEFT}`).then(() => true, () => false);
    assert.ok(
      !left || warnings.includes("temp_files_left"),
      `${LEFT} is still in the cache and the pull said nothing of it (warnings: ${
        warnings.join(", ")
      })`,
    );
  },
});
