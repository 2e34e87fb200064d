/**
 * The moves of a chaos history that are not a clone's own commands: another
 * tool's writes, deletions and lockless publications, old clients' writes,
 * a cache copied or shared by a second process, a manifest log torn or
 * damaged, and the operator's breakglasses.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import { readErasureJournal } from "../../middleware/erasure_journal.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { findStateDir } from "../../sync/transfer/cache_paths.ts";
import { leftByBase, MANIFEST_FILE, MANIFEST_LOG } from "../../sync/service/manifest_disk.ts";
import { ManifestFiles } from "../../sync/service/manifest_files.ts";
import {
  baseText,
  logLines,
  readBase,
  replayLog,
  type SyncedEntry,
} from "../../sync/service/manifest_log.ts";
import { modelLockKey, releaseLock } from "../../sync/locks/model_locks.ts";
import { PutModes } from "../../sync/ports.ts";
import { peerPush } from "../../packages/testing/mod.ts";
import { isIndexObject } from "./clone_setup.ts";
import {
  codeOf,
  FOREIGN_WRITER,
  isMoveCommand,
  lockfileCommand,
  siblingCommand,
} from "./commands.ts";
import { coreSiblingCommand } from "./core_driven.ts";
import {
  foreignObjects,
  kindOf,
  locklessObjects,
  MODELS,
  type Op,
  SHARED_FILES,
} from "./history.ts";
import { indexEntriesOf } from "./index_checks.ts";
import { readWriterId } from "../../sync/transfer/writer_id.ts";
import { sameBytes } from "./invariants.ts";
import { mulberry32 } from "./prng.ts";
import { armBaseRename, armLogReplaceFail, disarmBaseRename } from "./save_crash.ts";
import { type CloneSlot, SIBLING_INCARNATION } from "./world_slots.ts";
import { WorldStores } from "./world_stores.ts";

/** Scheduler decisions an old client's write of a refused run's bytes waits at most for its moment. */
const OLD_SAME_DECISIONS = 300;

/** Scheduler decisions a torn line of another process's waits at most for a download of the clone's pull. */
const TORN_DECISIONS = 60;

/** Scheduler decisions a damaged line of a clone's manifest log waits at most for the clone's command to end. */
const DAMAGED_DECISIONS = 60;

/** Scheduler decisions another tool's lockless publication waits at most for its moment. */
const LOCKLESS_DECISIONS = 300;

/** The moves of a history's world: what other tools and processes do beside the clones. */
export abstract class WorldMoves extends WorldStores {
  /**
   * Another tool's writes, straight to the store (past faults and
   * scheduling: no clone's call waits on them). A shared file it writes is
   * a committed change of a writer of its own (`FOREIGN_WRITER`) once an
   * index names it: I9 holds Sluice's writers to have seen it before they
   * replace it. I18 checks the rest at the end.
   */
  protected async foreign(op: Extract<Op, { kind: "foreign" }>): Promise<void> {
    for (const o of foreignObjects(op)) {
      const bytes = new TextEncoder().encode(o.text);
      await this.target.direct.put(o.path, bytes, PutModes.overwrite);
      this.stats.foreignWrites++;
      this.truth.foreign.push({ op: op.id, path: o.path, text: o.text, own: op.what === "file" });
      if (SHARED_FILES.includes(o.path)) {
        await this.changes.record(
          { op: op.id, clone: FOREIGN_WRITER, path: o.path, how: "another tool" },
          bytes,
        );
      }
    }
  }

  /**
   * Another tool's deletion of a shared file's object (or of a run's raw
   * output), straight from the store (past the scheduling). I19 checks at the end that the
   * bytes it deleted are not lost where a clone held them.
   */
  protected async vanish(op: Extract<Op, { kind: "vanish" }>): Promise<void> {
    if (op.run !== undefined && op.whole) {
      // Every file of the version, one after the other.
      const run = this.truth.runs.find((r) => r.op === op.run && r.outcome === "success");
      for (const f of run?.files ?? []) await this.vanishAt(op, f.path);
      return;
    }
    let path = SHARED_FILES[op.file];
    if (op.run !== undefined) {
      // The raw output of a run that succeeded (a run still under way, or
      // failed, leaves nothing to delete).
      const run = this.truth.runs.find((r) => r.op === op.run && r.outcome === "success");
      const raw = run?.files.find((f) => f.path.endsWith("/raw"));
      if (!raw) return;
      path = raw.path;
    }
    await this.vanishAt(op, path);
  }

