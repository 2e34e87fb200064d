import assert from "node:assert/strict";
import {
  AbortedError,
  AlreadyExistsError,
  NotImplementedError,
  PreconditionFailedError,
  UnreachableError,
} from "../../sync/errors.ts";
import { PutModes } from "../../sync/ports.ts";
import { FakeClock } from "./fake_clock.ts";
import { InMemoryStore } from "./in_memory_store.ts";
import { storeContract } from "./store_contract.ts";
import { waitFor } from "./wait_for.ts";

storeContract("InMemoryStore", () => Promise.resolve({ store: new InMemoryStore() }));

const enc = (s: string) => new TextEncoder().encode(s);

Deno.test("InMemoryStore: unreachable fails every call until healed", async () => {
  const store = new InMemoryStore();
  store.seed("k", "v");
  store.unreachable = true;
  await assert.rejects(store.get("k"), UnreachableError);
  await assert.rejects(store.head("k"), UnreachableError);
  await assert.rejects(store.put("k", enc("w"), PutModes.overwrite), UnreachableError);
  await assert.rejects(store.delete("k"), UnreachableError);
  await assert.rejects(Array.fromAsync(store.list("")), UnreachableError);
  assert.equal(store.peekText("k"), "v");
  store.heal();
  assert.equal((await store.head("k"))?.size, 1);
});

Deno.test("InMemoryStore: failNext fails before the effect by default", async () => {
  const store = new InMemoryStore();
  store.failNext("put", 2);
  await assert.rejects(store.put("a", enc("1"), PutModes.create), UnreachableError);
  await assert.rejects(store.put("a", enc("1"), PutModes.create), UnreachableError);
  assert.equal(store.peek("a"), undefined);
  await store.put("a", enc("1"), PutModes.create);
  assert.equal(store.peekText("a"), "1");
});

Deno.test("InMemoryStore: failNext with afterEffect writes, then fails (a lost response)", async () => {
  const store = new InMemoryStore();
  store.failNext("put", 1, () => new Error("response lost"), { afterEffect: true });
  await assert.rejects(store.put("a", enc("1"), PutModes.create), /response lost/);
  assert.equal(store.peekText("a"), "1");
  await assert.rejects(store.put("a", enc("2"), PutModes.create), AlreadyExistsError);
});

Deno.test("InMemoryStore: failNext with match only hits matching keys", async () => {
  const store = new InMemoryStore();
  store.failNext("get", 1, undefined, { match: (k) => k.endsWith(".lock") });
  store.seed("a", "1");
  store.seed("m/.lock", "2");
  assert.equal((await store.get("a")).size, 1);
  await assert.rejects(store.get("m/.lock"), UnreachableError);
  assert.equal((await store.get("m/.lock")).size, 1);
});

Deno.test("InMemoryStore: ignore mode silently writes through preconditions", async () => {
  const store = new InMemoryStore();
  store.conditionalMode = "ignore";
  await store.put("k", enc("1"), PutModes.create);
  await store.put("k", enc("2"), PutModes.create);
  assert.equal(store.peekText("k"), "2");
  await store.put("k", enc("3"), PutModes.update("stale"));
  assert.equal(store.peekText("k"), "3");
  await store.delete("k", { ifVersion: "stale" });
  assert.equal(store.peek("k"), undefined);
});

Deno.test("InMemoryStore: refuse mode answers NotImplemented to conditional calls only", async () => {
  const store = new InMemoryStore();
  store.conditionalMode = "refuse";
  await assert.rejects(store.put("k", enc("1"), PutModes.create), NotImplementedError);
  const info = await store.put("k", enc("1"), PutModes.overwrite);
  await assert.rejects(
    store.put("k", enc("2"), PutModes.update(info.version)),
    NotImplementedError,
  );
  await assert.rejects(store.delete("k", { ifVersion: info.version }), NotImplementedError);
  assert.equal(store.peekText("k"), "1");
  await store.delete("k");
  assert.equal(store.peek("k"), undefined);
});

Deno.test("InMemoryStore: honour mode refuses a stale update", async () => {
  const store = new InMemoryStore();
  const v1 = store.seed("k", "1");
  store.seed("k", "2");
  await assert.rejects(
    store.put("k", enc("3"), PutModes.update(v1.version)),
    PreconditionFailedError,
  );
});

Deno.test("InMemoryStore: the request log counts calls and outcomes", async () => {
  const store = new InMemoryStore();
  await store.put("a", enc("1"), PutModes.create);
  await assert.rejects(store.put("a", enc("1"), PutModes.create), AlreadyExistsError);
  await store.get("a");
  await store.head("b");
  await store.delete("a");
  assert.equal(store.count(), 5);
  assert.equal(store.count("put"), 2);
  assert.equal(store.count("get"), 1);
  assert.deepEqual(store.log[1], { op: "put", key: "a", mode: "create", outcome: "error" });
  assert.deepEqual(store.log[4], { op: "delete", key: "a", mode: undefined, outcome: "ok" });
  store.resetLog();
  assert.equal(store.count(), 0);
});

Deno.test("InMemoryStore: list uses the store's page size and logs one call per page", async () => {
  const store = new InMemoryStore({ pageSize: 3 });
  for (const k of ["p/5", "p/1", "p/3", "p/2", "p/4", "q/1"]) store.seed(k, k);
  store.resetLog();
  const pages = await Array.fromAsync(store.list("p/"));
  assert.deepEqual(pages.map((pg) => pg.map((i) => i.key)), [["p/1", "p/2", "p/3"], [
    "p/4",
    "p/5",
  ]]);
  assert.equal(store.count("list"), 2);
  assert.deepEqual(store.keys("q/"), ["q/1"]);
});

Deno.test("InMemoryStore: latency waits on the injected clock, last-modified comes from it", async () => {
  const clock = new FakeClock(1_000);
  const store = new InMemoryStore({ clock });
  store.latencyMs = 200;
  let done = false;
  const put = store.put("k", enc("1"), PutModes.create).then((info) => {
    done = true;
    return info;
  });
  await clock.advance(100);
  assert.equal(done, false);
  await waitFor(() => done, { clock });
  assert.equal((await put).lastModified, 1_200);
  store.touch("k", 5);
  store.latencyMs = 0;
  assert.equal((await store.head("k"))?.lastModified, 5);
});

Deno.test("getStream's body errors with AbortedError once the caller's signal aborts", async () => {
  const store = new InMemoryStore();
  await store.put("k", new Uint8Array(3 * 1024 * 1024), PutModes.overwrite);
  const controller = new AbortController();
  const got = await store.getStream("k", { signal: controller.signal });
  const reader = got.body.getReader();
  await reader.read();
  controller.abort();
  await assert.rejects(reader.read(), AbortedError);
});
