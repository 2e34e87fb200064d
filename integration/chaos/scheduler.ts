/**
 * A deterministic scheduler for chaos histories over an in-memory store.
 *
 * Commands (a model run, a sync, a lockfile transaction, a breakglass) run as
 * *units*, one at a time: a unit runs (real file I/O included) until it
 * *parks* at a store call or a clock wait, or ends. Only then does the
 * scheduler take the next decision: release one parked store call (chosen by
 * the history's tick), or let fake time pass to the next timer. Every store
 * call of a command therefore happens at a point the history chose, and the
 * same history gives the same interleaving however fast the disk is.
 *
 * Timer callbacks (lock heartbeats) run atomically in a background window:
 * their store calls pass straight through, and the window stays open until
 * none of them is in flight (heartbeats do no file I/O).
 *
 * A crash freezes every unit of a clone incarnation where it is parked and
 * drops its timers (heartbeats included), so nothing of the dead process runs
 * again: the frozen promises are simply never resumed.
 *
 * Why not `FakeClock.advance`: it fires due timers with only a macrotask turn
 * between them, so code resumed by one timer would do its file I/O while the
 * next timers fire, and outcomes would depend on disk speed.
 *
 * Limitations: a unit must be single-threaded between park points (the
 * workload uses one model per run and push concurrency 1), and crashes happen
 * only at store calls and clock waits, not between two file writes.
 *
 * The units and the scheduler's records of them are in `scheduler_units.ts`.
 *
 * @module
 */
import { AbortedError } from "../../sync/errors.ts";
import type {
  CallOptions,
  Clock,
  DeleteOptions,
  GetResult,
  GetStreamResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
  PutOptions,
  TimerHandle,
} from "../../sync/ports.ts";
import {
  BACKGROUND,
  type Current,
  type PendingCall,
  type Runnable,
  type SchedulerStats,
  type SimSchedulerOptions,
  StuckError,
  type Timer,
  type Unit,
} from "./scheduler_units.ts";

export {
  type SchedulerStats,
  type SimSchedulerOptions,
  StuckError,
  type Unit,
  type UnitState,
} from "./scheduler_units.ts";

/**
 * The scheduler, its fake {@link Clock}, and a store wrapper that parks
 * command calls.
 *
 * @example
 * ```ts
 * import { SimScheduler } from "./scheduler.ts";
 * import { InMemoryStore } from "../../packages/testing/mod.ts";
 * const sched = new SimScheduler();
 * const store = sched.wrap(new InMemoryStore({ clock: sched.clock }));
 * sched.spawn("read", "c0.0", async () => {
 *   await store.head("k");
 * });
 * await sched.startReady();
 * while (await sched.step(Math.random(), Math.random()));
 * ```
 */
export class SimScheduler {
  /** The fake clock every clone, lock and the store share. */
  readonly clock: Clock;
  /** Counters. */
  readonly stats: SchedulerStats = { decisions: 0, calls: 0, strays: 0, timersFired: 0 };
  /** Fake milliseconds each released command call takes (time passes first); 0 for none. */
  latencyMs = 0;

  #now: number;
  /** Fake time added by {@link SimScheduler.latencyMs} so far, over every call released. */
  #latencySpent = 0;
  #timerSeq = 0;
  #unitSeq = 0;
  readonly #timers = new Map<number, Timer>();
  #pending: PendingCall[] = [];
  #ready: Runnable[] = [];
  readonly #units = new Set<Unit>();
  /** Owners stopped (see {@link SimScheduler.stop}), with the fake time they stopped at. */
  readonly #stopped = new Map<string, number>();
  /** {@link SimScheduler.#latencySpent} when each stopped process stopped. */
  readonly #latencyAtStop = new Map<string, number>();
  /** Units parked on a store call: the fake time it parked and {@link SimScheduler.#latencySpent} then. */
  readonly #callSince = new Map<Unit, { at: number; latency: number }>();
  #current: Current;
  #backgroundCalls = 0;
  #waiter?: { unit: Unit; resolve: () => void };
  readonly #realTimeoutMs: number;
  readonly #advanceProbability: number;
  readonly #onSettle?: (unit: Unit) => void;
  readonly #onPark?: (unit: Unit, what: string) => void;

