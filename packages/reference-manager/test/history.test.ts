import { describe, expect, it } from "vitest";
import { create, equals, toBinary } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { JobHistoryEntrySchema, JobHistoryJobStopping_Reason, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { NodeMetadataSchema } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import {
  completedEntry,
  createdEntry,
  decodeEntry,
  runningEntry,
  stoppedEntry,
  stoppingEntry,
  updatedEntry,
} from "../src/history.js";
import { fullJob } from "./harness.js";

const t = (seconds: bigint, nanos: number): Timestamp => ({ $typeName: "google.protobuf.Timestamp", seconds, nanos });

describe("history entries", () => {
  it.each([
    ["an ordinary time", t(1_767_225_600n, 123_000_000)],
    ["the epoch", t(0n, 0)],
    ["whole seconds", t(5n, 0)],
    ["nanos only", t(0n, 1)],
    ["before the epoch", t(-62_135_596_800n, 999_999_999)],
  ])("writes job_updated at %s exactly as protobuf-es would", (_name, timestamp) => {
    const expected = toBinary(JobHistoryEntrySchema, create(JobHistoryEntrySchema, { historyEntry: { case: "jobUpdated", value: { timestamp } } }));
    expect(updatedEntry(timestamp)).toEqual(expected);
  });

  it("puts the replaced job back as previous_job when decoding, byte for byte", () => {
    const previous = fullJob("p", { currentHash: -7n });
    const entry = decodeEntry({ entry: updatedEntry(t(9n, 9)), replaced: toBinary(JobSchema, previous) });
    expect(entry.historyEntry.case).toBe("jobUpdated");
    if (entry.historyEntry.case !== "jobUpdated") return;
    expect(entry.historyEntry.value.timestamp).toMatchObject({ seconds: 9n, nanos: 9 });
    expect(equals(JobSchema, entry.historyEntry.value.previousJob ?? create(JobSchema), previous)).toBe(true);
  });

  it("decodes each kind of entry it builds", () => {
    const placement = { role: "primary", nodeMetadata: create(NodeMetadataSchema, { nodeId: { nodeId: "n1" } }), runningNodeMetadata: undefined };
    const now = t(1n, 2);
    const cases = [
      createdEntry(now),
      updatedEntry(now),
      runningEntry(now, placement),
      stoppingEntry(now, placement, JobHistoryJobStopping_Reason.JOB_STOPPED_NODE_TERMINATED),
      stoppedEntry(now, placement),
      completedEntry(now),
    ].map((bytes) => decodeEntry({ entry: bytes, replaced: undefined }).historyEntry);
    expect(cases.map((c) => c.case)).toEqual(["jobCreated", "jobUpdated", "jobRunning", "jobStopping", "jobStopped", "jobCompleted"]);
    for (const c of cases) expect(c.value?.timestamp).toMatchObject({ seconds: 1n, nanos: 2 });
    const stopping = cases[3];
    if (stopping?.case !== "jobStopping") throw new Error("expected jobStopping");
    expect(stopping.value.reason).toBe(JobHistoryJobStopping_Reason.JOB_STOPPED_NODE_TERMINATED);
    expect(stopping.value.role).toBe("primary");
    expect(stopping.value.nodeMetadata?.nodeId?.nodeId).toBe("n1");
  });
});
