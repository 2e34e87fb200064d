/**
 * An earlier release's record of lost files (`.sluice/vanished.json`) that
 * cannot be read, where there is none under `_control/.sluice/`: the error
 * names the object it could not read, the one to restore or delete.
 */
import assert from "node:assert/strict";
import { InMemoryStore } from "../../packages/testing/mod.ts";
import { LEGACY_VANISHED_KEY, recordVanished } from "./vanished_record.ts";
import { quick } from "./clone_kit.ts";

Deno.test("an unreadable earlier record of lost files is named as the one that cannot be read", async () => {
  const store = new InMemoryStore();
  store.seed(LEGACY_VANISHED_KEY, "{not json");
  const e = { v: "v1", h: "h1", s: 1 } as never;
  const err = await recordVanished(store, [["notes/a.txt", e]], 1, quick.retry).catch((x) => x);
  assert.ok(err instanceof Error);
  assert.ok(err.message.includes(`(${LEGACY_VANISHED_KEY} in the bucket)`), err.message);
});
