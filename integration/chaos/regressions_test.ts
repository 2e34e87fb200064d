/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed: the newest, to which new
 * ones are appended; the older ones are in `regressions_NN_test.ts`, oldest
 * first, and the shared check in `regressions_kit.ts`.
 */
import { clean } from "./regressions_kit.ts";

/**
 * I9 (seed 203100067, `--under-marker-share 1 --old-share 1`, shrunk on the
 * way; 4 clones with old clients, a v2 index, versions the bytes' ETags):
 * c1's run committed m1's `out` marker at 1, its next run uploaded the
 * marker 2 and died before its commit, and another tool published versions
 * 2 and 3. c0 moved the marker to 2: its create met c1's upload of those
 * very bytes, and its commit named that object. c1's run of version 3 lost
 * it (`version_exists`), and its marker reset here to the 1 it synced was
 * left marked for the next push to settle c1's own upload; that push found
 * the object carrying c1's writer id and wrote 1 over it as c1's own
 * uncommitted write: c0's committed marker, never seen, was lost. A copy
 * put back as synced now meets an own object the index names as a
 * committed change (a conflict).
 */
Deno.test("chaos regression: a marker put back as synced is not written over this cache's own upload a peer committed (I9, seed 203100067)", async () => {
  await clean(
    '{"seed":203100067,"clones":4,"absentOnError":true,"v2":true,"kinds":["api","core","api","api"],"oldClients":true,"skewMs":[0,0,83039,0],"etag":true,"ops":[{"id":90,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":92,"kind":"crash","clone":1,"at":"commit","queued":true},{"id":93,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":97,"kind":"run","clone":1,"model":1,"data":0,"workMs":30000},{"id":98,"kind":"lockless","run":97,"pick":236511347,"indexed":true,"below":true},{"id":99,"kind":"lockless","run":97,"pick":544703916,"indexed":true},{"id":82,"kind":"sync","clone":0},{"id":16,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":27,"kind":"marker","clone":0,"model":1,"data":0,"back":true,"how":"push"},{"id":57,"kind":"marker","clone":2,"model":1,"data":0,"back":false,"how":"push"},{"id":28,"kind":"tick","n":31,"pick":627376630},{"id":47,"kind":"reshape","clone":1,"file":4,"how":"push"}]}',
  );
});

/**
 * I7, I8 and I33 (seed 206200022, shrunk; 4 clones with old clients): an
 * old client pushed notes/shared-1.md and c3 synced it; c3's edit of it
 * (pushed with --adopt-uncommitted) uploaded over the old client's object,
 * and an outage cut its commit off. c3's user then deleted the file by
 * hand, and a damaged line of c3's manifest log took the file's record.
 * c3's next push, the file never synced as far as it knew, deleted its own
 * stranded upload and left the old client's entry, which named bytes the
 * upload had replaced: the index named an object the store no longer held.
 * That entry now goes with the upload, recorded as lost.
 */
Deno.test("chaos regression: an own stranded upload over an old client's file, deleted here with its record lost, takes that client's entry out with it (I7, seed 206200022)", async () => {
  await clean(
    '{"seed":206200022,"clones":4,"kinds":["core","core","api","api"],"oldClients":true,"skewMs":[89702,0,0,0],"reusedLocks":true,"setAsideFlaky":true,"ops":[{"id":25,"kind":"oldpush","clone":3,"file":4},{"id":72,"kind":"sync","clone":3},{"id":71,"kind":"tick","n":11,"pick":2018504478},{"id":7,"kind":"adopt","clone":3,"file":4},{"id":14,"kind":"tick","n":3,"pick":256737687},{"id":15,"kind":"outage","on":true},{"id":57,"kind":"delete","clone":3,"file":4,"how":"hand"},{"id":58,"kind":"damaged","clone":3,"file":4,"pick":1425993401}]}',
  );
});

/**
 * I9 (seed 203100067, `--under-marker-share 1 --old-share 1`, shrunk; a
 * false report): another tool published versions 2 and 3 of m1's `out`
 * while its marker named 1; c0 moved the marker "one back" from the highest
 * version it held (to 2, forward from the 1 it named) and c2 to 3, both
 * from 1, c2 writing over c0's as `marker_rebase.ts` does for a marker
 * moved further forward. The checker held c0's marker as a rollback; a
 * marker moved forward from the number it named here is none.
 */
Deno.test("chaos regression: a marker moved one back from the highest version but forward from the one it named is no rollback (I9, seed 203100067)", async () => {
  await clean(
    '{"seed":203100067,"clones":4,"absentOnError":true,"v2":true,"kinds":["api","core","api","api"],"oldClients":true,"skewMs":[0,0,83039,0],"etag":true,"ops":[{"id":90,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":91,"kind":"tick","n":24,"pick":1151716777},{"id":92,"kind":"crash","clone":1,"at":"commit","queued":true},{"id":93,"kind":"run","clone":1,"model":1,"data":0,"workMs":0},{"id":96,"kind":"tick","n":16,"pick":1163839927},{"id":97,"kind":"run","clone":1,"model":1,"data":0,"workMs":30000},{"id":98,"kind":"lockless","run":97,"pick":236511347,"indexed":true,"below":true},{"id":99,"kind":"lockless","run":97,"pick":544703916,"indexed":true},{"id":100,"kind":"oldpush","clone":2,"window":1},{"id":101,"kind":"tick","n":105,"pick":363459249},{"id":72,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":73,"kind":"tick","n":33,"pick":679102316},{"id":74,"kind":"sync","clone":2},{"id":75,"kind":"tick","n":53,"pick":112985378},{"id":82,"kind":"sync","clone":0},{"id":83,"kind":"tick","n":34,"pick":1033045209},{"id":43,"kind":"oldpull","clone":0},{"id":16,"kind":"flaky","call":"put","count":3,"afterEffect":true},{"id":25,"kind":"outage","on":false},{"id":26,"kind":"tick","n":19,"pick":169857046},{"id":27,"kind":"marker","clone":0,"model":1,"data":0,"back":true,"how":"push"},{"id":57,"kind":"marker","clone":2,"model":1,"data":0,"back":false,"how":"push"},{"id":28,"kind":"tick","n":31,"pick":627376630},{"id":47,"kind":"reshape","clone":1,"file":4,"how":"push"}]}',
  );
});

/**
 * I9 (seed 206500056, `--checked-delete-share 1 --blind-share 1
 * --vanish-share 1`, shrunk; the checker's): c2's crashed run left its
 * marker write of m0's `out` uncommitted and its restart put back the
 * committed marker, `1`, while another tool published versions 2 and 3
 * with their index entries and no marker. c0 and c2 both synced the marker
 * at `1`; c0 moved it "one back" from its highest version (3), to `2`,
 * and c2 moved it to `3`: from the marker both synced, both moved it
 * forward, c2's further, and c2's push wrote over c0's as the marker rebase
 * does (README, Conflicts), losing nothing. The checker held c0's marker
 * to I9 as a move back; a marker moved "back" is now one only when it names
 * a version below the marker named in its clone (26ab0de).
 */
