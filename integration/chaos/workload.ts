/**
 * Runs one chaos history: K clones (each its own cache dir and identity)
 * over one shared store, driven by the {@link SimScheduler}, with the
 * history's breakglasses, outages, latency, flaky calls and crashes; then
 * heals everything, syncs every clone and checks the invariants (see
 * `invariants.ts`).
 *
 * A clone runs its commands one after another (as one user at one
 * terminal); clones and the operator's breakglasses run concurrently. A crash
 * freezes the clone's current command where it is parked, stops its lock
 * heartbeats (`abandon()`), and restarts the clone from its cache dir with a
 * new pid; its queued commands then run on the new process.
 *
 * @module
 */
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites, withConditionalFallback } from "../../sync/conditional.ts";
import { SluiceError } from "../../sync/errors.ts";
import { createEmitter } from "../../sync/events.ts";
import { sha256Hex } from "../../sync/hash.ts";
import { type StoreLock, storeLockBackend } from "../../sync/lock_engine.ts";
import {
  type LockfileChange,
  mergeLockfileChanges,
  pendingLockfileDelta,
  retryPendingLockfile,
  updateManagedLockfile,
} from "../../sync/lockfile_txn.ts";
import { acquireModelLocks, type ModelLockSet, releaseLock } from "../../sync/model_locks.ts";
import type { LockBackend, LockOptions, ObjectStore } from "../../sync/ports.ts";
import type { SyncService } from "../../sync/service.ts";
import { DATA_NAMES, formatOp, type History, MODELS, type Op } from "./history.ts";
import {
  checkOutside,
  GroundTruth,
  plantSentinel,
  type RunRecord,
  type TxnRecord,
  type Violation,
} from "./invariants.ts";
import { mixSeed, mulberry32 } from "./prng.ts";
import { SimScheduler, StuckError, type Unit } from "./scheduler.ts";
import { type ChaosTarget, memoryTarget, type TargetFactory } from "./target.ts";
import { absentOnError } from "../../packages/testing/absent_on_error.ts";

/** Lock timings of the workload (fake time). */
export const CHAOS_LOCK: LockOptions = { ttlMs: 30_000, maxWaitMs: 60_000, retryDelayMs: 2_000 };

/**
 * Sync config of every clone: one transfer at a time (units must be
 * single-threaded), and a streaming threshold low enough for data to stream.
 */
export const CHAOS_CONFIG = {
  concurrency: 1,
  retry: { retries: 1, minTimeoutMs: 0, maxTimeoutMs: 0 },
  // Raw outputs (about 40 bytes) are above this, markers and lockfiles are
  // not: histories exercise the streamed path and the whole-body path alike.
  streamThresholdBytes: 24,
} as const;

/** Options of {@link runHistory}. */
export interface WorkloadOptions {
  /** The store to run over; default the in-memory store. */
  readonly target?: TargetFactory;
  /** Gate names to leave out (to show the checker catches the loss the gate prevents). */
  readonly disable?: readonly string[];
  /** Fake-time budget of one command (I4); default 15 min. */
  readonly commandBudgetMs?: number;
  /** Real-time budget for a unit to reach its next store call (I4); default 20 s. */
  readonly realTimeoutMs?: number;
  /** Most scheduling decisions in one history before it counts as a livelock (I4); default 60 000. */
  readonly maxDecisions?: number;
  /** Keep the temp dirs (for debugging); default false. */
  readonly keepDirs?: boolean;
  /** Parent of the history's temp dir (default the system temp dir; a tmpfs makes fsync free). */
  readonly tempDir?: string;
  /** Receives one line per command end and per fault (for `--trace`). */
  readonly trace?: (line: string) => void;
}

/** Counters of one history, or summed over many. */
export interface ChaosStats {
  histories: number;
  /** History operations applied. */
  operations: number;
  /** Commands the clones and the operator ran (final syncs included). */
  commands: number;
  /** Model runs started. */
  runs: number;
  /** Runs that reported success. */
  acknowledged: number;
  /** Runs refused with `model_lock_lost`. */
  refused: number;
  /** Runs frozen by a crash before they reported. */
  crashedRuns: number;
  /** Breakglass operations. */
  breakglasses: number;
  /** Breakglasses that deleted a lock. */
  locksBroken: number;
  /** Outages started. */
  outages: number;
  /** Clone crashes (and restarts). */
  crashes: number;
  /** Lockfile transactions started (final retries included). */
  lockfileTxns: number;
  /** Lockfile transactions acknowledged. */
  lockfileAcked: number;
  /** Store calls made through the scheduler. */
  storeCalls: number;
  /** Scheduling decisions. */
  decisions: number;
  /** Of those, decisions taken while faults were live (the rest drain and sync after healing). */
  chaosDecisions: number;
  /** Calls made outside a unit's turn (should stay 0). */
  strays: number;
  /** Fake milliseconds that passed. */
  fakeMs: number;
  /** Violations found. */
  violations: number;
  /** How commands ended, by outcome (`success`, error codes, `crashed`, …). */
  outcomes: Record<string, number>;
  /** Warnings emitted by the library, by code. */
  warnings: Record<string, number>;
}

