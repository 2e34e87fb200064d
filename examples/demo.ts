/**
 * The main job (`deno task demo`): two clones sync through the gate pipeline
 * on the embedded default store (a local directory), then each incident is
 * replayed with its gate off (the loss shown) and on (no loss), each on a
 * fresh local-directory store; the two incidents that need an outage cut
 * that store off for a while (`OutageStore` in `outage_store.ts`).
 *
 * Every store and cache lives under one temporary directory, removed when
 * the demo ends, fails, or is interrupted with Ctrl-C.
 *
 * @module
 */
import { createSluice } from "../sluice.ts";
import { FsStore } from "../packages/fs/mod.ts";
import { writeAndMark } from "../packages/testing/mod.ts";
import type { SyncService } from "../sync/service/service.ts";
import type { ObjectStore } from "../sync/ports.ts";
import { type ReplayContext, replays, type TempDir } from "./incidents.ts";

/** A clone: its own cache dir and identity over a shared store. */
export async function makeClone(
  ctx: ReplayContext,
  store: ObjectStore,
  name: string,
  disable: readonly string[] = [],
): Promise<SyncService> {
  const svc = await createSluice({
    cacheDir: await ctx.temp(`${name}-`),
    store,
    identity: { holder: `${name}@demo`, hostname: `${name}-host`, pid: name.charCodeAt(0) },
    disable,
    config: { retry: { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 50 } },
  });
  svc.events.on("gate", (g) => {
    if (g.gate !== "path-classifier") ctx.say(`    [${name}] ${g.gate}: ${g.message}`);
  });
  svc.events.on("warning", (w) => ctx.say(`    [${name}] warning ${w.code}: ${w.message}`));
  return svc;
}

/** Writes a cache file and marks it dirty. */
export const put: (svc: SyncService, path: string, text: string) => Promise<void> = writeAndMark;

async function tour(ctx: ReplayContext) {
  const say = ctx.say;
  const store = new FsStore({ root: await ctx.temp("store-") });
  say(`Store: ${store.endpoint} (the embedded default: a local directory)`);
  const a = await makeClone(ctx, store, "alice");
  // Bob's store calls are counted (step 3).
  let calls = 0;
  const counted = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (["get", "getStream", "head", "put", "delete", "list"].includes(String(prop))) calls++;
        return value.apply(target, args);
      };
    },
  });
  const b = await makeClone(ctx, counted, "bob");
  say("\nPipeline order:");
  for (const line of [...a.describe().push, ...a.describe().write]) say(`  ${line}`);

  say("\n1. alice writes a data version, its latest marker and a log, then pushes");
  await put(a, "data/shell/cmd/m1/stdout/1/raw", "hello from alice\n");
  await put(a, "data/shell/cmd/m1/stdout/latest", "1");
  await put(a, "logs/run-1.log", "ok\n");
  say("  status before the push:");
  for (const e of await a.status()) {
    say(`    ${e.path}  class=${e.class}  gates=${e.handledBy.join(",") || "-"}`);
  }
  const r = await a.pushChanged();
  say(`  pushed ${r.uploaded.length} file(s), ${r.bytes} bytes`);

  say("\n2. bob pulls");
  const p = await b.pullChanged();
  say(`  fetched ${p.fetched.join(", ")}`);
  say(`  bob reads: ${await Deno.readTextFile(`${b.cacheDir}/data/shell/cmd/m1/stdout/1/raw`)}`);

  say("3. nothing changed: what a pull and a push then cost");
  calls = 0;
  const again = await b.pullChanged();
  say(`  bob pulls again: unchanged=${again.unchanged}, ${calls} store request(s)`);
  calls = 0;
  const none = await b.pushChanged();
  say(`  bob pushes: ${none.uploaded.length} file(s) uploaded, ${calls} store request(s)`);
}

/**
 * Runs the tour and every replay; returns how many replays did not behave
 * as expected (0 when each loses data with its gate off and none with it on).
 */
export async function runDemo(ctx: ReplayContext): Promise<number> {
  const say = ctx.say;
  say("Sluice demo\n===========\n");
  await tour(ctx);
  say(
    `\nThe incidents, numbered as in their reports, in the order of the story: ${
      replays.map((r) => r.number).join(", ")
    }.`,
  );
  let failed = 0;
  for (const replay of replays) {
    say(`\n${replay.title}\n${"-".repeat(replay.title.length)}`);
    for (const gatesOn of [false, true]) {
      say(`  gate ${gatesOn ? "ON" : "OFF"}:`);
      const outcome = await replay.run(gatesOn, ctx);
      say(`  => ${outcome.lost ? "LOSS" : "no loss"}: ${outcome.summary}`);
      if (gatesOn && outcome.lost) failed++;
      if (!gatesOn && !outcome.lost) failed++;
    }
  }
  say(
    failed === 0
      ? "\nEvery incident loses data with its gate off and none with it on."
      : `\n${failed} replay(s) did not behave as expected.`,
  );
  return failed;
}

/** What {@link withTempRoot} needs from the process (injected in tests). */
export interface TempRootHooks {
  /** Registers a Ctrl-C handler; returns its removal. */
  onInterrupt(handler: () => void): () => void;
  /** Ends the process with a code. */
  exit(code: number): void;
}

const processHooks: TempRootHooks = {
  onInterrupt(handler) {
    Deno.addSignalListener("SIGINT", handler);
    return () => Deno.removeSignalListener("SIGINT", handler);
  },
  exit: (code) => Deno.exit(code),
};

/**
 * Runs `fn` with a {@link TempDir} whose directories all live under one
 * temporary root, and removes that root when `fn` returns or throws, or on
 * Ctrl-C (then exits with 130).
 */
export async function withTempRoot<T>(
  fn: (temp: TempDir, root: string) => Promise<T>,
  hooks: TempRootHooks = processHooks,
): Promise<T> {
  const root = await Deno.makeTempDir({ prefix: "sluice-demo-" });
  const remove = () => {
    try {
      Deno.removeSync(root, { recursive: true });
    } catch { /* already gone */ }
  };
  const unlisten = hooks.onInterrupt(() => {
    remove();
    hooks.exit(130);
  });
  try {
    return await fn((prefix) => Deno.makeTempDir({ dir: root, prefix }), root);
  } finally {
    // Removed before the Ctrl-C handler goes, so that a late Ctrl-C cannot end the process mid-way.
    remove();
    unlisten();
  }
}

if (import.meta.main) {
  const failed = await withTempRoot((temp) => runDemo({ temp, say: (line) => console.log(line) }));
  if (failed > 0) Deno.exit(1);
}
