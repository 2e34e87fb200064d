import assert from "node:assert/strict";
import { CLOCK_PROBE_KEY } from "../locks/store_clock.ts";
import { VANISHED_KEY } from "../service/vanished_record.ts";
import { PROBE_PREFIX } from "./conditional.ts";
import {
  entryJson,
  type IndexEntry,
  isLayoutInternal,
  isUnversioned,
  markerOfVersionFile,
  META_KEY,
  metaBody,
  MONOLITH_KEY,
  monolithBody,
  parseEntries,
  parseEntry,
  parseMeta,
  parseMonolith,
  parseShard,
  partitionKeyFromPath,
  serialiseEntry,
  shardBody,
  shardKey,
  shardOf,
  UNPARTITIONED,
} from "./bucket_layout.ts";

const enc = (s: unknown) => new TextEncoder().encode(typeof s === "string" ? s : JSON.stringify(s));
const dec = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b));
const SHA = "a".repeat(64);
const NOW = "2026-01-02T03:04:05.000Z";

Deno.test("partitions follow the layout's rule exactly", () => {
  const cases: [string, string | undefined][] = [
    ["data/aws/ec2/vpc/abc/state/1/raw", "data--aws--ec2--vpc--abc"],
    ["data/t/m/d/1/raw", "data--t--m"],
    ["data/t/m/latest", "data--t--m"],
    ["data/t/m/d/latest", "data--t--m--d"],
    ["data/t/x", undefined],
    ["outputs/a/b/c", "outputs--a--b"],
    ["definitions-evaluated/a/b/c", "definitions-evaluated--a--b"],
    ["workflow-runs/r1/step/log", "workflow-runs--r1"],
    ["workflow-runs/r1", undefined],
    ["logs/x/y.log", "logs"],
    ["telemetry/t.json", "telemetry"],
    ["config/app.yaml", undefined],
    ["README", "_root"],
    ["", undefined],
  ];
  for (const [path, partition] of cases) assert.equal(partitionKeyFromPath(path), partition, path);
  assert.equal(shardOf("config/app.yaml"), UNPARTITIONED);
  assert.equal(shardOf("logs/a"), "logs");
  assert.equal(shardKey("logs"), "_index/logs.json");
});

/** The layout's partition rule as it is written: split on "/", then join with "--". */
function partitionBySplit(rel: string): string | undefined {
  const s = rel.split("/");
  if (s.length < 2) return s.length === 1 && s[0] !== "" ? "_root" : undefined;
  switch (s[0]) {
    case "data":
    case "outputs":
    case "definitions-evaluated":
      if (s.length < 4) return undefined;
      return s.slice(0, s.length >= 6 ? s.length - 3 : s.length - 1).join("--");
    case "workflow-runs":
      return s.length < 3 ? undefined : `workflow-runs--${s[1]}`;
    default:
      return ["workflows-evaluated", "auto-definitions", "audit", "telemetry", "logs", "files"]
          .includes(s[0])
        ? s[0]
        : undefined;
  }
}

