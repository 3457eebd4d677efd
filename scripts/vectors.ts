// Writes test/fixtures/vectors.json from scripts/vector-cases.ts: each case's JSON as written,
// and its binary side as the official @norskvideo/norsk-api 1.0.384 package encodes it.
// `npm run vectors` after adding or changing a case; test/json/vectors-fresh.test.ts fails while
// the committed file differs from what this makes.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { MESSAGE_CASES, SEARCH_CASES } from "./vector-cases.js";

export const VECTORS_FILE = resolve(import.meta.dirname, "../test/fixtures/vectors.json");

const ABOUT =
  "JSON mirror <-> protobuf pairs, made by scripts/vectors.ts from scripts/vector-cases.ts. binaryHex was encoded by " +
  "@norskvideo/norsk-api 1.0.384 (its classes for Job fields 1-15 and the search messages; its BinaryWriter for the " +
  "project's own Job fields 16-25). For a message vector: decoding binaryHex and mirroring gives json; reading json " +
  "gives a message equal to the decoded binary. For a search vector: the query string gives a JobSearchRequest equal " +
  "to the decoded binary, filters in the order of the parameters.";

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

/** The file's whole text. */
export function renderVectors(): string {
  const vectors = [
    ...MESSAGE_CASES.map(({ binary, ...rest }) => ({ ...rest, binaryHex: hex(binary()) })),
    ...SEARCH_CASES.map(({ binary, ...rest }) => ({ ...rest, binaryHex: hex(binary()) })),
  ];
  return `${JSON.stringify({ about: ABOUT, vectors }, null, 2)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writeFileSync(VECTORS_FILE, renderVectors());
  console.log(`wrote ${VECTORS_FILE}`);
}
