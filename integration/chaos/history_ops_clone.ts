/**
 * The operations of a chaos history that a clone and its user make: model
 * runs, syncs and the other commands of a clone's process, its user's
 * edits, deletes and resolutions, and what befalls a clone's cache on
 * disk (a second process, a copy, a torn or damaged manifest log). Part of
 * {@link Op} (`history_ops.ts`).
 *
 * @module
 */

/**
 * How an edit reaches the datastore: `hand` writes the file and nothing else
 * (no markDirty; `hand-tick` keeps the file's size class and its mtime, as an
 * edit within the filesystem's timestamp tick after the last sync does),
 * `mark` also marks it dirty, `push` marks it and pushes. `revert` puts
 * back by hand the bytes the clone last synced (a user undoing an edit; a
 * plain `hand` edit when the clone never synced the file). `during` is a
 * `hand` edit made at once, while the clone's own command (a sync) is under
 * way, not after it. `under` writes a new file (`<path>/part-<id>.md`) in
 * the directory of that name the clone holds (a peer's, pulled here) and
 * marks the directory's name, not the file's, leaving it for the clone's
 * next push; nothing happens where no directory is there.
 */
export type EditHow = "hand" | "hand-tick" | "mark" | "push" | "revert" | "during" | "under";

/** The resolutions a `resolve` operation picks from. */
export type ResolveHow = "mine" | "theirs" | "merged";

/**
 * How a `sync` or `resolve` runs in a second process over the clone's cache
 * (see {@link insertSharedConflict}).
 */
export interface SecondRun {
  /**
   * With `second`: run by a second process over the clone's cache (a
   * service of its own, as a `sibling`'s), beside the clone's own commands
   * (an API clone only; see {@link insertSharedConflict}).
   */
  readonly second?: true;
  /**
   * With `second`: run to its end right after the next take-in of the
   * conflict records by the clone's own process (its next command's):
   * between that command's read of the records and what it saves after.
   */
  readonly aimed?: true;
  /**
   * With `aimed`: run instead right after the own process's next pull
   * took in what the cache synced (after its command's take-in of the
   * conflict records), before it reads the index: that pull is planned
   * before anything the second one saves (see {@link insertSharedConflict}).
   */
  readonly atPull?: true;
  /**
   * With `second`: once it ended, the clone's user edits that one of
   * {@link SHARED_FILES} by hand (a merge written while the other process
   * runs on).
   */
  readonly handAfter?: number;
  /**
   * With `second`: once it ended (and after `handAfter`), the datastore
   * goes unreachable (an outage, as the `outage` operation's, ended by a
   * later one): the own process's pull after it fails (see
   * {@link insertTheirsReopen}).
   */
  readonly outageAfter?: true;
  /**
   * With `second`: before it runs, the clone's user edits that one of
   * {@link SHARED_FILES} by hand (an edit written while the own process
   * stands still in its resolution's pull, see {@link insertSharedConflict}).
   */
  readonly handBefore?: number;
  /**
   * With `aimed`: run instead right before the own process's next clear
   * of its conflict records (a resolution's, of the path it resolves).
   */
  readonly atClear?: true;
  /**
   * With `aimed`: run instead once the own process's next clear of its
   * conflict records ended, right after its pull's take-in of what the
   * cache synced that follows (a resolution's pull, planned before).
   */
  readonly afterClear?: true;
}

