import assert from "node:assert/strict";
import type {
  BodySource,
  CallOptions,
  GetResult,
  ListOptions,
  ObjectInfo,
  ObjectStore,
  PutBody,
  PutMode,
} from "./ports.ts";
import { PutModes } from "./ports.ts";

Deno.test("PutModes are the three write modes; update carries the version it is conditional on", () => {
  assert.deepEqual(PutModes.overwrite, { kind: "overwrite" });
  assert.deepEqual(PutModes.create, { kind: "create" });
  assert.deepEqual(PutModes.update("etag-1"), { kind: "update", version: "etag-1" });
  const describe = (m: PutMode): string => m.kind === "update" ? `update@${m.version}` : m.kind;
  assert.deepEqual(
    [PutModes.overwrite, PutModes.create, PutModes.update("7")].map(describe),
    ["overwrite", "create", "update@7"],
  );
});

Deno.test("a minimal store satisfies ObjectStore with only the required members", async () => {
  // Compile-time: getStream and the other optional members may be left out.
  const objects = new Map<string, Uint8Array>();
  const info = (key: string, body: Uint8Array): ObjectInfo => ({
    key,
    version: String(body.length),
    size: body.length,
    lastModified: 0,
  });
  const store: ObjectStore = {
    endpoint: "mem://minimal",
    get(key: string, _o?: CallOptions): Promise<GetResult> {
      const body = objects.get(key) ?? new Uint8Array();
      return Promise.resolve({ ...info(key, body), body });
    },
    head: (key) => Promise.resolve(objects.has(key) ? info(key, objects.get(key)!) : null),
    async put(key: string, body: PutBody): Promise<ObjectInfo> {
      const bytes = body instanceof Uint8Array ? body : await new Response(
        (body as BodySource).stream(),
      ).bytes();
      objects.set(key, bytes);
      return info(key, bytes);
    },
    delete: (key) => Promise.resolve(void objects.delete(key)),
    async *list(prefix: string, _o?: ListOptions) {
      yield [...objects.entries()].filter(([k]) => k.startsWith(prefix)).map(([k, b]) =>
        info(k, b)
      );
    },
  };
  const source: BodySource = {
    size: 2,
    stream: () => new Response(new Uint8Array([1, 2])).body!,
  };
  assert.equal((await store.put("a", source, PutModes.create)).size, 2);
  assert.equal((await store.head("a"))?.version, "2");
  assert.equal(store.getStream, undefined);
});
