/**
 * `sluice probe`: runs the conditional-write probe of `sync/transfer/conditional.ts`
 * against a store through a timing wrapper, so the report carries the
 * latency of each request besides the verdicts.
 *
 * @module
 */
import { Command } from "commander";
import {
  type ConditionalSupport,
  PROBE_PREFIX,
  probeConditionalWrites,
} from "../sync/transfer/conditional.ts";
import {
  AbortedError,
  ConditionalWritesUnsupportedError,
  SluiceError,
  UnreachableError,
} from "../sync/errors.ts";
import { action, type RunState, VERBOSE_WARNINGS, withOutputOptions } from "./command_kit.ts";
import { type CliIo, type Output, shellWord, UsageError } from "./output.ts";
import { STORE_ENV } from "./session.ts";
import { endpointFields, openStore, parseStoreUrl } from "./store_url.ts";
import type {
  CallOptions,
  DeleteOptions,
  ListOptions,
  ObjectStore,
  PutMode,
  PutOptions,
} from "../sync/ports.ts";

/** One request the probe made. */
export interface ProbeRequest {
  /** The store operation. */
  readonly op: "get" | "head" | "put" | "delete" | "list";
  /** The put mode, for puts. */
  readonly mode?: PutMode["kind"];
  /** Wall time of the request in milliseconds. */
  readonly ms: number;
  /** `ok`, or the error code the store answered with. */
  readonly outcome: string;
}

