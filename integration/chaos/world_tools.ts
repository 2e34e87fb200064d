/**
 * The moves of a chaos history made beside the clones, straight at the
 * store: another tool's writes, deletions and lockless publications, an
 * old client's write of a refused run's bytes, and the operator's
 * breakglasses.
 *
 * @module
 */
import { sha256Hex } from "../../sync/hash.ts";
import { modelLockKey, releaseLock } from "../../sync/locks/model_locks.ts";
import { PutModes } from "../../sync/ports.ts";
import { peerPush } from "../../packages/testing/mod.ts";
import { codeOf, FOREIGN_WRITER, isMoveCommand } from "./commands.ts";
import { foreignObjects, locklessObjects, MODELS, type Op, SHARED_FILES } from "./history.ts";
import { indexEntriesOf } from "./index_checks.ts";
import { sameBytes } from "./invariants.ts";
import { mulberry32 } from "./prng.ts";
import type { CloneSlot } from "./world_slots.ts";
import { WorldStores } from "./world_stores.ts";

/** Scheduler decisions an old client's write of a refused run's bytes waits at most for its moment. */
const OLD_SAME_DECISIONS = 300;

/** Scheduler decisions another tool's lockless publication waits at most for its moment. */
const LOCKLESS_DECISIONS = 300;

/** Scheduler decisions another tool's vanish or rewrite aimed at a clone's idle moment waits at most. */
const IDLE_DECISIONS = 300;

/** What other tools, old clients and the operator do beside the clones, at the store. */
export abstract class WorldTools extends WorldStores {
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
      const put = await this.target.direct.put(o.path, bytes, PutModes.overwrite);
      this.stats.foreignWrites++;
      const own = op.what === "file";
      this.truth.foreign.push({ op: op.id, path: o.path, text: o.text, own, version: put.version });
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
    const idle = op.idle === undefined ? undefined : this.clones[op.idle];
    for (let i = 0; i < IDLE_DECISIONS && idle && (idle.busy || idle.queue.length > 0); i++) {
      await this.sched.startReady();
      await this.sched.stepInOrder();
      await this.afterDecision();
      if (this.aborted) return;
    }
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
      op.blind && op.run !== undefined ? op.run : undefined,
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
