/**
 * Real-server targets for the chaos workload: MinIO (through `S3Store`) and
 * fake-gcs-server (through `GcsStore`), each history on a fresh bucket, the
 * clones talking to the server through a loopback fault proxy
 * (`integration/proxy.ts`): an outage cuts the proxy, a flaky call resets
 * connections mid-request (after the server acted on the request when the
 * history asks for an after-effect), latency is fake time the scheduler lets
 * pass. The checks read the bucket directly, past the proxy.
 *
 * The scheduler's clock is fake while the server stamps objects with real
 * time, so the clones see the store through {@link fakeTimeStore}: every
 * object's last-modified time is the fake time of its last write through any
 * clone, which is what lock staleness is judged on.
 *
 * @module
 */
import { type ErrorCode, NotFoundError, SluiceError } from "../../sync/errors.ts";
import type {
  CallOptions,
  Clock,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
} from "../../sync/ports.ts";
import { S3Store } from "../../packages/s3/store.ts";
import { GcsStore } from "../../packages/gcs/store.ts";
import { type FaultProxy, startFaultProxy } from "../proxy.ts";
import { ignoreMinio, type MinioServer, startMinio } from "../servers/minio.ts";
import { type FakeGcsServer, ignoreFakeGcs, startFakeGcs } from "../servers/fake_gcs.ts";
import { type ChaosTarget, memoryTarget, type TargetEnv, type TargetFactory } from "./target.ts";

/** Failures that are decisions (nothing was written), not transport trouble. */
const DECISIONS = new Set<ErrorCode>([
  "already_exists",
  "precondition_failed",
  "not_implemented",
  "not_found",
  "unsafe_path",
]);

/**
 * `store` with every object's `lastModified` replaced by the fake time of
 * its last write through a wrapper sharing `stamps` (a write that failed in
 * transport is stamped too: it may have landed; a refused condition is not).
 * Unknown keys read as written now.
 *
 * @example
 * ```ts
 * import { fakeTimeStore } from "./servers.ts";
 * import { FakeClock, InMemoryStore } from "../../packages/testing/mod.ts";
 * const clock = new FakeClock(0);
 * const store = fakeTimeStore(new InMemoryStore(), clock, new Map());
 * ```
 */
export function fakeTimeStore(
  store: ObjectStore,
  clock: Clock,
  stamps: Map<string, number>,
): ObjectStore {
  const stamp = <T extends ObjectInfo>(info: T): T => ({
    ...info,
    lastModified: stamps.get(info.key) ?? clock.now(),
  });
  return {
    endpoint: store.endpoint,
    get: async (key: string, o?: CallOptions): Promise<GetResult> => stamp(await store.get(key, o)),
    ...(store.getStream
      ? {
        getStream: async (key: string, o?: CallOptions): Promise<GetStreamResult> =>
          stamp(await store.getStream!(key, o)),
      }
      : {}),
    head: async (key: string, o?: CallOptions) => {
      const info = await store.head(key, o);
      return info && stamp(info);
    },
    put: async (key: string, body: PutBody, mode: PutMode, o?: PutOptions) => {
      let info: ObjectInfo;
      try {
        info = await store.put(key, body, mode, o);
      } catch (e) {
        // A refused condition wrote nothing; any other failure may have landed.
        if (!(e instanceof SluiceError && DECISIONS.has(e.code))) stamps.set(key, clock.now());
        throw e;
      }
      stamps.set(key, clock.now());
      return stamp({ ...info, key });
    },
    delete: async (key: string, o?: DeleteOptions) => {
      await store.delete(key, o);
      stamps.delete(key);
    },
    list: async function* (prefix: string, o?: ListOptions) {
      for await (const page of store.list(prefix, o)) yield page.map(stamp);
    },
  };
}

/** The store kinds `deno task chaos --store` accepts. */
export const STORE_KINDS = ["memory", "minio", "gcs"] as const;

/** One of {@link STORE_KINDS}. */
export type StoreKind = typeof STORE_KINDS[number];

/** A target and the server behind it (started on first use). */
export interface ServerTarget {
  /** `memory`, `minio` or `gcs`. */
  readonly kind: StoreKind;
  /** True when the server binary is not installed. */
  readonly missing: boolean;
  /** Makes a fresh bucket, proxy and stores for one history. */
  readonly factory: TargetFactory;
  /** Stops the server (if it was started). */
  stop(): Promise<void>;
}

/** Client settings of the chaos clones: short timeouts and retries (the proxy fails fast). */
const CLIENT = { requestTimeoutMs: 5_000, retries: 1, retryBaseDelayMs: 20, retryMaxDelayMs: 50 };

interface Opened {
  readonly store: ObjectStore;
  readonly direct: ObjectStore;
  readonly close: () => void;
}

