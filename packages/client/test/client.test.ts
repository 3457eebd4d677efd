// Every operation of openapi.yaml is reachable from the client: the document's operationIds,
// walked, each have a method (METHOD_OF_OPERATION), and that method is a function of a client.
// The defaults each option documents (@default) are the ones the client applies (DEFAULTS).
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { createClient, DEFAULTS, METHOD_OF_OPERATION } from "../src/index.js";

interface Document {
  readonly paths: Record<string, Record<string, { readonly operationId?: string }>>;
}

function operationIds(): string[] {
  const document = parse(readFileSync("openapi.yaml", "utf8")) as Document;
  return Object.values(document.paths).flatMap((item) => Object.values(item).flatMap((operation) => (operation.operationId === undefined ? [] : [operation.operationId])));
}

/** The value at a dotted path of `root` ("jobs.instances.list"). */
function at(root: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((value, key) => (typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined), root);
}

describe("the client", () => {
  const client = createClient({ baseUrl: "http://127.0.0.1:1" });

  it("has a method for every operation of openapi.yaml", () => {
    const ids = operationIds();
    expect(ids.length).toBeGreaterThan(20);
    const methods = METHOD_OF_OPERATION as Readonly<Record<string, string>>;
    const missing = ids.filter((id) => methods[id] === undefined || typeof at(client, methods[id]) !== "function");
    expect(missing).toEqual([]);
    expect(Object.keys(methods).sort()).toEqual([...ids].sort());
  });

  it("applies the defaults its options document", () => {
    const source = readFileSync("packages/client/src/core/options.ts", "utf8");
    const documented = new Map<string, string>();
    for (const match of source.matchAll(/@default (\S+)\n\s*\*\/\n\s*readonly (\w+)\?/g)) documented.set(match[2] ?? "", match[1] ?? "");
    for (const [name, value] of Object.entries(DEFAULTS)) expect(documented.get(name), name).toBe(String(value));
  });
});
