import { create, equals } from "@bufbuild/protobuf";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JobIdSchema, Log_Level, file_norsk_api_common } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import {
  CurrentJobSchema,
  EventStreamEventSchema,
  JobHistoryJobRunningSchema,
  NodeStopping_Reason,
  NorskStatusEventSchema,
  file_norsk_api_manager,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { messageFromJson, messageToJson } from "../../src/json/mirror.js";
import { messageArbitrary } from "./message-arbitrary.js";

describe("events, nodes, status: the same mirror", () => {
  it("mirrors an EventStreamEvent oneof as exactly one sibling property", () => {
    const event = create(EventStreamEventSchema, {
      event: { case: "nodeStopping", value: { nodeId: { nodeId: "n-1" }, reason: NodeStopping_Reason.USER_REQUESTED } },
    });
    expect(messageToJson(EventStreamEventSchema, event)).toStrictEqual({ nodeStopping: { nodeId: "n-1", reason: "user_requested" } });
    expect(messageToJson(EventStreamEventSchema, create(EventStreamEventSchema))).toStrictEqual({});
  });

  it("mirrors a job update with its history, a map of messages included", () => {
    const json = {
      jobUpdated: {
        jobWithHistory: {
          job: {
            jobId: "j",
            description: "",
            tags: {},
            startDateTime: "2025-12-02T10:00:00.500Z",
            currentHash: "7",
            services: [],
            norskMediaVersion: "lts",
            state: "active",
            shape: "",
            architecture: "",
            subnet: "",
            availabilityDomain: "",
            cloud: "aws",
          },
          historyEntry: [
            { jobCreated: { timestamp: "2025-12-01T00:00:00Z" } },
            {
              jobRunning: {
                role: "primary",
                servicePortMappings: { norsk: { mappings: [{ url: "http://h:1", target: 1, published: 2, protocol: "tcp" }] } },
              },
            },
          ],
        },
      },
    };
    const event = messageFromJson(EventStreamEventSchema, json);
    expect(messageToJson(EventStreamEventSchema, event)).toStrictEqual(json);
  });

  it("keeps a map<string, message> key named __proto__", () => {
    const json: unknown = JSON.parse('{"role":"r","servicePortMappings":{"__proto__":{"mappings":[]}}}');
    const running = messageFromJson(JobHistoryJobRunningSchema, json);
    expect(Object.hasOwn(running.servicePortMappings, "__proto__")).toBe(true);
    expect(messageToJson(JobHistoryJobRunningSchema, running)).toStrictEqual(json);
  });

  it("writes a log event's uint64 timestamp as a string and its level by name", () => {
    const status = create(NorskStatusEventSchema, { message: { case: "logEvent", value: { level: Log_Level.INFO, timestamp: 1764669600123n, msg: "hi" } } });
    expect(messageToJson(NorskStatusEventSchema, status)).toStrictEqual({
      logEvent: { level: "info", timestamp: "1764669600123", msg: "hi", metadata: "" },
    });
  });

  it("mirrors CurrentJob.instances as RunningJobs with flattened ids", () => {
    const current = messageFromJson(CurrentJobSchema, { instances: [{ jobKey: { jobId: "j", role: "r" }, nodeId: "n" }, {}] });
    expect(messageToJson(CurrentJobSchema, current)).toStrictEqual({ instances: [{ jobKey: { jobId: "j", role: "r" }, nodeId: "n" }, {}] });
  });

  it("writes a top-level wrapper as its object form ({jobId}), not flattened", () => {
    expect(messageToJson(JobIdSchema, create(JobIdSchema, { jobId: "j" }))).toStrictEqual({ jobId: "j" });
  });
});

const everyMessage: DescMessage[] = [file_norsk_api_manager, file_norsk_api_common].flatMap((file) => {
  const all: DescMessage[] = [];
  const walk = (messages: DescMessage[]) => {
    for (const m of messages) {
      all.push(m);
      walk(m.nestedMessages);
    }
  };
  walk(file.messages);
  return all;
});

describe("every message of the contract round-trips (fast-check, descriptor-driven)", () => {
  it("covers all the messages", () => {
    expect(everyMessage.length).toBeGreaterThan(80);
  });

  it.each(everyMessage.map((d) => [d.typeName, d] as const))("%s: protobuf → JSON → protobuf and JSON → protobuf → JSON", (_name, desc) => {
    fc.assert(
      fc.property(messageArbitrary(desc), (drawn) => {
        const message = drawn as MessageShape<DescMessage>;
        const json = messageToJson(desc, message);
        const back = messageFromJson(desc, JSON.parse(JSON.stringify(json)));
        expect(equals(desc, back, message)).toBe(true);
        // Compared as text: same keys, same order, same values. (toStrictEqual would read an own
        // map key "constructor" as the object's constructor.)
        expect(JSON.stringify(messageToJson(desc, back))).toBe(JSON.stringify(json));
      }),
      { numRuns: 40 },
    );
  });
});
