/**
 * A push under the global lock that deletes a file another writer's
 * uncommitted upload holds on the store, told to adopt it (its writer taken
 * for gone), while an old client holds the lock and rewrites the index from
 * a read made before: the adoption (an index write naming that upload) is
 * made where the commit is, under the lock, so that the old client's write
 * does not put back the entry naming the version the upload replaced.
 */
import {
  assertAdoptedInsideOldClientPush,
  globalLockSetupWithWriter,
  writerUploadCutOff,
} from "./global_lock_kit.ts";

const P = "config/app.yaml";

Deno.test("global lock: a deletion that adopts another writer's uncommitted upload, inside an old client's read-modify-write of the index, leaves the index naming that upload", async () => {
  const s = await globalLockSetupWithWriter("sluice-global-adopt-");
  // The writer's edit: its upload lands, its commit is cut off (the writer taken for gone).
  const upload = await writerUploadCutOff(s, P);
  // Deleted here, pushed told to adopt it: its deletion meets it as a committed change.
  await Deno.remove(`${s.svc.cacheDir}/${P}`);
  await s.svc.markDirty({ relPath: P });
  await assertAdoptedInsideOldClientPush(s, P, upload);
});
