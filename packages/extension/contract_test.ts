/**
 * Type-level test: the extension's provider, sync service, lock and verifier
 * hold against our declaration of the tool's shapes (a mismatch fails
 * `deno check`), plus a run-time look at what the types cannot say.
 */
import assert from "node:assert/strict";
import type {
  SwampDatastoreExport,
  SwampDatastoreProvider,
  SwampDistributedLock,
  SwampLockTimeoutFields,
  SwampSyncService,
  SwampVerifier,
} from "./contract.ts";
import type { ExtensionProvider } from "./provider.ts";
import type { ExtensionLock, SwampLockTimeoutError } from "./lock.ts";
import type { ExtensionSyncService } from "./sync_service.ts";
import { datastore as s3 } from "../../extensions/s3/extensions/datastores/sluice_s3.ts";
import { datastore as gcs } from "../../extensions/gcs/extensions/datastores/sluice_gcs.ts";

type Holds<A extends B, B> = A;
type _Provider = Holds<ExtensionProvider, SwampDatastoreProvider>;
type _Lock = Holds<ExtensionLock, SwampDistributedLock>;
type _Service = Holds<ExtensionSyncService, SwampSyncService>;
type _Verifier = Holds<ReturnType<ExtensionProvider["createVerifier"]>, SwampVerifier>;
type _Timeout = Holds<SwampLockTimeoutError, SwampLockTimeoutFields>;
type _CreateLockIsSync = Holds<ReturnType<ExtensionProvider["createLock"]>, SwampDistributedLock>;
type _CreateServiceIsSync = Holds<
  ReturnType<ExtensionProvider["createSyncService"]>,
  SwampSyncService
>;
type _Caps = Holds<ReturnType<ExtensionSyncService["capabilities"]>, object>;
type _Register = Holds<
  ExtensionProvider["registerNamespace"],
  NonNullable<SwampDatastoreProvider["registerNamespace"]>
>;
type _List = Holds<
  ExtensionProvider["listNamespaces"],
  NonNullable<SwampDatastoreProvider["listNamespaces"]>
>;

const _s3: SwampDatastoreExport = s3;
const _gcs: SwampDatastoreExport = gcs;

Deno.test("contract: the entries are the tool's shapes; createSyncService and capabilities answer at once", () => {
  const provider = s3.createProvider({ bucket: "my-bucket" });
  const svc = provider.createSyncService("/tmp/repo", "/tmp/sluice-never-created-cache");
  assert.ok(!(svc instanceof Promise));
  const caps = svc.capabilities();
  assert.ok(!(caps instanceof Promise));
  assert.equal(caps.scopedSync, true);
  assert.equal(caps.twoPhaseSync, true);
  assert.equal(typeof _gcs.createProvider, "function");
});

Deno.test("contract: both entries' providers register and list namespaces", () => {
  for (const ds of [s3, gcs]) {
    const provider: SwampDatastoreProvider = ds.createProvider({ bucket: "my-bucket" });
    assert.equal(typeof provider.registerNamespace, "function", ds.type);
    assert.equal(typeof provider.listNamespaces, "function", ds.type);
  }
});
