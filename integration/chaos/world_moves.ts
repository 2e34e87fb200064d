/**
 * The moves of a chaos history that are not a clone's own commands: here,
 * a clone's cache replaced by a copy of another's or shared by a second
 * process, and a torn line another process wrote ahead to its manifest
 * log. Another tool's, old clients' and the operator's moves are in
 * `world_tools.ts`; a manifest log's damaged lines in
 * `world_damaged_logs.ts`.
 *
 * @module
 */
import { readErasureJournal } from "../../middleware/erasure_journal.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { findStateDir } from "../../sync/transfer/cache_paths.ts";
import { statePath } from "../../sync/transfer/cache.ts";
import { DIRTY_FILE } from "../../sync/service/state.ts";
import { readJournalLine } from "../../sync/service/dirty_journal.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { MANIFEST_FILE, MANIFEST_LOG } from "../../sync/service/manifest_disk.ts";
import { logLines } from "../../sync/service/manifest_log.ts";
import { isIndexObject } from "./clone_setup.ts";
import { siblingCommand } from "./commands.ts";
import { moveCommand } from "./commands_user.ts";
import { coreSiblingCommand } from "./core_driven.ts";
import { kindOf, type Op, SHARED_FILES } from "./history.ts";
import { readWriterId } from "../../sync/transfer/writer_id.ts";
import { mulberry32 } from "./prng.ts";
import { type CloneSlot, SIBLING_INCARNATION } from "./world_slots.ts";
import { recordsOnDisk } from "./set_aside_named.ts";
import { ReopenedRecords } from "./reopened_records.ts";
import { WorldDamagedLogs } from "./world_damaged_logs.ts";

/** Scheduler decisions a torn line of another process's waits at most for a download of the clone's pull. */
const TORN_DECISIONS = 60;

/** The moves of a history's world: what other tools and processes do beside the clones. */
export abstract class WorldMoves extends WorldDamagedLogs {
  /**
   * A clone's cache replaced by a copy of another's (see the `copy` Op):
   * only while neither runs a command, between clones of one kind. The
   * clone's process stops, its own changes not pushed are given up with its
   * old directory (its user chose the copy), and it starts again on the copy.
   */
  protected async copy(op: Extract<Op, { kind: "copy" }>): Promise<void> {
    const slot = this.clones[op.clone];
    const from = this.clones[op.from];
    const kind = (i: number) => this.history.kinds?.[i] ?? "api";
    if (slot.busy || from.busy || kind(op.clone) !== kind(op.from)) return;
    if (this.shared.has(slot) || this.shared.has(from)) return; // another process over either
    this.stats.copies++;
    const gone = await readWriterId(slot.svc.cache);
    if (gone) this.abandonedWriters.add(gone);
    const journal = await readErasureJournal(slot.svc.cache).catch(() => undefined);
    for (const u of journal?.uploads ?? []) {
      const all = this.abandonedErasures.get(u.path) ?? new Set<string>();
      all.add(u.version);
      this.abandonedErasures.set(u.path, all);
    }
    for (const [path, versions] of this.deletedBy.get(slot.index) ?? []) {
      const all = this.abandonedDeletes.get(path) ?? new Set<string>();
      for (const v of versions) all.add(v);
      this.abandonedDeletes.set(path, all);
    }
    this.deletedBy.delete(slot.index);
    for (const l of slot.locks) l.abandon();
    slot.svc.state.exit();
    for (const e of this.changes.edits) {
      if (e.clone === slot.index) this.changes.replaced(slot.index, e.path);
    }
    this.truth.cacheReplaced(slot.index);
    this.ownWrites.forget(slot.index);
    this.changes.asides.copied(slot.index, from.index);
    await Deno.remove(slot.dir, { recursive: true });
    await copyTree(from.dir, slot.dir);
    slot.incarnation++;
    await this.boot(slot);
    // The copy's local deletions (synced files it lacks) come with it, as
    // its user chose it: a pull keeps them, as it keeps any deletion here.
    for (const path of slot.svc.state.syncedPaths()) {
      const st = await Deno.lstat(`${slot.dir}/${path}`).catch(() => null);
      if (!st?.isFile) this.changes.inherited(slot.index, path);
    }
    this.startNext(slot);
  }
  /**
   * A second process over a clone's cache (see the `sibling` move): a
   * service of its own over the clone's directory, as the tool's, running
   * beside the clone's own commands (a unit of its own), its service
   * dropped when its command ends. The clone's final sync then runs in a
   * process started afresh on that cache (see {@link finish}).
   */
  protected async sibling(op: Extract<Op, { kind: "sibling" }>): Promise<void> {
    const slot = this.clones[op.clone];
    this.shared.add(slot);
    this.stats.siblings++;
    this.stats.commands++;
    const { svc, locks } = await this.service(
      slot.dir,
      `c${slot.index}`,
      slot.index,
      SIBLING_INCARNATION + op.id,
    );
    const die = () => {
      for (const l of locks) l.abandon();
    };
    const cmd = kindOf(this.history, op.clone) === "api"
      ? siblingCommand(this.env, op, die)
      : coreSiblingCommand(this.env, op, die);
    this.sched.spawn(`c${slot.index} ${cmd.label}`, `c${slot.index}.s${op.id}`, async () => {
      try {
        await cmd.body(svc);
      } finally {
        svc.state.exit(); // the process ends: its files closed, its owner lock released
      }
    });
  }
  /**
   * A sync or a resolution of an API clone's user run by a second process
   * over its cache (`second`, see `moves_shared_conflict.ts`): a service of
   * its own over the clone's directory, as a `sibling`'s, its marks and
   * resolutions the user's (I23), running beside the clone's own commands
   * (a unit of its own), its service dropped when its command ends. The
   * clone's final sync then runs in a process started afresh on that cache.
   * With `aim`, the scheduler first goes on (a few decisions at most, with
   * choices drawn from it) until the clone's own command is about to save
   * or clear its conflict records (parked there, see {@link armSave}); that
   * process then stands still until the second one's command ends (a few
   * hundred decisions at most), then saves over what the second one saved.
   */
  /** Services whose next take-in of their conflict records is followed by a second process's command. */
  private readonly takeInArmed = new Map<
    SyncService,
    { then: () => Promise<void>; atPull: boolean }
  >();
  /** Services whose pull's take-in of what the cache synced is followed by a second process's command, once the take-ins left to pass are passed. */
  private readonly pullArmed = new Map<SyncService, { then: () => Promise<void>; pass: number }>();
  /** Services whose take-ins of their conflict records can be armed (see {@link armTakeIn}). */
  private readonly takeInHooked = new WeakSet<SyncService>();
  /** Clones whose own command's end checks I6 on the records on disk (see {@link armTakeIn}), with the op. */
  private readonly asideChecks = new Map<CloneSlot, number>();

