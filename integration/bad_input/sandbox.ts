/**
 * The sandbox and helpers of the bad-input tests (`*_test.ts` beside this
 * file). In every case of those tests, bad input ends in a clear error (or,
 * where the input is only skipped, a warning) with a stable code, nothing is
 * lost, and nothing is written outside the cache.
 *
 * Each test runs in a sandbox: a temp dir holding the cache and a sentinel
 * directory beside it. Symlinks and escaping keys aim at the sentinel, and
 * the sandbox checks that everything outside the cache (names, bytes and
 * mtimes) is exactly as it was.
 *
 * In-process: InMemoryStore and FsStore in temp dirs, no servers.
 *
 * @module
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createSluice } from "../../sluice.ts";
import { ConditionalWrites } from "../../sync/transfer/conditional.ts";
import { type ErrorCode, EXIT_CODES, SluiceError } from "../../sync/errors.ts";
import { createEmitter, type SluiceEmitter, type WarningEvent } from "../../sync/events.ts";
import type { ObjectStore } from "../../sync/ports.ts";
import type { SyncService } from "../../sync/service/service.ts";
import { FakeClock } from "../../packages/testing/mod.ts";

/** Sync config with no retries, so that failures surface at once. */
export const quick = { retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } };

/** Temp dirs made by these tests, removed when the process ends (the large-file test writes ~100 MB). */
const temps: string[] = [];
globalThis.addEventListener("unload", () => {
  for (const t of temps) {
    try {
      Deno.removeSync(t, { recursive: true });
    } catch { /* already gone */ }
  }
});

/** A temp dir, removed when the test process ends. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  temps.push(dir);
  return dir;
}
/** UTF-8 bytes of `s`. */
export const enc = (s: string) => new TextEncoder().encode(s);
/** SHA-256 of `b`, in hex. */
export const hex = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/**
 * A temp dir with the cache (`cache/`), room for a peer clone's cache
 * (`peer/`) and a sentinel dir beside them that must never change.
 */
export interface Sandbox {
  readonly root: string;
  readonly cacheDir: string;
  readonly sentinel: string;
  /** Fails unless everything outside the cache is exactly as it was when the sandbox was made. */
  unchanged(): Promise<void>;
}

async function snapshotOutside(root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (dir: string, rel: string) => {
    for await (const e of Deno.readDir(dir)) {
      if (!rel && (e.name === "cache" || e.name === "peer")) continue; // the clones' caches
      const r = rel ? `${rel}/${e.name}` : e.name;
      const p = `${dir}/${e.name}`;
      const st = await Deno.lstat(p);
      if (st.isSymlink) out.push(`${r} -> ${await Deno.readLink(p)}`);
      else if (st.isDirectory) {
        out.push(`${r}/ ${st.mtime?.getTime()}`);
        await visit(p, r);
      } else out.push(`${r} ${st.size} ${hex(await Deno.readFile(p))} ${st.mtime?.getTime()}`);
    }
  };
  await visit(root, "");
  return out.sort();
}

export async function sandbox(): Promise<Sandbox> {
  const root = await tempDir("sluice-bad-input-");
  const sentinel = `${root}/sentinel`;
  await Deno.mkdir(`${sentinel}/nested`, { recursive: true });
  await Deno.mkdir(`${sentinel}/state`);
  await Deno.writeTextFile(
    `${sentinel}/secret.txt`,
    "outside the cache: never read, never written",
  );
  await Deno.writeTextFile(`${sentinel}/nested/deep.txt`, "also outside the cache");
  const before = await snapshotOutside(root);
  return {
    root,
    cacheDir: `${root}/cache`,
    sentinel,
    unchanged: async () =>
      assert.deepEqual(
        await snapshotOutside(root),
        before,
        "something outside the cache was written",
      ),
  };
}

/** Options of {@link clone}. */
export interface CloneOptions {
  readonly name?: string;
  /** Overrides the streaming threshold (default 8 MiB). */
  readonly streamThresholdBytes?: number;
  readonly clock?: FakeClock;
  readonly events?: SluiceEmitter;
}

/** A clone with the default gates, fast retries and its own probe registry. */
export async function clone(
  store: ObjectStore,
  cacheDir: string,
  options: CloneOptions = {},
): Promise<SyncService> {
  const name = options.name ?? "a";
  return await createSluice({
    cacheDir,
    store,
    identity: { holder: `${name}@host`, hostname: "host", pid: 1 },
    clock: options.clock ?? new FakeClock(),
    events: options.events,
    config: options.streamThresholdBytes === undefined
      ? quick
      : { ...quick, streamThresholdBytes: options.streamThresholdBytes },
    conditional: new ConditionalWrites(),
  });
}

/** An emitter and the warnings it receives (pass `events` before the service is created). */
export function warnings(): { events: SluiceEmitter; list: WarningEvent[]; codes(): string[] } {
  const events = createEmitter();
  const list: WarningEvent[] = [];
  events.on("warning", (w) => list.push(w));
  return { events, list, codes: () => list.map((w) => w.code) };
}

/** Writes `body` at `path` under `dir`, making its parent directories. */
export async function put(dir: string, path: string, body: string | Uint8Array): Promise<void> {
  const file = `${dir}/${path}`;
  await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
  if (typeof body === "string") await Deno.writeTextFile(file, body);
  else await Deno.writeFile(file, body);
}

/** The text of `path` under `dir`. */
export const read = (dir: string, path: string) => Deno.readTextFile(`${dir}/${path}`);

/** Pushes `paths` (marked dirty first) from a clone. */
export async function pushPaths(svc: SyncService, ...paths: string[]) {
  await svc.markDirty({ relPaths: paths });
  return await svc.pushChanged();
}

/**
 * Awaits `p` and checks it failed with a SluiceError of `code` (and its exit
 * code) whose message says what happened (`happened`) and what to do (`todo`).
 */
export async function refused(
  p: Promise<unknown>,
  code: ErrorCode,
  happened: RegExp,
  todo: RegExp,
): Promise<SluiceError> {
  let err: unknown;
  try {
    await p;
  } catch (e) {
    err = e;
  }
  assert.ok(err !== undefined, `expected an error with code ${code}, but it succeeded`);
  assert.ok(err instanceof SluiceError, `expected a SluiceError (${code}), got ${err}`);
  assert.equal(err.code, code, err.message);
  assert.equal(err.exitCode, EXIT_CODES[code]);
  assert.match(err.message, happened);
  assert.match(err.message, todo);
  return err;
}

/** Every file under the cache (cache-relative), not following links. */
export async function cacheFiles(cacheDir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(rel ? `${cacheDir}/${rel}` : cacheDir)) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory) out.push(...await cacheFiles(cacheDir, r));
    else out.push(r);
  }
  return out.sort();
}

/** An index entry for `body` at `version`, as Sluice writes it in the layout's index object. */
export const entry = (version: string, body: Uint8Array) => ({
  key: "",
  size: body.length,
  sha256: hex(body),
  sluice: { v: version, h: hex(body) },
});