Deno.test("chaos regression: a marker moved one below the highest version but above the marker synced is a move forward, written over by one moved further (I9, seed 206500056)", async () => {
  await clean(
    '{"seed":206500056,"clones":3,"kinds":["core-single-phase","core-single-phase","api"],"checkedDeletes":true,"reusedLocks":true,"ops":[{"id":139,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":141,"kind":"crash","clone":2,"at":"commit","queued":true},{"id":142,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":147,"kind":"run","clone":2,"model":0,"data":0,"workMs":30000},{"id":148,"kind":"lockless","run":147,"pick":9491768,"indexed":true,"below":true},{"id":149,"kind":"lockless","run":147,"pick":1613551426,"indexed":true},{"id":150,"kind":"tick","n":111,"pick":717285720},{"id":0,"kind":"run","clone":0,"model":0,"data":1,"workMs":45000,"parallel":true},{"id":67,"kind":"tick","n":20,"pick":75729886},{"id":68,"kind":"wait","ms":80000},{"id":69,"kind":"tick","n":20,"pick":506658104},{"id":70,"kind":"wait","ms":80000},{"id":71,"kind":"tick","n":20,"pick":1929265030},{"id":73,"kind":"sync","clone":2},{"id":74,"kind":"sync","clone":1},{"id":12,"kind":"breakglass","model":0},{"id":13,"kind":"marker","clone":0,"model":0,"data":0,"back":true,"how":"push"},{"id":81,"kind":"marker","clone":2,"model":0,"data":0,"back":false,"how":"push"}]}',
  );
});

/**
 * I1 (seed 206400043, shrunk, a false report; 4 clones with old clients, a
 * v2 index, versions the bytes' ETags): another tool deleted c3's run's
 * version 1 whole, and c2's pulls removed its entries. c3's user merged its
 * metadata.yaml (`resolve --merged`), the resolution cut off by the global
 * lock (lock_timeout), the merge left in the file; c0's run then published
 * version 1 again. The final pull kept c3's edit, as it keeps any local
 * change, in a conflict naming c0's bytes as theirs, and I1, checked before
 * the final resolution, found c3 without them. I1 now checks such a clone
 * after that resolution, whose `--mine`, refused by the push as a version
 * another writer published (c3's files of it set aside, the conflict
 * dropped), is followed by the pull the refusal names.
 */
Deno.test("chaos regression: a user's edit of a run's file kept in a conflict with a peer's version is held to it after the final resolution (I1, seed 206400043)", async () => {
  await clean(
    '{"seed":206400043,"clones":4,"absentOnError":true,"v2":true,"kinds":["core","api","api","core"],"oldClients":true,"etag":true,"checkedDeletes":true,"setAsideFlaky":true,"ops":[{"id":65,"kind":"run","clone":3,"model":1,"data":1,"workMs":0},{"id":66,"kind":"tick","n":29,"pick":1384920912},{"id":67,"kind":"vanish","file":0,"run":65,"whole":true},{"id":69,"kind":"sync","clone":2},{"id":71,"kind":"tick","n":10,"pick":1192532496},{"id":73,"kind":"wait","ms":960000},{"id":74,"kind":"sync","clone":2},{"id":3,"kind":"latency","ms":3000},{"id":4,"kind":"adopt","clone":0,"file":0},{"id":6,"kind":"tick","n":25,"pick":2145696729},{"id":7,"kind":"delete","clone":0,"file":2,"how":"push"},{"id":18,"kind":"resolve","clone":3,"pick":2,"how":"merged"},{"id":19,"kind":"bulk","clone":2},{"id":26,"kind":"tick","n":15,"pick":541777171},{"id":27,"kind":"run","clone":0,"model":1,"data":1,"workMs":0},{"id":28,"kind":"tick","n":29,"pick":1666702590}]}',
  );
});

/**
 * I27 (seed 206000042, `--lockless-share 1 --shared-cache-share 1
 * --structural-share 1`, versions are ETags, old clients; shrunk twice, the
 * second after the first fix): c0's same-output run of m0's `out` was
 * refused (its lock broken); its erasure looked at its upload of version
 * 1's `metadata.yaml`, an old client wrote the same bytes there with its
 * entry, the erasure's delete took them, and an outage left its look at
 * the index after (and its delete of `raw`) pending. c0's next push took
 * the erasure up: its index read named the old client's entry, then, while
 * it looked at or deleted `raw`, an old client's pull met `metadata.yaml`
 * gone and wrote back its index without the entry. The erasure put the
 * bytes back all the same, judged by its first read (the first history: a
 * read of its own after the write-back showed the entry gone; the second:
 * no read between), and they stood unnamed: c0's next run of version 1 took
 * them for an old client's uncommitted push and was refused
 * (`version_exists`) for a version nobody published. A put-back is now
 * judged by the latest read (049ad84), and one found before the erasure's
 * later looks is preceded by another read (ed05e97).
 */
Deno.test("chaos regression: an erasure never puts back an old client's write that an old client's pull dropped since its look at the index, so no run of that version is refused for unnamed bytes (I27, seed 206000042)", async () => {
  await clean(
    '{"seed":206000042,"clones":2,"oldClients":true,"etag":true,"ops":[{"id":0,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":47,"kind":"sibling","clone":1,"how":"push","workMs":45000},{"id":49,"kind":"tick","n":15,"pick":1799103326},{"id":3,"kind":"breakglass","model":0},{"id":39,"kind":"oldsame","clone":1,"run":0,"pick":1547780350},{"id":9,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":13,"kind":"tick","n":1,"pick":299882242},{"id":16,"kind":"outage","on":true},{"id":56,"kind":"tick","n":8,"pick":1976015307},{"id":57,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":38,"kind":"oldpull","clone":1},{"id":25,"kind":"run","clone":0,"model":0,"data":0,"workMs":0}]}',
    '{"seed":206000042,"clones":2,"oldClients":true,"etag":true,"ops":[{"id":0,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":47,"kind":"sibling","clone":1,"how":"push","workMs":45000},{"id":48,"kind":"sync","clone":1},{"id":3,"kind":"breakglass","model":0},{"id":39,"kind":"oldsame","clone":1,"run":0,"pick":1547780350},{"id":9,"kind":"run","clone":1,"model":0,"data":1,"workMs":0},{"id":13,"kind":"tick","n":9,"pick":299882242},{"id":16,"kind":"outage","on":true},{"id":56,"kind":"tick","n":8,"pick":1976015307},{"id":57,"kind":"edit","clone":0,"file":4,"how":"push"},{"id":38,"kind":"oldpull","clone":1},{"id":25,"kind":"run","clone":0,"model":0,"data":0,"workMs":0}]}',
  );
});

