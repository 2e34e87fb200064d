/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 17; the newest are in
 * `regressions_test.ts`).
 */
import { clean } from "./regressions_kit.ts";

/**
 * I32 (seed 234400244, `--old-share 1 --etag-share 1`, shrunk to 13
 * operations; old clients, every Sluice commit under the global lock,
 * versions the bytes' ETags): c1 pushed a new config/settings-0.yaml and
 * died as its index write landed, before the answer; c0 synced it. c1's
 * user deleted the file and pushed: the push took the entry naming its
 * upload out, then stopped before deleting the object. c0's sync found the
 * entry gone with the object there, took the global lock as stale, and
 * named it again as a dropped entry; c1's delete then landed, and c0, its
 * copy gone under that entry, put it back: the same bytes, so the very
 * version c1 had deleted. c1's read after its delete met the entry naming
 * that version, its removal left out (the store held that version again),
 * and the push took it for its own upload and reported it withdrawn with
 * no conflict, while the index named the path: the next pull would bring
 * the deleted file back. The version deleted, held again after the
 * delete, is now the peer's put-back copy, and the local deletion is kept
 * as a conflict with it.
 */
Deno.test("chaos regression: a peer's copy put back at the very version a take-back deleted (ETags) keeps the deletion as a conflict (I32, seed 234400244)", async () => {
  await clean(
    '{"seed":234400244,"clones":3,"kinds":["api","api","core-single-phase"],"oldClients":true,"etag":true,"reusedLocks":true,"ops":[{"id":54,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":55,"kind":"edit","clone":1,"file":0,"how":"push"},{"id":56,"kind":"tick","n":11,"pick":492902676},{"id":57,"kind":"sync","clone":0},{"id":59,"kind":"stall","clone":1,"on":true,"at":"withdraw"},{"id":60,"kind":"delete","clone":1,"file":0,"how":"push"},{"id":67,"kind":"edit","clone":2,"file":1,"how":"push"},{"id":68,"kind":"tick","n":45,"pick":1384899043},{"id":70,"kind":"torn","clone":1,"file":3,"pick":826659523},{"id":71,"kind":"tick","n":13,"pick":409798419},{"id":61,"kind":"tick","n":38,"pick":674608458},{"id":62,"kind":"sync","clone":0},{"id":63,"kind":"tick","n":24,"pick":247531762}]}',
  );
});

/**
 * I7, I8, I33 (seed 236400036, `--old-share 1 --etag-share 1
 * --old-take-back-share 1`, shrunk to 8 operations; old clients, versions
 * the bytes' ETags): c2 pushed a new config/settings-2.yaml and died as its
 * index write landed, before the answer; its user deleted the file and
 * pushed: the take-back took the entry out, then stopped before its delete.
 * Its global lock went stale, and an old client on c0's machine took it
 * over and pushed the very bytes c2 had uploaded there, the first old
 * client's write in the bucket (its entry naming the upload's version).
 * c2's delete, conditional on that version, took the old client's object,
 * and the index went on naming it: every clone and a fresh one missed the
 * file. The push, beside old clients, now keeps the upload's bytes and puts
 * them back, named.
 */
Deno.test("chaos regression: an old client's write of a take-back's very bytes under the global lock it took over stays in the store, named (I7, I8, I33, seed 236400036)", async () => {
  await clean(
    '{"seed":236400036,"clones":3,"absentOnError":true,"oldClients":true,"etag":true,"ops":[{"id":46,"kind":"crash","clone":2,"at":"answer","queued":true},{"id":45,"kind":"edit","clone":2,"file":2,"how":"push"},{"id":49,"kind":"tick","n":10,"pick":765289966},{"id":50,"kind":"stall","clone":2,"on":true,"at":"withdraw"},{"id":51,"kind":"delete","clone":2,"file":2,"how":"push"},{"id":52,"kind":"tick","n":56,"pick":983156659},{"id":54,"kind":"oldpush","clone":0,"file":2,"again":{"op":45,"clone":2}},{"id":55,"kind":"tick","n":65,"pick":2115918395}]}',
  );
});
