// The document works with the ecosystem's generators, as docs/reference/generated-clients.md
// tells a new user to run them: this test reads each generator's section of that page (its
// install commands, its generate command, its tsconfig.json and its first call) and does what
// it says, so that the page and what works cannot drift apart. The versions installed must be
// those of package-lock.json (the ones here in node_modules); the generate command runs in a
// fresh directory holding openapi.yaml; tsc then checks the output and the first call under
// the page's tsconfig.json. (openapi-typescript's types, and a program using them against the
// started command, are also test/e2e/generated-client.test.ts.) A `$ref` into another schema's
// properties is what breaks them (orval then writes types tsc refuses), so the document refers
// to whole components only. Work files go to test-results/generators/.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

const PAGE = "docs/reference/generated-clients.md";
const GENERATOR_NAMES = ["openapi-typescript", "@hey-api/openapi-ts", "orval"] as const;

/** What the page says to do for one generator. */
interface Section {
  /** The install block's lines (`npm ...`). */
  readonly install: readonly string[];
  /** The generate block's lines (`npx <package> ...`). */
  readonly generate: readonly string[];
  /** The tsconfig.json, as the page writes it. */
  readonly tsconfig: { compilerOptions: Record<string, unknown>; include?: string[] };
  /** The first call, as src/main.ts. */
  readonly program: string;
}

/** The fenced blocks of `markdown` under the heading `## name`, up to the next `## `. */
function blocks(markdown: string, name: string): { lang: string; text: string }[] {
  const start = markdown.indexOf(`\n## ${name}\n`);
  if (start === -1) return [];
  const next = markdown.indexOf("\n## ", start + 1);
  const section = markdown.slice(start, next === -1 ? undefined : next);
  return [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((match) => ({ lang: match[1] ?? "", text: match[2] ?? "" }));
}

/** The section for `name`; throws unless it has exactly one block of each kind. */
function section(markdown: string, name: string): Section {
  const found = blocks(markdown, name);
  const lines = (text: string): string[] => text.split("\n").filter((line) => line !== "");
  const sh = found.filter((block) => block.lang === "sh").map((block) => lines(block.text));
  const install = sh.filter((block) => block.every((line) => line.startsWith("npm ")));
  const generate = sh.filter((block) => block.every((line) => line.startsWith("npx ")));
  const json = found.filter((block) => block.lang === "json");
  const ts = found.filter((block) => block.lang === "ts");
  if (install.length !== 1 || generate.length !== 1 || json.length !== 1 || ts.length !== 1 || sh.length !== 2) {
    throw new Error(`${PAGE}, ## ${name}: want one install block, one npx block, one json and one ts block`);
  }
  return {
    install: install[0] ?? [],
    generate: generate[0] ?? [],
    tsconfig: JSON.parse(json[0]?.text ?? "") as Section["tsconfig"],
    program: ts[0]?.text ?? "",
  };
}

/** Every `name@version` that the install lines name. */
function installed(lines: readonly string[]): Record<string, string> {
  const words = lines.flatMap((line) => line.split(/\s+/)).filter((word) => /^@?[^@\s]+@\d/.test(word));
  return Object.fromEntries(words.map((word) => [word.slice(0, word.lastIndexOf("@")), word.slice(word.lastIndexOf("@") + 1)]));
}

const lock = JSON.parse(readFileSync("package-lock.json", "utf8")) as { packages: Record<string, { version?: string }> };

/** `npx <package> args...` as the command npx runs: node, the package's bin, the args. */
function npx(line: string): string[] {
  if (/["'`$\\|&;<>]/.test(line)) throw new Error(`${PAGE}: a command this test cannot run as it is: ${line}`);
  const [, name = "", ...args] = line.split(/\s+/);
  const manifest = JSON.parse(readFileSync(join("node_modules", name, "package.json"), "utf8")) as { bin?: string | Record<string, string> };
  const bins = typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin ?? {});
  if (bins.length !== 1 || bins[0] === undefined) throw new Error(`${name}: want one bin, found ${String(bins.length)}`);
  return [join(process.cwd(), "node_modules", name, bins[0]), ...args];
}

/**
 * tsc's errors on the project `dir` (its tsconfig.json): "" when it type-checks. The directory
 * is inside the repository, whose node_modules hold @types packages that a new user's project
 * does not; unless the page's tsconfig says `types`, none is loaded.
 */
async function typeErrors(dir: string, tsconfig: Section["tsconfig"]): Promise<string> {
  const compilerOptions = { types: [], ...tsconfig.compilerOptions };
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ ...tsconfig, compilerOptions }));
  try {
    await run(process.execPath, [join(process.cwd(), "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json")]);
    return "";
  } catch (error) {
    return String((error as { stdout?: unknown }).stdout ?? error);
  }
}