/**
 * I9 (seed 206800234, `--damaged-log-share 1 --shared-cache-share 1`,
 * shrunk; 5 clones, a clock skew, first pushes making the index): a false
 * report. c3 synced c0's edit of notes/shared-0.md (op #71), and a damaged
 * line of its manifest log lost that record: c3's copy, never changed,
 * counted as never synced, and met c0's later version as a conflict, which
 * c3 resolved `--mine`, publishing its copy (the bytes of c0's edit #71)
 * as a version of its own. A second damaged line lost that record in turn
 * (the file synced at c0's version again, as its conflict's rebase left
 * it), and c3's next edit, refused by the store, met its own object and
 * wrote over it, as config-cas-writer does. Nothing was lost: c3 replaced
 * what it had published itself. The checker named the replaced bytes by
 * the first edit of that hash, c0's, which c3 no longer recorded; a writer
 * replacing a version it wrote itself is now held to nothing there.
 */
Deno.test("chaos regression: a clone replacing its own published copy of a peer's edit, both records lost to damaged log lines, loses nothing (I9, seed 206800234)", async () => {
  await clean(
    '{"seed":206800234,"clones":5,"absentOnError":true,"kinds":["api","api","api","api","core"],"skewMs":[59538,0,0,0,0],"indexFirst":true,"ops":[{"id":103,"kind":"tick","n":37,"pick":1110609808},{"id":52,"kind":"run","clone":3,"model":0,"data":0,"workMs":0,"parallel":true,"structural":true},{"id":54,"kind":"run","clone":3,"model":1,"data":0,"workMs":0},{"id":47,"kind":"edit","clone":1,"file":4,"how":"push"},{"id":2,"kind":"adopt","clone":0,"file":2},{"id":3,"kind":"tick","n":29,"pick":6866285},{"id":4,"kind":"adopt","clone":0,"file":2},{"id":30,"kind":"stall","clone":4,"on":true},{"id":5,"kind":"tick","n":19,"pick":24807358},{"id":6,"kind":"marker","clone":1,"model":1,"data":1,"back":true,"how":"push"},{"id":71,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":72,"kind":"tick","n":48,"pick":98141896},{"id":77,"kind":"sync","clone":3},{"id":78,"kind":"tick","n":31,"pick":1098390084},{"id":79,"kind":"damaged","clone":3,"file":3,"pick":759513438,"open":true},{"id":80,"kind":"sync","clone":3},{"id":85,"kind":"tick","n":21,"pick":2078651350},{"id":58,"kind":"marker","clone":2,"model":1,"data":1,"back":false,"how":"push"},{"id":44,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":45,"kind":"reshape","clone":0,"file":3,"how":"push"},{"id":46,"kind":"reshape","clone":0,"file":3,"how":"push"},{"id":7,"kind":"edit","clone":0,"file":0,"how":"hand-tick"},{"id":8,"kind":"run","clone":4,"model":1,"data":0,"workMs":1000,"parallel":true,"structural":true},{"id":9,"kind":"tick","n":27,"pick":1319286483},{"id":10,"kind":"resolve","clone":4,"pick":3,"how":"theirs"},{"id":11,"kind":"resolve","clone":3,"pick":0,"how":"mine"},{"id":12,"kind":"tick","n":4,"pick":799866209},{"id":13,"kind":"tick","n":26,"pick":980317261},{"id":14,"kind":"run","clone":2,"model":1,"data":1,"workMs":15000},{"id":29,"kind":"stall","clone":4,"on":false},{"id":19,"kind":"outage","on":true},{"id":20,"kind":"sync","clone":3},{"id":21,"kind":"outage","on":false},{"id":22,"kind":"migrate","clone":0},{"id":23,"kind":"run","clone":3,"model":1,"data":0,"workMs":15000,"same":true},{"id":24,"kind":"run","clone":0,"model":1,"data":1,"workMs":15000,"parallel":true},{"id":25,"kind":"lockfile","clone":0,"set":"@chaos/ext-25"},{"id":63,"kind":"edit","clone":3,"file":3,"how":"push"},{"id":64,"kind":"tick","n":55,"pick":1247648068},{"id":65,"kind":"sync","clone":3},{"id":66,"kind":"tick","n":58,"pick":970925527},{"id":67,"kind":"delete","clone":3,"file":3,"how":"hand"},{"id":68,"kind":"damaged","clone":3,"file":3,"pick":1011627092},{"id":69,"kind":"sync","clone":3}]}',
  );
});

/**
 * I37 (seed 207500001, `--dropped-edit-share 1`, shrunk; 3 clones, two
 * core-driven, old clients, deletes checked then made): c0's deletion,
 * cut off before its commit, left an entry naming nothing; an old client's
 * pull on c0's machine read the index and stopped before its write-back
 * while c2 pushed notes/shared-1.md, new, and c1 synced, fetching it. The
 * write-back dropped c2's entry, its object kept. c1's user edited the file
 * and pushed before any pull of c1's saw the drop: its commit took the
 * missing entry for a committed deletion, left the edit out as a conflict
 * and deleted its upload, which had replaced c2's version, so nothing was
 * left at the path though nobody had deleted it. A missing entry is a
 * deletion now only where the store no longer holds the write or a
 * take-back's note names the version it was based on.
 */
Deno.test("chaos regression: an edit pushed over a synced version whose entry an old client dropped, before a pull saw the drop, is published, never met as a deletion (I37, seed 207500001)", async () => {
  await clean(
    '{"seed":207500001,"clones":3,"absentOnError":true,"kinds":["core","api","core"],"oldClients":true,"checkedDeletes":true,"ops":[{"id":87,"kind":"edit","clone":0,"file":3,"how":"push"},{"id":89,"kind":"crash","clone":0,"at":"commit","queued":true},{"id":90,"kind":"delete","clone":0,"file":3,"how":"push"},{"id":91,"kind":"tick","n":25,"pick":1241570211},{"id":92,"kind":"wait","ms":31000},{"id":94,"kind":"oldpull","clone":0,"window":1},{"id":95,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":96,"kind":"tick","n":24,"pick":1661745253},{"id":97,"kind":"sync","clone":1},{"id":98,"kind":"tick","n":1,"pick":877427919},{"id":99,"kind":"edit","clone":1,"file":4,"how":"push","dropped":true}]}',
  );
});

/**
 * I33 (seed 203300283, `--take-back-blip-share 1`, shrunk; the checker's):
 * c2 made notes/shared-1.md a directory and pushed; c0 synced it, and its
 * user wrote part-88.md under it and marked the directory's name; c2 made
 * the path a file again and pushed. c0's pull met that file as a conflict
 * with the directory here, and its user took theirs: the directory, which
 * the datastore no longer holds, was set aside whole with the file in it,
 * as `--theirs` does (the result names the copy set aside; I6 finds the
 * bytes there). I33's marked files held that write to being published or
 * still marked; a write under a directory its clone's `--theirs` set
 * aside afterwards is now the user's choice, as a later edit of it is.
 */
