import assert from "node:assert/strict";
import { MetadataPace } from "./metadata_pace.ts";

/** A clock that a write moves on by `ms`. */
function steppedClock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => t += ms };
}

Deno.test("auto turns asynchronous after the given number of slow writes, not before; fast ones do not count", () => {
  const clock = steppedClock();
  const pace = new MetadataPace({ slowMs: 0.5, slowWrites: 3, now: clock.now });
  for (let i = 0; i < 10; i++) pace.timed(() => clock.advance(0.4));
  assert.equal(pace.async, false, "fast writes never turn it");
  pace.timed(() => clock.advance(2));
  pace.timed(() => clock.advance(2));
  assert.equal(pace.async, false, "two slow writes of three");
  assert.equal(
    pace.timed(() => (clock.advance(2), "written")),
    "written",
    "timed returns the write's value",
  );
  assert.equal(pace.async, true);
  pace.reset();
  assert.equal(pace.async, false, "a new run starts synchronous again");
});

Deno.test("a write that throws is timed too, and its error passes through", () => {
  const clock = steppedClock();
  const pace = new MetadataPace({ slowWrites: 1, now: clock.now });
  assert.throws(
    () =>
      pace.timed(() => {
        clock.advance(5);
        throw new Error("disk full");
      }),
    /disk full/,
  );
  assert.equal(pace.async, true);
});

Deno.test("sync and async are fixed whatever the writes take; the defaults are auto, 0.5 ms and 8 writes", () => {
  const clock = steppedClock();
  const sync = new MetadataPace({ mode: "sync", slowWrites: 1, now: clock.now });
  sync.timed(() => clock.advance(100));
  assert.equal(sync.async, false);
  const async = new MetadataPace({ mode: "async", now: clock.now });
  assert.equal(async.async, true);
  async.reset();
  assert.equal(async.async, true);
  const auto = new MetadataPace({ now: clock.now });
  for (let i = 0; i < 7; i++) auto.timed(() => clock.advance(0.6));
  auto.timed(() => clock.advance(0.5));
  assert.equal(auto.async, false, "0.5 ms is not slow, and 7 slow writes are not 8");
  auto.timed(() => clock.advance(0.6));
  assert.equal(auto.async, true);
});