/** Paths of 0 to 9 segments drawn from the layout's top-level names and odd ones (empty, quotes, non-ASCII). */
function samplePaths(n: number): string[] {
  const tops = ["data", "outputs", "definitions-evaluated", "workflow-runs", "logs", "files", "x"];
  const names = ["", "a", "m1", "1", "raw", 'q"uote', "back\\slash", "é", "latest", "-"];
  let seed = 7;
  const pick = <T>(xs: readonly T[]) =>
    xs[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % xs.length];
  return Array.from({ length: n }, () => {
    const len = pick([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const segs = Array.from({ length: len }, (_, i) => (i === 0 ? pick(tops) : pick(names)));
    return segs.join("/");
  });
}

Deno.test("the partition rule by slash positions agrees with the rule by split and join", () => {
  for (const path of samplePaths(5000)) {
    assert.equal(partitionKeyFromPath(path), partitionBySplit(path), JSON.stringify(path));
  }
});

Deno.test("entry text is the JSON of the entry object, byte for byte, in shards and the v1 index", () => {
  const entries: Record<string, IndexEntry> = {};
  const kinds: ((p: string) => IndexEntry)[] = [
    () => ({ v: "e2", h: SHA, s: 3 }),
    () => ({ v: "~x", h: SHA, s: 3 }),
    () => ({ v: 'e"q', h: "", s: 0 }),
    (p) => parseEntry(p, { key: p, size: 9, extra: ["kept", 1], sluice: { v: "e1", h: SHA } }),
    (p) => ({ v: "ü", h: SHA, s: 2 ** 40, raw: { key: p, size: 2 ** 40, odd: "\u2028" } }),
  ];
  samplePaths(500).forEach((p, i) => entries[p] = kinds[i % kinds.length](p));
  for (const [p, e] of Object.entries(entries)) {
    assert.equal(entryJson(p, e, NOW), JSON.stringify(serialiseEntry(p, e, NOW)));
  }
  const objects = Object.fromEntries(
    Object.entries(entries).map(([p, e]) => [p, serialiseEntry(p, e, NOW)]),
  );
  assert.equal(
    new TextDecoder().decode(monolithBody(entries, NOW)),
    JSON.stringify({ version: 1, lastPulled: NOW, entries: objects }),
  );
  assert.equal(
    new TextDecoder().decode(shardBody(entries, NOW)),
    JSON.stringify({ version: 1, entries: objects }),
  );
});

Deno.test("layout-internal paths are the index, control plane, locks, sidecars and catalogs", () => {
  for (
    const p of [
      MONOLITH_KEY,
      META_KEY,
      "_index",
      "_control/x",
      ".datastore.lock",
      ".push-queue.json",
      ".datastore-sync-state.json",
      "data/t/m/.lock",
      "ns/.namespace.json",
      "_catalog.db",
      "a/_catalog.db-wal",
    ]
  ) assert.equal(isLayoutInternal(p), true, p);
  for (const p of ["data/t/m/d/1/raw", "config/x", "_indexes/x", "a/lock", "catalog.db"]) {
    assert.equal(isLayoutInternal(p), false, p);
  }
});

Deno.test("an entry carries Sluice's version only while its hash still matches the entry's", () => {
  const ours = parseEntry("p", { key: "p", size: 3, sha256: SHA, sluice: { v: "e1", h: SHA } });
  assert.equal(ours.v, "e1");
  assert.equal(isUnversioned(ours), false);
  // Another client rewrote the entry: the hash no longer matches, the version is unknown.
  const rewritten = parseEntry("p", {
    size: 4,
    sha256: "b".repeat(64),
    sluice: { v: "e1", h: SHA },
  });
  assert.equal(rewritten.v, `~${"b".repeat(64)}`);
  assert.equal(isUnversioned(rewritten), true);
  // Without any hash, size and time stand in.
  assert.equal(parseEntry("p", { size: 7, lastModified: "t" }).v, "~7@t");
  assert.equal(parseEntry("p", { size: 7, sha256: "NOTHEX" }).h, "");
  for (const bad of [null, [], { size: -1 }, { size: 1.5 }, { sha256: SHA }]) {
    assert.throws(() => parseEntry("a/b", bad), /the entry of "a\/b" is malformed/);
  }
});

Deno.test("an untouched entry is written back byte for byte; a new one carries the sluice field", () => {
  const raw = { key: "p", size: 3, sha256: SHA, extra: "kept", sluice: { v: "e1", h: SHA } };
  assert.equal(serialiseEntry("p", parseEntry("p", raw), NOW), raw);
  const fresh: IndexEntry = { v: "e2", h: SHA, s: 3 };
  assert.deepEqual(serialiseEntry("p", fresh, NOW), {
    key: "p",
    size: 3,
    lastModified: NOW,
    sha256: SHA,
    sluice: { v: "e2", h: SHA },
  });
  assert.deepEqual(serialiseEntry("p", { v: "~x", h: SHA, s: 3 }, NOW), {
    key: "p",
    size: 3,
    lastModified: NOW,
    sha256: SHA,
  });
  assert.deepEqual(serialiseEntry("p", { v: "e3", h: "", s: 0 }, NOW), {
    key: "p",
    size: 0,
    lastModified: NOW,
  });
});

Deno.test("entry maps leave out internal paths; the v1 index and shards round-trip", () => {
  const entries = parseEntries({
    "a/b": { size: 1, sha256: SHA, sluice: { v: "v1", h: SHA } },
    "data/t/m/.lock": { size: 1 },
  });
  assert.deepEqual(Object.keys(entries), ["a/b"]);
  assert.throws(() => parseEntries([]), /not an object/);

  const mono = dec(monolithBody(entries, NOW));
  assert.equal(mono.version, 1);
  assert.equal(mono.lastPulled, NOW);
  assert.deepEqual(parseMonolith(monolithBody(entries, NOW)), entries);
  assert.throws(() => parseMonolith(enc({ version: 2, entries: {} })), /not a version 1 index/);
  assert.throws(() => parseMonolith(enc("{")), SyntaxError);

  assert.deepEqual(dec(shardBody(entries, NOW)).version, 1);
  assert.deepEqual(parseShard(shardBody(entries, NOW)), entries);
  assert.equal(parseShard(enc({ version: 2, entries: {} })), null);
  assert.throws(() => parseShard(enc([])), /not an object/);
});

Deno.test("the meta: v1 and v2 forms, unsafe partition names dropped, anything else null", () => {
  assert.deepEqual(parseMeta(enc({ version: 1, partitions: ["b", "a", "../x", "a/b", ".", 3] })), {
    version: 1,
    partitions: ["b", "a"],
  });
  const v2 = parseMeta(enc({ version: 2, partitions: ["z", "a"], commitSeq: 4, owner: "x" }));
  assert.equal(v2?.version, 2);
  assert.equal(v2?.version === 2 && v2.commitSeq, 4);
  for (
    const bad of [
      "{",
      { version: 2, partitions: [] },
      { version: 3, partitions: [] },
      { version: 1 },
      [],
    ]
  ) assert.equal(parseMeta(enc(bad)), null, JSON.stringify(bad));
  // Partitions are written sorted; a v2 meta keeps fields it does not know.
  assert.deepEqual(dec(metaBody(v2!)), {
    version: 2,
    partitions: ["a", "z"],
    commitSeq: 4,
    owner: "x",
  });
  assert.deepEqual(dec(metaBody({ version: 1, partitions: ["b", "a"] })), {
    version: 1,
    partitions: ["a", "b"],
  });
});

Deno.test("markerOfVersionFile: the latest marker of a data version's raw or metadata file, and nothing for any other path", () => {
  assert.equal(markerOfVersionFile("data/aws/m1/state/4/raw"), "data/aws/m1/state/latest");
  assert.equal(
    markerOfVersionFile("data/aws/ec2/vpc/m1/state/12/metadata.yaml"),
    "data/aws/ec2/vpc/m1/state/latest",
  );
  for (
    const p of [
      "data/aws/m1/state/latest",
      "data/aws/m1/state/4/other",
      "data/m1/state/4/raw",
      "data/aws/m1/state/x4/raw",
      "config/x.yaml",
      "outputs/a/b/c/1/raw",
    ]
  ) assert.equal(markerOfVersionFile(p), undefined, p);
});

Deno.test("index bodies written again reuse each entry's text only where it is the same: same path, and the same time for an entry of this commit", () => {
  const fresh: IndexEntry = { v: "v1", h: "a".repeat(64), s: 3 };
  const read = parseEntry("x/b", { key: "x/b", size: 1, lastModified: "2020-01-01T00:00:00.000Z" });
  const entries = { "x/a": fresh, "x/b": read };
  const at = (iso: string) => new TextDecoder().decode(shardBody(entries, iso));
  const first = at("2026-01-01T00:00:00.000Z");
  assert.equal(new TextDecoder().decode(shardBody(entries, "2026-01-01T00:00:00.000Z")), first);
  const later = JSON.parse(at("2026-02-02T00:00:00.000Z")).entries;
  assert.equal(
    later["x/a"].lastModified,
    "2026-02-02T00:00:00.000Z",
    "a new entry takes the new time",
  );
  assert.equal(later["x/b"].lastModified, "2020-01-01T00:00:00.000Z", "a read entry keeps its own");
  // The same entry object under another path is written under that path.
  const moved = JSON.parse(
    new TextDecoder().decode(shardBody({ "y/a": fresh }, "2026-02-02T00:00:00.000Z")),
  );
  assert.equal(moved.entries["y/a"].key, "y/a");
  assert.deepEqual(
    JSON.parse(new TextDecoder().decode(monolithBody(entries, "2026-02-02T00:00:00.000Z"))).entries,
    later,
  );
});

Deno.test("Sluice's own bucket objects sit where the layout's other clients' listings never look", () => {
  // Their rule for what a listing leaves out (isInternalCacheFile): the index
  // objects, `_index/`, `_control/`, and a few basenames. Anything else an
  // old client's discovery names in the index it writes, and its next
  // `migrate-index` refuses an entry it cannot partition.
  const leftOut = (rel: string) => {
    const base = rel.slice(rel.lastIndexOf("/") + 1);
    return [".datastore-index.json", ".push-queue.json", ".datastore.lock"].includes(rel) ||
      rel === ".datastore-sync-state.json" || /^(_index|_control)(\/|$)/.test(rel) ||
      base === ".lock" || base === ".namespace.json" || base.startsWith("_catalog.db");
  };
  for (const key of [CLOCK_PROBE_KEY, VANISHED_KEY, `${PROBE_PREFIX}k`]) {
    assert.ok(leftOut(key), key);
    assert.ok(isLayoutInternal(key), key);
  }
});