  /** {@link vanish} of the object at `path`. */
  private async vanishAt(op: Extract<Op, { kind: "vanish" }>, path: string): Promise<void> {
    // Its calls meet the outages and flaky calls the clones meet: one that
    // fails deletes nothing (or, failing after taking effect, deletes).
    const got = await this.target.direct.get(path).catch(() => null);
    if (!got) return;
    // Read past faults and scheduling: the checker's look, not a client's.
    const indexed = (await indexEntriesOf(this.target.inspect))[path]?.v;
    if (op.rewrite) {
      // Another client of the layout publishes the version again, its own
      // bytes over them, at once (between two scheduling decisions).
      const text = `another client's run, numbered as run #${op.run}'s (op #${op.id})\n`;
      await this.target.unfaulted((s) =>
        peerPush(s, { [path]: text }, { now: () => this.sched.clock.now() })
      );
      this.stats.rewrites++;
    } else if (op.blind) {
      // An older client's push that never had it deletes it, object and
      // entry, at once (between two scheduling decisions): a deletion every
      // pull meets, told from no user's.
      await this.target.unfaulted((s) =>
        peerPush(s, {}, { now: () => this.sched.clock.now(), remove: [path] })
      );
      this.shapes.gone(path);
      if (await this.target.inspect.read(path)) return;
      this.stats.vanishes++;
      this.stats.blindDeletes++;
    } else {
      await this.target.direct.delete(path).catch(() => {});
      this.shapes.gone(path);
      if (await this.target.inspect.read(path)) return;
      this.stats.vanishes++;
    }
    const holders: number[] = [];
    let pending = false;
    for (const slot of this.clones) {
      const here = await Deno.readFile(`${slot.dir}/${path}`).catch((e) =>
        e instanceof Deno.errors.IsADirectory ? "directory" : null
      );
      if (here instanceof Uint8Array && sameBytes(here, got.body)) {
        holders.push(slot.index);
        continue;
      }
      // A user's deletion of the file its clone synced there (by hand, or
      // a directory made in its place) not pushed yet: its push, a user's
      // deletion, may yet remove the path everywhere. (An unpushed edit
      // needs no sparing: pushed, the store holds it; else it is a conflict,
      // and the holder must keep its copy.)
      if (here !== "directory" && here !== null) continue;
      if (await this.removedHere(slot, path, got.body)) pending = true;
    }
    if (op.run !== undefined && !op.rewrite) this.stats.vanishedOutputs++;
    if (holders.length > 0 && !pending) this.stats.vanishesChecked++;
    await this.truth.vanished(
      op.id,
      path,
      got.body,
      got.version,
      holders,
      this.changes.touched.length,
      pending,
      indexed,
      op.rewrite === true,
    );
  }

  /**
   * Whether clone `slot`'s user removed what it had at `path` (nothing, or a
   * directory, is there now): the file it synced there, or its own write of
   * `bytes` (the bytes another tool's deletion took), which its state never
   * recorded as synced (the push's commit landed, its answer lost to a
   * crash). Its push, a user's deletion, may yet remove the path everywhere:
   * it withdraws such a write of its own, entry with it.
   */
  protected async removedHere(slot: CloneSlot, path: string, bytes: Uint8Array): Promise<boolean> {
    if (slot.svc.state.synced(path)) return true;
    return this.changes.replacedOwn(slot.index, path, await sha256Hex(bytes));
  }

  /**
   * A delete that checked the version of a shared file, then deleted a
   * write landed in between (see {@link checkThenDelete}): its bytes are
   * held to I19 as those of another tool's deletion are, from now on.
   */
  protected async raced(path: string, bytes: Uint8Array, version: string): Promise<void> {
    this.stats.checkedDeleteRaces++;
    const indexed = (await indexEntriesOf(this.target.inspect))[path]?.v;
    const holders: number[] = [];
    let pending = false;
    for (const slot of this.clones) {
      const here = await Deno.readFile(`${slot.dir}/${path}`).catch(() => null);
      if (here && sameBytes(here, bytes)) holders.push(slot.index);
      else if (!here && await this.removedHere(slot, path, bytes)) pending = true;
    }
    await this.truth.vanished(
      this.currentOpId,
      path,
      bytes,
      version,
      holders,
      this.changes.touched.length,
      pending,
      indexed,
    );
  }

