/**
 * The contract every {@link ObjectStore} must pass, as a set of `Deno.test`
 * cases. Backends run it in their unit tests (in-memory, local directory) and
 * in integration tests against real servers (S3, GCS).
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  AbortedError,
  AlreadyExistsError,
  NotFoundError,
  PreconditionFailedError,
} from "../../sync/errors.ts";
import { type ObjectInfo, type ObjectStore, PutModes } from "../../sync/ports.ts";
import { randomId } from "../../sync/hash.ts";

/** What a store factory hands the suite: a fresh store and how to tidy up after it. */
export interface StoreUnderTest {
  /** The store to exercise. */
  readonly store: ObjectStore;
  /** Called after the case, also when it failed. */
  readonly cleanup?: () => Promise<void>;
}

/** Options of {@link storeContract}. */
export interface StoreContractOptions {
  /** Passed to every `Deno.test` (real SDK clients keep sockets open: pass false). */
  readonly sanitizeResources?: boolean;
  /** Passed to every `Deno.test`. */
  readonly sanitizeOps?: boolean;
  /** Skips the whole suite (e.g. when a server is not available). */
  readonly ignore?: boolean;
  /** Case names (without the `${name}: ` prefix) to skip. */
  readonly skip?: readonly string[];
  /** Writers in the compare-and-swap race; default 5. */
  readonly raceWriters?: number;
  /** Increments per writer in the race; default 10. */
  readonly raceIncrements?: number;
  /** Size of the large-body case; default 1 MiB. */
  readonly largeBodyBytes?: number;
}

type Case = (store: ObjectStore, p: string, options: StoreContractOptions) => Promise<void>;

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

async function text(store: ObjectStore, key: string): Promise<string> {
  return dec((await store.get(key)).body);
}

async function collect(
  store: ObjectStore,
  prefix: string,
  pageSize?: number,
): Promise<ObjectInfo[][]> {
  const pages: ObjectInfo[][] = [];
  for await (const page of store.list(prefix, { pageSize })) pages.push([...page]);
  return pages;
}

function assertVersion(v: string): void {
  assert.equal(typeof v, "string");
  assert.ok(v.length > 0, "version is empty");
  assert.ok(!v.includes('"'), `version ${v} is not normalised (has quotes)`);
}

