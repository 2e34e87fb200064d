import assert from "node:assert/strict";
import { formatSummary } from "./main_report.ts";
import { emptyStats } from "./stats.ts";

Deno.test("summary: equal counts are listed in one order, whatever order they were counted in", () => {
  const a = emptyStats();
  a.outcomes = { success: 3, crashed: 1, lock_busy: 1 };
  a.warnings = { clock_skew: 2, latest_reset: 2 };
  const b = emptyStats();
  b.outcomes = { lock_busy: 1, success: 3, crashed: 1 };
  b.warnings = { latest_reset: 2, clock_skew: 2 };
  const text = formatSummary(a, "memory", 1000);
  assert.equal(formatSummary(b, "memory", 1000), text);
  assert.match(text, /command outcomes: success 3, crashed 1, lock_busy 1\n/);
  assert.match(text, /library warnings: clock_skew 2, latest_reset 2\n/);
});