/** Zeroed {@link ChaosStats}. */
export function emptyStats(): ChaosStats {
  return {
    histories: 0,
    operations: 0,
    commands: 0,
    runs: 0,
    acknowledged: 0,
    refused: 0,
    crashedRuns: 0,
    breakglasses: 0,
    locksBroken: 0,
    outages: 0,
    crashes: 0,
    lockfileTxns: 0,
    lockfileAcked: 0,
    storeCalls: 0,
    decisions: 0,
    chaosDecisions: 0,
    strays: 0,
    fakeMs: 0,
    violations: 0,
    outcomes: {},
    warnings: {},
  };
}

/** Adds `from` into `into`. */
export function addStats(into: ChaosStats, from: ChaosStats): void {
  for (const [k, v] of Object.entries(from) as [keyof ChaosStats, unknown][]) {
    if (typeof v === "number") (into[k] as number) += v;
    else {
      const target = into[k] as Record<string, number>;
      for (const [c, n] of Object.entries(v as Record<string, number>)) {
        target[c] = (target[c] ?? 0) + n;
      }
    }
  }
}

/** What one history did and found. */
export interface HistoryResult {
  readonly history: History;
  readonly violations: readonly Violation[];
  readonly stats: ChaosStats;
  /** Wall-clock milliseconds. */
  readonly elapsedMs: number;
  /**
   * Every run's outcome and a digest of the store's objects (lock objects,
   * whose bodies hold random nonces, left out): equal for two runs of one
   * history.
   */
  readonly fingerprint: string;
}

const enc = new TextEncoder();

function codeOf(e: unknown): string {
  if (e instanceof SluiceError) return e.code;
  return `exception:${e instanceof Error ? e.name : typeof e}`;
}

