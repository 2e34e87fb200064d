/**
 * `eachLimit`: at most `limit` calls at once, and after a failure no new
 * call and no call still running once it has thrown.
 */
import assert from "node:assert/strict";
import { eachLimit } from "./index_io.ts";

/** A call that ends when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

Deno.test("eachLimit runs every item, at most limit at once", async () => {
  let running = 0;
  let most = 0;
  const done: number[] = [];
  await eachLimit([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
    running++;
    most = Math.max(most, running);
    await Promise.resolve();
    running--;
    done.push(n);
  });
  assert.deepEqual(done.sort(), [1, 2, 3, 4, 5, 6, 7]);
  assert.equal(most, 3);
});

Deno.test("eachLimit: a failure starts no further call, and is thrown only once the calls in flight have ended", async () => {
  const slow = gate();
  const started: number[] = [];
  let slowEnded = false;
  let settled = false;
  const run = eachLimit([1, 2, 3, 4, 5, 6], 2, async (n) => {
    started.push(n);
    if (n === 1) {
      await slow.opened;
      slowEnded = true;
      return;
    }
    throw new Error(`item ${n} failed`);
  });
  run.then(() => {}, () => (settled = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  assert.deepEqual(started, [1, 2], "nothing started after the failure");
  assert.equal(settled, false, "not thrown while item 1 is still running");
  slow.open();
  await assert.rejects(run, /item 2 failed/);
  assert.ok(slowEnded);
  assert.deepEqual(started, [1, 2]);
});
