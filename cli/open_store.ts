/**
 * Opening a parsed store URL: the {@link ObjectStore} a {@link StoreSpec}
 * describes ({@link FsStore}, {@link S3Store} or {@link GcsStore}), with
 * credentials from the given environment for S3.
 *
 * @module
 */
import type { ObjectStore } from "../sync/ports.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { S3Store } from "../packages/s3/store.ts";
import { GcsStore } from "../packages/gcs/store.ts";
import type { StoreRetryEvent } from "../packages/store_kit/attempts.ts";
import type { GcsStoreSpec, S3StoreSpec, StoreSpec } from "./store_spec.ts";

/** An opened store and how to release it. */
export interface OpenedStore {
  /** The store. */
  readonly store: ObjectStore;
  /** What it was made from. */
  readonly spec: StoreSpec;
  /** Releases the client's sockets (safe to call twice). */
  close(): void;
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** Environment for credentials and the default region (`AWS_*`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Told before each retry of a request (S3 and GCS stores retry themselves). */
  readonly onRetry?: (event: StoreRetryEvent) => void;
}

/** The attempt options of a bucket store: the URL's timeout and retries, and the retry notice. */
function attempts(spec: S3StoreSpec | GcsStoreSpec, options: OpenStoreOptions) {
  return {
    ...(spec.requestTimeoutMs !== undefined ? { requestTimeoutMs: spec.requestTimeoutMs } : {}),
    ...(spec.retries !== undefined ? { retries: spec.retries } : {}),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
  };
}

/**
 * Creates the store a spec describes (no request is made).
 *
 * @example
 * ```ts
 * import { openStore, parseStoreUrl } from "./store_url.ts";
 * const opened = openStore(parseStoreUrl(`file://${await Deno.makeTempDir()}`));
 * console.log(opened.store.endpoint);
 * opened.close();
 * ```
 */
export function openStore(spec: StoreSpec, options: OpenStoreOptions = {}): OpenedStore {
  const env = options.env ?? {};
  if (spec.kind === "file") {
    return { store: new FsStore({ root: spec.root }), spec, close: () => {} };
  }
  if (spec.kind === "s3") {
    const id = env.AWS_ACCESS_KEY_ID;
    const secret = env.AWS_SECRET_ACCESS_KEY;
    const region = spec.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    const store = new S3Store({
      bucket: spec.bucket,
      prefix: spec.prefix,
      ...(spec.endpoint !== undefined ? { endpoint: spec.endpoint } : {}),
      ...(region !== undefined ? { region } : {}),
      ...(spec.forcePathStyle !== undefined ? { forcePathStyle: spec.forcePathStyle } : {}),
      ...(spec.checksums !== undefined ? { checksums: spec.checksums } : {}),
      ...(spec.conditionalDelete !== undefined
        ? { conditionalDelete: spec.conditionalDelete }
        : {}),
      ...attempts(spec, options),
      ...(id && secret
        ? {
          credentials: {
            accessKeyId: id,
            secretAccessKey: secret,
            ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
          },
        }
        : {}),
    });
    let closed = false;
    return {
      store,
      spec,
      close: () => {
        if (!closed) store.close();
        closed = true;
      },
    };
  }
  const store = new GcsStore({
    bucket: spec.bucket,
    prefix: spec.prefix,
    ...(spec.endpoint !== undefined ? { apiEndpoint: spec.endpoint } : {}),
    ...(spec.projectId !== undefined ? { projectId: spec.projectId } : {}),
    ...(spec.anonymous !== undefined ? { anonymous: spec.anonymous } : {}),
    ...attempts(spec, options),
  });
  return { store, spec, close: () => {} };
}
