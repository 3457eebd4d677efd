// The packages of the workspace, and the folders of the gateway's src/ and schemas/, form
// layers (docs/architecture.md, "Layout"). Each package imports only the packages its row of
// PACKAGES names, and only by name (a relative path into another package would not survive
// `npm pack`); each folder imports only the folders its row of LAYERS names; and no import
// cycle joins two folders or two files. A new folder or package, or a new kind of import
// between them, is a deliberate change to these tables.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { WORKSPACE, findCycles, graphOf, importsOf, readImports, sourceFiles } from "./import-graph.js";
import type { Graph, Import } from "./import-graph.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** The gateway's composition root: the files directly in src/ (app.ts, gateway.ts, main.ts, …). */
const TOP = "src/*.ts";

/** The workspace's packages, by the folder that holds each one's package.json. */
const PACKAGE_FOLDERS = {
  "norsk-manager-gateway": ".",
  "norsk-manager-contract": "packages/contract",
  "norsk-reference-manager": "packages/reference-manager",
  "norsk-manager-client": "packages/client",
} as const;
type PackageName = keyof typeof PACKAGE_FOLDERS;

/**
 * Which packages each package may import. The gateway imports the reference Manager only to
 * embed it, from its composition root, as an optional peer.
 */
const PACKAGES: Readonly<Record<PackageName, readonly PackageName[]>> = {
  "norsk-manager-gateway": ["norsk-manager-contract", "norsk-reference-manager"],
  "norsk-reference-manager": ["norsk-manager-contract"],
  "norsk-manager-contract": [],
  // The client runs on the platform alone (a browser included): it imports no package.
  "norsk-manager-client": [],
};

/**
 * Which folders each folder may import, top layer first. A workspace package other than the
 * gateway is one unit ("contract/<folder>" for the contract's folders, "reference-manager" for
 * the whole reference Manager). Imports inside a folder are always allowed (the file-cycle check
 * still applies to them).
 */
const LAYERS: Readonly<Record<string, readonly string[] | "anything">> = {
  [TOP]: "anything",
  "src/routes": ["src/http", "src/operations", "src/json", "contract/grpc", "src/sse", "src/telemetry", "schemas", "contract/gen", "src/auth"],
  "src/operations": ["src/http", "src/json", "contract/grpc", "contract/lexical", "schemas", "contract/gen"],
  "src/sse": ["src/http", "src/json", "contract/grpc", "schemas"],
  "src/server": ["src/http"],
  // Who may call what: the scopes routes declare, and the credentials checked against them.
  "src/auth": ["src/http"],
  // Logs, metrics and traces: they observe requests and calls, and are wired in at the top.
  "src/telemetry": ["src/http", "contract/grpc", "src/sse", "src/auth"],
  "src/openapi": ["schemas", "src/http", "src/json", "src/auth"],
  "src/http": ["contract/grpc", "src/json", "contract/lexical", "schemas"],
  "src/json": ["schemas", "contract/lexical", "contract/gen"],
  "schemas": ["contract/lexical"],
  "reference-manager": ["contract/grpc", "contract/lexical", "contract/gen"],
  client: [],
  "contract/grpc": ["contract/gen"],
  "contract/lexical": [],
  // Generated, never parsed here: it imports only itself and packages.
  "contract/gen": [],
};

/** "schemas", "src/<folder>" (nested folders included), TOP, "contract/<folder>" or "reference-manager". */
function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "packages") {
    if (parts[1] === "contract") return `contract/${parts[3] ?? ""}`;
    return parts[1] ?? file;
  }
  if (parts[0] !== "src") return parts[0] ?? file;
  return parts.length === 2 ? TOP : `src/${parts[1] ?? ""}`;
}

/** The package a file belongs to. */
function packageOf(file: string): PackageName {
  if (file.startsWith("packages/contract/")) return "norsk-manager-contract";
  if (file.startsWith("packages/reference-manager/")) return "norsk-reference-manager";
  if (file.startsWith("packages/client/")) return "norsk-manager-client";
  return "norsk-manager-gateway";
}

/** Imports that cross a package boundary other than as PACKAGES allows, by name. */
function packageViolations(imports: readonly Import[]): string[] {
  const found: string[] = [];
  for (const edge of imports) {
    const from = packageOf(edge.from);
    const to = packageOf(edge.to);
    if (from === to) {
      if (edge.byName === true) found.push(`${from} imports itself by name: ${at(edge)}`);
      continue;
    }
    if (!PACKAGES[from].includes(to)) found.push(`${from} may not import ${to}: ${at(edge)}`);
    else if (edge.byName !== true) found.push(`${from} imports ${to} by a relative path, not by name: ${at(edge)}`);
  }
  return found;
}

