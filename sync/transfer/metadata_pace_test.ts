import assert from "node:assert/strict";
import { mainThreadHeldMs, MetadataPace } from "./metadata_pace.ts";

/** A clock that a write moves on by `ms`. */
function steppedClock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => t += ms };
}

Deno.test("auto turns asynchronous once most of the recent writes are slow, not before", () => {
  const clock = steppedClock();
  const pace = new MetadataPace({ slowMs: 0.5, window: 4, minWrites: 3, now: clock.now });
  for (let i = 0; i < 10; i++) pace.timed(() => clock.advance(0.4));
  assert.equal(pace.async, false, "fast writes never turn it");
  pace.timed(() => clock.advance(2));
  pace.timed(() => clock.advance(2));
  assert.equal(pace.async, false, "two slow writes of the last four: not most");
  assert.equal(
    pace.timed(() => (clock.advance(2), "written")),
    "written",
    "timed returns the write's value",
  );
  assert.equal(pace.async, true, "three of the last four");
  pace.reset();
  assert.equal(pace.async, false, "a new run starts synchronous again");
});

Deno.test("slow writes here and there among fast ones (a busy machine, not a slow filesystem) never turn it", () => {
  const clock = steppedClock();
  const pace = new MetadataPace({ now: clock.now });
  for (let i = 0; i < 2000; i++) pace.timed(() => clock.advance(i % 10 === 0 ? 5 : 0.05));
  for (let i = 0; i < 8; i++) pace.timed(() => clock.advance(30));
  for (let i = 0; i < 100; i++) pace.timed(() => clock.advance(i % 4 === 0 ? 2 : 0.05));
  assert.equal(pace.async, false);
});

