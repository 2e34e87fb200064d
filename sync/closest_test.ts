import assert from "node:assert/strict";
import { closest } from "./closest.ts";

Deno.test("closest: the known name within about a third of the length, case aside; none beyond", () => {
  assert.equal(closest("endpiont", ["bucket", "endpoint", "region"]), "endpoint");
  assert.equal(closest("Prefx", ["bucket", "prefix"]), "prefix");
  assert.equal(closest("colour", ["bucket", "prefix"]), undefined);
});