/** The packages each package.json declares it uses (dependencies and peers). */
function declaredPackages(name: PackageName): string[] {
  const manifest = JSON.parse(readFileSync(resolve(ROOT, PACKAGE_FOLDERS[name], "package.json"), "utf8")) as {
    name: string;
    dependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };
  expect(manifest.name).toBe(name);
  return Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies }).filter((dependency) => dependency in WORKSPACE);
}

function at(edge: Import): string {
  return `${edge.from}:${edge.line} imports ${edge.to}`;
}

/** Imports from one folder to another. */
interface Crossing {
  readonly from: string;
  readonly to: string;
  /** In file order; never empty. */
  readonly imports: Import[];
}

/** The crossings between folders, keyed "from -> to". */
function crossings(imports: readonly Import[]): Map<string, Crossing> {
  const byEdge = new Map<string, Crossing>();
  for (const edge of imports) {
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    if (from === to) continue;
    const key = `${from} -> ${to}`;
    const crossing = byEdge.get(key) ?? { from, to, imports: [] };
    crossing.imports.push(edge);
    byEdge.set(key, crossing);
  }
  return byEdge;
}

function folderGraph(imports: readonly Import[]): Graph {
  return graphOf([...crossings(imports).values()].map(({ from, to }) => [from, to] as const));
}

/** Imports that LAYERS does not allow, each with where it is. */
function layerViolations(imports: readonly Import[]): string[] {
  const found: string[] = [];
  for (const { from, to, imports: edges } of crossings(imports).values()) {
    const allowed = LAYERS[from];
    const where = edges.map(at).join("; ");
    if (allowed === "anything") continue;
    if (allowed === undefined) found.push(`${from} is not in LAYERS: add its row (${where})`);
    else if (!(to in LAYERS)) found.push(`${to} is not in LAYERS: add its row (${where})`);
    else if (!allowed.includes(to)) found.push(...edges.map((edge) => `${from} may not import ${to}: ${at(edge)}`));
  }
  return found;
}

/** Each folder cycle, with one import that makes each of its steps. */
function describeFolderCycles(imports: readonly Import[]): string[] {
  const byEdge = crossings(imports);
  return findCycles(folderGraph(imports)).map((cycle) => {
    const steps = cycle.map((from, i) => {
      const to = cycle[(i + 1) % cycle.length] ?? from;
      const example = byEdge.get(`${from} -> ${to}`)?.imports[0];
      return `  ${from} -> ${to}${example === undefined ? "" : ` (${at(example)})`}`;
    });
    return [`folder cycle ${[...cycle, cycle[0]].join(" -> ")}:`, ...steps].join("\n");
  });
}

/** Each file cycle, with the line of each of its imports. */
function describeFileCycles(imports: readonly Import[], cycles: readonly (readonly string[])[]): string[] {
  return cycles.map((cycle) => {
    const steps = cycle.map((from, i) => {
      const to = cycle[(i + 1) % cycle.length] ?? from;
      const edge = imports.find((candidate) => candidate.from === from && candidate.to === to);
      return `  ${edge === undefined ? `${from} imports ${to}` : at(edge)}`;
    });
    return [`file cycle ${[...cycle, cycle[0]].join(" -> ")}:`, ...steps].join("\n");
  });
}

function fileCycles(imports: readonly Import[]): string[][] {
  return findCycles(graphOf(imports.map((edge) => [edge.from, edge.to] as const)));
}

