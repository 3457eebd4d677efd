// The document works with the ecosystem's generators, not only the one the project uses:
// @hey-api/openapi-ts and orval each generate a fetch client from openapi.yaml, and `tsc
// --strict` accepts what they wrote. (openapi-typescript's types, and a program using them
// against the started command, are test/e2e/generated-client.test.ts.) A `$ref` into another
// schema's properties is what breaks them (orval then writes types tsc refuses), so the
// document refers to whole components only. Work files go to test-results/generators/.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

/** The generators, each as the command a user runs, writing into `out` from `input`. */
const GENERATORS: Readonly<Record<string, (input: string, out: string) => readonly string[]>> = {
  "@hey-api/openapi-ts": (input, out) => ["node_modules/@hey-api/openapi-ts/bin/run.js", "--input", input, "--output", out],
  orval: (input, out) => ["node_modules/orval/dist/bin/orval.js", "--input", input, "--output", join(out, "client.ts"), "--client", "fetch", "--mode", "single"],
};

/** Every `$ref` in `value` that points inside a component rather than at one, with where it is. */
function refsIntoComponents(value: unknown, at = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => refsIntoComponents(item, `${at}/${String(index)}`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    if (key === "$ref" && typeof child === "string" && !/^#\/components\/[A-Za-z]+\/[^/]+$/.test(child)) return [`${at}: ${child}`];
    return refsIntoComponents(child, `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
  });
}

/** tsc --strict's errors on every .ts file under `dir`: "" when it type-checks. */
async function strictErrors(dir: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith(".ts")).map((file) => resolve(dir, file));
  const tsconfig = {
    compilerOptions: { strict: true, noEmit: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], skipLibCheck: true },
    files,
  };
  const project = join(dir, "..", `${dir.split("/").at(-1) ?? "run"}.tsconfig.json`);
  await writeFile(project, JSON.stringify(tsconfig));
  try {
    await run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", project]);
    return "";
  } catch (error) {
    return String((error as { stdout?: unknown }).stdout ?? error);
  }
}

const document: unknown = parse(readFileSync("openapi.yaml", "utf8"));

describe("openapi.yaml and the ecosystem's generators", () => {
  let work: string;

  beforeAll(async () => {
    await mkdir("test-results/generators", { recursive: true });
    work = await mkdtemp("test-results/generators/run-");
  });

  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("refers only to whole components", () => {
    expect(refsIntoComponents(document)).toEqual([]);
  });

  it("finds a $ref into a component's properties (the check can fail)", () => {
    const planted = { components: { schemas: { JobPatch: { properties: { tags: { $ref: "#/components/schemas/JobInput/properties/tags" } } } } } };
    expect(refsIntoComponents(planted)).toEqual(["/components/schemas/JobPatch/properties/tags: #/components/schemas/JobInput/properties/tags"]);
  });

  it.each(Object.keys(GENERATORS))("%s generates a client that tsc --strict accepts", async (name) => {
    const out = join(work, name.replaceAll(/[^a-z]/g, ""));
    const args = GENERATORS[name]?.("openapi.yaml", out) ?? [];
    await run(process.execPath, args, { env: { ...process.env, NO_COLOR: "1", SCARF_ANALYTICS: "false" } });
    const written = await readdir(out, { recursive: true });
    expect(written.filter((file) => file.endsWith(".ts")).length).toBeGreaterThan(0);
    expect(await strictErrors(out)).toBe("");
  }, 120_000);
});
