/**
 * The health check of a store provider ({@link verifyStore}): one timed read,
 * then the conditional-write probe.
 *
 * @module
 */
import { type ErrorCode, SluiceError } from "../../sync/errors.ts";
import { probeConditionalWrites, type ProbeResult } from "../../sync/transfer/conditional.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import { BUCKET_RECORDS_DIR } from "../../sync/transfer/bucket_layout.ts";
import type { VerifyResult } from "./shapes.ts";

/**
 * Times one metadata read of `store`, then probes conditional writes (unless
 * `setting` is `off`). Not ok when the store does not answer, or when
 * `setting` is `required` and either form of conditional write is not
 * honoured.
 *
 * @example
 * ```ts
 * import { verifyStore } from "./verifier.ts";
 * import { InMemoryStore } from "../testing/mod.ts";
 * const r = await verifyStore(new InMemoryStore(), "required");
 * console.log(r.ok, r.latencyMs, r.conditionalWrites?.create); // true … "honoured"
 * ```
 */
export async function verifyStore(
  store: ObjectStore,
  setting: "auto" | "required" | "off",
  options: { signal?: AbortSignal; now?: () => number } = {},
): Promise<VerifyResult> {
  const endpoint = store.endpoint;
  const t0 = performance.now();
  try {
    await store.head(`${BUCKET_RECORDS_DIR}/verify`, { signal: options.signal });
  } catch (e) {
    // What the store said, without the advice a sync gives (nothing is kept or pushed by a check).
    const why = (e instanceof Error ? e.message : String(e))
      .replace(/\s*Nothing was lost:[\s\S]*$/, "")
      .replace(/\.\s*$/, "");
    const code = e instanceof SluiceError ? e.code : undefined;
    const answered = code !== undefined && code !== "unreachable" &&
      code !== "aborted";
    return {
      ok: false,
      latencyMs: -1,
      conditionalWrites: null,
      endpoint,
      code: failureCode(e, "unreachable"),
      message: answered
        ? `${endpoint} refused the check (${code}): ${why}.`
        : `${endpoint} did not answer: ${why}. Check the endpoint (its host and port) and that the service runs, then run the check again.`,
    };
  }
  const latencyMs = Math.round(performance.now() - t0);
  if (setting === "off") {
    return {
      ok: true,
      latencyMs,
      conditionalWrites: null,
      endpoint,
      message:
        `${endpoint} answered in ${latencyMs} ms; conditional writes are off in the config, not probed.`,
    };
  }
  let probe: ProbeResult;
  try {
    probe = await probeConditionalWrites(store, { signal: options.signal, now: options.now });
  } catch (e) {
    return {
      ok: false,
      latencyMs,
      conditionalWrites: null,
      endpoint,
      // Another error than Sluice's own is none an adapter maps: `internal`.
      code: failureCode(e, "internal"),
      // A Sluice error says itself what to do (a missing bucket, refused credentials).
      message: `${endpoint} answered in ${latencyMs} ms but the conditional-write probe failed: ${
        (e instanceof Error ? e.message : String(e)).replace(/\.\s*$/, "")
      }.${
        e instanceof SluiceError
          ? ""
          : " Check write permission on the bucket, then run the check again."
      }`,
    };
  }
  const honoured = probe.create === "honoured" && probe.update === "honoured";
  const found = `create-only writes ${probe.create}, compare-and-swap ${probe.update}`;
  if (honoured) {
    return {
      ok: true,
      latencyMs,
      conditionalWrites: probe,
      endpoint,
      message: `${endpoint} answered in ${latencyMs} ms; ${found}.`,
    };
  }
  const ok = setting !== "required";
  return {
    ok,
    latencyMs,
    conditionalWrites: probe,
    endpoint,
    ...(ok ? {} : { code: "conditional_writes_unsupported" as const }),
    message: ok
      ? `${endpoint} answered in ${latencyMs} ms; ${found}: Sluice falls back to check-then-write, which narrows but cannot close races between writers.`
      : `${endpoint} answered in ${latencyMs} ms; ${found}, but the config requires conditional writes: pushes will be refused. Use an endpoint that honours them, or set conditionalWrites to "auto".`,
  };
}

/** The code of a failed check: a Sluice error's own, else `otherwise`. */
function failureCode(e: unknown, otherwise: ErrorCode): ErrorCode {
  return e instanceof SluiceError ? e.code : otherwise;
}
