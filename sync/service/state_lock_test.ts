import assert from "node:assert/strict";
import { ownerLockHeld, ownerRuns, OWNERS_DIR, StateLock } from "./state_lock.ts";

Deno.test("an owner lock tells a process that runs from one gone, and one gone leaves no lock file behind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-owner-" });
  await Deno.mkdir(`${dir}/${OWNERS_DIR}`);
  const file = `${dir}/${OWNERS_DIR}/4242.abc.lock`;
  const held = await Deno.open(file, { read: true, write: true, create: true });
  assert.equal(held.tryLockSync(true), true);
  assert.equal(ownerLockHeld(dir, "4242.abc"), true, "held by another open file: runs");
  held.close(); // its process ends
  assert.equal(ownerLockHeld(dir, "4242.abc"), false);
  assert.equal(await Deno.lstat(file).then(() => true, () => false), false, "removed");
  assert.equal(ownerRuns(dir, `${Deno.pid}.abc`), false, "this process's own services take over");
  assert.equal(ownerRuns(dir, "../x"), false);
});

Deno.test("the state lock lets one holder at a time in, also two in one process", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-state-lock-" });
  const a = new StateLock(dir, `${Deno.pid}.a`);
  const b = new StateLock(dir, `${Deno.pid}.b`);
  const order: string[] = [];
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const first = a.exclusive(async () => {
    order.push("a in");
    entered();
    await held;
    order.push("a out");
  });
  await inside;
  const second = b.exclusive(() => Promise.resolve(void order.push("b in")));
  release();
  await Promise.all([first, second]);
  assert.deepEqual(order, ["a in", "a out", "b in"]);
});

Deno.test("a held lock keeps a second holder waiting until it is let go, or until its process exits", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sluice-held-lock-" });
  const a = new StateLock(dir, `${Deno.pid}.a`);
  const b = new StateLock(dir, `${Deno.pid}.b`);
  const letGo = await a.hold("x.lock", () => Promise.resolve());
  let waits = 0;
  let release: (() => void) | undefined;
  const taking = b.hold("x.lock", async () => {
    waits++;
    if (waits === 3) letGo(); // the holder lets go after the third look
    await Promise.resolve();
  }).then((r) => release = r);
  await taking;
  assert.equal(waits, 3, "b waited while a held it");
  // b holds it now; its process exits without letting go: the lock is free.
  let looked = 0;
  const after = a.hold("x.lock", async () => {
    looked++;
    if (looked === 2) b.release(); // b's exit
    await Promise.resolve();
  });
  (await after)();
  assert.equal(looked, 2);
  assert.ok(release);
  release!(); // letting go after the exit does nothing
});
