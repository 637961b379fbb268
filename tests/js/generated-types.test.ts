// src/generated/wire.ts must be exactly what the JSON Schemas in ../schema generate.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { OUTPUT, generate } from "../../labextension/scripts/gen-types.mjs";

describe("generated wire types", () => {
  it("match the schemas", async () => {
    const expected = await generate();
    expect(readFileSync(OUTPUT, "utf8")).toBe(expected);
    expect(resolve(OUTPUT)).toContain("src/generated/wire.ts");
  });
});
