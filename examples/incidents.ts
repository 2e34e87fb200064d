/**
 * The four incidents, replayed with their gates off (the loss shown) and on
 * (no loss). Used by the demo; each replay runs on its own fresh store.
 *
 * @module
 */
import { createSluice } from "../sluice.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { absentOnError, InMemoryStore, writeAndMark } from "../packages/testing/mod.ts";
import { acquireModelLocks, releaseLock } from "../sync/model_locks.ts";
import { retryPendingLockfile, updateManagedLockfile } from "../sync/lockfile_txn.ts";
import { SluiceError } from "../sync/errors.ts";
import type { ObjectStore } from "../sync/ports.ts";

/** What a replay found. */
export interface Outcome {
  readonly lost: boolean;
  readonly summary: string;
}

/** One incident replay. */
export interface Replay {
  readonly title: string;
  /** The gates turned off in the "off" run. */
  readonly gates: readonly string[];
  run(gatesOn: boolean): Promise<Outcome>;
}

const say = (s: string) => console.log(`    ${s}`);
const fast = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

async function clone(store: ObjectStore, name: string, disable: readonly string[]) {
  const svc = await createSluice({
    cacheDir: await Deno.makeTempDir({ prefix: `sluice-demo-${name}-` }),
    store,
    identity: { holder: `${name}@demo`, hostname: `${name}-host`, pid: name.charCodeAt(0) },
    disable,
    config: fast,
  });
  svc.events.on("warning", (w) => say(`[${name}] warning ${w.code}: ${w.message.split(". ")[0]}.`));
  return svc;
}

const write = writeAndMark;

async function fsStore(): Promise<FsStore> {
  return new FsStore({ root: await Deno.makeTempDir({ prefix: "sluice-demo-store-" }) });
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
  title: "Incident 001: lost write after a lock breakglass",
  gates: ["lock-fence", "refused-run-eraser", "create-only-writer"],
  async run(on) {
    const store = await fsStore();
    const off = on ? [] : this.gates;
    const a = await clone(store, "alice", off);
    const b = await clone(store, "bob", off);
    const runA = await acquireModelLocks(a, ["shell/cmd/m1"]);
    await write(a, `${V}/1/raw`, "alice's result");
    const broke = await releaseLock(b, { model: "shell/cmd/m1", force: true });
    say(`operator breaks the lock held by ${broke.broken?.holder}`);
    const runB = await acquireModelLocks(b, ["shell/cmd/m1"]);
    await write(b, `${V}/1/raw`, "bob's result");
    await runB.push([`${V}/1`]);
    await runB.release();
    say("bob pushed version 1 and exited 0");
    try {
      await runA.push([`${V}/1`]);
      say("alice pushed version 1 and exited 0");
    } catch (e) {
      say(`alice failed: ${codeOf(e)}`);
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
  title:
    "Incident 002: a refused run's data pushed later anyway (in-memory store, outage injected)",
  gates: ["refused-run-eraser"],
  async run(on) {
    const store = new InMemoryStore();
    const a = await clone(store, "alice", on ? [] : this.gates);
    const runA = await acquireModelLocks(a, ["shell/cmd/m1"]);
    await write(a, `${V}/1/raw`, "alice's refused result");
    store.unreachable = true;
    say("the datastore becomes unreachable mid-run");
    try {
      await a.pushChanged({
        locks: runA.locks.map(absentOnError),
        written: [`${V}/1`],
        preexisting: runA.preexisting,
        models: runA.models,
      });
    } catch (e) {
      say(`alice's run fails: ${codeOf(e)} ("Nothing was pushed")`);
    }
    store.heal();
    await runA.release();
    say("the datastore comes back; alice runs a plain sync");
    await a.pushChanged().catch((e) => say(`sync failed: ${codeOf(e)}`));
    const remote = store.peekText(`${V}/1/raw`);
    return remote === undefined
      ? { lost: false, summary: "nothing of the refused run is on the store" }
      : { lost: true, summary: "the run that reported failure has its data on the store" };
  },
};

/** 000: two clones both allocate version N+1. */
const doubleWrite: Replay = {
  title: "Incident 000: a second writer overwrites a data version",
  gates: ["create-only-writer"],
  async run(on) {
    const store = await fsStore();
    const a = await clone(store, "alice", on ? [] : this.gates);
    const b = await clone(store, "bob", on ? [] : this.gates);
    await write(a, `${V}/2/raw`, "alice's version 2");
    await write(b, `${V}/2/raw`, "bob's version 2");
    await a.pushChanged();
    say("alice pushed version 2 and exited 0");
    try {
      await b.pushChanged();
      say("bob pushed version 2 and exited 0");
    } catch (e) {
      say(`bob failed: ${codeOf(e)}`);
    }
    const remote = await readRemote(store, `${V}/2/raw`);
    return remote === "alice's version 2"
      ? { lost: false, summary: "alice's acknowledged version 2 survives" }
      : { lost: true, summary: `alice exited 0 but the store holds "${remote}"` };
  },
};

/** 004: a failed lockfile publish leaves a stale local copy; a bulk push re-uploads it. */
const staleLockfile: Replay = {
  title:
    "Incident 004: a stale extension lockfile erases a peer's entries (in-memory store, outage injected)",
  gates: ["lockfile-guard"],
  async run(on) {
    const store = new InMemoryStore();
    const a = await clone(store, "alice", on ? [] : this.gates);
    const c = await clone(store, "carol", on ? [] : this.gates);
    await updateManagedLockfile(c, { set: { "@acme/ssh": { version: "2.0.0" } } });
    await a.pullChanged();
    store.unreachable = true;
    await updateManagedLockfile(a, { set: { "@acme/1password": { version: "1.0.0" } } })
      .catch((e) => say(`alice's lockfile publish fails (${codeOf(e)}): kept as a pending delta`));
    store.heal();
    await updateManagedLockfile(c, { set: { "@acme/k8s": { version: "3.0.0" } } });
    say("carol adds @acme/k8s");
    await a.markDirty();
    await a.pushChanged().catch((e) => say(`push failed: ${codeOf(e)}`));
    say("alice runs a command that marks everything dirty and pushes");
    await retryPendingLockfile(a).catch((e) => say(`retry failed: ${codeOf(e)}`));
    const remote = JSON.parse(store.peekText("config/upstream_extensions.json") ?? "{}");
    say(`alice retries her change; the lockfile lists ${Object.keys(remote).join(", ")}`);
    return "@acme/k8s" in remote && "@acme/1password" in remote
      ? { lost: false, summary: "every checkout's entries survive" }
      : { lost: true, summary: "carol's @acme/k8s entry was erased by alice's stale copy" };
  },
};

/** The replays, in the order the demo runs them. */
export const replays: readonly Replay[] = [breakglass, refusedRun, doubleWrite, staleLockfile];
