import assert from "node:assert/strict";
import { AbortedError } from "../../sync/errors.ts";
import { FakeClock, shiftedClock } from "./fake_clock.ts";
import { waitFor } from "./wait_for.ts";

Deno.test("FakeClock: starts at the given time and moves only when told", async () => {
  const clock = new FakeClock(1_000);
  assert.equal(clock.now(), 1_000);
  await clock.advance(250);
  assert.equal(clock.now(), 1_250);
  clock.set(5_000);
  assert.equal(clock.now(), 5_000);
  assert.equal(new FakeClock().now(), Date.UTC(2026, 0, 1));
});

Deno.test("FakeClock: timers fire in time order inside advance, at their due time", async () => {
  const clock = new FakeClock(0);
  const fired: string[] = [];
  clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
  clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
  clock.setTimeout(() => fired.push(`c@${clock.now()}`), 20);
  clock.setTimeout(() => fired.push("late"), 31);
  assert.equal(clock.pendingTimers, 4);
  await clock.advance(30);
  assert.deepEqual(fired, ["a@10", "b@20", "c@20"]);
  assert.equal(clock.pendingTimers, 1);
  assert.equal(clock.now(), 30);
});

Deno.test("FakeClock: a timer scheduled by a timer fires in the same advance when due", async () => {
  const clock = new FakeClock(0);
  const fired: number[] = [];
  const tick = () => {
    fired.push(clock.now());
    if (fired.length < 5) clock.setTimeout(tick, 10);
  };
  clock.setTimeout(tick, 10);
  await clock.advance(35);
  assert.deepEqual(fired, [10, 20, 30]);
  await clock.advance(100);
  assert.deepEqual(fired, [10, 20, 30, 40, 50]);
});

Deno.test("FakeClock: clearTimeout cancels; set does not fire timers", async () => {
  const clock = new FakeClock(0);
  let fired = 0;
  const h = clock.setTimeout(() => fired++, 10);
  clock.setTimeout(() => fired++, 50);
  clock.clearTimeout(h);
  clock.set(100);
  assert.equal(fired, 0);
  await clock.advance(0);
  assert.equal(fired, 1);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("FakeClock: sleep resolves after advance and lets awaiting code run", async () => {
  const clock = new FakeClock(0);
  const steps: number[] = [];
  const task = (async () => {
    await clock.sleep(100);
    steps.push(clock.now());
    await clock.sleep(100);
    steps.push(clock.now());
  })();
  await clock.advance(99);
  assert.deepEqual(steps, []);
  await clock.advance(1);
  assert.deepEqual(steps, [100]);
  await clock.advance(100);
  await task;
  assert.deepEqual(steps, [100, 200]);
});

Deno.test("FakeClock: sleep rejects with AbortedError when aborted, before or during", async () => {
  const clock = new FakeClock(0);
  await assert.rejects(clock.sleep(10, AbortSignal.abort()), AbortedError);
  const ctl = new AbortController();
  const sleeping = clock.sleep(1_000, ctl.signal);
  assert.equal(clock.pendingTimers, 1);
  ctl.abort();
  await assert.rejects(sleeping, AbortedError);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("waitFor: advances a fake clock until the predicate holds", async () => {
  const clock = new FakeClock(0);
  let ready = false;
  clock.setTimeout(() => (ready = true), 95);
  await waitFor(() => ready, { clock, stepMs: 10 });
  assert.equal(clock.now(), 100);
});

Deno.test("waitFor: accepts an async predicate", async () => {
  const clock = new FakeClock(0);
  let calls = 0;
  await waitFor(() => Promise.resolve(++calls >= 3), { clock });
  assert.equal(calls, 3);
  assert.equal(clock.now(), 20);
});

Deno.test("waitFor: times out on the fake clock with the message", async () => {
  const clock = new FakeClock(0);
  await assert.rejects(
    waitFor(() => false, { clock, timeoutMs: 50, realTimeoutMs: 0, message: "never ready" }),
    /timed out after 50 ms: never ready/,
  );
  assert.equal(clock.now(), 50);
});

Deno.test("waitFor: without a clock, returns at once when already true and times out at 0", async () => {
  await waitFor(() => true);
  await assert.rejects(waitFor(() => false, { timeoutMs: 0 }), /timed out after 0 ms/);
});

Deno.test("shiftedClock reads its base off by a fixed amount and fires on the base's timers", async () => {
  const base = new FakeClock(1_000);
  const ahead = shiftedClock(base, 60_000);
  const behind = shiftedClock(base, -500);
  assert.deepEqual([ahead.now(), behind.now()], [61_000, 500]);
  let fired = false;
  ahead.setTimeout(() => (fired = true), 100);
  await base.advance(100);
  assert.ok(fired);
  assert.equal(ahead.now(), 61_100);
});

Deno.test("waitFor: with a fake clock, waits on in real time for work that is not the clock's (slow I/O on a busy machine) once the fake time is spent", async () => {
  const clock = new FakeClock();
  let ready = false;
  // Real work that takes longer than the fake budget's few turns of the event loop.
  const io = new Promise<void>((resolve) => setTimeout(resolve, 200)).then(() => (ready = true));
  await waitFor(() => ready, { clock, timeoutMs: 20, stepMs: 10 });
  await io;
  assert.equal(ready, true);
});
