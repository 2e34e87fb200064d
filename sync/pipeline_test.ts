import assert from "node:assert/strict";
import { compose, type Middleware, type MiddlewareEntry, Pipeline } from "./pipeline.ts";
import { PUSH_PHASES, type PushContext } from "./context.ts";
import { SluiceError } from "./errors.ts";

type Ctx = { log: string[] };
const mw = (name: string) => async (c: Ctx, next: () => Promise<void>) => {
  c.log.push(name);
  await next();
  c.log.push(`${name}'`);
};

Deno.test("compose runs onion order and the terminal in the middle", async () => {
  const ctx: Ctx = { log: [] };
  await compose<Ctx>([mw("a"), mw("b")])(ctx, (c) => {
    c.log.push("t");
    return Promise.resolve();
  });
  assert.deepEqual(ctx.log, ["a", "b", "t", "b'", "a'"]);
});

Deno.test("next() called twice rejects naming the middleware", async () => {
  const run = compose<Ctx>([async (_c, next) => {
    await next();
    await next();
  }], ["twice"]);
  await assert.rejects(
    run({ log: [] }),
    (e) => e instanceof SluiceError && /twice/.test(e.message),
  );
});

Deno.test("entries order by phase, then insertion, then before/after", () => {
  const p = new Pipeline<Ctx>(["one", "two", "three"]);
  p.add({ name: "c", phase: "three", middleware: mw("c") });
  p.add({ name: "a", phase: "one", middleware: mw("a") });
  p.add({ name: "b", phase: "two", middleware: mw("b") });
  p.add({ name: "x", before: "b", middleware: mw("x") });
  p.add({ name: "y", after: "c", middleware: mw("y") });
  assert.deepEqual(p.names(), ["a", "x", "b", "c", "y"]);
  assert.equal(p.describe()[0], "one: a");
});

Deno.test("override replaces by name; add refuses duplicates; unknown phase and anchor fail", async () => {
  const p = new Pipeline<Ctx>(["one"]);
  p.add({ name: "a", phase: "one", middleware: mw("a") });
  assert.throws(
    () => p.add({ name: "a", phase: "one", middleware: mw("a") }),
    /already registered/,
  );
  p.override("a", mw("A"));
  const ctx: Ctx = { log: [] };
  await p.build(() => Promise.resolve())(ctx);
  assert.deepEqual(ctx.log, ["A", "A'"]);
  assert.throws(() => p.add({ name: "z", phase: "nope", middleware: mw("z") }), /unknown phase/);
  p.add({ name: "w", before: "missing", middleware: mw("w") });
  assert.throws(() => p.names(), /anchor is not registered/);
  assert.ok(p.remove("w"));
  assert.throws(() => p.override("nope", mw("n")), /No middleware named/);
});

Deno.test("a middleware that skips next() stops the pipeline", async () => {
  const p = new Pipeline<Ctx>(["one"]);
  p.add({
    name: "stop",
    phase: "one",
    middleware: (c) => {
      c.log.push("stop");
      return Promise.resolve();
    },
  });
  p.add({ name: "never", phase: "one", middleware: mw("never") });
  const ctx: Ctx = { log: [] };
  await p.build(() => Promise.reject(new Error("terminal ran")))(ctx);
  assert.deepEqual(ctx.log, ["stop"]);
});

Deno.test("a push or write gate's phase is checked at compile time; a placed entry names none", () => {
  const p = new Pipeline<PushContext>(PUSH_PHASES);
  const pass: Middleware<PushContext> = async (_ctx, next) => await next();
  // @ts-expect-error: "fense" is not a phase of the push pipeline.
  const wrong: MiddlewareEntry<PushContext> = { name: "x", phase: "fense", middleware: pass };
  assert.throws(() => p.add(wrong), /unknown phase "fense"/);
  p.add({ name: "fence", phase: "fence", middleware: pass });
  // @ts-expect-error: an entry placed after another names no phase of its own.
  const both: MiddlewareEntry<PushContext> = {
    name: "y",
    phase: "guard",
    after: "fence",
    middleware: pass,
  };
  assert.ok(both);
  p.add({ name: "audit", after: "fence", middleware: pass });
  assert.deepEqual(p.describe(), ["fence: fence", "fence: audit"]);
});
