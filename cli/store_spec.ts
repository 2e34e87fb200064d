/**
 * The parsed form of a store URL: a {@link StoreSpec} names a local
 * directory, an S3 bucket prefix or a GCS bucket prefix, with the options
 * that reach it.
 *
 * @module
 */
import type { ConditionalDeleteStrategy } from "../packages/s3/client.ts";

/** A local-directory store. */
export interface FileStoreSpec {
  /** Discriminant. */
  readonly kind: "file";
  /** Absolute directory of the store. */
  readonly root: string;
}

/** An S3 or S3-compatible store. */
export interface S3StoreSpec {
  /** Discriminant. */
  readonly kind: "s3";
  /** The bucket. */
  readonly bucket: string;
  /** Key prefix without edge slashes (`""` for the bucket root). */
  readonly prefix: string;
  /** Custom endpoint URL of an S3-compatible service. */
  readonly endpoint?: string;
  /** Region to sign for (default: `AWS_REGION`, else the store's default). */
  readonly region?: string;
  /** Path-style addressing; default true with a custom endpoint. */
  readonly forcePathStyle?: boolean;
  /** Flexible checksums (see `S3ClientOptions.checksums`). */
  readonly checksums?: "when_supported" | "when_required";
  /** How conditional deletes are made (see `ConditionalDeleteStrategy`). */
  readonly conditionalDelete?: ConditionalDeleteStrategy;
  /** Per-attempt request timeout in ms (`?timeout=`); default the store's (30 000). */
  readonly requestTimeoutMs?: number;
  /** Attempts after a transient failure (`?retries=`); default the store's (3). */
  readonly retries?: number;
}

/** A Google Cloud Storage store. */
export interface GcsStoreSpec {
  /** Discriminant. */
  readonly kind: "gcs";
  /** The bucket. */
  readonly bucket: string;
  /** Object-name prefix without edge slashes. */
  readonly prefix: string;
  /** Custom API endpoint, e.g. an emulator. */
  readonly endpoint?: string;
  /** Google Cloud project id. */
  readonly projectId?: string;
  /** Send requests without credentials; default true with a custom endpoint. */
  readonly anonymous?: boolean;
  /** Per-attempt request timeout in ms (`?timeout=`); default the store's (30 000). */
  readonly requestTimeoutMs?: number;
  /** Attempts after a transient failure (`?retries=`); default the store's (3). */
  readonly retries?: number;
}

/** A parsed store URL. */
export type StoreSpec = FileStoreSpec | S3StoreSpec | GcsStoreSpec;