/** Every `$ref` in `value` that points inside a component rather than at one, with where it is. */
function refsIntoComponents(value: unknown, at = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => refsIntoComponents(item, `${at}/${String(index)}`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => {
    if (key === "$ref" && typeof child === "string" && !/^#\/components\/[A-Za-z]+\/[^/]+$/.test(child)) return [`${at}: ${child}`];
    return refsIntoComponents(child, `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
  });
}

const document: unknown = parse(readFileSync("openapi.yaml", "utf8"));
const page = readFileSync(PAGE, "utf8");

describe("openapi.yaml and the ecosystem's generators, as docs/reference/generated-clients.md runs them", () => {
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

  it.each(GENERATOR_NAMES)("%s: the page installs the versions of package-lock.json", (name) => {
    const versions = installed(section(page, name).install);
    expect(Object.keys(versions)).toEqual(expect.arrayContaining([name, "typescript"]));
    for (const [pkg, version] of Object.entries(versions)) expect(`${pkg}@${version}`).toBe(`${pkg}@${lock.packages[`node_modules/${pkg}`]?.version ?? "?"}`);
    expect(section(page, name).generate.every((line) => line.startsWith(`npx ${name} `))).toBe(true);
  });

  /** A fresh project under `work` for `name`, as the page sets it up, with the page's output and first call in it. */
  async function generated(name: string, label: string): Promise<string> {
    const { install, generate, program } = section(page, name);
    const dir = join(work, `${label}-${name.replaceAll(/[^a-z]/g, "")}`);
    await mkdir(join(dir, "src"), { recursive: true });
    await copyFile("openapi.yaml", join(dir, "openapi.yaml"));
    // `npm init -y && npm pkg set type=module`, as the install block says.
    const type = install.some((line) => line.includes("npm pkg set type=module")) ? "module" : "commonjs";
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "generated", private: true, type }));
    for (const line of generate) await run(process.execPath, npx(line), { cwd: dir, env: { ...process.env, NO_COLOR: "1", SCARF_ANALYTICS: "false" } });
    const written = await readdir(join(dir, "src"), { recursive: true });
    expect(written.filter((file) => file.endsWith(".ts")).length).toBeGreaterThan(0);
    await writeFile(join(dir, "src", "main.ts"), program);
    return dir;
  }

  it.each(GENERATOR_NAMES)("%s: the page's command generates a client that type-checks, with its first call, under the page's tsconfig.json", async (name) => {
    const dir = await generated(name, "page");
    expect(await typeErrors(dir, section(page, name).tsconfig)).toBe("");
  }, 120_000);

  it("finds the errors of @hey-api/openapi-ts's output without DOM.Iterable (the check can fail)", async () => {
    const dir = await generated("@hey-api/openapi-ts", "planted");
    const { tsconfig } = section(page, "@hey-api/openapi-ts");
    const lib = (tsconfig.compilerOptions.lib as string[]).filter((entry) => entry !== "DOM.Iterable");
    expect(lib).not.toEqual(tsconfig.compilerOptions.lib);
    expect(await typeErrors(dir, { ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, lib } })).toMatch(/error TS2339: Property 'entries' does not exist on type 'URLSearchParams'/);
  }, 120_000);

  it("refuses a section without its blocks", () => {
    expect(() => section(page.replace(/```json\n[\s\S]*?```\n/, ""), "openapi-typescript")).toThrow(/want one install block/);
    expect(() => section(page, "no such generator")).toThrow(/want one install block/);
  });
});