Deno.test("chaos regression: a file written under a directory and marked by its name, set aside with the directory by a resolve --theirs of a file of that name, is the user's choice (I33, seed 203300283)", async () => {
  await clean(
    '{"seed":203300283,"clones":3,"absentOnError":true,"kinds":["api","core","api"],"skewMs":[0,-97475,0],"indexFirst":true,"ops":[{"id":80,"kind":"edit","clone":2,"file":4,"how":"push"},{"id":84,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":85,"kind":"tick","n":14,"pick":1862418936},{"id":86,"kind":"sync","clone":0},{"id":87,"kind":"tick","n":4,"pick":1632994113},{"id":88,"kind":"edit","clone":0,"file":4,"how":"under"},{"id":70,"kind":"reshape","clone":2,"file":4,"how":"push"},{"id":71,"kind":"tick","n":9,"pick":2111277757},{"id":2,"kind":"resolve","clone":0,"pick":7,"how":"theirs"}]}',
  );
});

/**
 * I9 (seed 208500001, `--rollback-past-share 1`; shrunk): c2 synced m1's
 * `log` marker at 1; two of its same-output runs died while they worked,
 * leaving versions 2 and 3 and its marker naming 3 in its cache. c1 ran the
 * data twice (2 and 3, the same bytes) and its user moved the marker back to
 * 2. c2's final sync pushed its marker at 3 over c1's rollback: the rebase
 * judged c1's marker moved forward from 1, and c2's further. A peer's marker
 * is now taken as moved forward only when no version the index lists is
 * above it (this cache's own new versions left out): a rollback leaves the
 * versions it moved back from listed above its marker.
 */
Deno.test("chaos regression: a peer's rollback of a marker above the one a clone synced is not written over by that clone's marker moved further (I9, seed 208500001)", async () => {
  await clean(
    '{"seed":208500001,"clones":3,"v2":true,"kinds":["api","core-single-phase","api"],"oldClients":true,"etag":true,"ops":[{"id":34,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"same":true},{"id":35,"kind":"tick","n":19,"pick":806990802},{"id":38,"kind":"run","clone":2,"model":1,"data":1,"workMs":0,"same":true},{"id":39,"kind":"tick","n":23,"pick":1962195038},{"id":40,"kind":"crash","clone":2},{"id":41,"kind":"wait","ms":31000},{"id":42,"kind":"run","clone":2,"model":1,"data":1,"workMs":0,"same":true},{"id":43,"kind":"tick","n":15,"pick":1559924811},{"id":44,"kind":"crash","clone":2},{"id":46,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"same":true},{"id":48,"kind":"run","clone":1,"model":1,"data":1,"workMs":0,"same":true},{"id":50,"kind":"marker","clone":1,"model":1,"data":1,"back":true,"how":"push"}]}',
  );
});

/**
 * I6 (seed 208300097, `--copy-share 1 --shared-cache-share 1`, shrunk; 2
 * clones, index reads failing right after a lost version's set-aside). c0's
 * run of version 2 of shell/cmd/m0/log was refused (`version_exists`, its
 * copy set aside) and its sync's pull met c1's version 2 over a marker
 * reading `1` this cache never synced: a conflict, mine (`1`) set aside,
 * theirs (`2`) in place. A later pull took c1's version 3 at the path, the
 * conflict left open. c0 then moved the marker one back, to `2` (op #31),
 * marked it dirty and pushed, which left it out for the open conflict. The
 * final `resolve --mine` put the set-aside `1` back over it: a copy holding
 * theirs' bytes was taken for theirs and written over, with no set-aside
 * copy. It is now taken for theirs only while the cache holds it as synced
 * (not dirty, its synced record naming those bytes); else it is set aside
 * like any third copy (`sync/service/resolve_test.ts`).
 */
Deno.test("chaos regression: resolve --mine sets aside an edit made since the conflict that holds theirs' old bytes (I6, seed 208300097)", async () => {
  await clean(
    '{"seed":208300097,"clones":2,"setAsideFlaky":true,"ops":[{"id":3,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"streamed":true},{"id":48,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":49,"kind":"stall","clone":0,"on":true,"at":"commit","run":48,"pick":1280193295},{"id":50,"kind":"breakglass","model":0},{"id":51,"kind":"tick","n":3,"pick":611505711},{"id":52,"kind":"flaky","call":"delete","count":2,"afterEffect":false},{"id":53,"kind":"stall","clone":0,"on":false},{"id":55,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":58,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":59,"kind":"tick","n":33,"pick":1315885355},{"id":60,"kind":"sync","clone":0},{"id":39,"kind":"tick","n":42,"pick":1807341779},{"id":29,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"streamed":true},{"id":30,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":31,"kind":"marker","clone":0,"model":0,"data":1,"back":true,"how":"push"}]}',
  );
});

/**
 * I1 (seed 208500000, `--rollback-past-share 1`, shrunk to 3 operations; the
 * checker's): a clone's run was acknowledged for version 1, and the
 * `lockless` move then had another tool publish "at the next run's number
 * less one", 1, writing over that acknowledged version with plain puts: a
 * tool honouring neither lock nor create-only loses it whatever Sluice does.
 * Below the run's number, that tool now publishes nothing over a version a
 * run was acknowledged for.
 */
Deno.test("chaos regression: another tool publishing below a run's number writes nothing over an acknowledged version (I1, seed 208500000)", async () => {
  await clean(
    '{"seed":208500000,"clones":3,"absentOnError":true,"kinds":["core","core","api"],"indexFirst":true,"reusedLocks":true,"ops":[{"id":49,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":54,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":55,"kind":"lockless","run":54,"pick":1332907190,"indexed":true,"below":true}]}',
  );
});

/**
 * I1 (seed 208900072, shrunk): c2 published m1/log version 1; another tool
 * deleted its objects, the index still naming them; c4 published version 1
 * again with other bytes. c2's sync set its copy aside as a rewritten
 * version and crashed at the download of c4's. The next open named the
 * set-aside copy in a conflict, but the next pull took the empty path for a
 * deletion made here and never fetched c4's version: c2 held neither. A
 * pull now does the stopped pull's fetch there, the conflict kept open.
 */
Deno.test("chaos regression: a pull after one that crashed between a rewritten version's set-aside and its download takes the datastore's copy (I1, seed 208900072)", async () => {
  await clean(
    '{"seed":208900072,"clones":5,"absentOnError":true,"kinds":["core","api","api","core-single-phase","api"],"skewMs":[0,81925,0,0,0],"ops":[{"id":55,"kind":"run","clone":2,"model":1,"data":1,"workMs":0},{"id":56,"kind":"tick","n":26,"pick":1184305082},{"id":57,"kind":"vanish","file":0,"run":55,"whole":true},{"id":58,"kind":"run","clone":4,"model":1,"data":1,"workMs":0},{"id":61,"kind":"tick","n":16,"pick":1468107197},{"id":62,"kind":"delete","clone":4,"file":0,"how":"hand","run":58},{"id":63,"kind":"wait","ms":960000},{"id":67,"kind":"run","clone":4,"model":1,"data":1,"workMs":0},{"id":68,"kind":"tick","n":47,"pick":441860991},{"id":52,"kind":"sibling","clone":3,"how":"dies","workMs":45000},{"id":53,"kind":"run","clone":3,"model":1,"data":1,"workMs":0},{"id":6,"kind":"sync","clone":2},{"id":8,"kind":"tick","n":17,"pick":1429661869},{"id":9,"kind":"crash","clone":2}]}',
  );
});

