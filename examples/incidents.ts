/**
 * The four incidents, replayed with their gates off (the loss shown) and on
 * (no loss). Used by the demo; each replay runs on its own fresh store, the
 * embedded default (a local directory), in a temporary directory the caller
 * provides and removes. The incidents that need an outage (002 and 004) cut
 * that store off with {@link OutageStore}.
 *
 * The numbers are those of the incident reports. The demo tells the story in
 * the order of {@link replays}: 001 and 002 (a broken lock), then 000 (two
 * clones write the same version), then 004 (the extension lockfile).
 *
 * @module
 */
import { createSluice } from "../sluice.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { absentOnError, writeAndMark } from "../packages/testing/mod.ts";
import { acquireModelLocks, releaseLock } from "../sync/locks/model_locks.ts";
import { retryPendingLockfile, updateManagedLockfile } from "../sync/locks/lockfile_txn.ts";
import { SluiceError } from "../sync/errors.ts";
import type { ObjectStore } from "../sync/ports.ts";
import { OutageStore } from "./outage_store.ts";

/** What a replay found. */
export interface Outcome {
  readonly lost: boolean;
  readonly summary: string;
}

/** Makes a fresh temporary directory (under one the caller removes at the end). */
export type TempDir = (prefix: string) => Promise<string>;

/** What a replay runs with: where its directories go, and where it prints. */
export interface ReplayContext {
  /** Makes its store and cache directories. */
  readonly temp: TempDir;
  /** Prints one line of the story. */
  readonly say: (line: string) => void;
}

/** One incident replay. */
export interface Replay {
  /** The incident report's number, e.g. `001`. */
  readonly number: string;
  readonly title: string;
  /** The gates turned off in the "off" run. */
  readonly gates: readonly string[];
  run(gatesOn: boolean, ctx: ReplayContext): Promise<Outcome>;
}

const fast = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function clone(
  { temp, say }: ReplayContext,
  store: ObjectStore,
  name: string,
  disable: readonly string[],
) {
  const svc = await createSluice({
    cacheDir: await temp(`${name}-`),
    store,
    identity: { holder: `${name}@demo`, hostname: `${name}-host`, pid: name.charCodeAt(0) },
    disable,
    config: fast,
  });
  svc.events.on("warning", (w) => say(`    [${name}] warning ${w.code}: ${w.message}`));
  return svc;
}

const write = writeAndMark;

async function fsStore(temp: TempDir): Promise<FsStore> {
  return new FsStore({ root: await temp("store-") });
}

async function readRemote(store: ObjectStore, key: string): Promise<string | null> {
  try {
    return new TextDecoder().decode((await store.get(key)).body);
  } catch {
    return null;
  }
}

function codeOf(e: unknown): string {
  return e instanceof SluiceError ? e.code : String(e);
}

const V = "data/shell/cmd/m1/out";

/** 001: a breakglass while A runs; B takes the lock and writes the same version. */
const breakglass: Replay = {
  number: "001",
  title: "Incident 001: lost write after a lock breakglass",
  gates: ["lock-fence", "refused-run-eraser", "create-only-writer"],
  async run(on, ctx) {
    const store = await fsStore(ctx.temp);
    const off = on ? [] : this.gates;
    const a = await clone(ctx, store, "alice", off);
    const b = await clone(ctx, store, "bob", off);
    const runA = await acquireModelLocks(a, ["shell/cmd/m1"]);
    await write(a, `${V}/1/raw`, "alice's result");
    const broke = await releaseLock(b, { model: "shell/cmd/m1", force: true });
    ctx.say(`    operator breaks the lock held by ${broke.broken?.holder}`);
    const runB = await acquireModelLocks(b, ["shell/cmd/m1"]);
    await write(b, `${V}/1/raw`, "bob's result");
    await runB.push([`${V}/1`]);
    await runB.release();
    ctx.say("    bob pushed version 1 and exited 0");
    try {
      await runA.push([`${V}/1`]);
      ctx.say("    alice pushed version 1 and exited 0");
    } catch (e) {
      ctx.say(`    alice failed: ${codeOf(e)}`);
    }
    await runA.release();
    const remote = await readRemote(store, `${V}/1/raw`);
    return remote === "bob's result"
      ? { lost: false, summary: "bob's acknowledged version survives; alice failed loudly" }
      : { lost: true, summary: `bob exited 0 but the store holds "${remote}"` };
  },
};

