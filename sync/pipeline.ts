/**
 * The middleware pipeline: onion-style `(ctx, next) => Promise<void>`
 * functions, each registered under a name in a phase, optionally placed
 * before or after another named entry. Plugins add, override or remove
 * entries by name; {@link Pipeline.describe} lists the resulting order.
 *
 * @module
 */
import { SluiceError } from "./errors.ts";
import type { PushContext, PushPhase, WriteContext, WritePhase } from "./context.ts";

/**
 * The phase names of a pipeline over context `C`: the push phases for a
 * `PushContext`, the write phases for a `WriteContext`, any string for a
 * context of one's own. A misspelt phase of a push or write gate fails at
 * compile time.
 */
export type PhaseOf<C> = C extends PushContext ? PushPhase
  : C extends WriteContext ? WritePhase
  : string;

/** Calls the rest of the pipeline. Calling it twice throws. */
export type Next = () => Promise<void>;

/**
 * A gate. Do work before and/or after `await next()`; skip `next()` to stop
 * the pipeline; throw to fail it. A push stopped so writes nothing and keeps
 * every path of its plan dirty, listed in the result's `skipped` with the
 * gate's name; a write gate that stops must leave its entry out
 * (`entry.action = "skip"`) or give the write's result, or the push fails
 * naming it.
 */
export type Middleware<C> = (ctx: C, next: Next) => Promise<void>;

/**
 * How an entry is placed: in a phase, or right before or after another named
 * entry (then it runs where its anchor runs, and names no phase of its own).
 */
export type Placement<P extends string = string> =
  | { readonly phase: P; readonly before?: undefined; readonly after?: undefined }
  | { readonly before: string; readonly after?: undefined; readonly phase?: undefined }
  | { readonly after: string; readonly before?: undefined; readonly phase?: undefined };

/** A named middleware with its placement. */
export type MiddlewareEntry<C> = Placement<PhaseOf<C>> & MiddlewareFields<C>;

/** The fields of a {@link MiddlewareEntry} besides its placement. */
export interface MiddlewareFields<C> {
  /** Unique name, e.g. `lock-fence`. */
  readonly name: string;
  /** The gate. */
  readonly middleware: Middleware<C>;
  /** One line on what the gate guarantees, shown by `describe()`. */
  readonly description?: string;
}

/**
 * Composes middlewares into one function (koa-compose semantics): each gets a
 * `next` that runs the rest, and `next()` called twice rejects. `onStop`,
 * when given, is told the name of the gate that returned without calling
 * `next()` (the terminal never ran).
 *
 * @example
 * ```ts
 * import { compose } from "./pipeline.ts";
 * const seen: string[] = [];
 * const run = compose<string[]>([
 *   async (ctx, next) => { ctx.push("a"); await next(); ctx.push("a'"); },
 *   async (ctx, next) => { ctx.push("b"); await next(); },
 * ]);
 * await run(seen); // a, b, a'
 * ```
 */
export function compose<C>(
  middlewares: readonly Middleware<C>[],
  names: readonly string[] = [],
): (
  ctx: C,
  terminal?: (ctx: C) => Promise<void>,
  onStop?: (gate: string) => void,
) => Promise<void> {
  return (ctx, terminal, onStop) => {
    let index = -1;
    // Not an async function: each level hands on the promise of the one it
    // calls (no promise or await of its own, once per gate per file).
    const dispatch = (i: number): Promise<void> => {
      if (i <= index) {
        return Promise.reject(
          new SluiceError(
            "internal",
            `Middleware ${names[i - 1] ?? `#${i - 1}`} called next() more than once.`,
          ),
        );
      }
      index = i;
      try {
        if (i === middlewares.length) return terminal ? terminal(ctx) : Promise.resolve();
        return middlewares[i](ctx, () => dispatch(i + 1));
      } catch (e) {
        return Promise.reject(e); // a gate that throws before its first await
      }
    };
    const run = dispatch(0);
    // The deepest gate entered is the one that returned without next().
    return onStop
      ? run.then(() => {
        if (index < middlewares.length) onStop(names[index] ?? `#${index}`);
      })
      : run;
  };
}

/**
 * An ordered, named list of middlewares.
 *
 * @example
 * ```ts
 * import { Pipeline } from "./pipeline.ts";
 * const p = new Pipeline<{ log: string[] }>(["classify", "fence"]);
 * p.add({ name: "fence", phase: "fence", middleware: async (c, next) => { c.log.push("fence"); await next(); } });
 * p.add({ name: "classify", phase: "classify", middleware: async (c, next) => { c.log.push("classify"); await next(); } });
 * console.log(p.describe()); // ["classify: classify", "fence: fence"]
 * ```
 */
export class Pipeline<C> {
  /** The phases, in order. */
  readonly phases: readonly PhaseOf<C>[];
  #entries: MiddlewareEntry<C>[] = [];

  constructor(phases: readonly PhaseOf<C>[]) {
    this.phases = phases;
  }

