import assert from "node:assert/strict";
import { type MarkerLooks, markerText, markerVerdicts } from "./version_marker_hold.ts";
import { sha256Hex } from "./hash.ts";

const D = "data/t/m/out";
const MARKER = `${D}/latest`;
const enc = (s: string) => new TextEncoder().encode(s);
const hash = (s: string) => sha256Hex(enc(s));

/**
 * Looks over plain records: the marker here `here`, the synced and indexed
 * hashes, whether the push writes the marker, the files held here, the
 * published ones and the directories the index lists; `reads` counts the
 * marker's reads and the listings.
 */
function looksOf(o: {
  here?: string | Uint8Array;
  synced?: string;
  indexed?: string | null;
  writes?: boolean;
  files?: Record<string, readonly string[] | null>;
  published?: readonly string[];
  listed?: readonly string[];
  rules?: MarkerLooks["rules"];
}): MarkerLooks & { reads: { marker: number; files: number } } {
  const reads = { marker: 0, files: 0 };
  return {
    reads,
    rules: o.rules ?? [],
    markerBytes: () => {
      reads.marker++;
      const h = o.here;
      return Promise.resolve(h === undefined ? null : typeof h === "string" ? enc(h) : h);
    },
    syncedHash: () => o.synced,
    indexedHash: () => Promise.resolve(o.indexed),
    writesMarker: () => Promise.resolve(o.writes ?? false),
    filesUnder: (dir) => {
      reads.files++;
      return Promise.resolve(o.files && dir in o.files ? o.files[dir] : []);
    },
    published: (p) => o.published?.includes(p) ?? false,
    indexLists: (dir) => Promise.resolve(o.listed?.includes(dir) ?? false),
  };
}

Deno.test("markerText trims the marker's bytes; over 64 bytes names nothing", () => {
  assert.equal(markerText(enc("10\n")), "10");
  assert.equal(markerText(enc("9".repeat(65))), "");
});

Deno.test("markerVerdicts: the marker here naming the version holds it; none here, or a committed marker naming another version, holds nothing", async () => {
  assert.deepEqual(await markerVerdicts(looksOf({ here: "2\n" }))(MARKER, "2"), {
    kind: "here",
    marker: MARKER,
    n: "2",
  });
  assert.deepEqual(await markerVerdicts(looksOf({ synced: await hash("2") }))(MARKER, "2"), {
    kind: "free",
  });
  const other = looksOf({ here: "1", synced: await hash("3"), indexed: await hash("3\n") });
  assert.deepEqual(await markerVerdicts(other)(MARKER, "2"), { kind: "free" });
});

Deno.test("markerVerdicts: the committed marker naming the version (synced, indexed, or an index that cannot tell) holds it where the marker here is not written", async () => {
  const held = { kind: "committed", marker: MARKER, n: "2", here: "1" };
  for (
    const o of [{ synced: await hash("2\n") }, { indexed: await hash("2") }, { indexed: null }]
  ) {
    assert.deepEqual(await markerVerdicts(looksOf({ here: "1", ...o }))(MARKER, "2"), held);
  }
});

Deno.test("markerVerdicts: the marker here, written, goes in the committed one's place only naming a version a reader can follow", async () => {
  const base = { here: "1", indexed: await hash("2"), writes: true };
  const kind = async (o: Parameters<typeof looksOf>[0]) =>
    (await markerVerdicts(looksOf({ ...base, ...o }))(MARKER, "2")).kind;
  const files = { [`${D}/1`]: [`${D}/1/raw`, `${D}/1/meta`] };
  assert.equal(await kind({ files, published: [`${D}/1/raw`, `${D}/1/meta`] }), "in-place");
  assert.equal(
    await kind({ files, published: [`${D}/1/raw`] }),
    "committed",
    "a file not published",
  );
  const internal = [{ pattern: `${D}/1/**`, class: "internal" as const }];
  assert.equal(await kind({ files, rules: internal }), "in-place", "its files all internal");
  assert.equal(await kind({ listed: [`${D}/1`] }), "in-place", "none here, the index lists it");
  assert.equal(await kind({}), "committed", "none here, nor listed");
  assert.equal(await kind({ files: { [`${D}/1`]: null }, listed: [`${D}/1`] }), "committed");
  assert.equal(await kind({ here: "one", listed: [`${D}/1`] }), "committed", "no number");
  assert.equal(await kind({ here: "1".repeat(65) }), "committed", "too long");
  assert.equal(await kind({ writes: false, listed: [`${D}/1`] }), "committed", "not written");
});

Deno.test("markerVerdicts reads each marker, and lists the version it names, once", async () => {
  const looks = looksOf({ here: "1", indexed: await hash("2"), writes: true });
  const verdict = markerVerdicts(looks);
  await verdict(MARKER, "2");
  await verdict(MARKER, "2");
  await verdict(MARKER, "1");
  assert.deepEqual(looks.reads, { marker: 1, files: 1 });
});
