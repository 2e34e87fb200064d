/**
 * The setting of the tests of a push that takes back a version its own
 * marker upload names: the data and its `latest` marker, the ways such a
 * push is cut off (the marker's shard never written, or the commit's answer
 * lost), a push of a version cut off so, and versions deleted here.
 *
 * @module
 */
import assert from "node:assert/strict";
import { UnreachableError } from "../sync/errors.ts";
import type { InMemoryStore } from "../packages/testing/mod.ts";
import type { SyncService } from "../sync/service/service.ts";
import { isIndexKey } from "../sync/service/clone_kit.ts";
import { putVersion } from "./marker_stranded_kit.ts";

/** The data the tests write versions of. */
export const DATA = "data/shell/cmd/m0/out";
/** Its `latest` marker. */
export const MARKER = `${DATA}/latest`;
/** Version `n`'s files. */
export const FILES = (n: string): string[] => [`${DATA}/${n}/metadata.yaml`, `${DATA}/${n}/raw`];

/** How a push is cut off: which put fails, and whether after its effect. */
export type Cut = { afterEffect: boolean; match: (key: string) => boolean };
/** The shard naming the marker (of a v2 bucket) is never written. */
export const SHARD_CUT: Cut = {
  afterEffect: false,
  match: (k) => k === "_index/data--shell--cmd.json",
};
/** The commit lands, its answer lost. */
export const ANSWER_LOST: Cut = { afterEffect: true, match: isIndexKey };

/** `a` writes version `n` and the marker moved onto it, and pushes them, `cut` failing that push. */
export async function pushCutOff(store: InMemoryStore, a: SyncService, n: string, cut: Cut) {
  await putVersion(a, n, { data: DATA });
  store.failNext("put", 1, () => new UnreachableError("cut off"), cut);
  await assert.rejects(a.pushChanged(), /could not be reached/);
}

/** Versions `ns` deleted here by `a`, and marked. */
export async function deletedHere(a: SyncService, ...ns: string[]) {
  for (const n of ns) {
    await Deno.remove(`${a.cacheDir}/${DATA}/${n}`, { recursive: true });
  }
  await a.markDirty({ relPaths: ns.flatMap(FILES) });
}