  /** Adds an entry; throws if the name is taken or the phase unknown. */
  add(entry: MiddlewareEntry<C>): this {
    if (this.has(entry.name)) {
      throw new SluiceError(
        "invalid_config",
        `A middleware named "${entry.name}" is already registered; use override() to replace it.`,
      );
    }
    if (entry.phase !== undefined) this.#checkPhase(entry.phase, entry.name);
    this.#entries.push(entry);
    return this;
  }

  /** Replaces the middleware of an existing entry, keeping its placement unless given. */
  override(
    name: string,
    middleware: Middleware<C>,
    placement: Placement<PhaseOf<C>> | Record<never, never> = {},
    description?: string,
  ): this {
    const i = this.#entries.findIndex((e) => e.name === name);
    if (i < 0) {
      throw new SluiceError(
        "invalid_config",
        `No middleware named "${name}" to override; known: ${this.names().join(", ")}.`,
      );
    }
    const old = this.#entries[i];
    const where = "phase" in placement || "before" in placement || "after" in placement
      ? placement as Placement<PhaseOf<C>>
      : old;
    const next = {
      phase: where.phase,
      before: where.before,
      after: where.after,
      name,
      middleware,
      description: description ?? old.description,
    } as MiddlewareEntry<C>;
    if (next.phase !== undefined) this.#checkPhase(next.phase, name);
    this.#entries[i] = next;
    return this;
  }

  /** Removes an entry by name; returns whether it existed. */
  remove(name: string): boolean {
    const before = this.#entries.length;
    this.#entries = this.#entries.filter((e) => e.name !== name);
    return this.#entries.length !== before;
  }

  /** True when an entry with this name exists. */
  has(name: string): boolean {
    return this.#entries.some((e) => e.name === name);
  }

  /** Names in execution order. */
  names(): string[] {
    return this.ordered().map((e) => e.name);
  }

  /** Entries in execution order: by phase, then insertion, then before/after placement. */
  ordered(): MiddlewareEntry<C>[] {
    const rank = (e: MiddlewareEntry<C>) =>
      e.phase === undefined ? -1 : this.phases.indexOf(e.phase);
    const base = this.#entries
      .map((e, i) => ({ e, i }))
      .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
      .map((x) => x.e);
    const placed = base.filter((e) => !e.before && !e.after);
    let pending = base.filter((e) => e.before || e.after);
    // Place relative entries whose anchor is already placed; repeat until stable.
    while (pending.length > 0) {
      const rest: MiddlewareEntry<C>[] = [];
      for (const e of pending) {
        const anchor = (e.before ?? e.after)!;
        const at = placed.findIndex((p) => p.name === anchor);
        if (at < 0) {
          rest.push(e);
          continue;
        }
        placed.splice(e.before ? at : at + 1, 0, e);
      }
      if (rest.length === pending.length) {
        throw new SluiceError(
          "invalid_config",
          `Cannot place middleware ${
            rest.map((e) =>
              `"${e.name}" (${e.before ? "before" : "after"} "${e.before ?? e.after}")`
            )
              .join(", ")
          }: the anchor is not registered; registered: ${
            this.#entries.map((e) => e.name).join(", ")
          }.`,
        );
      }
      pending = rest;
    }
    return placed;
  }

  /** Lines `phase: name — description`, in execution order (a placed entry shows its anchor's phase). */
  describe(): string[] {
    const ordered = this.ordered();
    const phaseOf = (e: MiddlewareEntry<C>, seen = 0): string => {
      if (e.phase !== undefined) return e.phase;
      const anchor = ordered.find((x) => x.name === (e.before ?? e.after));
      return anchor && seen < ordered.length ? phaseOf(anchor, seen + 1) : "?";
    };
    return ordered.map((e) =>
      `${phaseOf(e)}: ${e.name}${e.description ? ` — ${e.description}` : ""}`
    );
  }

  /**
   * Composes the current entries with `terminal` as the innermost handler.
   * `onStop` is told the name of a gate that returned without calling
   * `next()`, so that the terminal never ran.
   */
  build(
    terminal: (ctx: C) => Promise<void>,
    onStop?: (gate: string, ctx: C) => void,
  ): (ctx: C) => Promise<void> {
    const entries = this.ordered();
    const run = compose(entries.map((e) => e.middleware), entries.map((e) => e.name));
    return onStop
      ? (ctx) => run(ctx, terminal, (gate) => onStop(gate, ctx))
      : (ctx) => run(ctx, terminal);
  }

  /** A copy with the same entries (plugins may then change the copy). */
  clone(): Pipeline<C> {
    const p = new Pipeline<C>(this.phases);
    p.#entries = [...this.#entries];
    return p;
  }

  #checkPhase(phase: string, name: string): void {
    if (!(this.phases as readonly string[]).includes(phase)) {
      throw new SluiceError(
        "invalid_config",
        `Middleware "${name}" names unknown phase "${phase}"; phases are ${
          this.phases.join(", ")
        }.`,
      );
    }
  }
}