/** The cases, by name. Every case works under a fresh random key prefix `p`. */
export const STORE_CONTRACT_CASES: Readonly<Record<string, Case>> = {
  "put, get and head round-trip bytes and metadata": async (store, p) => {
    const key = `${p}round/trip.txt`;
    const put = await store.put(key, enc("hello"), PutModes.overwrite, {
      metadata: { owner: "alice", "x-kind": "note" },
    });
    assert.equal(put.key, key);
    assert.equal(put.size, 5);
    assertVersion(put.version);
    const got = await store.get(key);
    assert.equal(dec(got.body), "hello");
    assert.equal(got.version, put.version);
    assert.equal(got.size, 5);
    assert.equal(got.metadata?.owner, "alice");
    assert.equal(got.metadata?.["x-kind"], "note");
    assert.ok(got.lastModified > 0);
    const head = await store.head(key);
    assert.ok(head);
    assert.equal(head.key, key);
    assert.equal(head.version, put.version);
    assert.equal(head.size, 5);
    assert.equal(head.metadata?.owner, "alice");
  },

  "versions are normalised and change on every write": async (store, p) => {
    const key = `${p}versions`;
    const seen = new Set<string>();
    let info = await store.put(key, enc("1"), PutModes.create);
    seen.add(info.version);
    info = await store.put(key, enc("2"), PutModes.overwrite);
    seen.add(info.version);
    info = await store.put(key, enc("3"), PutModes.update(info.version));
    seen.add(info.version);
    await store.delete(key, { ifVersion: info.version });
    info = await store.put(key, enc("4"), PutModes.create);
    seen.add(info.version);
    for (const v of seen) assertVersion(v);
    assert.equal(seen.size, 4, `versions repeated: ${[...seen].join(", ")}`);
    assert.equal((await store.head(key))?.version, info.version);
  },

  "create of an existing key is AlreadyExists and keeps the bytes": async (store, p) => {
    const key = `${p}create/once`;
    const first = await store.put(key, enc("first"), PutModes.create);
    await assert.rejects(store.put(key, enc("second"), PutModes.create), AlreadyExistsError);
    assert.equal(await text(store, key), "first");
    assert.equal((await store.head(key))?.version, first.version);
  },

  "update with the current version succeeds": async (store, p) => {
    const key = `${p}update/ok`;
    const v1 = await store.put(key, enc("one"), PutModes.create);
    const v2 = await store.put(key, enc("two"), PutModes.update(v1.version));
    assert.notEqual(v2.version, v1.version);
    const got = await store.get(key);
    assert.equal(dec(got.body), "two");
    assert.equal(got.version, v2.version);
  },

  "update with a stale version is PreconditionFailed and keeps the bytes": async (store, p) => {
    const key = `${p}update/stale`;
    const v1 = await store.put(key, enc("one"), PutModes.create);
    const v2 = await store.put(key, enc("two"), PutModes.update(v1.version));
    await assert.rejects(
      store.put(key, enc("three"), PutModes.update(v1.version)),
      PreconditionFailedError,
    );
    const got = await store.get(key);
    assert.equal(dec(got.body), "two");
    assert.equal(got.version, v2.version);
  },

  "update of a missing key is PreconditionFailed": async (store, p) => {
    const key = `${p}update/missing`;
    await assert.rejects(
      store.put(key, enc("x"), PutModes.update("no-such-version")),
      PreconditionFailedError,
    );
    assert.equal(await store.head(key), null);
  },

  "delete with a stale version is PreconditionFailed and keeps the object": async (store, p) => {
    const key = `${p}delete/stale`;
    const v1 = await store.put(key, enc("one"), PutModes.create);
    const v2 = await store.put(key, enc("two"), PutModes.update(v1.version));
    await assert.rejects(store.delete(key, { ifVersion: v1.version }), PreconditionFailedError);
    assert.equal((await store.head(key))?.version, v2.version);
  },

  "delete with the current version removes the object": async (store, p) => {
    const key = `${p}delete/ok`;
    const v1 = await store.put(key, enc("one"), PutModes.create);
    await store.delete(key, { ifVersion: v1.version });
    assert.equal(await store.head(key), null);
  },

  "delete of a missing key without ifVersion succeeds": async (store, p) => {
    await store.delete(`${p}delete/never-written`);
    const key = `${p}delete/twice`;
    await store.put(key, enc("x"), PutModes.overwrite);
    await store.delete(key);
    await store.delete(key);
    assert.equal(await store.head(key), null);
  },

  "get of a missing key is NotFound and head is null": async (store, p) => {
    const key = `${p}missing/key`;
    await assert.rejects(store.get(key), NotFoundError);
    assert.equal(await store.head(key), null);
  },

  "list paginates in key order and filters by prefix": async (store, p) => {
    const keys = ["e", "a", "c/d", "b", "c/a"].map((k) => `${p}list/${k}`);
    for (const k of keys) await store.put(k, enc(k), PutModes.create);
    await store.put(`${p}listx/other`, enc("o"), PutModes.create);
    await store.put(`${p}zz/outside`, enc("z"), PutModes.create);
    const pages = await collect(store, `${p}list/`, 2);
    assert.deepEqual(pages.map((pg) => pg.length), [2, 2, 1]);
    assert.deepEqual(pages.flat().map((i) => i.key), [...keys].sort());
    for (const info of pages.flat()) {
      assertVersion(info.version);
      assert.equal(info.size, new TextEncoder().encode(info.key).length);
    }
    const partial = (await collect(store, `${p}list`)).flat().map((i) => i.key);
    assert.deepEqual(partial, [...keys, `${p}listx/other`].sort());
    assert.deepEqual(await collect(store, `${p}nothing-here/`), []);
  },

  "empty and large bodies round-trip": async (store, p, options) => {
    const empty = await store.put(`${p}body/empty`, new Uint8Array(0), PutModes.create);
    assert.equal(empty.size, 0);
    const gotEmpty = await store.get(`${p}body/empty`);
    assert.equal(gotEmpty.body.length, 0);
    assert.equal(gotEmpty.size, 0);
    const n = options.largeBodyBytes ?? 1024 * 1024;
    const big = new Uint8Array(n);
    for (let i = 0; i < n; i++) big[i] = (i * 31 + (i >> 10)) & 0xff;
    const put = await store.put(`${p}body/large`, big, PutModes.create);
    assert.equal(put.size, n);
    const got = await store.get(`${p}body/large`);
    assert.equal(got.size, n);
    assert.ok(
      got.body.length === n && got.body.every((b, i) => b === big[i]),
      "large body differs",
    );
  },

  "an aborted signal is AbortedError and writes nothing": async (store, p) => {
    const signal = AbortSignal.abort();
    const key = `${p}aborted`;
    await assert.rejects(store.put(key, enc("x"), PutModes.create, { signal }), AbortedError);
    await assert.rejects(store.get(key, { signal }), AbortedError);
    assert.equal(await store.head(key), null);
  },

  "concurrent compare-and-swap increments lose nothing": async (store, p, options) => {
    const key = `${p}race/counter`;
    const writers = options.raceWriters ?? 5;
    const increments = options.raceIncrements ?? 10;
    await store.put(key, enc("0"), PutModes.create);
    const writer = async () => {
      for (let i = 0; i < increments; i++) {
        for (let attempt = 0;; attempt++) {
          assert.ok(attempt < 1000, "a writer never got its update through");
          const cur = await store.get(key);
          const next = Number.parseInt(dec(cur.body), 10) + 1;
          try {
            await store.put(key, enc(String(next)), PutModes.update(cur.version));
            break;
          } catch (e) {
            if (!(e instanceof PreconditionFailedError)) throw e;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: writers }, writer));
    assert.equal(await text(store, key), String(writers * increments));
  },
};

/**
 * Registers the store contract: one `Deno.test` per case, named
 * `${name}: <case>`, each on a fresh store from `makeStore` and under a fresh
 * random key prefix (so a shared bucket works too).
 *
 * @example In a `*_test.ts` file:
 * ```ts ignore
 * import { InMemoryStore, storeContract } from "./mod.ts";
 * storeContract("InMemoryStore", () => Promise.resolve({ store: new InMemoryStore() }));
 * ```
 */
export function storeContract(
  name: string,
  makeStore: () => Promise<StoreUnderTest>,
  options: StoreContractOptions = {},
): void {
  for (const [caseName, run] of Object.entries(STORE_CONTRACT_CASES)) {
    Deno.test({
      name: `${name}: ${caseName}`,
      ignore: options.ignore || (options.skip?.includes(caseName) ?? false),
      sanitizeResources: options.sanitizeResources,
      sanitizeOps: options.sanitizeOps,
      fn: async () => {
        const { store, cleanup } = await makeStore();
        try {
          await run(store, `contract-${randomId(4)}/`, options);
        } finally {
          await cleanup?.();
        }
      },
    });
  }
}