Deno.test("a write that throws is timed too, and its error passes through", () => {
  const clock = steppedClock();
  const pace = new MetadataPace({ minWrites: 1, now: clock.now });
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

Deno.test("sync and async are fixed whatever the writes take; the defaults are auto, 0.5 ms, 8 writes at least, of the last 32", () => {
  const clock = steppedClock();
  const sync = new MetadataPace({ mode: "sync", minWrites: 1, now: clock.now });
  sync.timed(() => clock.advance(100));
  assert.equal(sync.async, false);
  const async = new MetadataPace({ mode: "async", now: clock.now });
  assert.equal(async.async, true);
  async.reset();
  assert.equal(async.async, true);
  const auto = new MetadataPace({ now: clock.now });
  for (let i = 0; i < 7; i++) auto.timed(() => clock.advance(0.6));
  assert.equal(auto.async, false, "7 writes are fewer than 8");
  auto.timed(() => clock.advance(0.1));
  assert.equal(auto.async, true, "7 slow of 8");
  const exact = new MetadataPace({ now: clock.now });
  for (let i = 0; i < 8; i++) exact.timed(() => clock.advance(0.5));
  assert.equal(exact.async, false, "0.5 ms is not slow");
  const windowed = new MetadataPace({ now: clock.now });
  for (let i = 0; i < 16; i++) windowed.timed(() => clock.advance(0.1));
  for (let i = 0; i < 16; i++) windowed.timed(() => clock.advance(1));
  assert.equal(windowed.async, false, "16 slow of 32: not most");
  windowed.timed(() => clock.advance(1));
  assert.equal(windowed.async, true, "the oldest fast write left the window: 17 of 32");
});

Deno.test("what the process spent on the CPU during a write is not waiting: slow writes that computed never turn it, slow writes that waited do", () => {
  const clock = steppedClock();
  let cpu = 0;
  const busy = new MetadataPace({ now: clock.now, cpu: () => cpu });
  // 2 ms each, 1.9 of them on the CPU (a filesystem computing in the kernel).
  for (let i = 0; i < 100; i++) busy.timed(() => (clock.advance(2), cpu += 1.9));
  assert.equal(busy.async, false, "0.1 ms waited each");
  const waiting = new MetadataPace({ now: clock.now, cpu: () => cpu });
  // 2 ms each, 0.1 of them on the CPU (a network mount answering).
  for (let i = 0; i < 8; i++) waiting.timed(() => (clock.advance(2), cpu += 0.1));
  assert.equal(waiting.async, true, "1.9 ms waited each");
});

Deno.test("the CPU time is read once for a write that took no longer than slowMs (it cannot have waited longer), twice for one that did", () => {
  const clock = steppedClock();
  let reads = 0;
  let cpu = 0;
  const pace = new MetadataPace({
    now: clock.now,
    cpu: () => (reads++, cpu),
    minWrites: 1,
    window: 1,
  });
  pace.timed(() => clock.advance(0.5));
  assert.equal(reads, 1, "a fast write: read at its start only");
  assert.equal(pace.async, false);
  pace.timed(() => (clock.advance(2), cpu += 1.9));
  assert.equal(reads, 3, "a slow write: read at its start and end");
  assert.equal(pace.async, false, "1.9 of its 2 ms on the CPU: not slow");
  pace.timed(() => (clock.advance(2), cpu += 0.1));
  assert.equal(pace.async, true, "1.9 ms waited");
});

Deno.test("a turn is confirmed first where the thread's time running and waiting for a core is known: writes that waited for a core do not turn it", () => {
  const clock = steppedClock();
  let held = 0;
  let heldReads = 0;
  const pace = new MetadataPace({ now: clock.now, cpu: () => 0, held: () => (heldReads++, held) });
  // 2 ms each, 1.95 of them ready to run with no core free (a loaded machine, a fast filesystem).
  const queued = () => (clock.advance(2), held += 1.95);
  for (let i = 0; i < 8; i++) pace.timed(queued);
  assert.equal(pace.async, false, "8 slow writes by the CPU time: not turned before confirming");
  assert.equal(heldReads, 0, "the cheap writes do not read the thread's time");
  for (let i = 0; i < 8; i++) pace.timed(queued);
  assert.equal(heldReads, 16, "8 confirming writes, read at start and end");
  assert.equal(pace.async, false, "0.05 ms waited each: not confirmed");
  for (let i = 0; i < 31; i++) pace.timed(queued);
  assert.equal(
    heldReads,
    16,
    "after a turn not confirmed, a whole window is weighed before confirming again",
  );
  pace.timed(queued);
  for (let i = 0; i < 8; i++) pace.timed(queued);
  assert.equal(heldReads, 32, "a full window of slow writes: confirmed again");
  assert.equal(pace.async, false);
});

Deno.test("a turn confirmed by writes that waited on the filesystem turns it, after the confirming writes and not before", () => {
  const clock = steppedClock();
  let held = 0;
  const pace = new MetadataPace({ now: clock.now, cpu: () => 0, held: () => held });
  // 2 ms each, 0.1 of them running or ready to run (a network mount answering).
  const waiting = () => (clock.advance(2), held += 0.1);
  for (let i = 0; i < 8 + 7; i++) pace.timed(waiting);
  assert.equal(pace.async, false, "7 of the 8 confirming writes");
  pace.timed(waiting);
  assert.equal(pace.async, true, "confirmed: 8 slow of 8");
  pace.reset();
  assert.equal(pace.async, false, "a new run starts synchronous");
});

Deno.test("where the thread's time cannot be read, the turn is not held back", () => {
  const clock = steppedClock();
  const pace = new MetadataPace({ now: clock.now, cpu: () => 0, held: () => undefined });
  for (let i = 0; i < 8; i++) pace.timed(() => clock.advance(2));
  assert.equal(pace.async, false);
  pace.timed(() => clock.advance(2));
  assert.equal(pace.async, true, "the first confirming write finds no time to read and turns it");
});

Deno.test("mainThreadHeldMs reads this thread's time where it can be read, and it grows with work; elsewhere it is undefined", () => {
  const first = mainThreadHeldMs();
  let readable = true;
  try {
    Deno.readTextFileSync("/proc/thread-self/schedstat");
  } catch {
    readable = false; // not Linux, or Deno not granted all permissions (it asks for them to read /proc)
  }
  if (!readable) return assert.equal(first, undefined);
  assert.ok(first !== undefined && first > 0);
  let x = 0;
  for (let i = 0; i < 2_000_000; i++) x += i % 7;
  assert.ok(x > 0);
  const second = mainThreadHeldMs();
  assert.ok(second !== undefined && second > first, `${second} > ${first}`);
});