  /** A scheduler at fake time `start`. */
  constructor(options: SimSchedulerOptions = {}) {
    this.#now = options.start ?? Date.UTC(2026, 0, 1);
    this.#realTimeoutMs = options.realTimeoutMs ?? 20_000;
    this.#advanceProbability = options.advanceProbability ?? 0.1;
    this.#onSettle = options.onSettle;
    this.#onPark = options.onPark;
    this.clock = {
      now: () => this.#now,
      sleep: (ms, signal) => this.#sleep(ms, signal),
      setTimeout: (fn, ms): TimerHandle => this.#addTimer(ms, this.#owner(), undefined, fn),
      clearTimeout: (h) => void this.#timers.delete(h as number),
    };
  }

  /** Current fake time. */
  now(): number {
    return this.#now;
  }

  /** Units not yet ended (ready, running or parked). */
  active(): Unit[] {
    return [...this.#units];
  }

  /** Store calls parked now. */
  get pendingCalls(): number {
    return this.#pending.length;
  }

  /** Timers waiting to fire. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Queues a unit; it starts at the next {@link SimScheduler.startReady} (or decision). */
  spawn(label: string, owner: string, fn: () => Promise<void>): Unit {
    const unit: Unit = {
      id: ++this.#unitSeq,
      label,
      owner,
      startedAt: this.#now,
      othersLatency: -this.#latencySpent,
      withheld: 0,
      state: "ready",
      parkedOn: "",
    };
    this.#units.add(unit);
    const end = () => {
      if (unit.state === "frozen") return;
      unit.state = "done";
      this.#units.delete(unit);
      this.#onSettle?.(unit);
      this.#wake(unit);
    };
    this.#ready.push({ unit, kick: () => void fn().then(end, end) });
    return unit;
  }

  /** Runs every queued unit, in order, until each parks or ends. */
  async startReady(): Promise<void> {
    while (this.#ready.length > 0) {
      const r = this.#ready.shift()!;
      if (r.unit.state === "ready") await this.#run(r.unit, r.kick);
    }
  }

  /**
   * One decision: with probability 1 - advanceProbability (`r1`) release a
   * parked store call (the one `r2` picks), else let time pass to the next
   * timer. False when there was nothing to do.
   */
  async step(r1: number, r2: number): Promise<boolean> {
    this.stats.decisions++;
    const next = this.#earliest();
    const open = this.#stopped.size === 0
      ? this.#pending
      : this.#pending.filter((p) => !this.#stopped.has(p.unit.owner));
    if (open.length > 0 && (!next || r1 >= this.#advanceProbability)) {
      const p = open[Math.floor(r2 * open.length)];
      this.#pending.splice(this.#pending.indexOf(p), 1);
      await this.#release(p);
      return true;
    }
    if (next) {
      await this.advanceTo(next.at);
      return true;
    }
    return false;
  }

  /** One decision in arrival order (for draining at the end): the oldest call, else the next timer. */
  async stepInOrder(): Promise<boolean> {
    this.stats.decisions++;
    const i = this.#pending.findIndex((p) => !this.#stopped.has(p.unit.owner));
    if (i >= 0) {
      await this.#release(this.#pending.splice(i, 1)[0]);
      return true;
    }
    const next = this.#earliest();
    if (!next) return false;
    await this.advanceTo(next.at);
    return true;
  }

  /** Lets fake time pass by `ms`, firing due timers one at a time. */
  async advanceBy(ms: number): Promise<void> {
    await this.advanceTo(this.#now + ms);
  }

  /** Lets fake time pass until `t`, firing due timers one at a time. */
  async advanceTo(t: number): Promise<void> {
    for (;;) {
      const next = this.#earliest();
      if (!next || next.at > t) break;
      this.#timers.delete(next.id);
      this.#now = Math.max(this.#now, next.at);
      this.stats.timersFired++;
      if (next.unit) {
        if (next.unit.state === "parked") await this.#run(next.unit, next.fn);
      } else {
        await this.#background(next);
      }
    }
    this.#now = Math.max(this.#now, t);
  }

  /**
   * A process stops: none of `owner`'s parked store calls is released and
   * none of its timers fires until {@link SimScheduler.resume}.
   */
  stop(owner: string): void {
    if (!this.#stopped.has(owner)) {
      this.#stopped.set(owner, this.#now);
      this.#latencyAtStop.set(owner, this.#latencySpent);
    }
  }

  /**
   * The process goes on: its calls can be released again, and its overdue
   * timers fire at the next time step. Its units' command budgets do not
   * count the time it stood still.
   */
  resume(owner: string): void {
    const since = this.#stopped.get(owner);
    if (since === undefined) return;
    this.#stopped.delete(owner);
    // The latency of others' calls meanwhile is in that time already.
    const latency = this.#latencySpent - (this.#latencyAtStop.get(owner) ?? this.#latencySpent);
    this.#latencyAtStop.delete(owner);
    for (const u of this.#units) {
      if (u.owner !== owner) continue;
      u.startedAt += this.#now - since;
      u.othersLatency -= latency;
      // A call it is parked on was held back while it stood still: that time is out already.
      const call = this.#callSince.get(u);
      if (call) {
        call.at += this.#now - since;
        call.latency += latency;
      }
    }
  }

  /**
   * Fake time `unit` has run, less the latency of other commands' calls
   * released meanwhile (see {@link Unit.othersLatency}) and the time its
   * own calls were held back (see {@link Unit.withheld}): what its command
   * budget counts.
   */
  ownTime(unit: Unit): number {
    return this.#now - unit.startedAt - (unit.othersLatency + this.#latencySpent) -
      unit.withheld - this.#heldBack(unit);
  }

  /** Time the call `unit` is parked on has been held back so far (0 when none). */
  #heldBack(unit: Unit): number {
    const call = this.#callSince.get(unit);
    return call ? (this.#now - call.at) - (this.#latencySpent - call.latency) : 0;
  }

  /** True while `owner` is stopped. */
  isStopped(owner: string): boolean {
    return this.#stopped.has(owner);
  }

  /** A crash: freezes every unit of `owner` where it is parked and drops its timers. */
  freeze(owner: string): Unit[] {
    const frozen = [...this.#units].filter((u) => u.owner === owner);
    for (const u of frozen) this.freezeUnit(u);
    for (const [id, t] of this.#timers) if (t.owner === owner) this.#timers.delete(id);
    return frozen;
  }

  /** Freezes one unit: it is never resumed. */
  freezeUnit(unit: Unit): void {
    unit.state = "frozen";
    this.#units.delete(unit);
    this.#callSince.delete(unit);
    this.#pending = this.#pending.filter((p) => p.unit !== unit);
    this.#ready = this.#ready.filter((r) => r.unit !== unit);
    for (const [id, t] of this.#timers) if (t.unit === unit) this.#timers.delete(id);
  }

  /** The owner of the unit (or background task) running now; `harness` outside any. */
  get owner(): string {
    return this.#owner();
  }

  /** `store` as commands see it: each call of a running unit parks until the scheduler releases it. */
  wrap(store: ObjectStore): ObjectStore {
    const gate = <T>(what: string, call: () => Promise<T>) => this.#gate(what, call);
    return {
      endpoint: store.endpoint,
      get: (key: string, o?: CallOptions): Promise<GetResult> =>
        gate(`get ${key}`, () => store.get(key, o)),
      head: (key: string, o?: CallOptions): Promise<ObjectInfo | null> =>
        gate(`head ${key}`, () => store.head(key, o)),
      ...(store.getStream
        ? {
          getStream: (key: string, o?: CallOptions): Promise<GetStreamResult> =>
            gate(`get ${key} (stream)`, () => store.getStream!(key, o)),
        }
        : {}),
      put: (key: string, body: PutBody, mode: PutMode, o?: PutOptions): Promise<ObjectInfo> =>
        gate(`put ${key} (${mode.kind})`, () => store.put(key, body, mode, o)),
      delete: (key: string, o?: DeleteOptions): Promise<void> =>
        gate(`delete ${key}`, () => store.delete(key, o)),
      list: (prefix: string, o?: ListOptions) => this.#list(store, prefix, o),
    };
  }

  async *#list(
    store: ObjectStore,
    prefix: string,
    o?: ListOptions,
  ): AsyncGenerator<readonly ObjectInfo[]> {
    const it = store.list(prefix, o)[Symbol.asyncIterator]();
    for (;;) {
      const r = await this.#gate(`list ${prefix}`, () => it.next());
      if (r.done) return;
      yield r.value;
    }
  }

  /** The label of the unit running now; undefined for a background task or outside any. */
  get label(): string | undefined {
    const c = this.#current;
    return c && !(BACKGROUND in c) ? c.label : undefined;
  }

  #owner(): string {
    return this.#current?.owner ?? "harness";
  }

  #gate<T>(what: string, call: () => Promise<T>): Promise<T> {
    this.stats.calls++;
    const u = this.#current;
    const invoke = () => {
      try {
        return call();
      } catch (e) {
        return Promise.reject(e);
      }
    };
    if (u !== undefined && !("state" in u)) {
      // Background (heartbeat) calls pass through; the window stays open until they settle.
      this.#backgroundCalls++;
      return invoke().finally(() => this.#backgroundCalls--);
    }
    if (u === undefined || u.state !== "running") {
      // A unit running outside its turn: pass through, and count it.
      this.stats.strays++;
      return invoke();
    }
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ unit: u, what, release: () => void invoke().then(resolve, reject) });
      this.#park(u, what);
      this.#callSince.set(u, { at: this.#now, latency: this.#latencySpent });
    });
  }

