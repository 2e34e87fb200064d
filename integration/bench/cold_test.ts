import { deepStrictEqual } from "node:assert";
import { goalVerdict, requestRatio } from "./cold.ts";

const goal = { wall: 1.05, cpu: 1.1 };

Deno.test("goalVerdict: met only when both wall and CPU are within, each way of reading the rounds", () => {
  deepStrictEqual(goalVerdict(goal, { wall: 1.04, cpu: 1.12, pairedWall: 1.0, pairedCpu: 1.09 }), {
    goal: "≤ 1.05× wall, ≤ 1.1× CPU",
    met: false,
    metPaired: true,
  });
  deepStrictEqual(
    goalVerdict(goal, { wall: 1.06, cpu: 1.0, pairedWall: 1.05, pairedCpu: 1.2 }).met,
    false,
  );
});

Deno.test("goalVerdict: judged on the ratio as printed (1.0504 prints 1.05 and meets 1.05)", () => {
  deepStrictEqual(
    goalVerdict(goal, { wall: 1.0504, cpu: 1.1004, pairedWall: 1.0506, pairedCpu: 1 }),
    { goal: "≤ 1.05× wall, ≤ 1.1× CPU", met: true, metPaired: false },
  );
});

Deno.test("requestRatio: a side's requests over the bare loop's, undefined when a count is missing", () => {
  deepStrictEqual(
    requestRatio({ put: 1058, get: 9, total: 1067 }, { put: 1000, total: 1000 }),
    1.067,
  );
  deepStrictEqual(requestRatio({ get: 1002, total: 1002 }, { get: 1000, total: 1000 }), 1.002);
  deepStrictEqual(requestRatio(undefined, { total: 1000 }), undefined);
  deepStrictEqual(requestRatio({ total: 5 }, { total: 0 }), undefined);
});