/** 002: the lock looks lost while the datastore is unreachable; a later sync pushes the refused run. */
const refusedRun: Replay = {
  number: "002",
  title: "Incident 002: a refused run's data pushed later anyway (the store cut off mid-run)",
  gates: ["refused-run-eraser"],
  async run(on, ctx) {
    const store = new OutageStore(await fsStore(ctx.temp));
    const a = await clone(ctx, store, "alice", on ? [] : this.gates);
    const runA = await acquireModelLocks(a, ["shell/cmd/m1"]);
    await write(a, `${V}/1/raw`, "alice's refused result");
    store.down = true;
    ctx.say("    the datastore becomes unreachable mid-run");
    try {
      await a.pushChanged({
        locks: runA.locks.map(absentOnError),
        written: [`${V}/1`],
        preexisting: runA.preexisting,
        models: runA.models,
      });
    } catch (e) {
      ctx.say(`    alice's run fails: ${codeOf(e)} ("Nothing was pushed")`);
    }
    store.down = false;
    await runA.release();
    ctx.say("    the datastore comes back; alice runs a plain sync");
    await a.pushChanged().catch((e) => ctx.say(`    sync failed: ${codeOf(e)}`));
    const remote = await readRemote(store, `${V}/1/raw`);
    return remote === null
      ? { lost: false, summary: "nothing of the refused run is on the store" }
      : { lost: true, summary: "the run that reported failure has its data on the store" };
  },
};

/** 000: two clones both allocate version N+1. */
const doubleWrite: Replay = {
  number: "000",
  title: "Incident 000: a second writer overwrites a data version",
  gates: ["create-only-writer"],
  async run(on, ctx) {
    const store = await fsStore(ctx.temp);
    const a = await clone(ctx, store, "alice", on ? [] : this.gates);
    const b = await clone(ctx, store, "bob", on ? [] : this.gates);
    await write(a, `${V}/2/raw`, "alice's version 2");
    await write(b, `${V}/2/raw`, "bob's version 2");
    await a.pushChanged();
    ctx.say("    alice pushed version 2 and exited 0");
    try {
      await b.pushChanged();
      ctx.say("    bob pushed version 2 and exited 0");
    } catch (e) {
      ctx.say(`    bob failed: ${codeOf(e)}`);
    }
    const remote = await readRemote(store, `${V}/2/raw`);
    return remote === "alice's version 2"
      ? { lost: false, summary: "alice's acknowledged version 2 survives" }
      : { lost: true, summary: `alice exited 0 but the store holds "${remote}"` };
  },
};

/** 004: a failed lockfile publish leaves a stale local copy; a bulk push re-uploads it. */
const staleLockfile: Replay = {
  number: "004",
  title:
    "Incident 004: a stale extension lockfile erases a peer's entries (the store cut off for one publish)",
  gates: ["lockfile-guard"],
  async run(on, ctx) {
    const store = new OutageStore(await fsStore(ctx.temp));
    const a = await clone(ctx, store, "alice", on ? [] : this.gates);
    const c = await clone(ctx, store, "carol", on ? [] : this.gates);
    await updateManagedLockfile(c, { set: { "@acme/ssh": { version: "2.0.0" } } });
    await a.pullChanged();
    store.down = true;
    await updateManagedLockfile(a, { set: { "@acme/1password": { version: "1.0.0" } } })
      .catch((e) =>
        ctx.say(`    alice's lockfile publish fails (${codeOf(e)}): kept as a pending delta`)
      );
    store.down = false;
    await updateManagedLockfile(c, { set: { "@acme/k8s": { version: "3.0.0" } } });
    ctx.say("    carol adds @acme/k8s");
    await a.markDirty();
    await a.pushChanged().catch((e) => ctx.say(`    push failed: ${codeOf(e)}`));
    ctx.say("    alice runs a command that marks everything dirty and pushes");
    await retryPendingLockfile(a).catch((e) => ctx.say(`    retry failed: ${codeOf(e)}`));
    const remote = JSON.parse(
      (await readRemote(store, "config/upstream_extensions.json")) ?? "{}",
    );
    ctx.say(`    alice retries her change; the lockfile lists ${Object.keys(remote).join(", ")}`);
    return "@acme/k8s" in remote && "@acme/1password" in remote
      ? { lost: false, summary: "every checkout's entries survive" }
      : { lost: true, summary: "carol's @acme/k8s entry was erased by alice's stale copy" };
  },
};

/**
 * The replays, in the order the demo tells the story: 001 and 002 (a broken
 * lock), 000 (two clones, one version), 004 (the extension lockfile). The
 * numbers are the incident reports'.
 */
export const replays: readonly Replay[] = [breakglass, refusedRun, doubleWrite, staleLockfile];
