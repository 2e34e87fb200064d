import assert from "node:assert/strict";
import { INSERTS_OFF, LATEST_OFF, STALL_OTHERS_OFF } from "./shares_off.ts";
import { parseChaosArgs, USAGE } from "./main_args.ts";

/** The share options `GenerateOptions` declares, read from its source. */
async function declaredShares(): Promise<Set<string>> {
  const text = await Deno.readTextFile(new URL("./history_options.ts", import.meta.url));
  return new Set([...text.matchAll(/readonly (\w+Share)\?: number/g)].map((m) => m[1]));
}

Deno.test("the lists of shares tests turn off name only shares the history generator declares, each off", async () => {
  const declared = await declaredShares();
  assert.ok(declared.has("stallShare") && declared.has("cutPushShare"), "the declarations read");
  for (const [name, list] of Object.entries({ LATEST_OFF, INSERTS_OFF, STALL_OTHERS_OFF })) {
    assert.ok(Object.keys(list).length > 0, name);
    for (const [key, value] of Object.entries(list)) {
      assert.equal(value, 0, `${name}.${key} is off`);
      assert.ok(declared.has(key), `${name}.${key} is a share GenerateOptions declares`);
    }
  }
});

Deno.test("every share the history generator declares has its flag on the chaos command line, named in the usage", async () => {
  const kebab = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  for (const key of await declaredShares()) {
    const flag = kebab(key);
    assert.deepEqual(parseChaosArgs([flag, "0.5"]).generate, { [key]: 0.5 }, flag);
    assert.ok(USAGE.includes(`[${flag} 0..1]`), `${flag} in the usage`);
  }
});
