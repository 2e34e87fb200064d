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
import { MANIFEST_FILE, MANIFEST_LOG } from "../../sync/service/manifest_disk.ts";
import { logLines } from "../../sync/service/manifest_log.ts";
import { isIndexObject } from "./clone_setup.ts";
import { siblingCommand } from "./commands.ts";
import { coreSiblingCommand } from "./core_driven.ts";
import { kindOf, type Op, SHARED_FILES } from "./history.ts";
import { readWriterId } from "../../sync/transfer/writer_id.ts";
import { mulberry32 } from "./prng.ts";
import { SIBLING_INCARNATION } from "./world_slots.ts";
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