  /**
   * Arms the next take-in of the conflict records (`refresh`, which begins
   * each pull, push and resolution) of clone `slot`'s own process to run
   * `then` to its end right after it: the second process's command, between
   * the own command's read of the records and everything it saves after.
   * With `atPull`, right after the take-in of what the cache synced that
   * follows it in its pull (the second one after it: the command's, then
   * the pull's own), before the pull reads the index: a pull planned on
   * records, conflicts and synced files alike, that the second command
   * changes. At the end of that own command, I6 on the records on disk
   * (see {@link checkLocal}).
   */
  private armTakeIn(slot: CloneSlot, id: number, then: () => Promise<void>, atPull = false): void {
    const svc = slot.svc;
    this.takeInArmed.set(svc, { then, atPull });
    if (this.takeInHooked.has(svc)) return;
    this.takeInHooked.add(svc);
    const fire = async (run: () => Promise<void>, what: string) => {
      this.stats.secondsAimed++;
      this.note(`c${slot.index}'s own process took ${what} in; #${id} runs now`);
      this.reopened.read(slot.index, await recordsOnDisk(slot.dir));
      await run();
      this.asideChecks.set(slot, id);
    };
    this.resolvedChecked(slot, id);
    const set = svc.state.conflicts;
    const refresh = set.refresh.bind(set);
    set.refresh = async () => {
      await refresh();
      const armed = this.takeInArmed.get(svc);
      if (!armed) return;
      this.takeInArmed.delete(svc);
      if (armed.atPull) this.pullArmed.set(svc, { then: armed.then, pass: 1 });
      else await fire(armed.then, "its conflict records");
    };
    const state = svc.state;
    const synced = state.refreshSynced.bind(state);
    state.refreshSynced = async () => {
      await synced();
      const armed = this.pullArmed.get(svc);
      if (!armed || armed.pass-- > 0) return;
      this.pullArmed.delete(svc);
      await fire(armed.then, "what the cache synced for its pull");
    };
  }

