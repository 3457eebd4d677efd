// The import graph of the project's own source, read with the TypeScript parser: which file
// imports which, and so which folder imports which. Used by layers.test.ts; kept apart so the
// test reads as the rules it checks.
//
// An import is every module specifier of the project's own code: a relative one, or one that
// names a workspace package (WORKSPACE), resolved to that package's source as tsconfig.json's
// "paths" do. `import` and `import type`, `export … from`, `import x = require(…)` and
// `import("…")` with a literal all count. Type-only imports count: a folder that needs another's
// types depends on it as much as one that calls it. Other packages' imports are left out.
import { readFileSync, readdirSync } from "node:fs";
import { join, posix, resolve } from "node:path";
import ts from "typescript";

/** One import: the importing file, its line (1-based), and the file it resolves to. */
export interface Import {
  readonly from: string;
  readonly line: number;
  readonly to: string;
  /** Whether it names a workspace package, rather than a relative path. */
  readonly byName?: boolean;
}

/** The workspace packages by name: where each one's source is, and its main module. */
export const WORKSPACE: Readonly<Record<string, { readonly source: string; readonly main?: string }>> = {
  "norsk-manager-contract": { source: "packages/contract/src" },
  "norsk-reference-manager": { source: "packages/reference-manager/src", main: "index.ts" },
  "norsk-manager-client": { source: "packages/client/src", main: "index.ts" },
};

/** Paths are relative to the repository root, with "/" separators. */
export function sourceFiles(root: string, folders: readonly string[], skip: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = posix.join(folder, entry.name);
      if (skip.includes(path)) continue;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) files.push(path);
    }
  };
  for (const folder of folders) walk(folder);
  return files.sort();
}

/** The relative imports of one file, given its text; `file` is its repository path. */
export function importsOf(file: string, text: string): Import[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: ts.Node | undefined): void => {
    if (specifier === undefined || !ts.isStringLiteralLike(specifier)) return;
    const line = source.getLineAndCharacterOfPosition(specifier.getStart(source)).line + 1;
    if (specifier.text.startsWith(".")) found.push({ from: file, line, to: resolveSpecifier(file, specifier.text) });
    else {
      const to = resolvePackage(specifier.text);
      if (to !== undefined) found.push({ from: file, line, to, byName: true });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** "norsk-manager-contract/grpc/x.js" is "packages/contract/src/grpc/x.ts"; undefined for other packages. */
function resolvePackage(specifier: string): string | undefined {
  const [name = "", ...rest] = specifier.split("/");
  const pkg = WORKSPACE[name];
  if (pkg === undefined) return undefined;
  const path = rest.length === 0 ? (pkg.main ?? "index.ts") : rest.join("/").replace(/\.js$/, ".ts");
  return posix.join(pkg.source, path);
}

/** "./x.js" from "src/a/b.ts" is "src/a/x.ts": NodeNext specifiers name the emitted .js file. */
function resolveSpecifier(file: string, specifier: string): string {
  const target = posix.normalize(posix.join(posix.dirname(file), specifier));
  return target.endsWith(".js") ? `${target.slice(0, -".js".length)}.ts` : target;
}

/** Every relative import of `files`, read from disk under `root`. */
export function readImports(root: string, files: readonly string[]): Import[] {
  return files.flatMap((file) => importsOf(file, readFileSync(resolve(root, file), "utf8")));
}

/** A directed graph: each node's successors. */
export type Graph = ReadonlyMap<string, ReadonlySet<string>>;

export function graphOf(edges: Iterable<readonly [string, string]>): Graph {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    if (!graph.has(to)) graph.set(to, new Set());
    let successors = graph.get(from);
    if (successors === undefined) graph.set(from, (successors = new Set()));
    successors.add(to);
  }
  return graph;
}

/**
 * One cycle through each strongly connected component that has one (Tarjan's algorithm, then
 * a shortest path back to the component's first node), each as its nodes in order, the first
 * not repeated at the end. Empty when the graph is acyclic. Deterministic: nodes are visited in
 * sorted order.
 */
export function findCycles(graph: Graph): string[][] {
  const cycles: string[][] = [];
  for (const component of stronglyConnected(graph)) {
    const [start] = component;
    if (start === undefined) continue;
    const selfLoop = graph.get(start)?.has(start) === true;
    if (component.length === 1 && !selfLoop) continue;
    cycles.push(selfLoop ? [start] : shortestCycle(graph, start, new Set(component)));
  }
  return cycles;
}

function sorted(nodes: Iterable<string>): string[] {
  return [...nodes].sort();
}

function stronglyConnected(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of sorted(graph.get(node) ?? [])) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(sorted(component));
  };
  for (const node of sorted(graph.keys())) if (!index.has(node)) connect(node);
  return components;
}

/** A shortest path from `start` back to itself inside `within` (breadth first). */
function shortestCycle(graph: Graph, start: string, within: ReadonlySet<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    for (const next of sorted(graph.get(node) ?? [])) {
      if (!within.has(next)) continue;
      if (next === start) return pathTo(previous, start, node);
      if (previous.has(next)) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  return [start];
}

function pathTo(previous: ReadonlyMap<string, string>, start: string, last: string): string[] {
  const path = [last];
  for (let node = last; node !== start; ) {
    const before = previous.get(node);
    if (before === undefined) break;
    path.unshift(before);
    node = before;
  }
  return path;
}
