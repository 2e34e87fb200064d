/**
 * The one place the extension reads environment variables. Everything else
 * takes an {@link EnvGetter}, so tests pass a map instead of changing the
 * process environment.
 *
 * @module
 */

/** Reads one environment variable; `undefined` when unset or unreadable. */
export type EnvGetter = (name: string) => string | undefined;

/**
 * The process environment (a missing `--allow-env` permission reads as unset).
 *
 * @example
 * ```ts
 * import { processEnv } from "./env.ts";
 * console.log(processEnv("HOME") !== undefined);
 * ```
 */
export const processEnv: EnvGetter = (name) => {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
};

/**
 * An {@link EnvGetter} over a fixed map (tests).
 *
 * @example
 * ```ts
 * import { envFrom } from "./env.ts";
 * const env = envFrom({ SWAMP_S3_REQUEST_TIMEOUT_MS: "5000" });
 * console.log(env("SWAMP_S3_REQUEST_TIMEOUT_MS")); // "5000"
 * ```
 */
export function envFrom(values: Readonly<Record<string, string>>): EnvGetter {
  return (name) => Object.hasOwn(values, name) ? values[name] : undefined;
}

/** Bounds of a request timeout, in milliseconds (config and environment alike). */
export const REQUEST_TIMEOUT_RANGE = { min: 1_000, max: 600_000 } as const;

/**
 * The request timeout an environment variable imposes: its value when it is
 * a whole number of milliseconds within {@link REQUEST_TIMEOUT_RANGE}, else
 * `undefined` (the variable is ignored, as the existing extensions do).
 *
 * @example
 * ```ts
 * import { envFrom, requestTimeoutFromEnv } from "./env.ts";
 * const env = envFrom({ SWAMP_GCS_REQUEST_TIMEOUT_MS: "90000" });
 * console.log(requestTimeoutFromEnv(env, "SWAMP_GCS_REQUEST_TIMEOUT_MS")); // 90000
 * ```
 */
export function requestTimeoutFromEnv(env: EnvGetter, name: string): number | undefined {
  const raw = env(name)?.trim();
  if (!raw || !/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= REQUEST_TIMEOUT_RANGE.min && n <= REQUEST_TIMEOUT_RANGE.max ? n : undefined;
}