  /**
   * I6 at the end of a command whose take-in of the conflict records a
   * second process's command followed (see {@link armTakeIn}): every copy
   * a pull set aside is named by a record on disk (what the clone's
   * processes, and `sluice status`, go by), not only once a process opens
   * the cache again and names it from its `REASON.json`.
   */
  protected override async checkLocal(slot: CloneSlot): Promise<void> {
    await super.checkLocal(slot);
    const id = this.asideChecks.get(slot);
    if (id === undefined || !slot.busy) return; // none, or a user's edit between commands
    this.asideChecks.delete(slot);
    if (slot.busy.unit.state !== "running") return; // frozen: a crash, its records left as they are
    const records = await recordsOnDisk(slot.dir);
    for (const v of await this.changes.asides.check(slot.index, slot.dir, records, id)) {
      this.truth.violate(v);
    }
  }

  /**
   * A sync or a resolution of an API clone's user run by a second process
   * over its cache (`second`, see `moves_shared_conflict.ts`): a service of
   * its own over the clone's directory, as a `sibling`'s, its marks and
   * resolutions the user's (I23), running beside the clone's own commands
   * (a unit of its own), its service dropped when its command ends. The
   * clone's final sync then runs in a process started afresh on that cache.
   * With `aim`, the scheduler first goes on (a few decisions at most, with
   * choices drawn from it) until the clone's own command is about to save
   * or clear its conflict records (parked there, see {@link armSave}); that
   * process then stands still until the second one's command ends (a few
   * hundred decisions at most), then saves over what the second one saved.
   */
  /** Services whose next save or clear of their conflict records first runs a second process's command. */
  private readonly savesArmed = new Map<
    SyncService,
    { first: () => Promise<void>; names: readonly string[]; after: boolean }
  >();
  /** Services whose clear armed (`after`) runs a second process's command at their pull's next take-in of what the cache synced. */
  private readonly clearedArmed = new Map<SyncService, () => Promise<void>>();
  /** Services whose conflict records' saves and clears can be armed (see {@link armSave}). */
  private readonly savesHooked = new WeakSet<SyncService>();

  /**
   * Arms the next save or clear of the conflict records (`record`,
   * `keepNaming`, `clear`, which `settle` calls) of clone `slot`'s own
   * process to run `first` to its end before it: the second process's
   * command, between the own command's take-in of the records and its save.
   * Right after that save, I6 for the paths it saved: every copy a pull set
   * aside is named by a record on disk (what the clone's processes, and
   * `sluice status`, go by), not only once a process opens the cache again;
   * and at the end of that own command, I6 on the records on disk (see
   * {@link checkLocal}). With `names`, only the next of those calls armed;
   * with `after`, `first` runs instead once that call ended, right after
   * the next take-in of what the cache synced (a resolution's pull's, after
   * its clear: a pull planned before anything `first` saves).
   */
  private armSave(
    slot: CloneSlot,
    id: number,
    first: () => Promise<void>,
    names: readonly string[] = ["record", "keepNaming", "clear"],
    after = false,
  ): void {
    const svc = slot.svc;
    this.savesArmed.set(svc, { first, names, after });
    if (this.savesHooked.has(svc)) return;
    this.savesHooked.add(svc);
    this.resolvedChecked(slot, id);
    const state = svc.state;
    const synced = state.refreshSynced.bind(state);
    state.refreshSynced = async () => {
      await synced();
      const then = this.clearedArmed.get(svc);
      if (!then) return;
      this.clearedArmed.delete(svc);
      this.stats.secondsAimed++;
      this.note(
        `c${slot.index}'s own pull after its clear took what the cache synced in; #${id} runs now`,
      );
      await then();
      this.asideChecks.set(slot, id);
    };
    const set = svc.state.conflicts;
    for (const name of ["record", "keepNaming", "clear"] as const) {
      const saves = set[name].bind(set) as (...a: unknown[]) => Promise<void>;
      (set as unknown as Record<string, unknown>)[name] = async (...a: unknown[]) => {
        const armed = this.savesArmed.get(svc);
        if (!armed?.names.includes(name)) return await saves(...a);
        this.savesArmed.delete(svc);
        this.reopened.read(slot.index, await recordsOnDisk(slot.dir));
        if (armed.after) {
          await saves(...a);
          this.clearedArmed.set(svc, armed.first);
          return;
        }
        this.stats.secondsAimed++;
        this.note(
          `c${slot.index}'s own process, about to ${name} conflict records, waits for #${id}`,
        );
        await armed.first();
        this.asideChecks.set(slot, id);
        await saves(...a);
        const paths = name === "record"
          ? (a[0] as { path: string }[]).map((r) => r.path)
          : name === "clear"
          ? a[0] as string[]
          : [a[0] as string];
        const records = await recordsOnDisk(slot.dir);
        for (const v of await this.changes.asides.check(slot.index, slot.dir, records, id)) {
          if (paths.some((p) => v.message.includes(` of ${p} `))) this.truth.violate(v);
        }
      };
    }
  }

