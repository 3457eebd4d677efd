// The JSON ⇄ protobuf and query-string vectors (test/fixtures/vectors.json, made by scripts/vectors.ts).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export interface MessageVector {
  name: string;
  type: string;
  note?: string;
  json: Record<string, unknown>;
  binaryHex: string;
}

export interface SearchVector {
  name: string;
  type: "norsk.api.manager.JobSearchRequest";
  query: string;
  binaryHex: string;
}

const repoRoot = resolve(import.meta.dirname, "../..");
const file = resolve(repoRoot, "test/fixtures/vectors.json");
const all = (JSON.parse(readFileSync(file, "utf8")) as { vectors: (MessageVector | SearchVector)[] }).vectors;

export const searchVectors = all.filter((v): v is SearchVector => "query" in v);
export const messageVectors = all.filter((v): v is MessageVector => !("query" in v));

export const bytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, "hex"));
