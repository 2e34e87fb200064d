import assert from "node:assert/strict";
import { isLazySkippable } from "./lazy_paths.ts";

Deno.test("isLazySkippable: only data/**/raw with at least three segments", () => {
  for (const yes of ["data/t/raw", "data/t/m/out/1/raw", "data/@swamp/aws/ec2/id/state/3/raw"]) {
    assert.equal(isLazySkippable(yes), true, yes);
  }
  for (
    const no of [
      "data/raw",
      "raw",
      "data/t/m/out/1/metadata.yaml",
      "data/t/m/out/latest",
      "outputs/t/raw",
      "data/t/raw/x",
      "data/t/m/out/1/raw.txt",
    ]
  ) {
    assert.equal(isLazySkippable(no), false, no);
  }
});
