/**
 * The damaged-log moves of a chaos history: a line of a clone's manifest
 * log damaged on disk, its process restarted (or left open, to tell it at
 * its next command), and what is armed inside the saves of the process
 * started afresh on it (a death after its base's rename, a replacement of
 * its log that fails), with the checks of I30 after them.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
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
import { lockfileCommand } from "./commands.ts";
import { type Op, SHARED_FILES } from "./history.ts";
import { mulberry32 } from "./prng.ts";
import { armBaseRename, armLogReplaceFail, disarmBaseRename } from "./save_crash.ts";
import type { CloneSlot } from "./world_slots.ts";
import { WorldTools } from "./world_tools.ts";
import { ctimeOnlyRepeats, damageableLines, withRepeats } from "./ctime_lines.ts";

/** Scheduler decisions a damaged line of a clone's manifest log waits at most for the clone's command to end. */
const DAMAGED_DECISIONS = 60;

/** A clone's manifest log damaged on disk, and the saves of the process started afresh on it. */
export abstract class WorldDamagedLogs extends WorldTools {
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
    if (m.carry === undefined) {
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
      if (open) open.baseAhead = true;
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
    // Every whole line but the last one (a torn line after them is the last),
    // lines a walk wrote again for a moved ctime alone left out (`ctime_lines.ts`).
    const candidates = lines.length - (log.endsWith("\n") ? 2 : 1);
    const pick = damageableLines(lines, !log.endsWith("\n"));
    if (pick.length < 1) {
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
        const { damaged } = replayLog(text, gen, m);
        return { m, gen, damaged };
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
    const repeat = ctimeOnlyRepeats(lines);
    const latest = lines.findLastIndex((l, k) =>
      k < lines.length - 1 && !repeat[k] && recordOf(l) === SHARED_FILES[op.file]
    );
    const at = pick.includes(latest) ? latest : pick[Math.floor(next() * pick.length)];
    // With the lines after it that repeat its record but for the ctime (a
    // restarted process only: one left open tells the line it finds).
    const damaged = new Set(op.open ? [at] : withRepeats(lines, at));
    // The lines blanked, their bytes kept (a carry names offsets in the log).
    const without = read(
      lines.map((l, k) => damaged.has(k) ? " ".repeat(encoder.encode(l).length) : l).join("\n"),
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
    // A repeat's garbage, drawn after the line's (whose bytes stay as without it).
    const again = (l: string) =>
      Uint8Array.from({ length: Math.max(1, enc.encode(l).length) }, () => zeros ? 0 : noise());
    const parts = lines.map((l, k) =>
      k === at ? garbage : damaged.has(k) ? again(l) : enc.encode(l)
    );
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
      // A line already unreadable before (an earlier `damaged` move's, in
      // the same file) held no record to lose: the process open since
      // before found it already (at its open, or at a take-in since, and
      // told it then; a line found is told once) or is held to tell it by
      // the earlier move's account, left as it is. Nothing new to tell.
      if (!whole?.damaged.includes(at + 1)) {
        this.damagedOpen.set(slot, {
          line: at + 1,
          incarnation: slot.incarnation,
          started: false,
          told: false,
          ...(path === undefined ? {} : { path }),
        });
      }
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
}