/** An operation of a clone's process or of its user (see `Op` in `history_ops.ts`). */
export type CloneOp =
  /** A model method run on a clone: take the model lock, write version N+1, push under the lock, release. */
  | {
    readonly id: number;
    readonly kind: "run";
    readonly clone: number;
    readonly model: number;
    readonly data: number;
    /** Fake milliseconds the method body takes between writing and pushing. */
    readonly workMs: number;
    /**
     * A deterministic method: its output depends only
     * on the model, the data name and the version, so two runs of one
     * version (a breakglass) write the same bytes.
     */
    readonly same?: boolean;
    /**
     * Its output is streamed, as the tool's data writer does (a core-driven
     * clone only): the version's `raw` is made and written part way, another
     * step's flush of the same service runs meanwhile, then the rest of `raw`
     * and the `metadata.yaml` are written (the version finalized) and the
     * run's own flush pushes it.
     */
    readonly streamed?: boolean;
    /**
     * Another step of its workflow runs beside it in the same process (a
     * core-driven clone only): a unit of its own over the same service, with
     * its own model's lock, version and flush (single-phase where the run's
     * is two-phase, and the other way round), released when that flush ends,
     * whichever of the two flushes is under way then.
     */
    readonly parallel?: boolean;
    /**
     * A structural command of the tool (a global-lock command: `model
     * evaluate`, `data gc`…) runs in the same process beside a `parallel`
     * run and its step while both hold their model locks, on the same
     * extension instance: the global lock, a pull and a push naming no
     * model (no `context`, as the tool's flush of such a command), a file
     * of its own written between them.
     */
    readonly structural?: boolean;
    /**
     * A `parallel` run that saves as the tool's `save` does: its data
     * name's directory marked (no version directory marked after), made,
     * and its files written only after a wait inside which its parallel
     * step flushes (`moves_save_gap.ts`).
     */
    readonly saveGap?: boolean;
    /**
     * With a push that fails as retryable (cut off: the store or the lock
     * unreachable), the run waits this many fake milliseconds, still
     * holding its lock, and pushes its version once more, as a tool that
     * retries its flush does (an API clone only; see `moves_cut_push.ts`).
     */
    readonly again?: number;
  }
  /**
   * A periodic sync: pull, then push. With `raced`: right after the clone's
   * push of that data name's marker, raced by a peer's (I38 looks at what
   * the pull records; see {@link insertLostRace}).
   */
  | {
    readonly id: number;
    readonly kind: "sync";
    readonly clone: number;
    readonly raced?: { readonly model: number; readonly data: number };
    /**
     * With `listed`: right after a commit into the shard of that data name's
     * model that a peer's commit cut off before its meta update wrote (I7
     * looks at the index after the push; see {@link insertShardCut}).
     */
    readonly listed?: { readonly model: number; readonly data: number };
    /**
     * With `edit`: its user edits that one of {@link SHARED_FILES} between
     * the pull and the push (see {@link insertCheckedWindow}).
     */
    readonly edit?: number;
    /** With `edit`: the bytes that clone's edit operation `op` wrote there (see {@link insertRepublished}). */
    readonly again?: { readonly op: number; readonly clone: number };
    /** With `named`: I7 looks at that one of {@link SHARED_FILES} before the pull. */
    readonly named?: number;
  } & SecondRun
  /** The move of a v1 bucket's index to v2 shards, under the global lock (once per history). */
  | { readonly id: number; readonly kind: "migrate"; readonly clone: number }
  /** A command that writes a state file and calls `markDirty()` with no path, then pushes (a walk). */
  | { readonly id: number; readonly kind: "bulk"; readonly clone: number }
  /** A config edit: writes `config/settings-<file>.yaml`, marks it dirty, pushes. */
  | { readonly id: number; readonly kind: "config"; readonly clone: number; readonly file: number }
  /** A managed lockfile transaction: set an entry, remove one, or (neither) retry the pending delta. */
  | {
    readonly id: number;
    readonly kind: "lockfile";
    readonly clone: number;
    readonly set?: string;
    readonly remove?: string;
  }
  /** A user edits one of {@link SHARED_FILES} (see {@link EditHow}). */
  | {
    readonly id: number;
    readonly kind: "edit";
    readonly clone: number;
    readonly file: number;
    readonly how: EditHow;
    /** `during`: the choices of the scheduler decisions taken while waiting for its moment. */
    readonly pick?: number;
    /**
     * With `push`: an edit of a file this clone synced whose entry an old
     * client's pull dropped since, before any pull here saw the drop
     * (I37 looks at what that push does; see {@link insertDroppedEdit}).
     */
    readonly dropped?: true;
  }
  /**
   * A user deletes one of {@link SHARED_FILES}: by hand, or marked dirty and
   * pushed. With `run`, the files of the version that run (an operation's
   * id) wrote here instead, each that still holds its bytes, if the run was
   * not acknowledged; where that run's version was set aside here
   * (`version_exists`), the empty directory it left, by hand (see
   * {@link insertPutBackLost}).
   */
  | {
    readonly id: number;
    readonly kind: "delete";
    readonly clone: number;
    readonly file: number;
    /**
     * `dir`: the whole `notes/` directory, removed by hand, marked dirty by
     * its name and pushed; `during`: by hand, at once, while the clone's own
     * command (a sync) is under way.
     */
    readonly how: "hand" | "push" | "dir" | "during";
    /** `during`: as for an edit. */
    readonly pick?: number;
    readonly run?: number;
    /**
     * With `run`: the files of that run's version, committed (acknowledged),
     * as this clone holds them while its `latest` marker here names that
     * version, removed here, marked by name and pushed (see
     * {@link insertUnderMarker}); nothing happens otherwise.
     */
    readonly committed?: boolean;
    /**
     * With `run` (not `committed`): also the files of the version that
     * acknowledged run (an operation's id) wrote here, which the marker this
     * clone synced names, removed in the same push (see
     * {@link insertCommittedDeleted}); nothing more where that run was not
     * acknowledged.
     */
    readonly synced?: number;
  }
  /**
   * A clone points a latest marker at its highest local version of that data
   * (or, with `back`, one before), outside any model run and without the
   * model lock, marks it dirty and pushes: a second writer of the marker.
   * With `how: "hand"` it only writes the file (a later walk pushes it);
   * with `how: "revert"` it puts back by hand the marker it last synced.
   */
  | {
    readonly id: number;
    readonly kind: "marker";
    readonly clone: number;
    readonly model: number;
    readonly data: number;
    readonly back: boolean;
    readonly how?: "push" | "hand" | "revert";
  }
  /**
   * A clone resolves one of its conflicts (the `pick`-th, modulo their
   * number), if it has any; with `second` (and `aimed`, `atPull`,
   * `handAfter`, `handBefore`, `outageAfter`, `atClear`, `afterClear`), in a second process over its cache, as a
   * `sync`'s.
   */
  | {
    readonly id: number;
    readonly kind: "resolve";
    readonly clone: number;
    readonly pick: number;
    readonly how: ResolveHow;
  } & SecondRun
  /**
   * A clone edits one of {@link SHARED_FILES} and pushes, told to adopt any
   * other writer's uncommitted object at a shared file or latest marker
   * (publish it as that writer's change instead of waiting for it), as a
   * user does for a writer taken for gone (which may yet come back). Often
   * planned right after a crash of another clone.
   */
  | {
    readonly id: number;
    readonly kind: "adopt";
    readonly clone: number;
    readonly file: number;
  }
  /**
   * The tool marks one of {@link SHARED_FILES} dirty before writing it, and
   * the write never comes (the command failed): a mark on a path with
   * nothing here. Made only where the clone has nothing at the path.
   * Inserted from a generator of its own (see {@link insertUnwritten}).
   */
  | {
    readonly id: number;
    readonly kind: "unwritten";
    readonly clone: number;
    readonly file: number;
  }
  /**
   * A user replaces one of the `notes/` files of {@link SHARED_FILES} by a
   * directory of that name holding a new file (`<path>/part-<id>.md`, bytes
   * of its own), or such a directory by a plain file again, by hand (`rm`,
   * `mkdir`, write); then, with `how: "push"`, marks the path by its name
   * and pushes, or (`hand`) leaves it for a later walk, or (`mark`) marks
   * it by its name and leaves it for the clone's next push. Nothing happens
   * when the clone has neither a file nor a directory there. Inserted into
   * some histories from a generator of their own (see {@link insertReshapes}
   * and {@link insertBlips}).
   */
  | {
    readonly id: number;
    readonly kind: "reshape";
    readonly clone: number;
    readonly file: number;
    readonly how: "hand" | "push" | "mark";
  }
  /**
   * A second process of the tool over the clone's cache directory (swamp
   * runs models of one repository at once, each process with its own
   * service over the same cache): it takes the lock of a model of its own,
   * writes version 1 of that model's data, marks it dirty and, `workMs`
   * later (the clone's own commands going on meanwhile), pushes it
   * (`push`) or dies before its push (`dies`: its service dropped, its
   * lock left to expire). Or, on a core-driven clone (`structural`: see
   * {@link markSiblingStructural}), it runs a structural command instead,
   * `workMs` after it starts: the global lock, a pull naming no model and a
   * push naming none, beside the runs of the clone's own process, whose held
   * locks are not its own. Either way the clone's final sync runs in a
   * process started afresh on that cache. Inserted from a generator of its
   * own (see {@link insertSiblings}).
   */
  | {
    readonly id: number;
    readonly kind: "sibling";
    readonly clone: number;
    readonly how: "push" | "dies" | "structural";
    readonly workMs: number;
  }
  /**
   * The clone's cache is replaced by a copy of clone `from`'s, state and
   * all (a backup restored on another machine, a CI cache restored on
   * another runner): its process stops, its directory takes the copy, and
   * it starts again there, the same user going on (its own unpushed changes
   * were given up with its old directory). Made only while neither clone
   * runs a command, and only between clones of one kind (a library's cache
   * and the tool's keep their state apart). Inserted from a generator of
   * its own (see {@link insertCopies}).
   */
  | {
    readonly id: number;
    readonly kind: "copy";
    readonly clone: number;
    readonly from: number;
  }
  /**
   * Another process over the clone's cache, its disk full, dies part way
   * through a line it writes ahead to the synced manifest's log: the
   * clone's `.sluice/manifest.log` gains a prefix (cut at a length drawn
   * from `pick`) of a well-formed line of the base's generation recording
   * `file`, with no newline. Aimed: the scheduler goes on (a few decisions
   * at most, with choices drawn from `pick`) until the clone's command is
   * parked on a download (its pull's, which writes its record ahead right
   * after), or ends. Nothing happens when the cache has no base (no process
   * writes ahead then). The clone's final sync then runs in a
   * process started afresh on that cache, as with a `sibling`. Inserted from
   * a generator of its own (see {@link insertTornLogs}).
   */
  | {
    readonly id: number;
    readonly kind: "torn";
    readonly clone: number;
    readonly file: number;
    readonly pick: number;
  }
  /**
   * A damaged disk block under the clone's cache: one whole line of its
   * `.sluice/manifest.log` that is not the last is replaced by garbage bytes
   * of the same length (zeros or noise, never a newline; the line's newline
   * kept): the line holding the latest record of `file` when there is one
   * before the last, else one drawn from `pick`. The scheduler first goes on (a few
   * decisions at most, with choices drawn from `pick`) until the clone's
   * command ends. Then the clone's process restarts, as a `crash` does: the
   * process started afresh on the cache reads the manifest, the damaged
   * line's record alone lost (I30). Nothing happens when the log has no
   * line before its last. With `open`, the clone's process stays open
   * instead, and another process over the cache writes a whole line ahead
   * after the damage (the record of another path the files hold, as it
   * synced it too): the clone's next command takes the log in, and must
   * tell the damaged line as an open does (I30). With `dies`, the process
   * started afresh (whose open found the damaged line, so its next save
   * writes a base) dies inside that save, once the base is renamed into
   * place and before the log is replaced, after another process wrote a
   * whole line ahead (the dying one's record of a path, its mtime another)
   * since the save's take-in read the log: to the log in place (`log`), or
   * to one it creates, the log having gone from beside the base before
   * (`nolog`). I30: the process started afresh after that death holds the
   * line's record. With `replaceFails`, the process started afresh lives
   * on, and the replacement of the log after the rename of a base its save
   * writes fails (no space left on the device), another process having
   * written a whole line ahead to the log in place since that save's
   * take-in read it: a line of a path the save records anew (its record,
   * its mtime another), which the save's own record stands over. I30: that
   * record stays the process's, and is what the files hold once it has
   * saved again (the final sync). Inserted from a generator of its own (see
   * {@link insertDamagedLogs}).
   */
  | {
    readonly id: number;
    readonly kind: "damaged";
    readonly clone: number;
    readonly file: number;
    readonly pick: number;
    readonly open?: boolean;
    readonly dies?: "log" | "nolog";
    readonly replaceFails?: boolean;
  };
