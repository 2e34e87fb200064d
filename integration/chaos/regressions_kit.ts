/**
 * The check every kept chaos regression makes: each history, replayed,
 * breaks no invariant (the violations are printed with the history).
 *
 * @module
 */
import assert from "node:assert/strict";
import { formatHistory, parseHistory } from "./history.ts";
import { runHistory } from "./workload.ts";

/** Replays each history (its JSON as printed) and asserts it breaks no invariant. */
export async function clean(...jsons: string[]): Promise<void> {
  for (const json of jsons) {
    const r = await runHistory(parseHistory(json));
    assert.deepEqual(
      r.violations.map((v) => `${v.invariant}: ${v.message}`),
      [],
      formatHistory(r.history),
    );
  }
}
