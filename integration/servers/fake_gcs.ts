/**
 * Starts fake-gcs-server (installed with `go install` by
 * `.ci/install_fake_gcs.sh`) on 127.0.0.1 with the in-memory backend, for the
 * integration tests.
 *
 * @module
 */
import { GcsStore } from "../../packages/gcs/store.ts";
import type { GcsStoreOptions } from "../../packages/gcs/client.ts";
import {
  ignoreWithout,
  locateBinary,
  randomName,
  type ServerBinary,
  startServer,
  waitForHttp,
} from "./common.ts";

/** Where the fake-gcs-server binary is: `SLUICE_FAKE_GCS_BIN`, else `<cache>/bin/fake-gcs-server`. */
export const fakeGcsBinary: ServerBinary = locateBinary(
  "fake-gcs-server",
  "SLUICE_FAKE_GCS_BIN",
  "fake-gcs-server",
  "bash .ci/install_fake_gcs.sh",
);

/** True when fake-gcs-server tests should be ignored (binary missing and servers not required). */
export const ignoreFakeGcs: boolean = ignoreWithout(fakeGcsBinary);

/** A running fake-gcs-server. */
export interface FakeGcsServer {
  /** `http://127.0.0.1:<port>`, the SDK's `apiEndpoint`. */
  readonly apiEndpoint: string;
  /** The project id buckets are created in. */
  readonly projectId: string;
  /** Creates a fresh bucket (random name unless given) and returns its name. */
  createBucket(name?: string): Promise<string>;
  /**
   * A {@link GcsStore} on a fresh bucket of this server (anonymous, short
   * retries); `options` may override any store option.
   */
  createStore(options?: Partial<GcsStoreOptions>): Promise<GcsStore>;
  /** Stops the server. */
  stop(): Promise<void>;
}

/** Options of {@link startFakeGcs}. */
export interface StartFakeGcsOptions {
  /** Readiness timeout; default 30 000 ms. */
  readonly readyTimeoutMs?: number;
}

/**
 * Starts fake-gcs-server on a free loopback port (`-scheme http -backend
 * memory -host 127.0.0.1 -port <port> -public-host 127.0.0.1:<port>`) and
 * waits until it lists buckets.
 *
 * @example
 * ```ts
 * import { startFakeGcs } from "./fake_gcs.ts";
 * const gcs = await startFakeGcs();
 * const bucket = await gcs.createBucket();
 * console.log(gcs.apiEndpoint, bucket);
 * await gcs.stop();
 * ```
 */
export async function startFakeGcs(options: StartFakeGcsOptions = {}): Promise<FakeGcsServer> {
  const projectId = "sluice-test";
  const started = await startServer({
    binary: fakeGcsBinary,
    command: ({ port }) => ({
      args: [
        "-scheme",
        "http",
        "-backend",
        "memory",
        "-host",
        "127.0.0.1",
        "-port",
        String(port),
        "-public-host",
        `127.0.0.1:${port}`,
        "-log-level",
        "warn",
      ],
    }),
    waitUntilReady: (endpoint, process) =>
      waitForHttp(`${endpoint}/storage/v1/b?project=${projectId}`, {
        process,
        timeoutMs: options.readyTimeoutMs ?? 30_000,
      }),
  });
  const apiEndpoint = started.endpoint;
  const createBucket = async (name?: string): Promise<string> => {
    const bucket = name ?? randomName("sluice");
    const res = await fetch(`${apiEndpoint}/storage/v1/b?project=${projectId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: bucket }),
    });
    const text = await res.text();
    if (!res.ok) {
      throw new Error(
        `fake-gcs-server refused to create bucket ${bucket}: HTTP ${res.status} ${text}`,
      );
    }
    return bucket;
  };
  return {
    apiEndpoint,
    projectId,
    createBucket,
    async createStore(overrides: Partial<GcsStoreOptions> = {}): Promise<GcsStore> {
      const bucket = overrides.bucket ?? await createBucket();
      return new GcsStore({
        apiEndpoint,
        projectId,
        requestTimeoutMs: 10_000,
        retries: 2,
        retryBaseDelayMs: 20,
        retryMaxDelayMs: 200,
        ...overrides,
        bucket,
      });
    },
    stop: () => started.stop(),
  };
}
