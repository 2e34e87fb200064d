/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 15; the newest are in
 * `regressions_test.ts`).
 */
import { clean } from "./regressions_kit.ts";

/**
 * I30 (seed 227970159, `--marker-taken-back-share 1 --cut-take-back-share 1
 * --marker-gap-share 1 --cut-push-share 1 --shared-cache-share 1`, shrunk to
 * 11 operations; the checker's): with c1's run of m1's `out` under way, line
 * 5 of c1's manifest log (the record of `data/shell/cmd/m1/out/1/raw`) was
 * damaged and another process wrote a line ahead after it, c1's process open
 * since before. A second process over the cache opened it, told the line
 * (`state_unreadable`) and, at its first save, wrote a base over it, the
 * log replaced; the run's save took that base in (no damaged line left to
 * read), and appended three records, and the lockfile change after it a
 * fourth. I30 counts the line told by the second process once it is gone
 * from the log, but read the empty text after the log's last newline as its
 * fifth line, unreadable, so the line still on disk: the lockfile change was
 * blamed for a loss the second process had told. A log of four whole lines
 * now has no fifth line.
 */
Deno.test("chaos regression: a damaged line a second process told and wrote a base over is told, the new log's last newline no unreadable line after it (I30, seed 227970159)", async () => {
  await clean(
    '{"seed":227970159,"clones":2,"absentOnError":true,"kinds":["core","api"],"reusedLocks":true,"ops":[{"id":46,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":47,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":48,"kind":"tick","n":1,"pick":904115173},{"id":49,"kind":"delete","clone":1,"file":0,"how":"push","run":47},{"id":50,"kind":"tick","n":51,"pick":1431358690},{"id":2,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":3,"kind":"tick","n":36,"pick":1351995403},{"id":21,"kind":"stall","clone":1,"on":true,"at":"companions"},{"id":8,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":33,"kind":"damaged","clone":1,"file":2,"pick":1417955918,"open":true},{"id":22,"kind":"sibling","clone":1,"how":"dies","workMs":15000}]}',
  );
});

/**
 * I6 (seed 231100001, `--shared-conflict-share 1 --shared-cache-share 1`,
 * shrunk to 5 operations; fails with the non-test parts of 2d52fc2,
 * d4cce26, d61c764, 8247306, be6cb45, 10a923f, d6a39df and 2187a73 taken
 * back): c0's user edits notes/shared-2.lock by hand, never synced there,
 * and c1 pushes an edit of it. c0's own process syncs; right after its pull took in what the cache
 * synced, a second process over the cache syncs to its end, setting the
 * user's copy aside in a conflict and recording it, and the user writes a
 * merge at the path. The own pull, planned before that record, finds the
 * merge as a copy this cache never synced, sets it aside too and records
 * its conflict of the path: saved over the second process's record, that
 * record's copy was named by no record once the own sync ended (a save
 * over another process's record names its set-aside copies too since
 * 2d52fc2).
 */
Deno.test("chaos regression: a pull planned before another process's record of a conflict, recording its own over it, keeps naming that one's set-aside copy (I6, seed 231100001)", async () => {
  await clean(
    '{"seed":231100001,"clones":2,"v2":true,"skewMs":[0,-44814],"ops":[{"id":96,"kind":"edit","clone":0,"file":5,"how":"hand"},{"id":97,"kind":"edit","clone":1,"file":5,"how":"push"},{"id":98,"kind":"tick","n":2,"pick":623474675},{"id":99,"kind":"sync","clone":0,"second":true,"aimed":true,"atPull":true,"handAfter":5},{"id":100,"kind":"sync","clone":0}]}',
  );
});

/**
 * I6 (seed 233100004, `--shared-conflict-share 1 --shared-cache-share 1`,
 * shrunk to 13 operations; fails with the non-test part of d4cce26 taken
 * back): c0 syncs c1's edit of notes/shared-0.md, its user edits it by hand,
 * c1 pushes another edit, and c0's sync meets the conflict (the edit in
 * place); c1 pushes a third. c0's own process resolves it `--theirs`: it
 * moves the edit aside and, right before it clears its record, the user
 * writes another edit at the path and a second process over the cache
 * syncs to its end, setting that edit aside in a conflict of its own and
 * recording it. The clear dropped that newer record, the copy it names
 * then named by no record (a clear keeps a record another process saved
 * since this one read it, d4cce26).
 */
Deno.test("chaos regression: a resolve --theirs clearing its record keeps the newer one a second process saved right before, naming a copy its pull set aside (I6, seed 233100004)", async () => {
  await clean(
    '{"seed":233100004,"clones":2,"kinds":["api","core"],"indexFirst":true,"reusedLocks":true,"setAsideFlaky":true,"ops":[{"id":129,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":130,"kind":"tick","n":8,"pick":803695419},{"id":131,"kind":"sync","clone":0},{"id":132,"kind":"tick","n":4,"pick":499485950},{"id":133,"kind":"edit","clone":0,"file":3,"how":"hand"},{"id":134,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":135,"kind":"tick","n":6,"pick":1421654625},{"id":136,"kind":"sync","clone":0},{"id":137,"kind":"tick","n":1,"pick":1390050326},{"id":138,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":139,"kind":"tick","n":5,"pick":1669287557},{"id":140,"kind":"sync","clone":0,"second":true,"aimed":true,"atClear":true,"handBefore":3,"handAfter":3},{"id":141,"kind":"resolve","clone":0,"pick":1,"how":"theirs"}]}',
  );
});

/**
 * I22 (seed 233100034, `--shared-conflict-share 1 --shared-cache-share 1`,
 * shrunk to 12 operations; fails with the non-test parts of e5039c7 and
 * 0e71e91 taken back): c1 syncs c0's edit of notes/shared-1.md, its user
 * edits it by hand, c0 pushes another edit, and c1's sync meets the
 * conflict; c0 pushes a third. c1's own process resolves it `--theirs`: it
 * moves the edit aside, clears its record and pulls; right after that pull
 * took in what the cache synced, the user writes another edit at the path
 * and a second process over the cache syncs to its end, recording a newer
 * conflict of it. The own pull, planned before, met nothing of it, and the
 * resolution reported the path resolved while that conflict was open
 * (0e71e91: it takes in what other processes saved after its pull).
 */
Deno.test("chaos regression: a resolve --theirs is not reported resolved while a conflict of its path a second process recorded during its pull is open (I22, seed 233100034)", async () => {
  await clean(
    '{"seed":233100034,"clones":2,"ops":[{"id":73,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":74,"kind":"tick","n":2,"pick":1432634897},{"id":75,"kind":"sync","clone":1},{"id":76,"kind":"tick","n":12,"pick":1621182193},{"id":77,"kind":"edit","clone":1,"file":4,"how":"hand"},{"id":78,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":79,"kind":"tick","n":2,"pick":1294463169},{"id":80,"kind":"sync","clone":1},{"id":82,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":83,"kind":"tick","n":9,"pick":639434831},{"id":84,"kind":"sync","clone":1,"second":true,"aimed":true,"afterClear":true,"handBefore":4},{"id":85,"kind":"resolve","clone":1,"pick":0,"how":"theirs"}]}',
  );
});