/** What `sluice probe` reports. */
export interface ProbeReport {
  /** The probed endpoint, as the store names it. */
  readonly endpoint: string;
  /** Create-only writes (`If-None-Match: *`, `ifGenerationMatch=0`). */
  readonly create: ConditionalSupport;
  /** Compare-and-swap writes (`If-Match`, `ifGenerationMatch=<gen>`). */
  readonly update: ConditionalSupport;
  /** Wall time of the whole probe, cleanup included. */
  readonly totalMs: number;
  /** Median request time. */
  readonly medianMs: number;
  /** Slowest request. */
  readonly maxMs: number;
  /** Every request, in order. */
  readonly requests: readonly ProbeRequest[];
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * A store that records the duration and outcome of every call into `log`.
 *
 * @example
 * ```ts
 * import { timedStore, type ProbeRequest } from "./probe.ts";
 * import type { ObjectStore } from "../sync/ports.ts";
 * function wrap(store: ObjectStore) {
 *   const log: ProbeRequest[] = [];
 *   return { store: timedStore(store, log), log };
 * }
 * ```
 */
export function timedStore(store: ObjectStore, log: ProbeRequest[]): ObjectStore {
  async function time<T>(
    op: ProbeRequest["op"],
    mode: PutMode["kind"] | undefined,
    fn: () => Promise<T>,
  ): Promise<T> {
    const start = performance.now();
    let outcome = "ok";
    try {
      return await fn();
    } catch (e) {
      outcome = e instanceof SluiceError ? e.code : "error";
      throw e;
    } finally {
      log.push({ op, ...(mode ? { mode } : {}), ms: round(performance.now() - start), outcome });
    }
  }
  return {
    endpoint: store.endpoint,
    get: (key: string, o?: CallOptions) => time("get", undefined, () => store.get(key, o)),
    head: (key: string, o?: CallOptions) => time("head", undefined, () => store.head(key, o)),
    put: (key: string, body: Uint8Array, mode: PutMode, o?: PutOptions) =>
      time("put", mode.kind, () => store.put(key, body, mode, o)),
    delete: (key: string, o?: DeleteOptions) =>
      time("delete", undefined, () => store.delete(key, o)),
    list: (prefix: string, o?: ListOptions) => store.list(prefix, o),
  };
}

/**
 * Probes `store` for conditional writes (create twice, update on a stale
 * version, clean up) and reports each verdict with the requests' latency.
 * Transport failures propagate as the store's typed errors.
 *
 * @example
 * ```ts
 * import { probeWithLatency } from "./probe.ts";
 * import { InMemoryStore } from "../packages/testing/mod.ts";
 * const report = await probeWithLatency(new InMemoryStore());
 * console.log(report.create, report.update, report.medianMs);
 * ```
 */
export async function probeWithLatency(
  store: ObjectStore,
  options: { signal?: AbortSignal } = {},
): Promise<ProbeReport> {
  const requests: ProbeRequest[] = [];
  const start = performance.now();
  const result = await probeConditionalWrites(timedStore(store, requests), {
    signal: options.signal,
  });
  const totalMs = round(performance.now() - start);
  const sorted = requests.map((r) => r.ms).sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const medianMs = sorted.length === 0
    ? 0
    : sorted.length % 2
    ? sorted[mid]
    : round((sorted[mid - 1] + sorted[mid]) / 2);
  return {
    endpoint: store.endpoint,
    create: result.create,
    update: result.update,
    totalMs,
    medianMs,
    maxMs: sorted.at(-1) ?? 0,
    requests,
  };
}

const VERB: Record<ConditionalSupport, string> = {
  honoured: "honoured",
  refused: "REFUSED (the endpoint answers that it does not support them)",
  ignored: "IGNORED (the endpoint accepts the header and overwrites anyway)",
};

/** The human report of a probe, line by line. */
export function describeProbe(r: ProbeReport): string[] {
  const lines = [
    `Probed ${r.endpoint} in ${r.totalMs} ms (${r.requests.length} requests; median ${r.medianMs} ms, slowest ${r.maxMs} ms):`,
    `  create-only writes (If-None-Match: * / ifGenerationMatch=0): ${VERB[r.create]}`,
    `  compare-and-swap writes (If-Match / ifGenerationMatch=<generation>): ${VERB[r.update]}`,
  ];
  if (r.create === "honoured" && r.update === "honoured") {
    lines.push(
      "Conditional writes are honoured: data versions are written create-only and markers, indexes and locks with compare-and-swap.",
    );
  } else {
    const silent = r.create === "ignored" || r.update === "ignored";
    lines.push(
      `${
        silent
          ? "This endpoint silently ignores conditional writes: two writers can overwrite each other without either noticing. "
          : ""
      }With conditionalWrites "auto" Sluice falls back to check-then-write with a warning (it narrows, but cannot close, the race between two writers); with "required" it refuses to push. Use an endpoint that honours If-None-Match/If-Match (or generation preconditions) for safe concurrent writers.`,
    );
  }
  return lines;
}

/**
 * The error `sluice probe <given>` reports for `e`: an unreachable endpoint
 * or a cancelled probe gets the probe's own account (the sync's "local
 * changes stay dirty" does not fit a command that has no cache) and the
 * command to run again; any other error stands.
 */
export function probeFailure(e: unknown, given: string): unknown {
  if (e instanceof AbortedError) {
    // The sync's account (files not yet pushed stay dirty) does not fit either.
    return new AbortedError("The probe", {
      cause: e,
      kept:
        `It gave no verdict; it deleted its own key under ${PROBE_PREFIX} on the way out (a key the endpoint did not let it delete stays there, harmless), and no cache was read or changed. Run \`sluice probe ${
          shellWord(given)
        }\` again for a verdict.`,
    });
  }
  if (!(e instanceof UnreachableError)) return e;
  return new SluiceError(
    "unreachable",
    `The endpoint could not be reached: ${e.detail}. The probe gave no verdict; it wrote nothing but its own key under ${PROBE_PREFIX}, deleted as the probe ends when the endpoint answers, and no cache was read or changed. Check the endpoint in the store URL, then run \`sluice probe ${
      shellWord(given)
    }\` again.`,
    { cause: e },
  );
}

/** Registers `probe`. */
export function probeCommand(io: CliIo, state: RunState): Command {
  return withOutputOptions(
    new Command("probe")
      .description(
        "check whether a store honours, refuses or silently ignores create-only and compare-and-swap writes, with latency",
      )
      .argument("[store-url]", `the store to probe (default: --store, else $${STORE_ENV})`)
      .option("--store <url>", "the store to probe")
      .option(
        "--require",
        "exit with conditional_writes_unsupported (69) unless both forms are honoured",
      )
      .addHelpText(
        "after",
        `\nThe probe writes a random key under ${PROBE_PREFIX} twice create-only, then updates it on a stale version, and deletes it.\n\nExamples:\n  sluice probe 's3://bucket/prefix?endpoint=http://127.0.0.1:9000'\n  sluice probe --json 'gs://bucket?endpoint=http://127.0.0.1:4443'`,
      ),
    VERBOSE_WARNINGS,
  ).action(action(io, state, "probe", async (out: Output, cmd, url?: string) => {
    const opts = cmd.opts<{ store?: string; require?: boolean }>();
    const given = url ?? opts.store ?? (io.env?.[STORE_ENV] || undefined);
    if (!given) {
      throw new UsageError(
        `sluice probe needs a store URL to probe, as its argument (e.g. sluice probe 's3://my-bucket?endpoint=http://127.0.0.1:9000') or in $${STORE_ENV}. Nothing was probed.`,
      );
    }
    const opened = openStore(parseStoreUrl(given, { cwd: io.cwd }), { env: io.env });
    // A message naming `sluice bucket create <store-url>` names this store.
    out.usingStore(given);
    try {
      const report = await probeWithLatency(opened.store, { signal: io.signal }).catch((e) => {
        throw probeFailure(e, given);
      });
      const short = opts.require && (report.create !== "honoured" || report.update !== "honoured");
      const refusal = short
        ? new ConditionalWritesUnsupportedError(
          report.endpoint,
          report.create === "refused" || report.update === "refused" ? "refused" : "ignored",
        )
        : undefined;
      out.result("probe", {
        ...report,
        ...endpointFields(opened.spec, opened.store),
        ...(refusal
          ? {
            outcome: { code: refusal.code, exitCode: refusal.exitCode, message: refusal.message },
          }
          : {}),
      });
      for (const line of describeProbe(report)) out.say(line);
      if (opened.store.deletesChecked) {
        out.say(
          "Deletes were not probed: a delete checks the object's version, then deletes it, which an endpoint that ignores a delete's condition (MinIO is one) leaves open to a write in between; a push then keeps the entry such a delete may have emptied, as a conflict (see Conflicts in the README).",
        );
      }
      if (refusal) return refusal.exitCode;
    } finally {
      opened.close();
    }
  }));
}
