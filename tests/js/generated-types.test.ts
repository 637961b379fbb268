// src/generated/wire.ts must be exactly what the JSON Schemas in ../schema generate.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CONSTANTS_OUTPUT,
  OUTPUT,
  generate,
  generateConstants,
} from "../../labextension/scripts/gen-types.mjs";
import * as link from "../../labextension/src/generated/link";

describe("generated wire types", () => {
  it("match the schemas", async () => {
    const expected = await generate();
    expect(readFileSync(OUTPUT, "utf8")).toBe(expected);
    expect(resolve(OUTPUT)).toContain("src/generated/wire.ts");
  }, 60_000); // generating from every schema took 9.7 s at load 10 (vitest's default bound is 5 s)

  it("carry the protocol's constants from the schema", () => {
    expect(readFileSync(CONSTANTS_OUTPUT, "utf8")).toBe(generateConstants());
    expect(link.COMM_TARGET).toBe("shard");
    expect(link.EVENTS_COMM_ID).toBe("shard-events");
    expect(link.HEARTBEAT_INTERVAL_S).toBeLessThan(link.HEARTBEAT_TTL_S);
  });
});
