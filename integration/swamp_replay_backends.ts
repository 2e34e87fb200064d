/**
 * The servers of the swamp call-sequence replay: MinIO through the S3
 * extension, fake-gcs-server through the GCS extension. Each gives fresh
 * buckets, the extension's config for a bucket, a direct observer, and raw
 * conditional creates made with the backend's own protocol (the S3 SDK's
 * `If-None-Match: *`, the GCS JSON API's `ifGenerationMatch=0`), as an
 * existing client of the bucket writes its lock objects.
 *
 * @module
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { createSluice } from "../sluice.ts";
import { createS3Provider } from "../packages/s3/provider.ts";
import { createGcsProvider } from "../packages/gcs/provider.ts";
import { createS3Client } from "../packages/s3/client.ts";
import { createSluiceS3Datastore } from "../extensions/s3/extensions/datastores/sluice_s3.ts";
import { createSluiceGcsDatastore } from "../extensions/gcs/extensions/datastores/sluice_gcs.ts";
import type { ReplayBackend } from "./swamp_replay.ts";
import { REPLAY_SETTINGS } from "./swamp_replay.ts";
import { ignoreMinio, type MinioServer, startMinio } from "./servers/minio.ts";
import { type FakeGcsServer, ignoreFakeGcs, startFakeGcs } from "./servers/fake_gcs.ts";

const PREFIX = REPLAY_SETTINGS.prefix;

function statusOf(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

/** MinIO, started on first use and shared by the file's tests. */
export function minioReplayBackend(): ReplayBackend {
  let server: Promise<MinioServer> | undefined;
  let raw: S3Client | undefined;
  return {
    label: "MinIO",
    ignore: ignoreMinio,
    async bucket() {
      const s = await (server ??= startMinio());
      const bucket = await s.createBucket();
      const client = raw ??= createS3Client(s.clientOptions);
      const credentials = { accessKeyId: s.accessKey, secretAccessKey: s.secretKey };
      const config = (endpoint: string) => ({
        bucket,
        region: s.region,
        endpoint,
        forcePathStyle: true,
        ...REPLAY_SETTINGS,
      });
      return {
        endpoint: s.endpoint,
        cliEnv: { AWS_ACCESS_KEY_ID: s.accessKey, AWS_SECRET_ACCESS_KEY: s.secretKey },
        datastore: (deps) => createSluiceS3Datastore({ ...deps, credentials }),
        config,
        observer: () =>
          createS3Provider(config(s.endpoint), { credentials, createService: createSluice }),
        async rawCreate(key, body) {
          try {
            await client.send(
              new PutObjectCommand({
                Bucket: bucket,
                Key: `${PREFIX}/${key}`,
                Body: body,
                IfNoneMatch: "*",
                ContentType: "application/json",
              }),
            );
            return true;
          } catch (e) {
            if (statusOf(e) === 412) return false;
            throw e;
          }
        },
        async rawGet(key) {
          try {
            const r = await client.send(
              new GetObjectCommand({ Bucket: bucket, Key: `${PREFIX}/${key}` }),
            );
            return await r.Body?.transformToString() ?? "";
          } catch (e) {
            if (statusOf(e) === 404) return null;
            throw e;
          }
        },
      };
    },
    async stop() {
      raw?.destroy();
      if (server) await (await server).stop();
    },
  };
}

/** fake-gcs-server, started on first use and shared by the file's tests. */
export function fakeGcsReplayBackend(): ReplayBackend {
  let server: Promise<FakeGcsServer> | undefined;
  return {
    label: "fake-gcs-server",
    ignore: ignoreFakeGcs,
    async bucket() {
      const s = await (server ??= startFakeGcs());
      const bucket = await s.createBucket();
      const config = (apiEndpoint: string) => ({
        bucket,
        projectId: s.projectId,
        apiEndpoint,
        ...REPLAY_SETTINGS,
      });
      const object = (key: string) => encodeURIComponent(`${PREFIX}/${key}`);
      return {
        endpoint: s.apiEndpoint,
        cliEnv: {},
        datastore: (deps) => createSluiceGcsDatastore(deps),
        config,
        observer: () => createGcsProvider(config(s.apiEndpoint), { createService: createSluice }),
        async rawCreate(key, body) {
          const res = await fetch(
            `${s.apiEndpoint}/upload/storage/v1/b/${bucket}/o?uploadType=media&name=${
              object(key)
            }&ifGenerationMatch=0`,
            { method: "POST", headers: { "content-type": "application/json" }, body },
          );
          const text = await res.text();
          if (res.status === 412) return false;
          if (!res.ok) throw new Error(`raw create of ${key}: HTTP ${res.status} ${text}`);
          return true;
        },
        async rawGet(key) {
          const res = await fetch(
            `${s.apiEndpoint}/storage/v1/b/${bucket}/o/${object(key)}?alt=media`,
          );
          const text = await res.text();
          if (res.status === 404) return null;
          if (!res.ok) throw new Error(`raw get of ${key}: HTTP ${res.status} ${text}`);
          return text;
        },
      };
    },
    async stop() {
      if (server) await (await server).stop();
    },
  };
}
