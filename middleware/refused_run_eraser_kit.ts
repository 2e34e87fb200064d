/**
 * The setting of the refused-run eraser's tests of the gate alone, on a mock
 * push context: the data and marker paths, a cache holding a synced version
 * and a run that wrote the next, and a run of the gate the push's lock loss
 * refuses.
 *
 * @module
 */
import { refusedRunEraser } from "./refused_run_eraser.ts";
import {
  type InMemoryStore,
  mockPushContext,
  planEntry,
  spyNext,
} from "../packages/testing/mod.ts";
import { ModelLockLostError } from "../sync/lock_errors.ts";
import { sha256Hex } from "../sync/hash.ts";
import { PutModes } from "../sync/ports.ts";
import type { PushContext } from "../sync/context.ts";

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
/** The model lock the refused run held. */
export const KEY = "data/t/m/.lock";
/** The data the runs write versions of. */
export const DATA = "data/t/m/d";
export const V1 = `${DATA}/1`;
export const V2 = `${DATA}/2`;
/** The data's `latest` marker. */
export const MARKER = `${DATA}/latest`;

/** The refusal: the lock at KEY lost to another holder. */
export const lost = (): ModelLockLostError =>
  new ModelLockLostError([{ key: KEY, newHolder: "b@host (pid 2)" }]);

/** A cache holding synced version 1 and marker "1", and a run that wrote version 2. */
export async function arranged(
  options: { written?: string[]; preexisting?: Set<string> } = {},
) {
  const m = await mockPushContext({
    written: options.written ?? [V2],
    preexisting: options.preexisting ?? new Set([V1]),
  });
  const synced = async (path: string, text: string) => {
    await m.cache.write(path, enc(text));
    await m.state.recordSynced(path, { hash: await sha256Hex(enc(text)), version: "r1", size: 1 });
  };
  await synced(`${V1}/raw`, "first");
  await synced(MARKER, "1");
  await m.cache.write(`${V2}/raw`, enc("A's data"));
  await m.cache.write(MARKER, enc("2"));
  await m.state.markDirty(`${V2}/raw`);
  await m.state.markDirty(MARKER);
  m.ctx.plan.push(
    planEntry(`${V2}/raw`, { class: "data-version" }),
    planEntry(MARKER, { class: "latest-marker", commit: true, syncedVersion: "r1" }),
  );
  return m;
}

/** As {@link arranged}, the run's `${V2}/raw` uploaded by its push (a created object). */
export async function arrangedUploaded() {
  const m = await arranged();
  const store = m.store as InMemoryStore;
  const ours = await store.put(`${V2}/raw`, enc("A's data"), PutModes.overwrite);
  m.ctx.uploaded.push({ path: `${V2}/raw`, info: ours, created: true, outcome: "written" });
  return { m, store };
}

/**
 * A held run (version 1 holds a file its push's first pass committed) whose
 * second pass was refused, after the first had created the `latest` marker
 * and held it back: its version files and that marker, uploaded, none named.
 */
export async function heldWithCreatedMarker() {
  const m = await mockPushContext({ written: [V1], preexisting: new Set() });
  const store = m.store as InMemoryStore;
  await m.cache.write(`${V1}/raw`, enc("first"));
  await m.state.recordSynced(`${V1}/raw`, {
    hash: await sha256Hex(enc("first")),
    version: "r1",
    size: 5,
  });
  await m.cache.write(`${V1}/metadata.yaml`, enc("meta"));
  await m.cache.write(MARKER, enc("1"));
  await m.state.markDirty(`${V1}/metadata.yaml`);
  await m.state.markDirty(MARKER);
  m.ctx.plan.push(
    planEntry(`${V1}/metadata.yaml`, { class: "data-version" }),
    planEntry(MARKER, { class: "latest-marker", commit: true }),
  );
  const meta = await store.put(`${V1}/metadata.yaml`, enc("meta"), PutModes.create);
  const marker = await store.put(MARKER, enc("1"), PutModes.create);
  m.ctx.uploaded.push(
    { path: `${V1}/metadata.yaml`, info: meta, created: true, outcome: "written" },
    { path: MARKER, info: marker, created: true, outcome: "written" },
  );
  return { m, store, meta };
}

/** Runs the gate over `m`'s push, the rest of the pipeline being `impl`; resolves to what it threw. */
export const run = (m: { ctx: PushContext }, impl: () => void = () => {}) =>
  refusedRunEraser()(m.ctx, spyNext(impl)).then(() => undefined, (e) => e);

/** {@link run}, the rest of the pipeline refused by {@link lost}. */
export const runRefused = (m: { ctx: PushContext }) =>
  run(m, () => {
    throw lost();
  });