  /**
   * A second process over a clone's cache (see the `sibling` move): a
   * service of its own over the clone's directory, as the tool's, running
   * beside the clone's own commands (a unit of its own), its service
   * dropped when its command ends. The clone's final sync then runs in a
   * process started afresh on that cache (see {@link finish}).
   */
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
   * An old client's write of a refused deterministic run's bytes (see the
   * `oldsame` move), aimed at the moment that run's erasure is about to
   * delete its upload: a plain put of the same bytes and its index entry,
   * at once (between two scheduling decisions, past faults). Recorded as an
   * old client's push (I12), which must never be gone from the store while
   * the index names it. Only at a moment no other writer holds the run's
   * model lock (its object is absent): an old client writes a model's data
   * versions under that model's lock, as Sluice's runs do (old and new
   * clients honour each other's locks), so it makes no such write while
   * another holds it (seed 131100102: the move wrote while the run that took
   * the lock after the breakglass held it, and that run's own version 1
   * filled the path the erasure's delete had emptied).
   */
  protected async oldSame(op: Extract<Op, { kind: "oldsame" }>): Promise<void> {
    const aimed = async () => {
      const run = this.truth.runs.find((r) => r.op === op.run && r.same && r.files.length > 0);
      if (!run) return undefined;
      for (const u of this.sched.active()) {
        const on = /^delete (\S+)$/.exec(u.parkedOn)?.[1];
        const f = on === undefined ? undefined : run.files.find((f) => f.path === on);
        if (!f) continue;
        if (await this.target.direct.head(modelLockKey(run.model)) !== null) return undefined;
        return f;
      }
      return undefined;
    };
    const next = mulberry32(op.pick);
    for (
      let i = 0;
      i < OLD_SAME_DECISIONS && !(await aimed()) && this.sched.active().length > 0;
      i++
    ) {
      await this.sched.startReady();
      await this.sched.step(next(), next());
      await this.afterDecision();
      if (this.aborted) return;
    }
    const f = await aimed();
    if (!f) return;
    const text = new TextDecoder().decode(f.bytes);
    await this.target.unfaulted((s) =>
      peerPush(s, { [f.path]: text }, { now: () => this.sched.clock.now() })
    );
    this.stats.oldSameWrites++;
    this.note(
      `c${op.clone}'s old client wrote run #${op.run}'s ${f.path} as its erasure deletes it`,
    );
    this.truth.oldPushes.push({ op: op.id, path: f.path, text });
    this.truth.oldCommitted.push({ op: op.id, path: f.path, bytes: f.bytes });
  }

  /**
   * Another tool's publication of a version at run `op.run`'s number (see
   * the `lockless` move), aimed at the moment that run holds its model lock
   * with its version written in its clone's cache in full and none of it on
   * the store (not flushed), while no move of the index runs (a tool
   * honouring no lock would lose its index write to a move's, by design):
   * its objects, with its index entries as another client of the layout
   * writes them (`peerPush`) or without, at once (between two scheduling
   * decisions, past faults). I18 holds Sluice never to delete nor write
   * over them (a data version is never rewritten) and the index to name
   * those it indexed; I1 holds the run to be refused (`version_exists`) or
   * to publish another number, never acknowledged over them; I27 counts a
   * version of theirs the index does not name, on the store, as the one the
   * run lost to.
   */
  protected async lockless(op: Extract<Op, { kind: "lockless" }>): Promise<void> {
    const aimed = async () => {
      const run = this.truth.runs.find((r) =>
        r.op === op.run && r.outcome === "pending" && r.files.length > 0
      );
      if (!run || this.sched.active().some((u) => isMoveCommand(u.label))) return undefined;
      if (!(await this.target.inspect.read(modelLockKey(run.model)))) return undefined;
      const dir = this.clones[run.clone].dir;
      for (const f of run.files) {
        const here = await Deno.readFile(`${dir}/${f.path}`).catch(() => undefined);
        if (!sameBytes(here, f.bytes) || await this.target.inspect.read(f.path)) return undefined;
      }
      return run;
    };
    const over = () => {
      const r = this.truth.runs.find((r) => r.op === op.run);
      return r !== undefined && r.outcome !== "pending";
    };
    const next = mulberry32(op.pick);
    for (
      let i = 0;
      i < LOCKLESS_DECISIONS && !over() && !(await aimed()) && this.sched.active().length > 0;
      i++
    ) {
      await this.sched.startReady();
      await this.sched.step(next(), next());
      await this.afterDecision();
      if (this.aborted) return;
    }
    const run = await aimed();
    if (!run) return;
    const raw = run.files.find((f) => f.path.endsWith("/raw"))!.path;
    const dir = raw.slice(0, -"/raw".length);
    const base = dir.slice(0, dir.lastIndexOf("/"));
    const n = Number(dir.slice(dir.lastIndexOf("/") + 1)) - (op.below ? 1 : 0);
    if (n < 1) return;
    // Below the run's number, a version a run was acknowledged for is
    // published already: a tool writing over it honouring neither lock nor
    // create-only loses it whatever Sluice does, so it publishes nothing.
    const published = this.truth.runs.some((r) =>
      r.outcome === "success" && r.files.some((f) => f.path.startsWith(`${base}/${n}/`))
    );
    if (op.below && published) return;
    const objects = locklessObjects(op, base, n);
    const now = () => this.sched.clock.now();
    await this.target.unfaulted(async (s) => {
      if (op.indexed) {
        await peerPush(s, Object.fromEntries(objects.map((o) => [o.path, o.text])), { now });
        return;
      }
      for (const o of objects) {
        await s.put(o.path, new TextEncoder().encode(o.text), PutModes.overwrite);
      }
    });
    this.stats.locklessWrites++;
    if (op.indexed) this.stats.locklessIndexed++;
    this.note(
      `another tool published ${base}/${n} (run #${op.run}'s number${
        op.below ? " less one" : ""
      }) honouring no lock${op.indexed ? ", with its index entries" : ", no index entry"}`,
    );
    for (const o of objects) {
      this.truth.lockless.push({
        op: op.id,
        path: o.path,
        text: o.text,
        indexed: op.indexed,
        marker: o.path.endsWith("/latest"),
      });
    }
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

  /**
   * A damaged disk block under clone `op.clone`'s cache (see the `damaged`
   * move): once its command ended (or after a few decisions), one whole line
   * of its manifest log that is not the last, drawn from `op.pick`, is
   * replaced by garbage bytes of its length, its newline kept; then its
   * process restarts. I30: the process started afresh reads the manifest,
   * every record what the files held before the damage kept but the damaged
   * line's, whose path counts as synced at its record before or as never
   * synced (that path alone is then spared by the other invariants).
   */
  /**
   * A lockfile change set first in the queue of `slot`'s process, after a
   * base of the next generation holding what `base` and the log in `dir`
   * did (another process's: the process's save takes it in) when `base`
   * carries no lines of an older log.
   */
  private async damagedLockfileNext(
    slot: CloneSlot,
    id: number,
    dir: string,
    base: string,
  ): Promise<void> {
    const m = JSON.parse(base) as { gen?: number; carry?: unknown };
    const open = this.damagedOpen.get(slot);
    if (m.carry === undefined && open) {
      const gen = m.gen ?? 0;
      const log = await Deno.readTextFile(`${dir}/${MANIFEST_LOG}`);
      const lines = log.split("\n").map((l) => {
        if (!l.startsWith(`{"g":${gen},`)) return l;
        try {
          return JSON.stringify({ ...JSON.parse(l), g: gen + 1 });
        } catch {
          return l;
        }
      });
      await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, lines.join("\n"));
      await Deno.writeTextFile(`${dir}/${MANIFEST_FILE}`, JSON.stringify({ ...m, gen: gen + 1 }));
      open.baseAhead = true;
    }
    this.stats.damagedOpenLockfile++;
    slot.queue.unshift(
      lockfileCommand(this.env, {
        id,
        kind: "lockfile",
        clone: slot.index,
        set: `@chaos/ext-${id}`,
      }),
    );
    this.startNext(slot);
  }

  protected async damagedLog(op: Extract<Op, { kind: "damaged" }>): Promise<void> {
    const slot = this.clones[op.clone];
    const next = mulberry32(op.pick);
    for (let i = 0; i < DAMAGED_DECISIONS && slot.busy; i++) {
      await this.sched.startReady();
      await this.sched.step(next(), next());
      await this.afterDecision();
      if (this.aborted) return;
    }
    const dir = findStateDir(slot.dir);
    const base = await Deno.readTextFile(`${dir}/${MANIFEST_FILE}`).catch(() => undefined);
    const log = await Deno.readTextFile(`${dir}/${MANIFEST_LOG}`).catch(() => undefined);
    if (base === undefined || log === undefined) return;
    // Another process's line written ahead after a torn one is glued to it.
    if (op.open && !log.endsWith("\n")) return;
    const lines = log.split("\n");
    // Every whole line but the last one (a torn line after them is the last).
    const candidates = lines.length - (log.endsWith("\n") ? 2 : 1);
    if (candidates < 1) {
      this.stats.damagedLogsShort++;
      return;
    }
    // What a reader made of the files before the damage, and without the
    // line: as a load does, the base, then the lines its writer left in the
    // log it read when it ended before replacing it (the base's `carry`:
    // a process that died inside its save), then the base's own lines.
    const ino = (await Deno.lstat(`${dir}/${MANIFEST_LOG}`).catch(() => null))?.ino ?? null;
    const encoder = new TextEncoder();
    let carriedGen: number | undefined;
    const read = (text: string) => {
      try {
        const m = new Map<string, SyncedEntry>();
        const { gen, carry } = readBase(base, m);
        carriedGen = carry?.g;
        leftByBase(carry, { bytes: encoder.encode(text), ino }, m);
        replayLog(text, gen, m);
        return { m, gen };
      } catch {
        return undefined;
      }
    };
    const whole = read(log);
    const recordOf = (line: string): string | undefined => {
      try {
        const r = JSON.parse(line);
        return typeof r?.p === "string" && (r.g === whole?.gen || r.g === carriedGen)
          ? r.p
          : undefined;
      } catch {
        return undefined; // not a line of the manifest's: nothing of it to lose
      }
    };
    // The line of the latest record of `op.file`, when it is not the last.
    const latest = lines.findLastIndex((l, k) =>
      k < lines.length - 1 && recordOf(l) === SHARED_FILES[op.file]
    );
    const at = latest >= 0 && latest < candidates ? latest : Math.floor(next() * candidates);
    // The line blanked, its bytes kept (a carry names offsets in the log).
    const without = read(
      lines.map((l, k) => k === at ? " ".repeat(encoder.encode(l).length) : l).join("\n"),
    );
    const path = recordOf(lines[at]);
    const size = new TextEncoder().encode(lines[at]).length;
    const zeros = next() < 0.5;
    // Any byte but a newline (10).
    const noise = () => {
      const b = Math.floor(next() * 255);
      return b >= 10 ? b + 1 : b;
    };
    const garbage = Uint8Array.from({ length: Math.max(1, size) }, () => zeros ? 0 : noise());
    const enc = new TextEncoder();
    const parts = lines.map((l, k) => k === at ? garbage : enc.encode(l));
    const bytes = new Uint8Array(parts.reduce((n, b) => n + b.length, 0) + parts.length - 1);
    let o = 0;
    for (const [k, b] of parts.entries()) {
      bytes.set(b, o);
      o += b.length;
      if (k < parts.length - 1) bytes[o++] = 10;
    }
    await Deno.writeFile(`${dir}/${MANIFEST_LOG}`, bytes);
    this.stats.damagedLogs++;
    // Its latest record was there (no later line records it again).
    if (path !== undefined && !isDeepStrictEqual(whole?.m.get(path), without?.m.get(path))) {
      const set = this.damagedPaths.get(op.clone) ?? new Set<string>();
      set.add(path);
      this.damagedPaths.set(op.clone, set);
      this.stats.damagedLogsLost++;
    }
    if (op.open) {
      // Another process writes a whole line ahead after the damage: the
      // record the files hold of another path (it synced that too). The
      // clone's process, open since before, takes the log in at its next
      // command (its files changed), and must tell the damaged line.
      const other = without && [...without.m.keys()].sort().find((p) => p !== path);
      if (other === undefined || !without) return;
      const ahead = logLines(new Map([[other, without.m.get(other)!]]), without.gen, [other])[0];
      await Deno.writeTextFile(`${dir}/${MANIFEST_LOG}`, `${ahead}\n`, { append: true });
      this.stats.damagedOpen++;
      this.shared.add(slot);
      this.damagedOpen.set(slot, {
        line: at + 1,
        incarnation: slot.incarnation,
        started: false,
        told: false,
        ...(path === undefined ? {} : { path }),
      });
      this.note(
        `c${op.clone}'s manifest log line ${at + 1} of ${candidates + 1} is damaged on disk (${
          path === undefined ? "no record of a path" : `the record of ${path}`
        }: ${lines[at]}), and another process writes a line ahead after it: ${ahead}`,
      );
      // Half the time the process's next command is a lockfile change, whose
      // save takes the log in only when it writes a base or finds another
      // process's: the files' base is then made another process's (its
      // generation and its log's lines one on, the same records).
      if (next() < 0.5) await this.damagedLockfileNext(slot, op.id, dir, base);
      return;
    }
    this.note(
      `c${op.clone}'s manifest log line ${at + 1} of ${candidates + 1} is damaged on disk (${
        path === undefined ? "no record of a path" : `the record of ${path}`
      }: ${lines[at]}), and its process restarts`,
    );
    await this.crash(slot, "crashed");
    this.stats.damagedLogsReopened++;
    if (op.dies) await this.armSaveCrash(slot, op.dies);
    if (op.replaceFails) this.armLogFail(slot);
    if (!whole || !without) return; // unreadable before the damage: no record to keep
    const state = slot.svc.state;
    // The line held the record of a version this cache deleted on the store,
    // the deletion's commit not come (cut off, or its push's wait for the
    // global lock timed out): the process started afresh counts the path as
    // never synced there (or synced at an older record), so none of its
    // pushes commits that deletion, and the index names the object deleted
    // until a pull that has seen the entry so past the dangling-entry grace
    // removes it, as after a `copy` move (I7's and I8's exception).
    const record = path === undefined ? undefined : whole.m.get(path);
    if (
      path !== undefined && record !== undefined &&
      this.deletedBy.get(op.clone)?.get(path)?.has(record.version) &&
      state.synced(path)?.version !== record.version
    ) {
      const all = this.abandonedDeletes.get(path) ?? new Set<string>();
      this.abandonedDeletes.set(path, all.add(record.version));
    }
    const paths = new Set([...whole.m.keys(), ...without.m.keys(), ...state.syncedPaths()]);
    const lost: string[] = [];
    for (const p of [...paths].sort()) {
      const now = state.synced(p);
      if (isDeepStrictEqual(now, whole.m.get(p))) continue;
      if (p === path && isDeepStrictEqual(now, without.m.get(p))) continue;
      lost.push(p);
    }
    if (lost.length > 0) {
      this.truth.violate({
        invariant: "I30",
        message: `the process started on c${op.clone}'s cache after line ${
          at + 1
        } of its manifest log was damaged (${
          path === undefined ? "no record of a path" : `the record of ${path}`
        }) holds other records than the files did but for that line: ${
          lost.slice(0, 8).map((p) =>
            `${p} ${JSON.stringify(state.synced(p) ?? null)} (was ${
              JSON.stringify(whole.m.get(p) ?? null)
            })`
          ).join(", ")
        }${lost.length > 8 ? `, and ${lost.length - 8} more` : ""}`,
        afterOp: this.currentOpId,
      });
    }
  }

  /**
   * Arms clone `slot`'s process (started afresh on a damaged log, so its
   * next save writes a base) to die inside that save, once its base is
   * renamed into place, before the log is replaced (see the `damaged` move
   * with `dies`); with `nolog`, the log goes from beside the base first,
   * its records folded into the base.
   * Just before the rename, another process writes a whole line ahead (the
   * dying process's record of a path, its mtime another) to the log in
   * place, or to one it creates; the process dies at the next decision.
   */
  protected async armSaveCrash(slot: CloneSlot, how: "log" | "nolog"): Promise<void> {
    const dir = findStateDir(slot.dir);
    const logFile = `${dir}/${MANIFEST_LOG}`;
    if (how === "nolog") {
      // No log beside the base as the save's take-in reads: a base holding
      // every record the files held (an older cache's, or one whose emptied
      // log was never put in place), which is what a cache's processes
      // leave. The log's records are folded into the base first, as a
      // process opening the cache reads them (the damaged line's alone
      // lost): the log removed alone takes with it records saved and
      // acknowledged that the base lacks (a hand deletion's synced record,
      // its push then deleting nothing and a pull fetching the file again),
      // a loss the checker made, not Sluice (seeds 191100056, 191000338,
      // 191000098 and 191200210 failed I6 so).
      const folded = new Map<string, SyncedEntry>();
      const read = await new ManifestFiles(dir).load(folded);
      const raw = await Deno.readTextFile(`${dir}/${MANIFEST_FILE}`).catch(() => undefined);
      const gen = raw === undefined ? undefined : /"gen":(\d+)/.exec(raw)?.[1];
      if (read.kind === "read" && gen !== undefined) {
        await Deno.writeTextFile(
          `${dir}/${MANIFEST_FILE}`,
          baseText(folded, Number(gen), read.indexVersion),
        );
        await Deno.remove(logFile).catch(() => {});
      }
    }
    this.stats.saveCrashesArmed++;
    const incarnation = slot.incarnation;
    armBaseRename(dir, async () => {
      if (slot.incarnation !== incarnation) return false;
      const state = slot.svc.state;
      const paths = state.syncedPaths().sort();
      const path = paths.find((p) => SHARED_FILES.includes(p)) ?? paths[0];
      const held = path === undefined ? undefined : state.synced(path);
      // The base about to be replaced: the generation of lines written ahead under it.
      const base = await Deno.readTextFile(`${dir}/${MANIFEST_FILE}`).catch(() => "");
      const log = await Deno.readTextFile(logFile).catch(() => undefined);
      const gen = /"gen":(\d+)/.exec(base)?.[1];
      // A line written after a torn one is glued to it: none then.
      if (!held || gen === undefined || (log !== undefined && log !== "" && !log.endsWith("\n"))) {
        this.saveDue.set(slot, undefined);
        return true;
      }
      const entry = { ...held, mtimeMs: (held.mtimeMs ?? 0) + 1 };
      const line = logLines(new Map([[path!, entry]]), Number(gen), [path!])[0];
      await Deno.writeTextFile(logFile, `${line}\n`, { append: true });
      this.saveDue.set(slot, { path: path!, entry, held, nolog: log === undefined });
      this.note(
        `c${slot.index}'s process dies inside its save, its base renamed into place, before the log is replaced; another process wrote ahead since its take-in, to ${
          log === undefined ? "a log it created" : "the log in place"
        }: ${line}`,
      );
      return true;
    });
  }

  /**
   * Arms clone `slot`'s process (started afresh on a damaged log, so its
   * next save writes a base) for the replacement of the log after a base
   * its save writes to fail, the process living on (see the `damaged` move
   * with `replaceFails`): just before that base's rename, another process
   * writes a whole line ahead to the log in place, after the take-in read
   * it, of a path the save records anew (its record on disk is not the
   * process's), that record with its mtime another; a base recording no
   * such path is left alone, the next one armed still.
   */
  protected armLogFail(slot: CloneSlot): void {
    const dir = findStateDir(slot.dir);
    const logFile = `${dir}/${MANIFEST_LOG}`;
    this.stats.logFailsArmed++;
    const incarnation = slot.incarnation;
    armLogReplaceFail(dir, async () => {
      if (slot.incarnation !== incarnation) return false;
      const state = slot.svc.state;
      const base = await Deno.readTextFile(`${dir}/${MANIFEST_FILE}`).catch(() => "");
      const log = await Deno.readTextFile(logFile).catch(() => undefined);
      const gen = /"gen":(\d+)/.exec(base)?.[1];
      // No log in place, or a torn line at its end (a line after it is glued to it).
      if (gen === undefined || log === undefined || (log !== "" && !log.endsWith("\n"))) {
        return undefined;
      }
      // What the files hold: a path the process records otherwise is its own in this save.
      const disk = new Map<string, SyncedEntry>();
      const files = new ManifestFiles(dir);
      const loaded = await files.load(disk);
      files.release();
      if (loaded.kind !== "read") return undefined;
      const paths = state.syncedPaths().filter((p) =>
        !isDeepStrictEqual(state.synced(p), disk.get(p))
      ).sort();
      const path = paths.find((p) => SHARED_FILES.includes(p)) ?? paths[0];
      const held = path === undefined ? undefined : state.synced(path);
      if (path === undefined || !held) return undefined;
      const entry = { ...held, mtimeMs: (held.mtimeMs ?? 0) + 1 };
      const line = logLines(new Map([[path, entry]]), Number(gen), [path])[0];
      await Deno.writeTextFile(logFile, `${line}\n`, { append: true });
      this.logFailed.set(slot, { path, entry, held, incarnation });
      this.stats.logFails++;
      this.note(
        `c${slot.index}'s replacement of its manifest log after its base's rename fails (no space left); another process wrote a line of ${path}, which the save records, ahead to the log in place since its take-in: ${line}`,
      );
      return true;
    });
  }

  /**
   * I30 after the final sync for each process whose replacement of the log
   * failed (see {@link armLogFail}) and that lives on: its own record of the
   * path stands over the line written ahead, in the process and in what the
   * files hold, unless it recorded the path again since.
   */
  protected async logFailChecks(): Promise<void> {
    for (const [slot, ahead] of this.logFailed) {
      this.logFailed.delete(slot);
      if (slot.incarnation !== ahead.incarnation) continue; // its unsaved records died with it
      const now = slot.svc.state.synced(ahead.path);
      if (!isDeepStrictEqual(now, ahead.held) && !isDeepStrictEqual(now, ahead.entry)) continue;
      this.stats.logFailsChecked++;
      const disk = new Map<string, SyncedEntry>();
      const files = new ManifestFiles(findStateDir(slot.dir));
      await files.load(disk);
      files.release();
      const read = disk.get(ahead.path);
      if (isDeepStrictEqual(now, ahead.held) && isDeepStrictEqual(read, ahead.held)) continue;
      this.truth.violate({
        invariant: "I30",
        message:
          `c${slot.index}'s process, whose replacement of its manifest log after its base failed once another process wrote a line of ${ahead.path} ahead there since its take-in (a path its save recorded), lost its own record of it to that line: it holds ${
            JSON.stringify(now ?? null)
          }, the files hold ${JSON.stringify(read ?? null)} after the final sync, its record was ${
            JSON.stringify(ahead.held)
          }, the line's ${JSON.stringify(ahead.entry)}`,
        afterOp: this.currentOpId,
      });
    }
  }

  /** The deaths inside a save armed by {@link armSaveCrash}, due at this decision (I30 after). */
  protected async saveCrashes(): Promise<void> {
    for (const [slot, ahead] of this.saveDue) {
      this.saveDue.delete(slot);
      this.stats.crashes++;
      this.stats.saveCrashes++;
      const now = ahead && slot.svc.state.synced(ahead.path);
      disarmBaseRename(findStateDir(slot.dir));
      await this.crash(slot, "crashed");
      if (!ahead) continue;
      if (ahead.nolog) this.stats.saveCrashesNoLog++;
      // Recorded again by the dying process since: the line is superseded.
      if (!isDeepStrictEqual(now, ahead.held) && !isDeepStrictEqual(now, ahead.entry)) continue;
      this.stats.saveCrashesChecked++;
      const read = slot.svc.state.synced(ahead.path);
      if (isDeepStrictEqual(read, ahead.entry)) continue;
      this.truth.violate({
        invariant: "I30",
        message:
          `the process started on c${slot.index}'s cache after its process died inside its save (its base renamed into place, the log not yet replaced) lost the line another process wrote ahead since that save's take-in read the log (${
            ahead.nolog ? "to a log it created, none there" : "to the log in place"
          }): ${ahead.path} ${JSON.stringify(read ?? null)}, the line ${
            JSON.stringify(ahead.entry)
          }`,
        afterOp: this.currentOpId,
      });
    }
  }

  protected breakglass(op: Extract<Op, { kind: "breakglass" }>): void {
    this.stats.breakglasses++;
    this.stats.commands++;
    const model = op.model === null ? undefined : MODELS[op.model];
    const who = `operator breakglass #${op.id} ${model ?? "global lock"}`;
    this.sched.spawn(who, "operator", async () => {
      try {
        const r = await releaseLock(this.operator, { model, force: true });
        if (r.released) this.stats.locksBroken++;
        this.outcome(
          "success",
          `${who} (${r.released ? `broke ${r.broken?.holder}'s lock` : "no lock"})`,
        );
      } catch (e) {
        this.outcome(codeOf(e), who, e);
      }
    });
  }

  /** The checks after each scheduling decision (see `WorldCommands`). */
  protected abstract afterDecision(): Promise<void>;
}

/** Copies the directory `from` into `to` (made), files and directories, in process. */
async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}
