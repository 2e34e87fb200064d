import assert from "node:assert/strict";
import { SluiceError, UnreachableError, VersionConflictError } from "../errors.ts";
import type { PlanEntry } from "../context.ts";
import { pushFailure } from "./push_failure.ts";

const at = (path: string) => ({ path }) as PlanEntry;

Deno.test("pushFailure: one kind of failure keeps its code; several make push_failed naming the first and the held-back writes", () => {
  const one = pushFailure([{ entry: at("a"), error: new UnreachableError("x") }], 0);
  assert.ok(one instanceof UnreachableError);
  const mixed = pushFailure([
    { entry: at("a"), error: new UnreachableError("x") },
    { entry: at("b"), error: new Error("disk") },
  ], 2);
  assert.ok(mixed instanceof SluiceError);
  assert.equal((mixed as SluiceError).code, "push_failed");
  assert.match(mixed.message, /first: a/);
  assert.match(mixed.message, /2 marker\/index file\(s\) were held back/);
});

Deno.test("pushFailure: version conflicts merge, keeping 'uploaded from this cache' only when every one is", () => {
  const own = (k: string) => ({ entry: at(k), error: new VersionConflictError([k], [], true) });
  const theirs = (k: string) => ({ entry: at(k), error: new VersionConflictError([k], [], false) });
  const allOwn = pushFailure([own("a"), own("b")], 0) as VersionConflictError;
  assert.deepEqual(allOwn.keys, ["a", "b"]);
  assert.equal(allOwn.ownEarlier, true);
  assert.equal((pushFailure([theirs("a")], 0) as VersionConflictError).ownEarlier, false);
  const both = pushFailure([own("a"), theirs("b")], 0) as VersionConflictError;
  assert.equal(both.ownEarlier, undefined);
  assert.match(both.message, /some uploaded earlier from this cache, some by another writer/);
});

Deno.test("pushFailure says what else the push committed, when it knows", () => {
  const theirs = (k: string) => ({ entry: at(k), error: new VersionConflictError([k], [], false) });
  assert.match(
    pushFailure([theirs("a")], 0, 3).message,
    /The push's other 3 file\(s\) were pushed and committed\.$/,
  );
  assert.match(
    pushFailure([theirs("a")], 0, 0).message,
    /Nothing else of this push was committed\.$/,
  );
  assert.doesNotMatch(pushFailure([theirs("a")], 0).message, /committed\.$/);
  const mixed = pushFailure(
    [
      { entry: at("a"), error: new UnreachableError("x") },
      { entry: at("b"), error: new Error("disk") },
    ],
    0,
    5,
  );
  assert.match(mixed.message, /other 5 file\(s\) were pushed and committed/);
});

Deno.test("pushFailure: one kind of failure keeps its code and says what else the push committed", () => {
  const e = pushFailure(
    [
      { entry: at("a/b"), error: new SluiceError("unsafe_path", "Refused the path a/b.") },
      { entry: at("a/c"), error: new SluiceError("unsafe_path", "Refused the path a/c.") },
    ],
    0,
    3,
  );
  assert.equal((e as SluiceError).code, "unsafe_path");
  assert.match(e.message, /1 more file\(s\) failed the same way/);
  assert.match(e.message, /The push's other 3 file\(s\) were pushed and committed/);
});
