/**
 * The chaos checker's scheduler: one unit at a time in the order the ticks
 * choose, fake time and its timers, crashes that freeze a unit, and the
 * time a command's budget counts as its own.
 *
 * @module
 */
import assert from "node:assert/strict";
import { SimScheduler } from "./scheduler.ts";
import { InMemoryStore } from "../../packages/testing/mod.ts";

Deno.test("scheduler: one unit at a time, in the order the ticks choose; a crash freezes it", async () => {
  const order: string[] = [];
  const run = async (r2: number) => {
    const sched = new SimScheduler();
    const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
    for (const name of ["a", "b"]) {
      sched.spawn(name, name, async () => {
        await store.head(`${name}1`);
        order.push(`${name}1`);
        await store.head(`${name}2`);
        order.push(`${name}2`);
      });
    }
    await sched.startReady();
    return { sched, step: () => sched.step(1, r2) };
  };
  let { step } = await run(0);
  while (await step());
  assert.deepEqual(order, ["a1", "b1", "a2", "b2"]);
  order.length = 0;
  ({ step } = await run(0.99));
  while (await step());
  assert.deepEqual(order, ["b1", "b2", "a1", "a2"]);

  order.length = 0;
  const { sched, step: first } = await run(0);
  await first();
  sched.freeze("a");
  while (await sched.step(1, 0));
  assert.deepEqual(order, ["a1", "b1", "b2"]);
  assert.equal(sched.active().length, 0);
});

Deno.test("scheduler: a sleeping unit wakes only when fake time reaches it; a crash drops its timers", async () => {
  const sched = new SimScheduler({ start: 0 });
  const woke: string[] = [];
  for (const name of ["x", "y"]) {
    sched.spawn(name, name, async () => {
      await sched.clock.sleep(1_000);
      woke.push(name);
    });
  }
  let beats = 0;
  sched.spawn("z", "z", async () => {
    sched.clock.setTimeout(() => beats++, 500);
    await sched.clock.sleep(5_000);
  });
  await sched.startReady();
  sched.freeze("y");
  await sched.advanceBy(999);
  assert.deepEqual(woke, []);
  assert.equal(beats, 1);
  await sched.advanceBy(1);
  assert.deepEqual(woke, ["x"]);
  sched.freeze("z");
  await sched.advanceBy(10_000);
  assert.equal(sched.pendingTimers, 0);
});

Deno.test("chaos: a command's budget counts the latency of its own store calls, not of others' released meanwhile", async () => {
  const sched = new SimScheduler({ start: 0 });
  sched.latencyMs = 1_000;
  const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
  let busyOwn = -1;
  let quietOwn = -1;
  // A command of 10 calls beside one of 2: the scheduler releases the 12
  // calls one at a time, so both see most of 12 s pass.
  const busy = sched.spawn("busy", "c0.0", async () => {
    for (let i = 0; i < 10; i++) await store.head(`b${i}`);
    busyOwn = sched.ownTime(busy);
  });
  const quiet = sched.spawn("quiet", "c1.0", async () => {
    for (let i = 0; i < 2; i++) await store.head(`q${i}`);
    quietOwn = sched.ownTime(quiet);
  });
  await sched.startReady();
  while (await sched.stepInOrder());
  assert.equal(sched.now(), 12_000);
  assert.equal(busyOwn, 10_000);
  assert.equal(quietOwn, 2_000);
});

Deno.test("chaos: the time a stopped process stood still is taken out of its command's budget once", async () => {
  const sched = new SimScheduler({ start: 0 });
  sched.latencyMs = 1_000;
  const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
  let own = -1;
  const stalled = sched.spawn("stalled", "c0.0", async () => {
    for (let i = 0; i < 3; i++) await store.head(`s${i}`);
    own = sched.ownTime(stalled);
  });
  sched.spawn("other", "c1.0", async () => {
    for (let i = 0; i < 4; i++) await store.head(`o${i}`);
  });
  await sched.startReady();
  sched.stop("c0.0");
  // Only the other process's calls go while c0 stands still.
  while (await sched.stepInOrder());
  sched.resume("c0.0");
  while (await sched.stepInOrder());
  assert.equal(sched.now(), 7_000);
  assert.equal(own, 3_000);
});

Deno.test("chaos: time passing while the scheduler holds a command's store call back is not the command's, its own waits are", async () => {
  const sched = new SimScheduler({ start: 0 });
  sched.latencyMs = 1_000;
  const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
  let own = -1;
  const unit = sched.spawn("held", "c0.0", async () => {
    await store.head("a");
    await sched.clock.sleep(5_000);
    await store.head("b");
    own = sched.ownTime(unit);
  });
  await sched.startReady();
  // A `wait` of the history while its first call is parked: 80 s pass, the call still held.
  await sched.advanceBy(80_000);
  assert.equal(sched.ownTime(unit), 0);
  while (await sched.stepInOrder());
  // Its two calls' latency and its own 5 s sleep.
  assert.equal(sched.now(), 87_000);
  assert.equal(own, 7_000);
});
