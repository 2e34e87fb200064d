/**
 * Finding out, without a request, whether Application Default Credentials
 * can exist here at all, so that a {@link GcsStore} with no credentials
 * fails at once with a credentials error instead of an outage or an internal
 * error after the client library's own lookups.
 *
 * The sources checked are the ones the Google auth library tries, in its
 * order: `GOOGLE_APPLICATION_CREDENTIALS`, gcloud's well-known file
 * (`$CLOUDSDK_CONFIG/application_default_credentials.json`, else
 * `~/.config/gcloud/…`, or `%APPDATA%\gcloud\…` on Windows), then the metadata
 * server of a Google Cloud machine (a serverless runtime's variables, the
 * machine's BIOS vendor or MAC prefix, or `GCE_METADATA_HOST` /
 * `METADATA_SERVER_DETECTION` asking for it explicitly). Only when none of
 * them can apply are the credentials reported missing; anything uncertain
 * is left to the library.
 *
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { networkInterfaces, platform } from "node:os";
import { join } from "node:path";

/** Where Application Default Credentials would come from, or `null` when from nowhere. */
export type AdcSource =
  | "GOOGLE_APPLICATION_CREDENTIALS"
  | "well-known file"
  | "metadata server"
  | "unknown";

/** What {@link findAdcSource} looks at; tests pass fakes. */
export interface AdcLookup {
  /** An environment variable, `undefined` when unset or unreadable. */
  env(name: string): string | undefined;
  /** True when a file exists at `path`. */
  exists(path: string): boolean;
  /** `node:os` platform name. */
  platform(): string;
  /** True when the machine looks like a Google Compute Engine VM (BIOS vendor or MAC prefix). */
  onGoogleCompute(): boolean;
}

/** Runtime variables of Cloud Run and Cloud Functions (the metadata server is there). */
const SERVERLESS_VARS = ["CLOUD_RUN_JOB", "FUNCTION_NAME", "K_SERVICE", "CLOUD_RUN_WORKER_POOL"];

/** The process's own environment, file system and machine. */
export const SYSTEM_ADC_LOOKUP: AdcLookup = {
  env(name) {
    try {
      return Deno.env.get(name);
    } catch {
      return undefined;
    }
  },
  exists: (path) => existsSync(path),
  platform: () => platform(),
  onGoogleCompute() {
    if (platform() === "linux") {
      try {
        if (/Google/.test(readFileSync("/sys/class/dmi/id/bios_vendor", "utf8"))) return true;
      } catch { /* not readable: not decided by the BIOS */ }
    }
    for (const list of Object.values(networkInterfaces())) {
      for (const nic of list ?? []) if (/^42:01/i.test(nic.mac)) return true;
    }
    return false;
  },
};

/**
 * Where Application Default Credentials would come from; `null` when no
 * source can apply (no variable, no gcloud file, not a Google Cloud
 * machine), `"unknown"` when the lookup itself was not possible (e.g. no
 * permission to read the environment). Makes no request.
 *
 * @example
 * ```ts
 * import { findAdcSource } from "./credentials.ts";
 * const none = {
 *   env: () => undefined,
 *   exists: () => false,
 *   platform: () => "linux",
 *   onGoogleCompute: () => false,
 * };
 * findAdcSource(none); // null
 * findAdcSource({ ...none, env: (n: string) => n === "GOOGLE_APPLICATION_CREDENTIALS" ? "/k.json" : undefined });
 * // "GOOGLE_APPLICATION_CREDENTIALS"
 * ```
 */
export function findAdcSource(lookup: AdcLookup = SYSTEM_ADC_LOOKUP): AdcSource | null {
  try {
    if (lookup.env("GOOGLE_APPLICATION_CREDENTIALS")) return "GOOGLE_APPLICATION_CREDENTIALS";
    const windows = lookup.platform() === "win32";
    const home = lookup.env(windows ? "APPDATA" : "HOME");
    const configDir = lookup.env("CLOUDSDK_CONFIG") ??
      (home === undefined
        ? undefined
        : windows
        ? join(home, "gcloud")
        : join(home, ".config", "gcloud"));
    if (configDir === undefined) return "unknown";
    if (lookup.exists(join(configDir, "application_default_credentials.json"))) {
      return "well-known file";
    }
    const detection = lookup.env("METADATA_SERVER_DETECTION")?.trim().toLowerCase();
    if (detection === "none") return null;
    if (detection !== undefined && detection !== "") return "metadata server";
    if (lookup.env("GCE_METADATA_HOST") || lookup.env("GCE_METADATA_IP")) return "metadata server";
    if (SERVERLESS_VARS.some((v) => lookup.env(v))) return "metadata server";
    return lookup.onGoogleCompute() ? "metadata server" : null;
  } catch {
    return "unknown";
  }
}

/** How to provide credentials, as messages say it. */
export const GCS_CREDENTIALS_HINT =
  "run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS to a service account key file (for an emulator, give its endpoint (the store URL's endpoint=, or the datastore configuration's \"apiEndpoint\"): the store then sends no credentials)";
