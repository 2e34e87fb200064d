import assert from "node:assert/strict";
import { commandFailure } from "./command_kit.ts";
import { SluiceError, UnreachableError } from "../sync/errors.ts";

Deno.test("an unreachable datastore met by a push keeps what the push said it committed, with the command to run again", () => {
  const e = new UnreachableError("timed out after 1000 ms");
  e.message += " The push's other 1437 file(s) were pushed and committed.";
  const told = commandFailure(e, { argv: ["push", "--cache", "my cache"] }, "push");
  assert.ok(told instanceof SluiceError);
  assert.equal(told.code, "unreachable");
  assert.match(
    told.message,
    /stays published\. The push's other 1437 file\(s\) were pushed and committed\. Check the endpoint/,
  );
  assert.match(told.message, /run `sluice push --cache 'my cache'` again\.$/);
});

Deno.test("an unreachable datastore with nothing added says the command's account alone", () => {
  const told = commandFailure(new UnreachableError("refused"), { argv: ["pull"] }, "pull");
  assert.ok(told instanceof SluiceError);
  assert.match(told.message, /the rest are fetched by the next pull\)\. Check the endpoint/);
});
