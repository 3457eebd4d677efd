// The committed vectors are exactly what scripts/vectors.ts makes from its cases with the
// official package: nobody edited the binary side by hand, and no case was added without it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { VECTORS_FILE, renderVectors } from "../../scripts/vectors.js";

describe("test/fixtures/vectors.json", () => {
  it("is what `npm run vectors` generates from scripts/vector-cases.ts", () => {
    expect(readFileSync(VECTORS_FILE, "utf8")).toBe(renderVectors());
  });
});
