// The command's node flags are said once, on the first line of src/main.ts; every other way
// this repository starts the gateway (npm start, the image's entry point, the built script the
// benchmarks read) must carry the same ones, or the gateway a user runs is not the one measured.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (file: string): string => readFileSync(resolve(ROOT, file), "utf8");

/** The flags of a `#!/usr/bin/env -S node <flags>` first line. */
function shebangFlags(text: string): string[] {
  const match = /^#!\/usr\/bin\/env -S node((?: --?[a-z][a-z0-9-]*(?:=\S+)?)*)\n/.exec(text);
  if (match === null) throw new Error(`not a node shebang with flags: ${text.split("\n", 1)[0] ?? ""}`);
  return (match[1] ?? "").split(" ").filter((flag) => flag !== "");
}

const FLAGS = shebangFlags(read("src/main.ts"));

describe("the command's node flags", () => {
  it("are given on the first line of src/main.ts, and the young generation is among them", () => {
    expect(FLAGS).toContain("--max-semi-space-size=32");
  });

  it("are kept by the build, whose first line the bin and the benchmarks run", () => {
    expect(shebangFlags(read("dist/src/main.js"))).toEqual(FLAGS);
  });

  it("are npm start's", () => {
    const { scripts } = JSON.parse(read("package.json")) as { scripts: Record<string, string> };
    expect(scripts.start).toBe(["node", ...FLAGS, "dist/src/main.js"].join(" "));
  });

  it("are the image's entry point's", () => {
    // The gateway's stage: the Dockerfile builds the reference Manager's image too.
    const entrypoint = [...read("Dockerfile").matchAll(/^ENTRYPOINT (\[.*\])$/gm)].map((match) => match[1] ?? "").find((line) => line.includes("norsk-manager-gateway"));
    expect(JSON.parse(entrypoint ?? "null")).toEqual(["node", ...FLAGS, "/app/node_modules/norsk-manager-gateway/dist/src/main.js"]);
  });
});