/**
 * I1 (seed 208900294, shrunk): c3 published m0/log version 1; another tool
 * deleted its objects, and a pull past the dangling-entry grace removed the
 * entries, recording them lost. c1, a copy of c3's cache (state and all),
 * kept its synced copy at the path as the last one, in a conflict. c2 then
 * published version 1 again with other bytes, acknowledged; c1's final pull
 * took the kept copy for a change made here and kept it in place, so c1 did
 * not hold c2's version after the final sync. A pull now sets such a copy
 * aside, as any synced copy of a rewritten version, and takes the datastore's.
 */
Deno.test("chaos regression: a copy kept over the datastore's loss of its data version is set aside when the version is published again (I1, seed 208900294)", async () => {
  await clean(
    '{"seed":208900294,"clones":5,"kinds":["api","api","core","api","core"],"ops":[{"id":124,"kind":"tick","n":33,"pick":880738454},{"id":94,"kind":"run","clone":3,"model":0,"data":1,"workMs":0},{"id":95,"kind":"tick","n":30,"pick":294001796},{"id":96,"kind":"vanish","file":0,"run":94,"whole":true},{"id":97,"kind":"run","clone":4,"model":0,"data":1,"workMs":0},{"id":100,"kind":"tick","n":51,"pick":1253707030},{"id":101,"kind":"delete","clone":4,"file":0,"how":"hand","run":97},{"id":102,"kind":"wait","ms":960000},{"id":109,"kind":"tick","n":57,"pick":389636594},{"id":110,"kind":"sync","clone":4},{"id":59,"kind":"tick","n":20,"pick":2066605189},{"id":88,"kind":"copy","clone":1,"from":3},{"id":91,"kind":"sync","clone":1},{"id":92,"kind":"tick","n":38,"pick":19607232},{"id":20,"kind":"run","clone":0,"model":0,"data":0,"workMs":1000},{"id":21,"kind":"run","clone":2,"model":0,"data":1,"workMs":15000},{"id":22,"kind":"tick","n":21,"pick":507928267},{"id":23,"kind":"resolve","clone":4,"pick":4,"how":"mine"}]}',
  );
});

/**
 * I1 (seed 209700114, shrunk to 35 operations; the checker's, an old
 * client's limit): c0's run published m1/log version 2 under the global
 * lock while an old client's pull on c2, holding the index it read before
 * that commit, met an object gone and wrote that index back, dropping the
 * version's entries (README's old-client limits). c2's next run numbered
 * from that index made version 2 too; its push found c0's upload named by
 * no index (an uncommitted write in the way) and left its own dirty. At the
 * final sync c0's pull named its version again (`index_entry_dropped`), and
 * c2's pull kept its own version in a conflict, as a data version is never
 * written over: c2 held c0's bytes only after the final resolution
 * (`--mine` refused, theirs taken). I1 now checks such a clone after that
 * resolution, only where an old client's pull wrote an index without the
 * run's file while the store held it.
 */
Deno.test("chaos regression: a run's version an old client's pull dropped, made again by a peer's run, is held after the final resolution (I1, seed 209700114)", async () => {
  await clean(
    '{"seed":209700114,"clones":5,"kinds":["core-single-phase","api","api","api","core"],"oldClients":true,"etag":true,"reusedLocks":true,"setAsideFlaky":true,"ops":[{"id":2,"kind":"run","clone":1,"model":1,"data":0,"workMs":15000,"same":true},{"id":4,"kind":"tick","n":23,"pick":968625014},{"id":8,"kind":"run","clone":2,"model":1,"data":0,"workMs":45000,"same":true},{"id":81,"kind":"tick","n":59,"pick":2076879076},{"id":82,"kind":"run","clone":1,"model":0,"data":0,"workMs":0},{"id":83,"kind":"tick","n":22,"pick":938672651},{"id":84,"kind":"sync","clone":1},{"id":85,"kind":"tick","n":30,"pick":717295772},{"id":86,"kind":"sync","clone":1},{"id":10,"kind":"run","clone":3,"model":1,"data":1,"workMs":45000,"streamed":true},{"id":38,"kind":"oldpush","clone":0,"file":0},{"id":12,"kind":"breakglass","model":1},{"id":13,"kind":"tick","n":1,"pick":651523729},{"id":14,"kind":"breakglass","model":1},{"id":15,"kind":"adopt","clone":2,"file":0},{"id":47,"kind":"sibling","clone":1,"how":"dies","workMs":15000},{"id":48,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":22,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":23,"kind":"run","clone":0,"model":1,"data":1,"workMs":15000},{"id":40,"kind":"oldpush","clone":1},{"id":44,"kind":"sibling","clone":2,"how":"push","workMs":5000},{"id":45,"kind":"run","clone":2,"model":0,"data":0,"workMs":0},{"id":46,"kind":"tick","n":80,"pick":1488300713},{"id":25,"kind":"edit","clone":1,"file":4,"how":"hand-tick"},{"id":26,"kind":"tick","n":17,"pick":1416735766},{"id":27,"kind":"tick","n":40,"pick":687928743},{"id":42,"kind":"oldpull","clone":2},{"id":61,"kind":"tick","n":20,"pick":1981435943},{"id":62,"kind":"sync","clone":4},{"id":63,"kind":"torn","clone":4,"file":0,"pick":285584606},{"id":64,"kind":"tick","n":42,"pick":1335538759},{"id":65,"kind":"crash","clone":4},{"id":66,"kind":"delete","clone":1,"file":5,"how":"push"},{"id":39,"kind":"oldpush","clone":3,"file":4,"del":true},{"id":32,"kind":"run","clone":2,"model":1,"data":1,"workMs":1000,"same":true}]}',
  );
});

/**
 * I11 (seed 210400008, shrunk; old clients, ETag versions): c0's run, lost
 * to another tool's version, took back its uncommitted `latest` marker and
 * put the committed one back with its index entry; an old client's pull,
 * meeting the marker gone between that take-back's delete and its put-back,
 * wrote back the index it read, dropping the entry. c0's next run's pull
 * kept the marker as a dropped entry (dirty, to be named again); the run was
 * refused (its lock broken), its erasure reset the marker here to the
 * highest version left, and the refresh pull after took that change over an
 * entry no index named for "changed here, deleted on the datastore": a
 * conflict, the put-back object named by no index after the final sync. A
 * pull now leaves such a change to the push where the store still holds the
 * version synced (the entry dropped, not the file deleted).
 */
