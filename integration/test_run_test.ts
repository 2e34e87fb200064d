import assert from "node:assert/strict";
import { IgnoredCounter } from "./test_run.ts";

Deno.test("the test run counts ignored tests per file, with or without the parallel prefix", () => {
  const c = new IgnoredCounter("/repo");
  c.line("running 3 tests from ./integration/a_test.ts");
  c.line("needs minio ... \x1b[33mignored\x1b[0m (0ms)");
  c.line("runs ... ok (1ms)");
  c.line("./integration/b_test.ts => needs gcs ... ignored (0ms)");
  c.line("./integration/b_test.ts => a test named ... ignored twice ... ok (2ms)");
  c.line("ok | 3 passed | 0 failed | 2 ignored (9ms)");
  assert.deepEqual([...c.counts], [
    ["file:///repo/integration/a_test.ts", 1],
    ["file:///repo/integration/b_test.ts", 1],
  ]);
});