  #sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new AbortedError("The wait"));
      const cur = this.#current;
      const unit = cur && "state" in cur && cur.state === "running" ? cur : undefined;
      const onAbort = () => {
        this.#timers.delete(id);
        reject(new AbortedError("The wait"));
      };
      const id = this.#addTimer(ms, this.#owner(), unit, () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      if (unit) this.#park(unit, `sleep ${ms} ms`);
    });
  }

  #addTimer(ms: number, owner: string, unit: Unit | undefined, fn: () => void): number {
    const id = ++this.#timerSeq;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, ms), owner, unit, fn });
    return id;
  }

  #earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.#timers.values()) {
      if (this.#stopped.size > 0 && this.#stopped.has(t.owner)) continue;
      if (!best || t.at < best.at || (t.at === best.at && t.id < best.id)) best = t;
    }
    return best;
  }

  #park(unit: Unit, what: string): void {
    unit.state = "parked";
    unit.parkedOn = what;
    this.#onPark?.(unit, what);
    this.#wake(unit);
  }

  #wake(unit: Unit): void {
    if (this.#waiter?.unit === unit) this.#waiter.resolve();
  }

  async #release(p: PendingCall): Promise<void> {
    // Held back until now; its latency from here is its own.
    p.unit.withheld += this.#heldBack(p.unit);
    this.#callSince.delete(p.unit);
    if (this.latencyMs > 0) {
      this.#latencySpent += this.latencyMs;
      p.unit.othersLatency -= this.latencyMs;
      await this.advanceTo(this.#now + this.latencyMs);
    }
    if (p.unit.state !== "parked") return;
    await this.#run(p.unit, p.release);
  }

  /** Resumes `unit` and waits (in real time) until it parks again or ends. */
  async #run(unit: Unit, kick: () => void): Promise<void> {
    const parked = new Promise<void>((resolve) => (this.#waiter = { unit, resolve }));
    this.#current = unit;
    unit.state = "running";
    unit.parkedOn = "";
    kick();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"stuck">((r) => {
      timer = setTimeout(() => r("stuck"), this.#realTimeoutMs);
    });
    const r = await Promise.race([parked, timeout]);
    clearTimeout(timer);
    this.#current = undefined;
    this.#waiter = undefined;
    if (r === "stuck") throw new StuckError(unit, this.#realTimeoutMs);
    await this.startReady();
  }

  async #background(t: Timer): Promise<void> {
    this.#current = { [BACKGROUND]: true, owner: t.owner };
    try {
      t.fn();
    } finally {
      // Timer tasks, not a message port: Deno may deliver port messages from a microtask.
      // Over a real server the heartbeat's calls take real time: wait until none is in flight.
      do {
        await new Promise<void>((r) => setTimeout(r, 0));
      } while (this.#backgroundCalls > 0);
      this.#current = undefined;
    }
  }
}