Deno.test("chaos regression: a dropped entry changed here since a pull kept it is pushed, no conflict with a deletion (I11, seed 210400008)", async () => {
  await clean(
    '{"seed":210400008,"clones":2,"kinds":["core","api"],"oldClients":true,"skewMs":[0,-71508],"etag":true,"ops":[{"id":51,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":53,"kind":"crash","clone":0,"at":"commit","queued":true},{"id":54,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":58,"kind":"run","clone":0,"model":0,"data":0,"workMs":30000},{"id":59,"kind":"lockless","run":58,"pick":2117699401,"indexed":true,"below":true},{"id":60,"kind":"lockless","run":58,"pick":1528745615,"indexed":true},{"id":61,"kind":"oldpush","clone":1,"window":0},{"id":62,"kind":"tick","n":63,"pick":358665315},{"id":46,"kind":"oldpull","clone":1},{"id":1,"kind":"delete","clone":0,"file":2,"how":"during","pick":1031892553},{"id":45,"kind":"oldpull","clone":1},{"id":6,"kind":"tick","n":34,"pick":1363354997},{"id":21,"kind":"tick","n":15,"pick":1948654622},{"id":22,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":24,"kind":"breakglass","model":0},{"id":25,"kind":"tick","n":2,"pick":1916386333}]}',
  );
});

/**
 * I32 (seed 211800177, `--damaged-log-share 1 --shared-cache-share 1`,
 * shrunk): c1's create of notes/shared-0.md was committed, its answer lost;
 * c1 deleted the file and pushed. The take-back noted the version, took the
 * entry out and stopped before its delete; c2's sync inside that window
 * found the entry gone while the store still held the version it synced,
 * and named it again as a dropped entry. c1's delete landed, and its read of
 * the index found its upload named again; c0 then committed a file of its
 * own there (created once the upload was gone) before c1's removal of that
 * entry, which, refused and tried again, left c0's entry: the push reported
 * the upload withdrawn with no conflict while the index named the path. The
 * push now keeps the deletion as a conflict with the entry its retried
 * removal meets, as one its read met first.
 */
Deno.test("chaos regression: a take-back's retried removal of an entry named again that meets a peer's own file keeps the deletion as a conflict (I32, seed 211800177)", async () => {
  await clean(
    '{"seed":211800177,"clones":3,"v2":true,"kinds":["core","api","core"],"indexFirst":true,"checkedDeletes":true,"setAsideFlaky":true,"ops":[{"id":21,"kind":"crash","clone":1,"at":"answer","queued":true},{"id":22,"kind":"edit","clone":1,"file":3,"how":"push"},{"id":23,"kind":"tick","n":5,"pick":2093547635},{"id":24,"kind":"sync","clone":2},{"id":26,"kind":"stall","clone":1,"on":true,"at":"withdraw"},{"id":27,"kind":"delete","clone":1,"file":3,"how":"push"},{"id":28,"kind":"tick","n":2,"pick":1068888854},{"id":29,"kind":"sync","clone":2},{"id":30,"kind":"tick","n":23,"pick":926307225},{"id":49,"kind":"edit","clone":0,"file":3,"how":"push"}]}',
  );
});

/**
 * I2 (seed 212600249, `--parallel-share 1 --structural-share 1
 * --shared-cache-share 1`, shrunk; old clients, a v2 index, one lock object
 * per model): c1's core run of m0's `log` saved with a gap, its version
 * directory 1 made and still empty while its parallel step flushed; an
 * operator had broken its lock, and c0's run published version 1. The
 * structural command beside the run, its push naming no model, was refused
 * for that lost lock: the erasure found nothing of the run's (an empty
 * directory holds no file), and its refresh pulled c0's version 1 into the
 * directory the save then wrote its `raw` and `metadata.yaml` over. That
 * copy counted as not the run's, so the run's own refused flush erased
 * nothing, and c1 held the refused run's files (set aside at its final
 * push, lost to c0's version). A version directory made and still empty is
 * now the run's to erase, and a refresh fetches nothing into it.
 */
Deno.test("chaos regression: a refused run's version directory made and still empty gets no peer's copy from the refresh for its save to write over (I2, seed 212600249)", async () => {
  await clean(
    '{"seed":212600249,"clones":3,"v2":true,"kinds":["api","core","api"],"oldClients":true,"reusedLocks":true,"ops":[{"id":9,"kind":"run","clone":1,"model":0,"data":1,"workMs":45000,"parallel":true,"structural":true,"saveGap":true},{"id":11,"kind":"tick","n":1,"pick":1476043342},{"id":13,"kind":"breakglass","model":0},{"id":14,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"parallel":true,"structural":true,"saveGap":true}]}',
  );
});

/**
 * I38 (seed 214100019, shrunk to 19 operations; `--lost-race-share 1`): c1,
 * its marker synced at 1, died in three runs of m0/log (its versions left
 * here, unpushed) and pushed its marker at 4 while c0's run published
 * version 2 with its marker: c1's write lost the race, its marker kept
 * dirty, its versions published. Its sync's pull took its own version 4,
 * listed above c0's marker, for one c0 had moved back from, and recorded a
 * conflict. A pull now leaves this cache's own published versions out of
 * that look, as the push does (152fffb).
 */
Deno.test("chaos regression: a marker that lost the race to a peer's moved-forward marker, met by a pull before the next push, is no conflict (I38, seed 214100019)", async () => {
  await clean(
    '{"seed":214100019,"clones":2,"ops":[{"id":36,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":37,"kind":"tick","n":12,"pick":340262395},{"id":40,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":41,"kind":"tick","n":27,"pick":1767102039},{"id":42,"kind":"crash","clone":1},{"id":43,"kind":"wait","ms":31000},{"id":44,"kind":"run","clone":1,"model":0,"data":1,"workMs":600000,"same":true},{"id":45,"kind":"tick","n":13,"pick":1160416894},{"id":46,"kind":"crash","clone":1},{"id":47,"kind":"wait","ms":31000},{"id":48,"kind":"run","clone":1,"model":0,"data":1,"workMs":600000,"same":true},{"id":49,"kind":"tick","n":13,"pick":628947609},{"id":50,"kind":"crash","clone":1},{"id":51,"kind":"wait","ms":31000},{"id":52,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":53,"kind":"tick","n":13,"pick":143259184},{"id":54,"kind":"marker","clone":1,"model":0,"data":1,"back":false,"how":"push"},{"id":55,"kind":"run","clone":0,"model":0,"data":1,"workMs":0,"same":true},{"id":58,"kind":"sync","clone":1,"raced":{"model":0,"data":1}}]}',
  );
});

/**
 * I7 (seed 214200004, shrunk to 8 operations; `--shard-cut-share 1`, v2):
 * c1's same-output run of m1/out stopped once its uploads landed, before its
 * commit; c2 ran the same method, its creates meeting those uploads, and its
 * commit died as its shard write landed, before the meta update listing the
 * new shard. c1's run went on, refused, and its erasure, reading an index
 * that listed no such shard, deleted the uploads; c1's run of m1/log then
 * committed into that shard and listed it, the index naming deleted
 * objects. The erasure now reads the unlisted shards of its uploads too
 * (be500b8).
 */