  /** Services whose resolutions are checked against the records on disk as they end (see {@link resolvedChecked}). */
  private readonly resolvesHooked = new WeakSet<SyncService>();
  /** The records a resolution armed by {@link armTakeIn} or {@link armSave} read, and a second process left (I22). */
  private readonly reopened = new ReopenedRecords();

  /**
   * I22 for the resolutions of clone `slot`'s own process that an aimed
   * second process's command ran inside (see {@link armTakeIn},
   * {@link armSave}): one reported resolved leaves no record of its path
   * open on disk. The second command ended before the own one went on, so
   * a record there is one the resolution met, or should have. One that did
   * not resolve leaves open no older record over the second one's (see
   * {@link ReopenedRecords.check}).
   */
  private resolvedChecked(slot: CloneSlot, id: number): void {
    const svc = slot.svc;
    if (this.resolvesHooked.has(svc)) return;
    this.resolvesHooked.add(svc);
    const resolve = svc.resolveConflict.bind(svc);
    const reopened = async (path: string, how: string) => {
      if (this.asideChecks.get(slot) === undefined) return;
      const records = await recordsOnDisk(slot.dir);
      const v = this.reopened.check(slot.index, path, how, records, id);
      if (v) this.truth.violate(v);
    };
    svc.resolveConflict = async (path, how, ...rest) => {
      let r: Awaited<ReturnType<typeof resolve>>;
      try {
        r = await resolve(path, how, ...rest);
      } catch (e) {
        await reopened(path, how);
        throw e;
      }
      if (!r.resolved) await reopened(path, how);
      if (!r.resolved || this.asideChecks.get(slot) === undefined) return r;
      const open = (await recordsOnDisk(slot.dir)).find((x) => x.path === path);
      if (open) {
        this.truth.violate({
          invariant: "I22",
          message:
            `c${slot.index}'s resolve --${how} of ${path} reported it resolved, while a conflict of it (theirs ${
              open.theirs?.version ?? "a deletion"
            }) that a second process over its cache recorded as it ran is open: nothing it said tells the user so`,
          afterOp: id,
        });
      }
      return r;
    };
  }

