/**
 * The Google Cloud Storage client the store sends its requests with: how it
 * is made ({@link createGcsStorage}), the options of the store that uses it
 * ({@link GcsStoreOptions}), and the headers of the requests the store sends
 * itself with `fetch` (media downloads, multipart uploads); and what its
 * object resources say (generations, {@link fileInfo}).
 *
 * @module
 */
import { type FileMetadata, Storage } from "@google-cloud/storage";
import { SluiceError } from "../../sync/errors.ts";
import { STORE_DEFAULTS, type StoreRetryEvent } from "../store_kit/mod.ts";
import type { Clock, ObjectInfo } from "../../sync/ports.ts";
import type { AdcLookup } from "./credentials.ts";
import type { GcsFailure } from "./errors.ts";

/**
 * The custom-metadata key under which every put records a random write id.
 * After an attempt whose answer was lost, a retry that fails its
 * precondition reads the object back: if it carries our write id, the lost
 * attempt succeeded and the put reports success instead of a conflict.
 * Reads never return this key.
 */
export const GCS_WRITE_ID_KEY = "sluice-write-id";

/** How the SDK client is made when the store makes it. */
export interface GcsClientOptions {
  /** Google Cloud project id; optional for object operations (ADC may supply it). */
  readonly projectId?: string;
  /**
   * A custom API endpoint, e.g. `http://127.0.0.1:4443` for fake-gcs-server.
   * Unset: the public GCS endpoint.
   */
  readonly apiEndpoint?: string;
  /**
   * Send requests without credentials. Default: true when `apiEndpoint` is
   * set (emulators), false otherwise (Application Default Credentials).
   */
  readonly anonymous?: boolean;
  /** A service account key file instead of Application Default Credentials. */
  readonly keyFilename?: string;
  /** Per-request timeout handed to the SDK as well; default 30 000 ms. */
  readonly requestTimeoutMs?: number;
}

/**
 * Makes a `Storage` client the way {@link GcsStore} does: the SDK's own
 * retries off (the store retries transient failures itself), credentials
 * from Application Default Credentials, or none for an emulator endpoint.
 *
 * @example
 * ```ts
 * import { createGcsStorage } from "./client.ts";
 * const storage = createGcsStorage({ apiEndpoint: "http://127.0.0.1:4443", projectId: "test" });
 * ```
 */
export function createGcsStorage(options: GcsClientOptions = {}): Storage {
  const anonymous = options.anonymous ?? options.apiEndpoint !== undefined;
  const storage = new Storage({
    ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
    ...(options.apiEndpoint !== undefined ? { apiEndpoint: options.apiEndpoint } : {}),
    ...(options.keyFilename !== undefined ? { keyFilename: options.keyFilename } : {}),
    // With a custom endpoint the SDK sends no credentials unless asked to.
    useAuthWithCustomEndpoint: !anonymous,
    timeout: options.requestTimeoutMs ?? STORE_DEFAULTS.requestTimeoutMs,
    retryOptions: { autoRetry: false, maxRetries: 0 },
  });
  if (options.apiEndpoint !== undefined) {
    // With STORAGE_EMULATOR_HOST set, the SDK takes that variable, verbatim,
    // as the base of its JSON API requests over the endpoint it is given (the
    // store's media requests follow the endpoint): the configured one decides.
    storage.baseUrl = `${storage.apiEndpoint}/storage/v1`;
  }
  return storage;
}

/** What the store reports before sleeping for a retry. */
export type GcsRetryEvent = StoreRetryEvent;