async function highestVersion(cacheDir: string, base: string): Promise<number> {
  let max = 0;
  try {
    for await (const e of Deno.readDir(`${cacheDir}/${base}`)) {
      if (e.isDirectory && /^\d+$/.test(e.name)) max = Math.max(max, Number(e.name));
    }
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return max;
}

interface Busy {
  readonly unit: Unit;
  readonly onFreeze: (why: "crashed" | "hung") => void;
}

interface Command {
  readonly label: string;
  readonly body: (svc: SyncService) => Promise<void>;
  /** Marks the command's record when a crash or a timeout freezes it. */
  readonly onFreeze: (why: "crashed" | "hung") => void;
}

interface CloneSlot {
  readonly index: number;
  readonly dir: string;
  incarnation: number;
  owner: string;
  svc: SyncService;
  locks: StoreLock[];
  busy?: Busy;
  readonly queue: Command[];
}

const MAX_QUEUE = 3;

/** One history's world: scheduler, target, clones, operator, ground truth. */
class World {
  readonly history: History;
  readonly root: string;
  readonly options: WorkloadOptions;
  readonly truth = new GroundTruth();
  readonly stats = emptyStats();
  readonly sched: SimScheduler;
  readonly registry = new ConditionalWrites();
  readonly clones: CloneSlot[] = [];
  target!: ChaosTarget;
  gated!: ObjectStore;
  operator!: SyncService;
  #opId = -1;
  #aborted = false;

  constructor(history: History, root: string, options: WorkloadOptions) {
    this.history = history;
    this.root = root;
    this.options = options;
    this.sched = new SimScheduler({
      realTimeoutMs: options.realTimeoutMs,
      onSettle: (u) => this.#settled(u),
    });
  }

  async setup(): Promise<void> {
    const factory = this.options.target ?? memoryTarget;
    this.target = await factory({
      clock: this.sched.clock,
      setLatency: (ms) => (this.sched.latencyMs = ms),
    });
    this.gated = this.sched.wrap(this.target.store);
    // Probe once, directly: every later decision is then a memo hit, never a wait on another unit.
    await this.registry.probe(this.target.store);
    await plantSentinel(this.root);
    for (let i = 0; i < this.history.clones; i++) {
      const dir = `${this.root}/c${i}`;
      const { svc, locks } = await this.#service(dir, `c${i}`, i, 0);
      this.clones.push({ index: i, dir, incarnation: 0, owner: `c${i}.0`, svc, locks, queue: [] });
    }
    this.operator = (await this.#service(`${this.root}/operator`, "operator", 999, 0)).svc;
  }

  async #service(dir: string, name: string, index: number, incarnation: number) {
    const events = createEmitter();
    const locks: StoreLock[] = [];
    const engine = storeLockBackend(
      withConditionalFallback(this.gated, { registry: this.registry, events }),
      {
        clock: this.sched.clock,
        events,
        random: mulberry32(mixSeed(this.history.seed, index, incarnation)),
      },
    );
    const thirdParty = this.history.absentOnError === true && name !== "operator";
    const lockBackend: LockBackend = {
      name: engine.name,
      createLock: (key, identity, options) => {
        const lock = engine.createLock(key, identity, options);
        locks.push(lock);
        return thirdParty ? absentOnError(lock) : lock;
      },
    };
    events.on(
      "warning",
      (w) => (this.stats.warnings[w.code] = (this.stats.warnings[w.code] ?? 0) + 1),
    );
    const svc = await createSluice({
      cacheDir: dir,
      store: this.gated,
      identity: { holder: `${name}@chaos`, hostname: `${name}-host`, pid: 1000 * incarnation + 1 },
      clock: this.sched.clock,
      events,
      config: CHAOS_CONFIG,
      lockBackend,
      conditional: this.registry,
      disable: this.options.disable,
    });
    return { svc, locks };
  }

  async #boot(slot: CloneSlot): Promise<void> {
    const { svc, locks } = await this.#service(
      slot.dir,
      `c${slot.index}`,
      slot.index,
      slot.incarnation,
    );
    slot.svc = svc;
    slot.locks = locks;
    slot.owner = `c${slot.index}.${slot.incarnation}`;
  }

  #outcome(o: string, what?: string, error?: unknown): void {
    this.stats.outcomes[o] = (this.stats.outcomes[o] ?? 0) + 1;
    if (what) this.#note(`${what}: ${o}${error instanceof Error ? `: ${error.message}` : ""}`);
  }

  #note(line: string): void {
    if (!this.options.trace) return;
    const t = ((this.sched.now() - Date.UTC(2026, 0, 1)) / 1000).toFixed(1);
    this.options.trace(`[${t}s] ${line}`);
  }

  #settled(unit: Unit): void {
    const slot = this.clones.find((s) => s.busy?.unit === unit);
    if (!slot) return;
    slot.busy = undefined;
    this.#startNext(slot);
  }

  #startNext(slot: CloneSlot): void {
    if (slot.busy || slot.queue.length === 0) return;
    const cmd = slot.queue.shift()!;
    const svc = slot.svc;
    this.stats.commands++;
    const unit = this.sched.spawn(`c${slot.index} ${cmd.label}`, slot.owner, () => cmd.body(svc));
    slot.busy = { unit, onFreeze: cmd.onFreeze };
  }

  #enqueue(clone: number, cmd: Command): void {
    const slot = this.clones[clone];
    if (slot.queue.length >= MAX_QUEUE) return;
    slot.queue.push(cmd);
    this.#startNext(slot);
  }

  /** Crash and restart: the clone's process dies where it is parked. */
  async #crash(slot: CloneSlot, why: "crashed" | "hung"): Promise<void> {
    this.sched.freeze(slot.owner);
    for (const l of slot.locks) l.abandon();
    if (slot.busy) {
      slot.busy.onFreeze(why);
      slot.busy = undefined;
    }
    slot.incarnation++;
    await this.#boot(slot);
    this.#startNext(slot);
  }

  // ---- commands ----

  #run(op: Extract<Op, { kind: "run" }>): Command {
    const model = MODELS[op.model];
    const dataName = DATA_NAMES[op.data];
    const token = `[chaos-run s${this.history.seed} op${op.id}]`;
    const rec: RunRecord = {
      op: op.id,
      clone: op.clone,
      model,
      token,
      files: [],
      outcome: "pending",
    };
    const label = `run #${op.id} ${model}/${dataName}`;
    const who = `c${op.clone} ${label}`;
    return {
      label,
      onFreeze: (why) => {
        if (rec.outcome !== "pending") return;
        rec.outcome = why;
        this.#outcome(why, who);
      },
      body: async (svc) => {
        this.truth.runs.push(rec);
        this.stats.runs++;
        let set: ModelLockSet;
        try {
          set = await acquireModelLocks(svc, [model], {
            lock: CHAOS_LOCK,
            globalWaitMs: 60_000,
            globalPollMs: 2_000,
          });
        } catch (e) {
          rec.outcome = codeOf(e);
          this.#outcome(rec.outcome, who, e);
          return;
        }
        try {
          const base = `data/${model}/${dataName}`;
          const n = (await highestVersion(svc.cacheDir, base)) + 1;
          const dir = `${base}/${n}`;
          rec.files = [
            { path: `${dir}/raw`, bytes: enc.encode(`${token} raw output of c${op.clone}\n`) },
            {
              path: `${dir}/metadata.yaml`,
              bytes: enc.encode(`token: "${token}"\nversion: ${n}\n`),
            },
          ];
          for (const f of rec.files) await svc.cache.write(f.path, f.bytes);
          await svc.cache.write(`${base}/latest`, enc.encode(`${n}`));
          await svc.markDirty({ relPaths: [...rec.files.map((f) => f.path), `${base}/latest`] });
          if (op.workMs > 0) await svc.clock.sleep(op.workMs);
          let failure: unknown;
          try {
            await set.push([dir]);
            rec.outcome = "success";
          } catch (e) {
            rec.outcome = codeOf(e);
            failure = e;
          }
          this.#outcome(rec.outcome, `${who} (version ${n})`, failure);
        } finally {
          await set.release();
        }
      },
    };
  }

  #plain(clone: number, label: string, body: (svc: SyncService) => Promise<void>): Command {
    const state = { done: false };
    const who = `c${clone} ${label}`;
    return {
      label,
      onFreeze: (why) => {
        if (!state.done) this.#outcome(why, who);
      },
      body: async (svc) => {
        try {
          await body(svc);
          this.#outcome("success", who);
        } catch (e) {
          this.#outcome(codeOf(e), who, e);
        }
        state.done = true;
      },
    };
  }

  #lockfile(op: Extract<Op, { kind: "lockfile" }> | { id: number; clone: number }): Command {
    const o = op as { id: number; clone: number; set?: string; remove?: string };
    const change: LockfileChange | undefined = o.set
      ? { set: { [o.set]: { by: `c${o.clone}`, op: o.id } } }
      : o.remove
      ? { remove: [o.remove] }
      : undefined;
    if (o.remove) this.truth.removals.add(o.remove);
    let rec: TxnRecord | undefined;
    const label = `lockfile #${o.id} ${
      o.set ? `set ${o.set}` : o.remove ? `remove ${o.remove}` : "retry"
    }`;
    const who = `c${o.clone} ${label}`;
    return {
      label,
      onFreeze: (why) => {
        if (!rec || rec.outcome !== "pending") return;
        rec.outcome = why;
        this.#outcome(why, who);
      },
      body: async (svc) => {
        const pending = await pendingLockfileDelta(svc).catch(() => null);
        const merged = mergeLockfileChanges(pending ?? {}, change ?? {});
        if (Object.keys(merged.set ?? {}).length === 0 && (merged.remove ?? []).length === 0) {
          return;
        }
        for (const name of merged.remove ?? []) this.truth.removals.add(name);
        rec = {
          op: o.id,
          clone: o.clone,
          set: merged.set ?? {},
          remove: merged.remove ?? [],
          outcome: "pending",
        };
        this.truth.txns.push(rec);
        this.stats.lockfileTxns++;
        let failure: unknown;
        try {
          if (change) await updateManagedLockfile(svc, change, { lockOptions: CHAOS_LOCK });
          else await retryPendingLockfile(svc, { lockOptions: CHAOS_LOCK });
          rec.outcome = "acked";
          this.stats.lockfileAcked++;
        } catch (e) {
          rec.outcome = codeOf(e);
          failure = e;
        }
        this.#outcome(rec.outcome === "acked" ? "success" : rec.outcome, who, failure);
      },
    };
  }

  #breakglass(op: Extract<Op, { kind: "breakglass" }>): void {
    this.stats.breakglasses++;
    this.stats.commands++;
    const model = op.model === null ? undefined : MODELS[op.model];
    const who = `operator breakglass #${op.id} ${model ?? "global lock"}`;
    this.sched.spawn(who, "operator", async () => {
      try {
        const r = await releaseLock(this.operator, { model, force: true });
        if (r.released) this.stats.locksBroken++;
        this.#outcome(
          "success",
          `${who} (${r.released ? `broke ${r.broken?.holder}'s lock` : "no lock"})`,
        );
      } catch (e) {
        this.#outcome(codeOf(e), who, e);
      }
    });
  }

  // ---- the history ----

  async apply(op: Op): Promise<void> {
    this.#opId = op.id;
    this.stats.operations++;
    if (op.kind !== "crash" && op.kind !== "outage") this.#note(formatOp(op));
    switch (op.kind) {
      case "run":
        this.#enqueue(op.clone, this.#run(op));
        break;
      case "sync":
        this.#enqueue(
          op.clone,
          this.#plain(op.clone, `sync #${op.id}`, async (svc) => {
            await svc.pullChanged();
            await svc.pushChanged();
          }),
        );
        break;
      case "bulk":
        this.#enqueue(
          op.clone,
          this.#plain(op.clone, `bulk push #${op.id}`, async (svc) => {
            await svc.cache.write(
              `outputs/c${op.clone}-op${op.id}.txt`,
              enc.encode(`op ${op.id}\n`),
            );
            await svc.markDirty();
            await svc.pushChanged();
          }),
        );
        break;
      case "config":
        this.#enqueue(
          op.clone,
          this.#plain(op.clone, `config edit #${op.id}`, async (svc) => {
            const path = `config/settings-${op.file}.yaml`;
            await svc.cache.write(path, enc.encode(`edited_by: c${op.clone}\nop: ${op.id}\n`));
            await svc.markDirty({ relPath: path });
            await svc.pushChanged();
          }),
        );
        break;
      case "lockfile":
        this.#enqueue(op.clone, this.#lockfile(op));
        break;
      case "breakglass":
        this.#breakglass(op);
        break;
      case "outage":
        if (op.on) this.stats.outages++;
        this.#note(`outage ${op.on ? "on" : "off"}`);
        await this.target.faults.outage(op.on);
        break;
      case "latency":
        this.target.faults.latency(op.ms);
        break;
      case "flaky":
        this.target.faults.flaky(op.call, op.count, op.afterEffect);
        break;
      case "crash":
        this.stats.crashes++;
        this.#note(
          `c${op.clone} crashes${
            this.clones[op.clone].busy
              ? ` during ${this.clones[op.clone].busy!.unit.label} (parked on ${
                this.clones[op.clone].busy!.unit.parkedOn
              })`
              : ""
          }`,
        );
        await this.#crash(this.clones[op.clone], "crashed");
        break;
      case "tick": {
        const next = mulberry32(op.pick);
        for (let i = 0; i < op.n && !this.#aborted; i++) {
          await this.sched.startReady();
          await this.sched.step(next(), next());
          await this.#afterDecision();
        }
        break;
      }
      case "wait":
        await this.sched.advanceBy(op.ms);
        break;
    }
    await this.sched.startReady();
    await this.#afterDecision();
  }

  async #afterDecision(): Promise<void> {
    if (this.sched.stats.decisions > (this.options.maxDecisions ?? 60_000) && !this.#aborted) {
      this.#aborted = true;
      this.truth.violate({
        invariant: "I4",
        message: `more than ${
          this.options.maxDecisions ?? 60_000
        } scheduling decisions: livelock (${
          this.sched.active().map((u) => `${u.label} on ${u.parkedOn}`).join("; ")
        })`,
        afterOp: this.#opId,
      });
    }
    await this.#deadlines();
    await this.truth.checkRefusedNow(
      this.target.inspect,
      this.clones.map((c) => c.dir),
      this.#opId,
    );
  }

  async #deadlines(): Promise<void> {
    const budget = this.options.commandBudgetMs ?? 15 * 60_000;
    for (const u of this.sched.active()) {
      if (this.sched.now() - u.startedAt <= budget) continue;
      this.truth.violate({
        invariant: "I4",
        message: `${u.label} did not end within ${budget} ms of fake time (parked on ${
          u.parkedOn || "nothing"
        })`,
        afterOp: this.#opId,
      });
      const slot = this.clones.find((s) => s.busy?.unit === u);
      if (slot) await this.#crash(slot, "hung");
      else this.sched.freezeUnit(u);
    }
  }

  /** Runs every command to its end: oldest store call first, else the next timer. */
  async drain(): Promise<void> {
    await this.sched.startReady();
    while (this.sched.active().length > 0 && !this.#aborted) {
      const progressed = await this.sched.stepInOrder();
      await this.#afterDecision();
      if (!progressed) {
        for (const u of this.sched.active()) {
          this.truth.violate({
            invariant: "I4",
            message: `${u.label} waits on ${u.parkedOn || "nothing"} and nothing can wake it`,
            afterOp: this.#opId,
          });
          this.sched.freezeUnit(u);
        }
      }
    }
  }

  /** Heals, drains, syncs every clone (twice: push all, pull all), and checks. */
  async finish(): Promise<void> {
    this.#opId = -1;
    this.stats.chaosDecisions = this.sched.stats.decisions;
    await this.target.faults.heal();
    await this.drain();
    for (let round = 0; round < 2 && !this.#aborted; round++) {
      for (const slot of this.clones) {
        this.#enqueue(slot.index, this.#lockfile({ id: -1 - round, clone: slot.index }));
        this.#enqueue(
          slot.index,
          this.#plain(slot.index, "final push", (svc) => svc.pushChanged().then(() => {})),
        );
      }
      await this.drain();
      for (const slot of this.clones) {
        this.#enqueue(
          slot.index,
          this.#plain(slot.index, "final pull", (svc) => svc.pullChanged().then(() => {})),
        );
      }
      await this.drain();
    }
    if (this.#aborted) return;
    await this.truth.checkFinal(this.target.inspect, this.clones.map((c) => c.dir));
    for (
      const v of await checkOutside(this.root, [
        ...this.clones.map((c) => `c${c.index}`),
        "operator",
      ])
    ) {
      this.truth.violate(v);
    }
  }

  abort(v: Violation): void {
    this.#aborted = true;
    this.truth.violate(v);
  }

  get opId(): number {
    return this.#opId;
  }

  async fingerprint(): Promise<string> {
    const parts = this.truth.runs.map((r) => `#${r.op}:${r.outcome}`);
    parts.push(...this.truth.txns.map((t) => `lf#${t.op}:${t.outcome}`));
    for (const key of await this.target.inspect.keys()) {
      if (key.endsWith(".lock")) continue;
      parts.push(
        `${key}=${(await sha256Hex((await this.target.inspect.read(key))!)).slice(0, 12)}`,
      );
    }
    return parts.join(" ");
  }
}