Deno.test("chaos regression: a refused run's erasure keeps an upload a v2 shard the meta does not list yet names (I7, seed 214200004)", async () => {
  await clean(
    '{"seed":214200004,"clones":3,"v2":true,"ops":[{"id":26,"kind":"run","clone":1,"model":1,"data":0,"workMs":0,"same":true},{"id":30,"kind":"stall","clone":1,"on":true,"at":"commit","run":26,"pick":160826816},{"id":33,"kind":"crash","clone":2,"at":"answer","queued":true},{"id":34,"kind":"run","clone":2,"model":1,"data":0,"workMs":0,"same":true},{"id":38,"kind":"tick","n":25,"pick":2099318575},{"id":39,"kind":"run","clone":1,"model":1,"data":1,"workMs":0},{"id":40,"kind":"tick","n":58,"pick":49200712},{"id":41,"kind":"sync","clone":1,"listed":{"model":1,"data":0}}]}',
  );
});

/**
 * I7 (seed 214300003, shrunk to 12 operations; `--checked-window-share 1`,
 * deletes that check, then delete): c3 pushed config/settings-1.yaml, its
 * answer lost, and c1 synced it; c3 deleted it and pushed, stopped at its
 * take-back's delete once the version was checked. c1's sync pulled (the
 * entry gone, the object there: kept to name again), its user edited the
 * file, and its push committed the edit, reported published; c3's delete
 * then took it, and the index named an object gone. A commit over such a
 * kept entry now reads the take-back's note too (0e1b327): the edit is a
 * conflict with the deletion.
 */
Deno.test("chaos regression: a peer's edit over an entry kept to name again, pushed inside a take-back's checked delete, is a conflict, not published and deleted (I7, seed 214300003)", async () => {
  await clean(
    '{"seed":214300003,"clones":4,"v2":true,"indexFirst":true,"checkedDeletes":true,"ops":[{"id":35,"kind":"crash","clone":3,"at":"answer","queued":true},{"id":36,"kind":"edit","clone":3,"file":1,"how":"push"},{"id":37,"kind":"tick","n":5,"pick":709007629},{"id":38,"kind":"sync","clone":1},{"id":40,"kind":"stall","clone":3,"on":true,"at":"withdraw"},{"id":41,"kind":"delete","clone":3,"file":1,"how":"push"},{"id":42,"kind":"tick","n":11,"pick":1786435110},{"id":43,"kind":"sync","clone":1,"edit":1},{"id":44,"kind":"tick","n":1,"pick":1912632188},{"id":45,"kind":"stall","clone":3,"on":false},{"id":46,"kind":"tick","n":11,"pick":832933738},{"id":47,"kind":"sync","clone":1,"named":1}]}',
  );
});

/**
 * I37 (seed 214400002, shrunk to 16 operations; `--republished-share 1`,
 * old clients, ETag versions): c2 pushed config/settings-2.yaml, its answer
 * lost, and took it back (deleted it and pushed), its note left behind.
 * Inside an old client's pull stopped before its write-back, c0 published
 * the very same bytes again (the same version, by their ETag) and c1
 * fetched them; the write-back dropped their entry. c1's edit, pushed
 * before any pull of its saw the drop, met the stale note naming its base
 * and was left out as a conflict with a deletion nobody made. A take-back
 * now removes its note once its delete is done (eae60e3).
 */
Deno.test("chaos regression: bytes taken back and published again, their entry dropped, edited by a peer: no deletion met (I37, seed 214400002)", async () => {
  await clean(
    '{"seed":214400002,"clones":5,"kinds":["api","api","core","api","api"],"oldClients":true,"etag":true,"setAsideFlaky":true,"ops":[{"id":101,"kind":"crash","clone":2,"at":"answer","queued":true},{"id":102,"kind":"edit","clone":2,"file":2,"how":"push"},{"id":106,"kind":"delete","clone":2,"file":2,"how":"push"},{"id":107,"kind":"tick","n":33,"pick":1386841069},{"id":108,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":109,"kind":"tick","n":30,"pick":1783915785},{"id":110,"kind":"crash","clone":2,"at":"commit","queued":true},{"id":111,"kind":"delete","clone":2,"file":5,"how":"push"},{"id":112,"kind":"tick","n":40,"pick":844056498},{"id":113,"kind":"wait","ms":15500},{"id":115,"kind":"oldpull","clone":2,"window":1},{"id":116,"kind":"sync","clone":0,"edit":2,"again":{"op":102,"clone":2}},{"id":117,"kind":"tick","n":57,"pick":788247958},{"id":118,"kind":"sync","clone":1},{"id":119,"kind":"tick","n":10,"pick":1291053787},{"id":120,"kind":"edit","clone":1,"file":2,"how":"push","dropped":true}]}',
  );
});

/**
 * I7 and I8 (seed 212900046, `--put-back-lost-share 1 --shared-cache-share
 * 1`, shrunk; v2 index, old clients): c0's run #92 wrote version 2 and moved
 * the `latest` marker onto it (its upload replacing the committed "1"), and
 * crashed once the shard naming version 2 had landed, before the shard
 * naming the marker. c0 deleted version 2's files and pushed: the marker's
 * write met its own upload in place (the same bytes) while the index still
 * listed version 2, then the push took version 2's files back, and the
 * commit's look at the marker failed twice (flaky HEADs). The next push held
 * the marker (it names version 2, neither held here nor listed now) and its
 * publication of the stranded upload waited for version 2 to be listed, for
 * good: the index named the replaced "1", a fresh clone skipped the marker.
 * From eae60e3 on, the take-back's removal of its note is one more store
 * call, and the flaky HEADs fell on a take-back's look instead; with op 1's
 * tick at 18 (the second history) they fall on the marker's again. The held
 * marker's stranded upload is now taken back, the committed marker put back
 * and named.
 */
Deno.test("chaos regression: a held marker's own stranded upload naming a version taken back is replaced by the committed marker (I7, I8, seed 212900046)", async () => {
  await clean(
    '{"seed":212900046,"clones":2,"absentOnError":true,"v2":true,"oldClients":true,"ops":[{"id":83,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":91,"kind":"crash","clone":0,"at":"answer","queued":true},{"id":92,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":93,"kind":"tick","n":31,"pick":1652688692},{"id":94,"kind":"delete","clone":0,"file":0,"how":"push","run":92},{"id":95,"kind":"tick","n":52,"pick":650163448},{"id":97,"kind":"tick","n":31,"pick":639154563},{"id":1,"kind":"tick","n":16,"pick":336441787},{"id":3,"kind":"flaky","call":"head","count":2,"afterEffect":true},{"id":5,"kind":"tick","n":20,"pick":165627794}]}',
  );
  await clean(
    '{"seed":212900046,"clones":2,"absentOnError":true,"v2":true,"oldClients":true,"ops":[{"id":83,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":91,"kind":"crash","clone":0,"at":"answer","queued":true},{"id":92,"kind":"run","clone":0,"model":0,"data":0,"workMs":0},{"id":93,"kind":"tick","n":31,"pick":1652688692},{"id":94,"kind":"delete","clone":0,"file":0,"how":"push","run":92},{"id":95,"kind":"tick","n":52,"pick":650163448},{"id":97,"kind":"tick","n":31,"pick":639154563},{"id":1,"kind":"tick","n":18,"pick":336441787},{"id":3,"kind":"flaky","call":"head","count":2,"afterEffect":true},{"id":5,"kind":"tick","n":20,"pick":165627794}]}',
  );
});

