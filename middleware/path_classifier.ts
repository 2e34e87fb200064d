/**
 * path-classifier: gives every path in a push plan exactly one class
 * (data version, latest marker, index, managed lockfile, config, internal,
 * other), from configurable rules tried before the defaults. Internal paths
 * are left out of the push; latest markers and indexes are written in the
 * commit step, after every upload.
 *
 * @module
 */
import type { PathClass, PushContext } from "../sync/context.ts";
import type { Middleware, MiddlewareEntry } from "../sync/pipeline.ts";
import { globToRegExp } from "../sync/paths.ts";
import { classifyPath } from "../sync/path_class.ts";

/** The gate's registered name. */
export const PATH_CLASSIFIER = "path-classifier";

export { classifyPath, MANAGED_LOCKFILE, namespaceOf } from "../sync/path_class.ts";
export { globToRegExp };

/**
 * The gate. Classifies every plan entry; internal paths are skipped (and
 * cleaned from the dirty set), markers and indexes move to the commit step.
 *
 * @example
 * ```ts
 * import { pathClassifier } from "./path_classifier.ts";
 * const gate = pathClassifier();
 * ```
 */
export function pathClassifier(): Middleware<PushContext> {
  return async function pathClassifierGate(ctx, next) {
    const rules = ctx.config.classifierRules;
    const counts = new Map<PathClass, number>();
    for (const entry of ctx.plan) {
      const cls = classifyPath(entry.path, rules);
      entry.class = cls;
      if (cls === "internal") {
        entry.action = "skip";
        entry.reason = "internal file: never synced";
      } else if (cls === "latest-marker" || cls === "index") {
        entry.commit = true;
      }
      entry.handledBy.push(PATH_CLASSIFIER);
      counts.set(cls, (counts.get(cls) ?? 0) + 1);
    }
    ctx.note(PATH_CLASSIFIER, [...counts].map(([c, n]) => `${n} ${c}`).join(", "));
    await next();
  };
}

/**
 * The gate's default registration (phase `classify`).
 *
 * @example
 * ```ts
 * import { Pipeline } from "../sync/pipeline.ts";
 * import { PUSH_PHASES, type PushContext } from "../sync/context.ts";
 * import { pathClassifierEntry } from "./path_classifier.ts";
 * new Pipeline<PushContext>(PUSH_PHASES).add(pathClassifierEntry());
 * ```
 */
export function pathClassifierEntry(): MiddlewareEntry<PushContext> {
  return {
    name: PATH_CLASSIFIER,
    phase: "classify",
    middleware: pathClassifier(),
    description: "every path gets exactly one class",
  };
}