/** Options of {@link GcsStore}. */
export interface GcsStoreOptions extends GcsClientOptions {
  /** The bucket. */
  readonly bucket: string;
  /** Object-name prefix inside the bucket (store keys are relative to it); a trailing `/` is added. */
  readonly prefix?: string;
  /**
   * Per-attempt deadline in ms, combined with the caller's signal; default
   * 30 000. A streamed upload counts it from the last bytes sent, and a
   * streamed download's body from when its reader asked for more.
   */
  readonly requestTimeoutMs?: number;
  /** Extra attempts after a transient failure; default 3. */
  readonly retries?: number;
  /** First backoff in ms (doubled each retry, jittered ±50%); default 200. */
  readonly retryBaseDelayMs?: number;
  /** Largest backoff in ms; default 5 000. */
  readonly retryMaxDelayMs?: number;
  /**
   * Also name the generation (`generation=<v>`) in a conditional delete,
   * besides `ifGenerationMatch=<v>`. Default true. GCS decides by the
   * precondition either way (and removes the live generation permanently,
   * also in a versioned bucket); emulators that ignore `ifGenerationMatch` on
   * deletes, such as fake-gcs-server, still refuse to delete another
   * generation (404, reported as `PreconditionFailedError`).
   */
  readonly pinDeleteGeneration?: boolean;
  /** Time for backoff sleeps and attempt deadlines; default the system clock. */
  readonly clock?: Clock;
  /** Random source in [0, 1) for jitter; default `Math.random`. */
  readonly random?: () => number;
  /**
   * An existing client (its own configuration wins; it should have
   * `retryOptions.autoRetry` false, see {@link createGcsStorage}).
   */
  readonly storage?: Storage;
  /** Called before each retry sleep (the library never logs). */
  readonly onRetry?: (event: GcsRetryEvent) => void;
  /**
   * How to look for Application Default Credentials before the first
   * request, when the store makes an authenticated client (no `storage`,
   * `keyFilename` or `anonymous`); default the process's environment and
   * machine. Without any source, every call fails at once with
   * `invalid_config` at `credentials`, and no request is sent.
   */
  readonly adcLookup?: AdcLookup;
  /**
   * The `fetch` used for media downloads (`get`, `getStream`) and streamed
   * uploads; default the global `fetch`. Tests pass a fake.
   */
  readonly fetch?: typeof fetch;
}

/** Headers for a direct request: the client's credentials, unless it is anonymous. */
export async function requestHeaders(storage: Storage, url: string): Promise<Headers> {
  const headers = new Headers();
  if (!(storage.customEndpoint && !storage.useAuthWithCustomEndpoint)) {
    const auth = await storage.authClient.getRequestHeaders(url);
    auth.forEach((value, key) => headers.set(key, value));
  }
  return headers;
}

/** A generation is a decimal int64; anything else cannot match an object. */
export const GENERATION = /^[0-9]{1,19}$/;

/** The failed condition of a version that is no generation: it cannot match any object. */
export function notGeneration(version: string): GcsFailure {
  return {
    kind: "precondition_failed",
    ambiguous: false,
    detail: `version ${JSON.stringify(version)} is not a GCS generation`,
  };
}

/**
 * What an object resource of the client says, as an `ObjectInfo`: its
 * generation as the version, and its custom metadata without the write id.
 * An answer without a generation is no GCS answer (`internal`, naming
 * `endpoint`).
 */
export function fileInfo(endpoint: string, key: string, meta: FileMetadata): ObjectInfo {
  const generation = meta.generation;
  if (generation === undefined || generation === null || `${generation}` === "") {
    throw new SluiceError(
      "internal",
      `GCS returned no generation for ${key} at ${endpoint}; the endpoint does not behave like GCS. Nothing was changed.`,
    );
  }
  const stamp = meta.updated ?? meta.timeCreated;
  const lastModified = stamp ? Date.parse(stamp) : Number.NaN;
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(meta.metadata ?? {})) {
    const name = k.toLowerCase();
    if (name === GCS_WRITE_ID_KEY || v === null || v === undefined) continue;
    metadata[name] = String(v);
  }
  return {
    key,
    version: String(generation),
    size: Number(meta.size ?? 0),
    lastModified: Number.isFinite(lastModified) ? lastModified : 0,
    metadata,
  };
}
/**
 * A generation for the SDK's `generation` option (typed as a number): a
 * number while exact, else the decimal string itself, which the SDK passes
 * through to the query string unchanged.
 */
export function generationParam(version: string): number {
  const n = Number(version);
  return Number.isSafeInteger(n) ? n : (version as unknown as number);
}