function target(
  kind: StoreKind,
  missing: boolean,
  open: (proxy: FaultProxy) => Promise<Opened>,
  upstream: () => Promise<URL>,
  stop: () => Promise<void>,
): ServerTarget {
  const factory = async (env: TargetEnv): Promise<ChaosTarget> => {
    const url = await upstream();
    const proxy = await startFaultProxy(url.hostname, Number(url.port));
    const opened = await open(proxy);
    const store = fakeTimeStore(opened.store, env.clock, new Map());
    const direct = opened.direct;
    return {
      name: kind,
      store,
      direct,
      // Past the proxy: no fault reaches it.
      unfaulted: (fn) => fn(direct),
      faults: {
        outage: (on) => (on ? proxy.cut("close") : proxy.heal()),
        latency: (ms) => env.setLatency(ms),
        flaky: (_call, count, afterEffect) =>
          proxy.resetMidRequest({ times: count, forwardRequest: afterEffect }),
        heal: async () => {
          env.setLatency(0);
          await proxy.heal();
        },
      },
      inspect: {
        keys: async () => {
          const keys: string[] = [];
          for await (const page of direct.list("")) keys.push(...page.map((i) => i.key));
          return keys;
        },
        read: async (key) => {
          try {
            return (await direct.get(key)).body;
          } catch (e) {
            if (e instanceof NotFoundError) return undefined;
            throw e;
          }
        },
      },
      close: async () => {
        opened.close();
        await proxy.close();
      },
    };
  };
  return { kind, missing, factory, stop };
}

/**
 * MinIO through the fault proxy, one bucket per history.
 *
 * @example
 * ```ts
 * import { minioChaosTarget } from "./servers.ts";
 * const t = minioChaosTarget();
 * // runHistory(history, { target: t.factory }) …
 * await t.stop();
 * ```
 */
export function minioChaosTarget(): ServerTarget {
  let server: Promise<MinioServer> | undefined;
  const shared = () => (server ??= startMinio());
  return target(
    "minio",
    ignoreMinio,
    async (proxy) => {
      const s = await shared();
      const bucket = await s.createBucket();
      const options = {
        bucket,
        region: s.region,
        forcePathStyle: true,
        credentials: { accessKeyId: s.accessKey, secretAccessKey: s.secretKey },
        ...CLIENT,
      };
      const store = new S3Store({ ...options, endpoint: proxy.url });
      const direct = new S3Store({ ...options, endpoint: s.endpoint });
      return {
        store,
        direct,
        close: () => {
          store.close();
          direct.close();
        },
      };
    },
    async () => new URL((await shared()).endpoint),
    async () => {
      if (server) await (await server).stop();
      server = undefined;
    },
  );
}

/**
 * fake-gcs-server through the fault proxy, one bucket per history.
 *
 * @example
 * ```ts
 * import { gcsChaosTarget } from "./servers.ts";
 * const t = gcsChaosTarget();
 * await t.stop();
 * ```
 */
export function gcsChaosTarget(): ServerTarget {
  let server: Promise<FakeGcsServer> | undefined;
  const shared = () => (server ??= startFakeGcs());
  return target(
    "gcs",
    ignoreFakeGcs,
    async (proxy) => {
      const s = await shared();
      const bucket = await s.createBucket();
      const options = { bucket, projectId: s.projectId, ...CLIENT };
      return {
        store: new GcsStore({ ...options, apiEndpoint: proxy.url }),
        direct: new GcsStore({ ...options, apiEndpoint: s.apiEndpoint }),
        close: () => {},
      };
    },
    async () => new URL((await shared()).apiEndpoint),
    async () => {
      if (server) await (await server).stop();
      server = undefined;
    },
  );
}

/** The server binary of a real-server target is not installed. */
export class ServerMissingError extends Error {
  constructor(kind: StoreKind) {
    const install = kind === "minio" ? ".ci/install_minio.sh" : ".ci/install_fake_gcs.sh";
    super(
      `--store ${kind} needs the ${
        kind === "minio" ? "MinIO" : "fake-gcs-server"
      } binary, which is not installed: run \`bash ${install}\` (or point SLUICE_${
        kind === "minio" ? "MINIO" : "FAKE_GCS"
      }_BIN at it), then run again. Nothing was run.`,
    );
    this.name = "ServerMissingError";
  }
}

/**
 * The target for a `--store` kind: the in-memory store, or a real server
 * started on first use (stop it with `stop()`). Throws a plain Error for an
 * unknown kind and {@link ServerMissingError} when the server is not installed.
 *
 * @example
 * ```ts
 * import { chaosTarget } from "./servers.ts";
 * const t = chaosTarget("memory");
 * await t.stop();
 * ```
 */
export function chaosTarget(kind: string): ServerTarget {
  let t: ServerTarget;
  if (kind === "memory") {
    t = { kind, missing: false, factory: memoryTarget, stop: () => Promise.resolve() };
  } else if (kind === "minio") t = minioChaosTarget();
  else if (kind === "gcs") t = gcsChaosTarget();
  else throw new Error(`unknown store ${JSON.stringify(kind)}: one of ${STORE_KINDS.join(", ")}`);
  if (t.missing) throw new ServerMissingError(t.kind);
  return t;
}
