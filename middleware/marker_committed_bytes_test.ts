import assert from "node:assert/strict";
import type { PushContext } from "../sync/context.ts";
import { sha256Hex } from "../sync/hash.ts";
import { committedMarkerBytes, warnUnrestored } from "./marker_committed_bytes.ts";

const MARKER = "data/t/m/out/latest";
const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null) => b === null ? null : new TextDecoder().decode(b);

/** A cache that lists `files`, or fails its listing. */
function cacheOf(files: string[] | Error): PushContext["cache"] {
  return {
    listFiles: (_: string) =>
      files instanceof Error ? Promise.reject(files) : Promise.resolve(files),
  } as unknown as PushContext["cache"];
}

const beside = [`data/t/m/out/1/raw`, `data/t/m/out/2/raw`, `data/t/m/out/2/metadata.yaml`, MARKER];

Deno.test("committedMarkerBytes: the version number beside the marker whose bytes hash to the entry's, with or without a newline", async () => {
  assert.equal(
    dec(await committedMarkerBytes(cacheOf(beside), MARKER, await sha256Hex(enc("1")))),
    "1",
  );
  assert.equal(
    dec(await committedMarkerBytes(cacheOf(beside), MARKER, await sha256Hex(enc("2\n")))),
    "2\n",
  );
});

Deno.test("committedMarkerBytes: none for bytes no version here hashes to, a version skipped, or a listing that fails", async () => {
  const three = await sha256Hex(enc("3"));
  assert.equal(await committedMarkerBytes(cacheOf(beside), MARKER, three), null);
  const one = await sha256Hex(enc("1"));
  assert.equal(await committedMarkerBytes(cacheOf(beside), MARKER, one, ["data/t/m/out/1"]), null);
  assert.equal(await committedMarkerBytes(cacheOf(new Error("gone")), MARKER, one), null);
  // Bytes around the number are no version number.
  assert.equal(
    await committedMarkerBytes(cacheOf(beside), MARKER, await sha256Hex(enc(" 1"))),
    null,
  );
});

Deno.test("warnUnrestored: one committed_marker_unrestored warning naming the marker, why and what next", () => {
  const seen: { code: string; message: string; path?: string }[] = [];
  const events = {
    emit: (_: string, w: { code: string; message: string; path?: string }) => seen.push(w),
  } as unknown as PushContext["events"];
  warnUnrestored(events, MARKER, "its bytes are unknown here", "Push again.");
  assert.equal(seen.length, 1);
  assert.equal(seen[0].code, "committed_marker_unrestored");
  assert.equal(seen[0].path, MARKER);
  assert.match(seen[0].message, /its bytes are unknown here/);
  assert.match(seen[0].message, /Push again\.$/);
});
