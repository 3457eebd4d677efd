import { equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { JobSearchRequestSchema, file_norsk_api_manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { file_norsk_api_common } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { createRegistry } from "@bufbuild/protobuf";
import { messageFromJson, messageToJson } from "../../src/json/mirror.js";
import { searchRequestFromQuery } from "../../src/operations/search-query.js";
import { bytes, messageVectors, searchVectors } from "./vectors.js";

const registry = createRegistry(file_norsk_api_manager, file_norsk_api_common);

function schemaOf(typeName: string) {
  const schema = registry.getMessage(typeName);
  if (schema === undefined) throw new Error(`no message ${typeName}`);
  return schema;
}

describe("message vectors (binary encoded by @norskvideo/norsk-api 1.0.384)", () => {
  it("has message vectors to run", () => {
    expect(messageVectors.length).toBeGreaterThanOrEqual(4);
  });

  for (const vector of messageVectors) {
    describe(vector.name, () => {
      const schema = schemaOf(vector.type);
      const decoded = fromBinary(schema, bytes(vector.binaryHex));

      it("mirrors the decoded binary as exactly the vector's JSON (same keys, same values)", () => {
        expect(messageToJson(schema, decoded)).toStrictEqual(vector.json);
      });

      it("reads the vector's JSON as a message equal to the decoded binary", () => {
        expect(equals(schema, messageFromJson(schema, vector.json), decoded)).toBe(true);
      });

      it("re-encodes the message read from JSON byte for byte", () => {
        const encoded = Buffer.from(toBinary(schema, messageFromJson(schema, vector.json))).toString("hex");
        expect(encoded).toBe(vector.binaryHex);
      });

      it("survives JSON text: JSON.parse(JSON.stringify(json)) reads back the same message", () => {
        const text = JSON.stringify(messageToJson(schema, decoded));
        expect(equals(schema, messageFromJson(schema, JSON.parse(text)), decoded)).toBe(true);
      });
    });
  }
});

describe("search vectors: query string → JobSearchRequest, filters in parameter order", () => {
  it("has search vectors to run", () => {
    expect(searchVectors.length).toBeGreaterThanOrEqual(6);
  });

  for (const vector of searchVectors) {
    it(`${vector.name}: ${vector.query || "(empty)"}`, () => {
      const expected = fromBinary(JobSearchRequestSchema, bytes(vector.binaryHex));
      const { request, limit } = searchRequestFromQuery(vector.query);
      expect(equals(JobSearchRequestSchema, request, expected)).toBe(true);
      expect(Buffer.from(toBinary(JobSearchRequestSchema, request)).toString("hex")).toBe(vector.binaryHex);
      expect(limit).toBeUndefined();
    });
  }
});
