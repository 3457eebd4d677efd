// The mirror's own refusals (src/json/mirror.ts), word for word: what a client or a log reads.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { HostPortEphemeralSchema, OciMetadataSchema } from "../../src/gen/norsk/api/common_pb.js";
import { JobSchema } from "../../src/gen/norsk/api/manager_pb.js";
import { messageFromJson, messageToJson } from "../../src/json/mirror.js";
import { issueOf } from "./helpers.js";

describe("messageFromJson on a message with no fields", () => {
  it("names an unknown property and says the message has no properties", () => {
    expect(issueOf(() => messageFromJson(OciMetadataSchema, { region: "x" }))).toEqual({
      pointer: "/region",
      message: 'unknown property "region"; OciMetadata has no properties',
    });
    expect(messageFromJson(HostPortEphemeralSchema, {})).toEqual(create(HostPortEphemeralSchema));
  });
});

describe("messageToJson", () => {
  it("refuses a message of another type, naming both types", () => {
    const wrong = create(OciMetadataSchema) as unknown as ReturnType<typeof create<typeof JobSchema>>;
    expect(() => messageToJson(JobSchema, wrong)).toThrow(
      new TypeError("messageToJson: expected a norsk.api.manager.Job, got a norsk.api.common.OciMetadata"),
    );
  });
});
