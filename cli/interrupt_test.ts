import assert from "node:assert/strict";
import { interruptHandler } from "./interrupt.ts";

Deno.test("a second interrupt of a kind exits at once with 130, saying so and the command to run again before it exits", () => {
  const abort = new AbortController();
  const events: string[] = [];
  // What a process running `sluice push --cache 'my cache'` is handed.
  const io = {
    abort,
    argv: ["push", "--cache", "my cache"],
    stderr: (text: string) => events.push(`stderr: ${text}`),
    exit: (code: number) => events.push(`exit ${code}`),
  };
  const onSignal = interruptHandler(io);
  onSignal("SIGINT");
  assert.equal(abort.signal.aborted, true);
  // The wrapper's SIGTERM for the same Ctrl-C: another kind, no exit.
  onSignal("SIGTERM");
  assert.deepEqual(events, []);
  onSignal("SIGINT");
  assert.equal(events.length, 2, events.join("\n"));
  assert.equal(events[1], "exit 130");
  const said = events[0];
  assert.match(said, /^stderr: error\[aborted\]: /);
  assert.match(said, /second interrupt/);
  assert.match(said, /run `sluice push --cache 'my cache'` again/);
  assert.match(said, /\n$/);
});
