/**
 * A v2 meta put back by a writer of an older one (an old client's stale
 * meta write) sends `commitSeq` back; old clients that recorded the numbers
 * above it pass over a commit that repeats one (their fast path compares
 * the number), and then write over its files. A commit over such a meta
 * jumps past every number this cache saw, also in an earlier process.
 */
import assert from "node:assert/strict";
import { META_KEY, metaBody } from "../transfer/bucket_layout.ts";
import { InMemoryStore, peerCommitSeq } from "../../packages/testing/mod.ts";
import { clone, put } from "./clone_kit.ts";
import type { SyncService } from "./service.ts";

const v2 = (commitSeq: number) => ({ version: 2 as const, partitions: [], commitSeq, raw: {} });

/** An old client's meta write: afresh, with the partitions it read and its own number. */
async function oldClientMeta(store: InMemoryStore, commitSeq: number): Promise<void> {
  const cur = JSON.parse(store.peekText(META_KEY)!);
  const body = { version: 2, partitions: cur.partitions, commitSeq };
  await store.put(META_KEY, new TextEncoder().encode(JSON.stringify(body)), { kind: "overwrite" });
}

/** Three commits of `a` (commitSeq 1, 2, 3 on a fresh v2 bucket). */
async function pushedThrice(a: SyncService): Promise<void> {
  for (const n of ["one", "two", "three"]) {
    await put(a, "notes/a.txt", n);
    await a.pushChanged();
  }
}

Deno.test("a commit over a meta sent back by a stale writer never repeats a commitSeq an old client may have recorded", async () => {
  const store = new InMemoryStore();
  await store.put(META_KEY, metaBody(v2(0)), { kind: "create" });
  const a = await clone(store, "a");
  await pushedThrice(a);
  assert.equal(await peerCommitSeq(store), 3);
  // An old client commits (4, which it records), and this cache pulls it.
  await oldClientMeta(store, 4);
  await a.pullChanged();
  // Another old client, frozen since it read 2, writes its meta back: 3.
  await oldClientMeta(store, 3);
  // A fresh process over the same cache commits: 4 again would be passed
  // over by the old client that recorded 4.
  const again = await clone(store, "a", a.cacheDir);
  await put(again, "notes/a.txt", "four");
  await again.pushChanged();
  const seq = (await peerCommitSeq(store))!;
  assert.ok(seq > 4, `commitSeq ${seq} repeats a number an old client recorded`);
  // The next commit counts on from there.
  await put(again, "notes/a.txt", "five");
  await again.pushChanged();
  assert.equal(await peerCommitSeq(store), seq + 1);
});

Deno.test("a fresh process that pulls a meta sent back before it commits still jumps past every number this cache saw", async () => {
  const store = new InMemoryStore();
  await store.put(META_KEY, metaBody(v2(0)), { kind: "create" });
  const a = await clone(store, "a");
  await pushedThrice(a);
  await oldClientMeta(store, 4);
  await a.pullChanged();
  await oldClientMeta(store, 3);
  // A fresh process over the same cache pulls first (the meta moved: the
  // index is read again, and the memo kept), then commits.
  const again = await clone(store, "a", a.cacheDir);
  await again.pullChanged();
  await put(again, "notes/a.txt", "four");
  await again.pushChanged();
  const seq = (await peerCommitSeq(store))!;
  assert.ok(seq > 4, `commitSeq ${seq} repeats a number an old client recorded`);
});
