/**
 * What `deleteUploads` reads before it acts: the entry an index read names
 * at a path (`entryOf`), and the look at each upload journaled before its
 * version was known (`lookedAt`).
 */
import assert from "node:assert/strict";
import { AbortedError } from "../sync/errors.ts";
import { PutModes } from "../sync/ports.ts";
import { InMemoryStore } from "../packages/testing/mod.ts";
import { UNLOOKED } from "./erasure_journal.ts";
import { type DeleteOutcome, entryOf, lookedAt, ONE_TRY } from "./erasure_upload_looks.ts";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const none = (): DeleteOutcome => ({ deleted: [], kept: [], pending: [], restored: [] });
/** Bytes at `path` written by the cache whose writer id is `writer`. */
const written = (store: InMemoryStore, path: string, writer: string) =>
  store.put(path, enc(path), PutModes.create, { metadata: { "sluice-writer": writer } });

Deno.test("ONE_TRY makes one attempt and waits for none", () => {
  assert.deepEqual(ONE_TRY, { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 });
});

Deno.test("entryOf takes the index's own entry first, then the unlisted shards', and nothing inherited", () => {
  const listed = { v: "1", h: "a", s: 1 };
  const unlisted = { v: "2", h: "b", s: 2 };
  const at = {
    entries: { "data/x": listed },
    unlisted: new Map([["data/x", unlisted], ["data/y", unlisted]]),
  };
  assert.equal(entryOf(at, "data/x"), listed);
  assert.equal(entryOf(at, "data/y"), unlisted);
  assert.equal(entryOf(at, "data/z"), undefined);
  assert.equal(entryOf(at, "toString"), undefined);
});

Deno.test("lookedAt passes known versions through and takes an unlooked upload at the version of this cache's object there", async () => {
  const store = new InMemoryStore();
  const mine = await written(store, "data/mine", "me");
  const out = none();
  const known = await lookedAt(
    store,
    [
      { path: "data/known", version: "v7" },
      { path: "data/mine", version: UNLOOKED },
    ],
    "me",
    out,
  );
  assert.deepEqual(known, [
    { path: "data/known", version: "v7" },
    { path: "data/mine", version: mine.version },
  ]);
  assert.deepEqual(out, none());
  assert.equal(store.count("head"), 1, "only the unlooked upload is looked at");
});

Deno.test("lookedAt keeps an unlooked upload whose path holds nothing or another writer's object, or that no writer id can claim", async () => {
  const store = new InMemoryStore();
  await written(store, "data/theirs", "peer");
  await written(store, "data/mine", "me");
  const out = none();
  const uploads = [
    { path: "data/gone", version: UNLOOKED },
    { path: "data/theirs", version: UNLOOKED },
  ];
  assert.deepEqual(await lookedAt(store, uploads, "me", out), []);
  assert.deepEqual(out, { ...none(), kept: ["data/gone", "data/theirs"] });
  const anonymous = none();
  const mine = [{ path: "data/mine", version: UNLOOKED }];
  assert.deepEqual(await lookedAt(store, mine, null, anonymous), []);
  assert.deepEqual(anonymous, { ...none(), kept: ["data/mine"] });
});

Deno.test("lookedAt leaves an unlooked upload pending when its look fails, and gives up at once when aborted", async () => {
  const store = new InMemoryStore();
  await written(store, "data/a", "me");
  const b = await written(store, "data/b", "me");
  store.failNext("head", 1, undefined, { match: (k) => k === "data/a" });
  const out = none();
  const known = await lookedAt(
    store,
    [
      { path: "data/a", version: UNLOOKED },
      { path: "data/b", version: UNLOOKED },
    ],
    "me",
    out,
  );
  assert.deepEqual(known, [{ path: "data/b", version: b.version }]);
  assert.deepEqual(out, { ...none(), pending: [{ path: "data/a", version: UNLOOKED }] });
  const aborted = new AbortController();
  aborted.abort();
  const after = none();
  await assert.rejects(
    lookedAt(store, [{ path: "data/a", version: UNLOOKED }], "me", after, aborted.signal),
    AbortedError,
  );
  assert.deepEqual(after, none());
});