/**
 * Runs one history and checks it.
 *
 * @example
 * ```ts
 * import { generateHistory } from "./history.ts";
 * import { runHistory } from "./workload.ts";
 * const result = await runHistory(generateHistory(1));
 * console.log(result.violations.length, result.stats.acknowledged);
 * ```
 */
export async function runHistory(
  history: History,
  options: WorkloadOptions = {},
): Promise<HistoryResult> {
  const started = performance.now();
  const root = await Deno.makeTempDir({ prefix: "sluice-chaos-", dir: options.tempDir });
  const world = new World(history, root, options);
  let fingerprint = "";
  try {
    await world.setup();
    for (const op of history.ops) {
      await world.apply(op);
    }
    await world.finish();
    fingerprint = await world.fingerprint();
  } catch (e) {
    if (!(e instanceof StuckError)) throw e;
    world.abort({ invariant: "I4", message: e.message, afterOp: world.opId });
  } finally {
    await world.target?.close();
    if (!options.keepDirs) await Deno.remove(root, { recursive: true }).catch(() => {});
  }
  const stats = world.stats;
  stats.histories = 1;
  stats.acknowledged = world.truth.runs.filter((r) => r.outcome === "success").length;
  stats.refused = world.truth.runs.filter((r) => r.outcome === "model_lock_lost").length;
  stats.crashedRuns = world.truth.runs.filter((r) => r.outcome === "crashed").length;
  stats.storeCalls = world.sched.stats.calls;
  stats.decisions = world.sched.stats.decisions;
  stats.strays = world.sched.stats.strays;
  stats.fakeMs = world.sched.now() - Date.UTC(2026, 0, 1);
  stats.violations = world.truth.violations.length;
  return {
    history,
    violations: world.truth.violations,
    stats,
    elapsedMs: performance.now() - started,
    fingerprint,
  };
}
