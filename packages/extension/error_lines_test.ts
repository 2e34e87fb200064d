/**
 * The tool shows only the first 200 characters of an error a sync call
 * throws; the extension writes the whole of a longer one where the tool's
 * user sees it, one line, before the tool gets it.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../testing/in_memory_store.ts";
import { createSluice } from "../../sluice.ts";
import { CHECKOUT_CONFIG, watchedDatastore } from "./checkout_kit.ts";
import { errorLine, TOOL_MESSAGE_LIMIT } from "./warnings.ts";

Deno.test("errorLine: a message longer than the tool shows is written whole, with its code; a short one is left to the tool", () => {
  const long = Object.assign(new Error(`${"x".repeat(TOOL_MESSAGE_LIMIT)}\n  next step`), {
    code: "unreachable",
  });
  assert.equal(
    errorLine("@sluice/s3-datastore", long),
    `[@sluice/s3-datastore] error[unreachable]: ${"x".repeat(TOOL_MESSAGE_LIMIT)} next step`,
  );
  assert.equal(errorLine("t", new Error("short")), undefined);
  assert.equal(errorLine("t", "a string"), undefined);
});

Deno.test("a sync call that fails writes its whole message before the tool gets the error", async () => {
  const store = new InMemoryStore();
  const { ds, lines } = watchedDatastore(store, { createService: createSluice });
  const cache = await Deno.makeTempDir({ prefix: "sluice-ext-err-" });
  try {
    const provider = () => ds.createProvider(CHECKOUT_CONFIG);
    const svc = provider().createSyncService("/repo/a", cache);
    // A model run whose lock an operator broke: its push is refused.
    const key = "data/shell/cmd/m1/.lock";
    await provider().createLock("/repo/.swamp", { lockKey: key, maxWaitMs: 1000 }).acquire();
    await svc.pullChanged();
    await svc.markDirty({ relPath: "data/shell/cmd/m1/out/1" });
    await Deno.mkdir(`${cache}/data/shell/cmd/m1/out/1`, { recursive: true });
    await Deno.writeTextFile(`${cache}/data/shell/cmd/m1/out/1/raw`, "run");
    const other = provider().createLock("/repo/.swamp", { lockKey: key });
    assert.ok(await other.forceRelease((await other.inspect())!.nonce));
    const err = await svc.pushChanged().catch((e) => e);
    assert.equal(err.code, "model_lock_lost");
    assert.ok(err instanceof Error && err.message.length > TOOL_MESSAGE_LIMIT, err.message);
    const said = lines.filter((l) => l.includes("error["));
    assert.equal(said.length, 1, lines.join("\n"));
    assert.ok(said[0].endsWith(err.message.replace(/\s*\n+\s*/g, " ").trim()), said[0]);
  } finally {
    await Deno.remove(cache, { recursive: true });
  }
});