describe("the package and folder layers", () => {
  const files = sourceFiles(ROOT, ["src", "schemas", "packages/contract/src", "packages/reference-manager/src", "packages/client/src"], ["packages/contract/src/gen", "packages/client/src/gen"]);
  const imports = readImports(ROOT, files);

  it("reads the source it checks", () => {
    expect(files.length).toBeGreaterThan(80);
    expect(files).toContain("src/app.ts");
    expect(files).toContain("packages/reference-manager/src/store.ts");
    expect(files.some((file) => file.includes("/gen/"))).toBe(false);
    expect(imports.length).toBeGreaterThan(300);
    expect(folderGraph(imports).get(TOP)?.has("src/routes")).toBe(true);
    expect(folderGraph(imports).get("reference-manager")?.has("contract/grpc")).toBe(true);
  });

  it("imports other packages only as PACKAGES allows, and only by name", () => {
    expect(packageViolations(imports)).toEqual([]);
  });

  it("declares in each package.json exactly the workspace packages its source imports", () => {
    for (const name of Object.keys(PACKAGES) as PackageName[]) {
      const imported = new Set(imports.filter((edge) => packageOf(edge.from) === name && packageOf(edge.to) !== name).map((edge) => packageOf(edge.to)));
      expect(declaredPackages(name).sort(), name).toEqual([...imported].sort());
    }
  });

  it("resolves every import to a file that exists", () => {
    const unresolved = imports.filter((edge) => !existsSync(resolve(ROOT, edge.to))).map(at);
    expect(unresolved).toEqual([]);
  });

  it("imports across folders only as LAYERS allows", () => {
    expect(layerViolations(imports)).toEqual([]);
  });

  it("has no import cycle between folders", () => {
    expect(describeFolderCycles(imports)).toEqual([]);
  });

  it("has no import cycle between files", () => {
    expect(describeFileCycles(imports, fileCycles(imports))).toEqual([]);
  });
});

// The checks above pass on an acyclic tree; these show that they would fail on a bad one.
describe("the checks catch what they look for", () => {
  it("finds every kind of import in a file", () => {
    const text = [
      'import { a } from "../http/a.js";',
      'import type { B } from "./b.js";',
      'export { c } from "../../schemas/c.js";',
      'export * from "./d.js";',
      'import e = require("./e.js");',
      'const f = await import("../json/f.js");',
      'import { g } from "fastify";',
      'import { h } from "norsk-manager-contract/grpc/h.js";',
      'import type { I } from "norsk-reference-manager";',
    ].join("\n");
    expect(importsOf("src/routes/x.ts", text).map((edge) => `${edge.line} ${edge.to}`)).toEqual([
      "1 src/http/a.ts",
      "2 src/routes/b.ts",
      "3 schemas/c.ts",
      "4 src/routes/d.ts",
      "5 src/routes/e.ts",
      "6 src/json/f.ts",
      "8 packages/contract/src/grpc/h.ts",
      "9 packages/reference-manager/src/index.ts",
    ]);
  });

  it("finds a planted cycle, and none in an acyclic graph", () => {
    const acyclic = graphOf([["a", "b"], ["b", "c"], ["a", "c"], ["d", "a"]]);
    expect(findCycles(acyclic)).toEqual([]);
    const planted = graphOf([["a", "b"], ["b", "c"], ["c", "a"], ["d", "a"], ["c", "e"], ["e", "e"]]);
    expect(findCycles(planted)).toEqual([["e"], ["a", "b", "c"]]);
  });

  it("names the imports of a folder cycle and a layer violation", () => {
    const planted: Import[] = [
      { from: "src/json/job.ts", line: 6, to: "schemas/job.ts" },
      { from: "schemas/formats.ts", line: 3, to: "src/json/scalars.ts" },
      { from: "packages/contract/src/grpc/client.ts", line: 9, to: "src/http/problem.ts" },
    ];
    expect(describeFolderCycles(planted)).toEqual([
      [
        "folder cycle schemas -> src/json -> schemas:",
        "  schemas -> src/json (schemas/formats.ts:3 imports src/json/scalars.ts)",
        "  src/json -> schemas (src/json/job.ts:6 imports schemas/job.ts)",
      ].join("\n"),
    ]);
    expect(layerViolations(planted)).toEqual([
      "schemas may not import src/json: schemas/formats.ts:3 imports src/json/scalars.ts",
      "contract/grpc may not import src/http: packages/contract/src/grpc/client.ts:9 imports src/http/problem.ts",
    ]);
    expect(packageViolations(planted)).toEqual([
      "norsk-manager-contract may not import norsk-manager-gateway: packages/contract/src/grpc/client.ts:9 imports src/http/problem.ts",
    ]);
    expect(packageViolations([{ from: "src/app.ts", line: 2, to: "packages/contract/src/grpc/client.ts" }])).toEqual([
      "norsk-manager-gateway imports norsk-manager-contract by a relative path, not by name: src/app.ts:2 imports packages/contract/src/grpc/client.ts",
    ]);
  });
});