  /**
   * A sync or a resolution of an API clone's user run by a second process
   * over its cache (`second`, see `moves_shared_conflict.ts`): a service of
   * its own over the clone's directory, as a `sibling`'s, its marks and
   * resolutions the user's (I23), its service dropped when its command
   * ends. The clone's final sync then runs in a process started afresh on
   * that cache. It runs beside the clone's own commands (a unit of its
   * own), or, `aimed`, right after the next take-in of the clone's own
   * process's conflict records (its next command's, see {@link armTakeIn}),
   * or, `atClear`, right before its next clear of them, or, `afterClear`,
   * right after the take-in of what the cache synced that follows that
   * clear (see {@link armSave}).
   */
  protected async second(op: Extract<Op, { kind: "sync" | "resolve" }>): Promise<void> {
    const slot = this.clones[op.clone];
    this.shared.add(slot);
    this.stats.siblings++;
    this.stats.commands++;
    const { svc } = await this.service(
      slot.dir,
      `c${slot.index}`,
      slot.index,
      SIBLING_INCARNATION + op.id,
    );
    this.named(svc, slot.index);
    const cmd = moveCommand(this.env, op);
    const hand = async (file: number) => {
      const edit = { id: op.id, kind: "edit", clone: op.clone, file, how: "hand" } as const;
      this.note(`c${slot.index}'s user edits ${SHARED_FILES[file]} by hand`);
      await moveCommand(this.env, edit).body(slot.svc);
    };
    const run = async () => {
      // Its user writes an edit by hand first (`handBefore`).
      if (op.handBefore !== undefined) await hand(op.handBefore);
      // Aimed, it runs in the own process's place (that one waits): its
      // writes are this process's, seen as it sees the path (I9).
      const owner = op.aimed ? slot.owner : undefined;
      if (owner !== undefined) this.acting.set(owner, svc);
      try {
        await cmd.body(svc);
      } finally {
        if (owner !== undefined) this.acting.delete(owner);
        // Its marks left (a push kept them) are carried by the clone's
        // processes, and pushed by the next one to open the cache (I23).
        const dir = slot.dir;
        this.namedDeletes.leftBehind(slot.index, svc.state.dirtyPaths(), (p) => marked(dir, p));
        svc.state.exit(); // the process ends: its files closed, its owner lock released
      }
      // Its user writes a merge by hand meanwhile (`handAfter`).
      if (op.handAfter !== undefined) await hand(op.handAfter);
      this.reopened.saved(slot.index, await recordsOnDisk(slot.dir));
      // The datastore goes unreachable (`outageAfter`): the own pull fails.
      if (op.outageAfter) {
        this.stats.outages++;
        this.note("outage on");
        await this.target.faults.outage(true);
      }
    };
    if (op.aimed && (op.atClear || op.afterClear)) {
      this.armSave(slot, op.id, run, ["clear"], op.afterClear === true);
    } else if (op.aimed) this.armTakeIn(slot, op.id, run, op.atPull === true);
    else {this.sched.spawn(
        `c${slot.index} second process ${cmd.label}`,
        `c${slot.index}.s${op.id}`,
        run,
      );}
  }

  /**
   * Another process's write ahead to clone `op.clone`'s manifest log cut off
   * part way (see the `torn` move): a prefix of a well-formed line of the
   * base's generation (the record of `op.file` this clone holds, or one of
   * its own), no newline, appended between two scheduling decisions (a
   * process of its own wrote it), aimed at the clone's command parked on a
   * download (a pull's, which writes its record ahead right after) or else
   * made once that command ends. Only where a base is on disk (no process
   * writes ahead before). That cache is then synced at the end by a process started
   * afresh on it, which reads the manifest (I30).
   */
  protected async tornLog(op: Extract<Op, { kind: "torn" }>): Promise<void> {
    const slot = this.clones[op.clone];
    const downloading = () => {
      const key = /^get (\S+)/.exec(slot.busy?.unit.parkedOn ?? "")?.[1];
      return key !== undefined && !isIndexObject(key) && !key.endsWith(".lock");
    };
    const next = mulberry32(op.pick);
    for (let i = 0; i < TORN_DECISIONS && slot.busy && !downloading(); i++) {
      await this.sched.startReady();
      await this.sched.step(next(), next());
      await this.afterDecision();
      if (this.aborted) return;
    }
    const aimed = downloading();
    const dir = findStateDir(slot.dir);
    const base = await Deno.readTextFile(`${dir}/${MANIFEST_FILE}`).catch(() => undefined);
    if (base === undefined) return;
    const gen = Number(/"gen":(\d+)/.exec(base)?.[1] ?? 0);
    const path = SHARED_FILES[op.file];
    const entry = slot.svc.state.synced(path) ??
      { hash: await sha256Hex(new TextEncoder().encode(path)), version: "1", size: path.length };
    const line = logLines(new Map([[path, entry]]), gen, [path])[0];
    const cut = line.slice(0, 1 + (op.pick % (line.length - 1)));
    await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, cut, { append: true });
    this.torn.add(slot);
    this.shared.add(slot);
    this.stats.tornLogs++;
    if (aimed) this.stats.tornLogsAimed++;
    this.note(
      `c${op.clone}'s manifest log gains a torn line of another process's${
        aimed ? ` (its ${slot.busy?.unit.parkedOn})` : ""
      }: ${cut}`,
    );
  }
}

/** Copies the directory `from` into `to` (made), files and directories, in process. */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/** True while the dirty journal of the cache at `dir` holds a mark of `path` by name. */
function marked(dir: string, path: string): boolean {
  try {
    const text = Deno.readTextFileSync(statePath(findStateDir(dir), `.sluice/${DIRTY_FILE}`));
    return text.split("\n").some((l) => {
      const line = readJournalLine(l);
      return line.kind === "dirty" && line.path === path;
    });
  } catch {
    return false;
  }
}
