/**
 * The extension's health check: Sluice's store check (one timed read, then
 * the conditional-write probe) reported in the tool's shape. It never
 * rejects: a failure, whatever it is, is an unhealthy report.
 *
 * @module
 */
import type { VerifyResult } from "../provider/mod.ts";
import type { SwampHealthResult, SwampVerifier } from "./contract.ts";

/** What {@link extensionVerifier} reports about. */
export interface VerifierTarget {
  /** The extension's type string. */
  readonly datastoreType: string;
  /** The bucket, reported in `details`. */
  readonly bucket: string;
  /** Runs Sluice's check. */
  readonly check: () => Promise<VerifyResult>;
  /** Milliseconds now (for the latency); default `performance.now`. */
  readonly now?: () => number;
}

/**
 * A verifier over Sluice's check.
 *
 * @example
 * ```ts
 * import { extensionVerifier } from "./verifier.ts";
 * import { verifyStore } from "../provider/mod.ts";
 * import { InMemoryStore } from "../testing/mod.ts";
 * const v = extensionVerifier({
 *   datastoreType: "@sluice/s3-datastore", bucket: "b",
 *   check: () => verifyStore(new InMemoryStore(), "auto"),
 * });
 * console.log((await v.verify()).healthy); // true
 * ```
 */
export function extensionVerifier(target: VerifierTarget): SwampVerifier {
  const now = target.now ?? (() => performance.now());
  return {
    async verify(): Promise<SwampHealthResult> {
      const t0 = now();
      const base = {
        datastoreType: target.datastoreType,
        details: { bucket: target.bucket },
      };
      try {
        const r = await target.check();
        return {
          ...base,
          // What failed, as Sluice's error code (its exit code in the error table).
          ...(r.code ? { details: { ...base.details, code: r.code } } : {}),
          healthy: r.ok,
          message: r.message,
          latencyMs: Math.max(0, Math.round(now() - t0)),
        };
      } catch (e) {
        return {
          ...base,
          healthy: false,
          message: `The health check of bucket ${target.bucket} failed: ${
            (e instanceof Error ? e.message : String(e)).replace(/\.\s*$/, "")
          }. Check the datastore configuration and credentials, then run the check again.`,
          latencyMs: Math.max(0, Math.round(now() - t0)),
        };
      }
    },
  };
}
