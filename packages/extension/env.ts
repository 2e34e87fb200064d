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

/**
 * A `config_env_ignored` warning when `name` holds a value
 * {@link requestTimeoutFromEnv} ignores (not a whole number of milliseconds
 * within {@link REQUEST_TIMEOUT_RANGE}; an empty one counts as unset), naming
 * the timeout used instead, `timeoutMs`; else `undefined`.
 *
 * @example
 * ```ts
 * import { envFrom, ignoredTimeoutWarning } from "./env.ts";
 * const env = envFrom({ SWAMP_S3_REQUEST_TIMEOUT_MS: "5s" });
 * console.log(ignoredTimeoutWarning(env, "SWAMP_S3_REQUEST_TIMEOUT_MS", 30_000)?.code); // config_env_ignored
 * ```
 */
export function ignoredTimeoutWarning(
  env: EnvGetter,
  name: string,
  timeoutMs: number,
): { code: string; message: string } | undefined {
  const raw = env(name);
  if (raw === undefined || raw.trim() === "" || requestTimeoutFromEnv(env, name) !== undefined) {
    return undefined;
  }
  return {
    code: "config_env_ignored",
    message: `${name} is ${
      JSON.stringify(raw)
    }, not a whole number of milliseconds from ${REQUEST_TIMEOUT_RANGE.min} to ${REQUEST_TIMEOUT_RANGE.max}: it was ignored, as the existing extensions ignore it, and the request timeout is ${timeoutMs} ms (the datastore config's requestTimeoutMs, or its default). Set the variable to such a number, or unset it.`,
  };
}
