/**
 * Histories the chaos checker found breaking an invariant, shrunk and kept
 * as they were printed, so each fix stays fixed (part 10 of the older ones,
 * oldest first; the newest are in `regressions_test.ts`).
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
