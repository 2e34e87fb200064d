import { strictEqual } from "node:assert";
import { medianOf } from "./helpers.ts";

Deno.test("medianOf: the middle value of an odd count, unsorted input", () => {
  strictEqual(medianOf([5, 1, 3]), 3);
});

Deno.test("medianOf: the mean of the two middle values of an even count (two rounds: their mean)", () => {
  strictEqual(medianOf([4005, 4905]), 4455);
  strictEqual(medianOf([4, 1, 3, 2]), 2.5);
});

Deno.test("medianOf: no values, NaN", () => {
  strictEqual(Number.isNaN(medianOf([])), true);
});
