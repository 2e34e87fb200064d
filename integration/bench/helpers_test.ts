import { strictEqual, throws } from "node:assert";
import { BenchArgs, medianOf } from "./helpers.ts";

Deno.test("BenchArgs: a mistyped flag is refused, naming it and the known ones, before anything is measured", () => {
  throws(() => new BenchArgs(["--round", "3"]), /--round.*known: .*--rounds/s);
});

Deno.test("BenchArgs: a flag without its value is refused", () => {
  throws(() => new BenchArgs(["--only", "pipeline", "--rounds"]), /--rounds wants a value/);
});

Deno.test("BenchArgs: a known flag's value is read back", () => {
  strictEqual(new BenchArgs(["--only", "pipeline", "--rounds", "3"]).rounds, 3);
});

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