/**
 * I32, the checker's (seed 216500955, `--checked-delete-share 1
 * --blind-share 1 --vanish-share 1`, shrunk; deletes check the version,
 * then delete): c2's edit of notes/shared-2.lock was left out beside c0's
 * directory of that name, and c3's adoption named c2's upload. c2 then made
 * the path a directory: its push took its upload back (note, entry out,
 * the checked delete, the note removed). c0 made its directory a file again,
 * created once c2's upload was gone, and committed it before c2's push read
 * the index again for its own part file. The checker recorded only deletes
 * conditional by `ifVersion`, not the plain delete after a check, so it saw
 * no end to c2's withdrawal and held c0's new file against c2's push. It
 * shows only since the take-back removes its note: those calls let c0's
 * commit land before c2's last read of the index.
 */
Deno.test("chaos regression: a peer's new file after a checked delete ended a withdrawal is its own, not the deleted file named again (I32, seed 216500955)", async () => {
  await clean(
    '{"seed":216500955,"clones":4,"v2":true,"kinds":["api","core-single-phase","api","api"],"indexFirst":true,"checkedDeletes":true,"ops":[{"id":56,"kind":"edit","clone":0,"file":5,"how":"push"},{"id":60,"kind":"reshape","clone":0,"file":5,"how":"push"},{"id":61,"kind":"tick","n":15,"pick":924150349},{"id":64,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":5,"kind":"adopt","clone":3,"file":5},{"id":19,"kind":"run","clone":3,"model":1,"data":1,"workMs":0},{"id":20,"kind":"tick","n":32,"pick":137604308},{"id":48,"kind":"flaky","call":"get","count":6,"afterEffect":false},{"id":50,"kind":"delete","clone":2,"file":1,"how":"push"},{"id":23,"kind":"tick","n":8,"pick":31504425},{"id":47,"kind":"sync","clone":2},{"id":51,"kind":"sync","clone":3},{"id":15,"kind":"edit","clone":2,"file":5,"how":"push"},{"id":16,"kind":"reshape","clone":2,"file":5,"how":"push"},{"id":7,"kind":"lockfile","clone":1,"set":"@chaos/ext-7"},{"id":8,"kind":"tick","n":12,"pick":1855531998},{"id":9,"kind":"tick","n":21,"pick":1968874065},{"id":18,"kind":"reshape","clone":0,"file":5,"how":"push"}]}',
  );
});

/**
 * I7 and I8 (seed 216500802, `--checked-delete-share 1 --blind-share 1
 * --vanish-share 1`, shrunk; a v1 index, first pushes making it first):
 * c0's run published version 1 of m0's `log` and its marker. c2's run of
 * version 2 lost its lock to a breakglass after uploading; c1's run of the
 * same output found c2's uploads in place, wrote its marker over c0's, and
 * its commit met c2's erasure deleting metadata.yaml before it: the v1
 * index write left that file and the marker out (held back for the push's
 * second pass). c0's move to v2 landed between that write and its
 * companions, whose replay into the v2 index held both back again, and took
 * every path it left out for another writer's deletion: the push recorded
 * conflicts and deleted its own marker upload, while the index still named
 * c0's marker that upload had replaced, so it named an object the store no
 * longer held. Such paths are now held back as a commit alone holds them.
 */
Deno.test("chaos regression: a marker a v1 commit held back is not taken for a deletion when the bucket turned v2 before its companions (I7, seed 216500802)", async () => {
  await clean(
    '{"seed":216500802,"clones":3,"indexFirst":true,"checkedDeletes":true,"ops":[{"id":0,"kind":"run","clone":0,"model":0,"data":1,"workMs":0},{"id":2,"kind":"tick","n":3,"pick":2064258835},{"id":3,"kind":"run","clone":2,"model":0,"data":1,"workMs":0,"same":true},{"id":4,"kind":"tick","n":21,"pick":1743714085},{"id":5,"kind":"tick","n":33,"pick":1611145069},{"id":8,"kind":"breakglass","model":0},{"id":9,"kind":"run","clone":1,"model":0,"data":1,"workMs":0,"same":true},{"id":11,"kind":"tick","n":18,"pick":1667720412},{"id":47,"kind":"stall","clone":1,"on":true,"at":"companions"},{"id":13,"kind":"tick","n":3,"pick":345952590},{"id":20,"kind":"tick","n":14,"pick":566901386},{"id":45,"kind":"migrate","clone":0},{"id":42,"kind":"tick","n":1,"pick":127151956}]}',
  );
});

/**
 * I1, the checker's (seed 216700001, `--torn-log-share 1
 * --shared-cache-share 1`, shrunk to 12 operations; old clients, ETag
 * versions): c1's streamed core run crashed with part of version 1's raw
 * output written, never synced. c0's run made version 1 (the same output)
 * and was acknowledged. c1's sync pulled it, set c1's partial raw aside and
 * opened a conflict naming it as mine, c0's bytes as theirs. c1's user wrote
 * a merge at the path for `resolve --merged`, cut off by an outage (nothing
 * changed). The final pull kept that merge, as it keeps any local change,
 * and I1 reported c1 as lacking c0's raw: it left to the check after the
 * final resolution only a conflict whose own copy is the file at the path,
 * not one set aside. It now takes a set-aside own copy too; after the final
 * resolution c1 holds c0's bytes.
 */
Deno.test("chaos regression: a user's merge kept in a conflict whose own copy was set aside is checked after the final resolution (I1, seed 216700001)", async () => {
  await clean(
    '{"seed":216700001,"clones":2,"kinds":["api","core"],"oldClients":true,"etag":true,"ops":[{"id":5,"kind":"run","clone":1,"model":0,"data":0,"workMs":0,"streamed":true},{"id":7,"kind":"tick","n":13,"pick":1611719423},{"id":8,"kind":"crash","clone":1},{"id":16,"kind":"run","clone":0,"model":0,"data":0,"workMs":0,"same":true},{"id":18,"kind":"edit","clone":0,"file":3,"how":"during","pick":943294611},{"id":76,"kind":"tick","n":1,"pick":1701134629},{"id":78,"kind":"tick","n":36,"pick":1052127358},{"id":79,"kind":"sync","clone":1},{"id":80,"kind":"tick","n":33,"pick":63350065},{"id":27,"kind":"outage","on":true},{"id":29,"kind":"resolve","clone":1,"pick":1,"how":"merged"},{"id":31,"kind":"tick","n":2,"pick":1202404942}]}',
  );
});
