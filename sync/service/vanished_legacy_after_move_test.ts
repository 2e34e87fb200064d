/**
 * During an upgrade, a pull of the earlier release records a lost file at
 * the earlier key (`.sluice/vanished.json`) after a later release moved the
 * record under `_control/.sluice/`, and removes its entry: a holder of the
 * synced copy on the later release keeps it (it may be the last), as it
 * does for a loss the record names.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";
import { readIndex, updateIndex } from "../transfer/remote_index.ts";
import { LEGACY_VANISHED_KEY, recordVanished } from "./vanished_record.ts";
import { clone, put, quick, read } from "./clone_kit.ts";

Deno.test("a loss an earlier release records at .sluice/vanished.json after the record moved keeps the holder's copy", async () => {
  const store = new InMemoryStore();
  const a = await clone(store, "a");
  const b = await clone(store, "b");
  await put(a, "notes/kept.txt", "kept");
  await put(a, "notes/lost.txt", "the last copy");
  await a.pushChanged();
  await b.pullChanged();
  // A later release moved the record (another file recorded there).
  const other = { v: "v0", h: "h0", s: 1 } as never;
  await recordVanished(store, [["notes/other.txt", other]], 1, quick.retry);
  // The object goes outside Sluice; an earlier release's pull records it at
  // its key and removes the entry naming it.
  const e = (await readIndex(store, quick.retry))!.entries["notes/lost.txt"];
  await store.delete("notes/lost.txt");
  const body = { format: 1, paths: { "notes/lost.txt": { v: e.v, h: e.h, at: 2 } } };
  await store.put(
    LEGACY_VANISHED_KEY,
    new TextEncoder().encode(JSON.stringify(body)),
    PutModes.overwrite,
  );
  await updateIndex(
    store,
    { set: {}, remove: ["notes/lost.txt"], base: { "notes/lost.txt": e.v } },
    quick.retry,
  );
  await b.pullChanged();
  assert.equal(await read(b, "notes/lost.txt"), "the last copy", "the holder keeps its copy");
});
