/**
 * The record of lost files moved from `.sluice/vanished.json` to
 * `_control/.sluice/vanished.json`: a file an earlier release records as
 * lost at the old key while a later release moves the record is never
 * deleted with the earlier record (a pull would take its entry's removal for a deletion).
 */
import assert from "node:assert/strict";
import { hookedStore, InMemoryStore } from "../../packages/testing/mod.ts";
import { PutModes } from "../ports.ts";
import {
  LEGACY_VANISHED_KEY,
  readVanished,
  recordVanished,
  VANISHED_KEY,
} from "./vanished_record.ts";
import { quick } from "./clone_kit.ts";

const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));

/** The record as the earlier release writes it, with `paths`. */
async function legacyBody(store: InMemoryStore, paths: string[]) {
  const got = await store.get(LEGACY_VANISHED_KEY).catch(() => null);
  const files: Record<string, unknown> = got
    ? JSON.parse(new TextDecoder().decode(got.body)).paths ?? {}
    : {};
  for (const p of paths) files[p] = { v: `v-${p}`, h: `h-${p}`, at: 1 };
  return { got, body: { format: 1, paths: files } };
}

Deno.test("a file an earlier release records as lost while the record moves is not deleted with the earlier record", async () => {
  const inner = new InMemoryStore();
  const first = await legacyBody(inner, ["notes/a.txt"]);
  await inner.put(LEGACY_VANISHED_KEY, enc(first.body), PutModes.create);
  const shape = new TextDecoder().decode(inner.peek(LEGACY_VANISHED_KEY)!);
  const store = hookedStore(inner, {
    // The earlier release records notes/b.txt as the move's write lands.
    after: async (key) => {
      if (key !== VANISHED_KEY) return;
      const { got, body } = await legacyBody(inner, ["notes/b.txt"]);
      await inner.put(LEGACY_VANISHED_KEY, enc(body), PutModes.update(got!.version));
    },
  });
  const e = { v: "v-c", h: "h-c", s: 1 } as never;
  await recordVanished(store, [["notes/c.txt", e]], 2, quick.retry);
  const files = await readVanished(inner, quick.retry);
  assert.ok(files, `record readable (${shape})`);
  assert.ok(files.has("notes/a.txt"), "moved from the earlier record");
  assert.ok(files.has("notes/c.txt"));
  assert.ok(
    files.has("notes/b.txt") || inner.peek(LEGACY_VANISHED_KEY) !== undefined,
    "the earlier release's record of notes/b.txt is neither moved nor left",
  );
});
