import assert from "node:assert/strict";
import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
import { AbortedError, PreconditionFailedError, UnreachableError } from "../errors.ts";
import {
  CLOCK_PROBE_KEY,
  LEGACY_CLOCK_PROBE_KEY,
  measureStoreClock,
  storeClockOffset,
  storeNow,
} from "./store_clock.ts";

async function keys(store: InMemoryStore): Promise<string[]> {
  const out: string[] = [];
  for await (const page of store.list("")) out.push(...page.map((o) => o.key));
  return out;
}

Deno.test("the store's clock is read from its stamp on a write over the one probe object", async () => {
  const here = new FakeClock();
  const store = new InMemoryStore({ clock: new FakeClock(here.now() + 45_000) });
  const stamp = await measureStoreClock(store, here);
  assert.deepEqual(stamp, { stamped: here.now() + 45_000, answered: here.now() });
  assert.equal(storeClockOffset(stamp!), 45_000);
  assert.equal(await storeNow(store, here), here.now() + 45_000);
  assert.deepEqual(store.log.map((r) => `${r.op} ${r.key} ${r.outcome}`), [
    `put ${CLOCK_PROBE_KEY} ok`,
    `head ${LEGACY_CLOCK_PROBE_KEY} ok`, // an earlier release's probe object, looked for once
    `put ${CLOCK_PROBE_KEY} ok`,
  ]);
  assert.deepEqual(await keys(store), [CLOCK_PROBE_KEY], "one object, however many probes");
});

Deno.test("a refused probe write gives no stamp; one that did not get through throws (storeNow, for display, takes this machine's clock for both)", async () => {
  const here = new FakeClock();
  const store = new InMemoryStore({ clock: new FakeClock(here.now() - 10_000) });
  store.failNext("put", 1, () => new PreconditionFailedError("refused"));
  assert.equal(await measureStoreClock(store, here), null);
  store.failNext("put", 1, () => new UnreachableError("down"));
  await assert.rejects(measureStoreClock(store, here), UnreachableError);
  store.failNext("put", 1, () => new UnreachableError("down"));
  assert.equal(await storeNow(store, here), here.now());
  assert.equal((await measureStoreClock(store, here))?.stamped, here.now() - 10_000);
});

Deno.test("an aborted probe throws AbortedError", async () => {
  const here = new FakeClock();
  const store = new InMemoryStore({ clock: here });
  const abort = new AbortController();
  abort.abort();
  await assert.rejects(measureStoreClock(store, here, abort.signal), AbortedError);
});

Deno.test("the probe removes an earlier release's probe object (.sluice/clock), once per store", async () => {
  const clock = new FakeClock();
  const store = new InMemoryStore({ clock });
  store.seed(LEGACY_CLOCK_PROBE_KEY, "clock probe\n");
  await measureStoreClock(store, clock);
  assert.deepEqual(store.keys(), [CLOCK_PROBE_KEY]);
  await measureStoreClock(store, clock);
  assert.equal(store.count("delete"), 1, "once");
  assert.equal(store.count("head"), 1, "looked for once");
});
